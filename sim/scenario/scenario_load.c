/* SPDX-License-Identifier: Apache-2.0 */
/* Loading a scenario: reading the file, the top-level keys, and freeing. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"

/* Joins a host path to the scenario's directory unless it is absolute. */
static char *resolve(const char *file, const char *rel)
{
    const char *slash = strrchr(file, '/');
    char *out = NULL;
    if (rel[0] == '/' || !slash)
        return strdup(rel);
    if (asprintf(&out, "%.*s/%s", (int)(slash - file), file, rel) < 0)
        return NULL;
    return out;
}

static bool parse_host(gd_parser *p, json_t *root, gd_scenario *sc)
{
    json_t *host;
    if (!gdp_object(p, root, "host", "", &host))
        return false;
    if (!host)
        return true;
    char *sysfs = NULL, *klog = NULL, *proc = NULL;
    bool ok = gdp_string(p, host, "sysfs", "host", &sysfs) && gdp_string(p, host, "kernel_log", "host", &klog) &&
              gdp_string(p, host, "proc", "host", &proc) &&
              gdp_int(p, host, "numa_nodes", "host", 0, 4096, &sc->host.numa_nodes) &&
              gdp_string(p, host, "hostname", "host", &sc->host.hostname) &&
              gdp_string(p, host, "kernel", "host", &sc->host.kernel) &&
              gdp_int(p, host, "cpus", "host", 1, 1 << 20, &sc->host.cpus);
    if (ok && sysfs && !(sc->host.sysfs = resolve(p->file, sysfs)))
        ok = gdp_fail(p, "host.sysfs", "out of memory");
    if (ok && klog && !(sc->host.kernel_log = resolve(p->file, klog)))
        ok = gdp_fail(p, "host.kernel_log", "out of memory");
    if (ok && proc && !(sc->host.proc = resolve(p->file, proc)))
        ok = gdp_fail(p, "host.proc", "out of memory");
    free(sysfs);
    free(klog);
    free(proc);
    return ok;
}

static bool parse_gpus(gd_parser *p, json_t *root, gd_scenario *sc)
{
    json_t *gpus;
    if (!gdp_array(p, root, "gpus", "", &gpus))
        return false;
    if (!gpus)
        return gdp_fail(p, "gpus", "missing (list the GPUs, or write \"gpus\": [] for none)");
    size_t n = json_array_size(gpus);
    if (n > GD_SCENARIO_MAX_GPUS)
        return gdp_fail(p, "gpus", "%zu GPUs, more than the limit of %d", n, GD_SCENARIO_MAX_GPUS);
    sc->gpus = n ? calloc(n, sizeof *sc->gpus) : NULL;
    if (n && !sc->gpus)
        return gdp_fail(p, "gpus", "out of memory");
    for (size_t i = 0; i < n; i++) {
        char at[GD_SCENARIO_PATH_MAX];
        json_t *obj = json_array_get(gpus, i);
        gdp_index(at, "gpus", i);
        sc->gpu_count = i + 1;
        sc->gpus[i].index = (unsigned)i;
        if (!json_is_object(obj))
            return gdp_fail(p, at, "expected an object");
        if (!gdp_gpu(p, obj, at, &sc->gpus[i]))
            return false;
    }
    return true;
}

static bool parse_root(gd_parser *p, json_t *root, gd_scenario *sc)
{
    gd_scenario_num timescale;
    if (!gdp_string(p, root, "description", "", &sc->description) ||
        !gdp_string(p, root, "driver_version", "", &sc->driver_version) ||
        !gdp_int(p, root, "cuda_driver_version", "", 0, INT_MAX, &sc->cuda_driver_version) ||
        !gdp_num(p, root, "timescale", "", -HUGE_VAL, HUGE_VAL, &timescale))
        return false;
    sc->timescale = timescale.present ? timescale.value : 1.0;
    if (!(sc->timescale > 0 && isfinite(sc->timescale)))
        return gdp_fail(p, "timescale", "must be a positive number (got %g)", sc->timescale);
    return parse_host(p, root, sc) && gdp_errors(p, root, "", true, 0, &sc->errors) && parse_gpus(p, root, sc) &&
           gdp_net(p, root, &sc->net);
}

gd_scenario *gd_scenario_load_buffer(const char *data, size_t len, const char *name, char *err, size_t errlen)
{
    gd_parser p = {name ? name : "(scenario)", err, errlen};
    json_error_t je;
    if (len > GD_SCENARIO_MAX_FILE_BYTES) {
        if (err && errlen)
            snprintf(err, errlen, "%s: %zu bytes, over the %zu MiB limit for scenarios", p.file, len,
                     GD_SCENARIO_MAX_FILE_BYTES >> 20);
        return NULL;
    }
    json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        if (err && errlen)
            snprintf(err, errlen, "%s: line %d column %d: JSON syntax error: %s", p.file, je.line, je.column, je.text);
        return NULL;
    }
    gd_scenario *sc = calloc(1, sizeof *sc);
    bool ok = sc && (sc->path = strdup(p.file));
    if (!ok)
        gdp_fail(&p, "", "out of memory");
    else if (!json_is_object(root))
        ok = gdp_fail(&p, "", "expected an object");
    else
        ok = parse_root(&p, root, sc) && (gdp_index_process_names(sc) || gdp_fail(&p, "", "out of memory"));
    json_decref(root);
    if (!ok) {
        gd_scenario_free(sc);
        return NULL;
    }
    return sc;
}

/* Reads all of f, refusing more than the size limit. */
static char *read_all(FILE *f, const char *path, size_t *len, char *err, size_t errlen)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (ferror(f)) {
            snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
            break;
        }
        if (n > GD_SCENARIO_MAX_FILE_BYTES) {
            snprintf(err, errlen, "%s: larger than the %zu MiB limit for scenarios", path,
                     GD_SCENARIO_MAX_FILE_BYTES >> 20);
            break;
        }
        if (feof(f)) {
            *len = n;
            return buf;
        }
        if (n == cap) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger)
                break;
            buf = bigger;
            cap *= 2;
        }
    }
    if (!buf)
        snprintf(err, errlen, "%s: out of memory", path);
    free(buf);
    return NULL;
}

gd_scenario *gd_scenario_load(const char *path, char *err, size_t errlen)
{
    char dummy[1];
    if (!err || !errlen) {
        err = dummy;
        errlen = sizeof dummy;
    }
    /* Non-blocking open: a FIFO would otherwise hang here, before any check.
     * The simulated driver reads the file again by name, so only a regular
     * file describes one machine to both. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st = {0};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen,
                 "%s: %s: a scenario must be a regular file, because the simulated driver reads it again "
                 "(save it to a file first)",
                 path,
                 S_ISDIR(st.st_mode)    ? "a directory"
                 : S_ISFIFO(st.st_mode) ? "a pipe or FIFO"
                                        : "not a regular file");
        close(fd);
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    size_t len = 0;
    char *data = read_all(f, path, &len, err, errlen);
    fclose(f);
    if (!data)
        return NULL;
    gd_scenario *sc = gd_scenario_load_buffer(data, len, path, err, errlen);
    free(data);
    return sc;
}

void gd_scenario_free(gd_scenario *sc)
{
    if (!sc)
        return;
    for (size_t i = 0; i < sc->gpu_count; i++)
        gdp_gpu_free(&sc->gpus[i]);
    free(sc->gpus);
    free(sc->pid_names);
    gdp_errors_free(&sc->errors);
    gdp_net_free(&sc->net);
    free(sc->host.sysfs);
    free(sc->host.kernel_log);
    free(sc->host.hostname);
    free(sc->host.kernel);
    free(sc->host.proc);
    free(sc->description);
    free(sc->driver_version);
    free(sc->path);
    free(sc);
}
