/* Collection: snapshot + sampled window, from NVML or the simulator. */
#include "collect.h"

#include "core/clock.h"

#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"
#include "host/hostinfo.h"
#include "import/import.h"
#include "nvml/nvml_backend.h"
#include "scenario/scenario.h"

#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int gd_sim_dir(char *out, size_t len)
{
    const char *env = getenv("GPUDOCTOR_SIM_DIR");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    snprintf(out, len, "%s", exe);
    return 0;
}

/* GPUDOCTOR_SIM_TIMESCALE, when set: scenario seconds per wall second; 0
 * (the default) plays the scenario as fast as the CPU allows. */
static int sim_pace(double *pace, char *err, size_t errlen)
{
    const char *v = getenv("GPUDOCTOR_SIM_TIMESCALE");
    *pace = 0;
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end || errno || !(x > 0) || !isfinite(x)) {
        snprintf(err, errlen, "GPUDOCTOR_SIM_TIMESCALE: \"%s\" is not a positive number", v);
        return -1;
    }
    *pace = x;
    return 0;
}

/* Validates the scenario (clear message, exit 3), points the simulated
 * libraries at it and fills what the scenario says of the host. */
static int prepare_sim(const char *scenario, gd_facts *f, char *lib, size_t liblen, char *err, size_t errlen)
{
    /* The simulated NVML library opens the scenario again by its path: a
     * pipe (/dev/stdin, <(...)) would be empty by then, a FIFO would block. */
    struct stat st;
    if (stat(scenario, &st) != 0) {
        snprintf(err, errlen, "%s: %s", scenario, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "--sim %s: not a regular file; --sim needs one, because the simulated driver reads it "
                 "again (save the scenario to a file first)", scenario);
        return -1;
    }
    gd_scenario *sc = gd_scenario_load(scenario, err, errlen);
    if (!sc)
        return -1;
    if (sc->host.numa_nodes.present)
        f->host.numa_nodes = (int)sc->host.numa_nodes.value;
    if (sc->host.cpus.present)
        f->host.cpus = (int)sc->host.cpus.value;
    snprintf(f->host.hostname, sizeof f->host.hostname, "%s", sc->host.hostname ? sc->host.hostname : "");
    snprintf(f->host.kernel, sizeof f->host.kernel, "%s", sc->host.kernel ? sc->host.kernel : "");
    /* The scenario's own host, never this machine's. */
    snprintf(f->sysfs_root, sizeof f->sysfs_root, "%s", sc->host.sysfs ? sc->host.sysfs : "");
    snprintf(f->kernel_log, sizeof f->kernel_log, "%s", sc->host.kernel_log ? sc->host.kernel_log : "");
    /* The scenario's processes live in its own /proc, or nowhere: never this machine's. */
    snprintf(f->proc_root, sizeof f->proc_root, "%s", sc->host.proc ? sc->host.proc : "");
    gd_scenario_free(sc);

    char abs[PATH_MAX];
    if (!realpath(scenario, abs)) {
        snprintf(err, errlen, "%s: %s", scenario, strerror(errno));
        return -1;
    }
    setenv("GPUDOCTOR_SIM_SCENARIO", abs, 1);
    char dir[PATH_MAX];
    if (gd_sim_dir(dir, sizeof dir) != 0) {
        snprintf(err, errlen, "cannot find the directory of the simulated libraries (set GPUDOCTOR_SIM_DIR)");
        return -1;
    }
    snprintf(lib, liblen, "%s/libnvidia-ml.so.1", dir);
    /* The CUDA benchmarks find the simulated libcuda the same way. */
    char cuda[PATH_MAX + 32];
    snprintf(cuda, sizeof cuda, "%s/libcuda.so.1", dir);
    setenv("GPUDOCTOR_CUDA_LIBRARY", cuda, 1);
    if (access(lib, R_OK) != 0) {
        snprintf(err, errlen, "simulated NVML library not found at %s (run 'make' first)", lib);
        return -1;
    }
    f->simulated = true;
    snprintf(f->source, sizeof f->source, "sim:%s", scenario);
    return 0;
}

/* The areas read from the host rather than NVML. */
static int collect_host_areas(const gd_collect_opts *o, gd_facts *f, char *err, size_t errlen)
{
    if (gd_pcie_collect(f) != 0) {
        snprintf(err, errlen, "cannot read the PCIe facts");
        return -1;
    }
    gd_stack_opts so = {.python = o->python, .python_count = o->python_count};
    if (gd_stack_collect(f, &so) != 0) {
        snprintf(err, errlen, "cannot read the software stack facts");
        return -1;
    }
    return 0;
}

int gd_collect(const gd_collect_opts *o, gd_facts *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    if (gd_stack_root_check(err, errlen) != 0) /* before a window is spent */
        return -1;
    f->window_s = o->duration_s;
    f->interval_s = o->interval_s;
    f->pid = o->pid;
    snprintf(f->sysfs_root, sizeof f->sysfs_root, "/sys");
    snprintf(f->proc_root, sizeof f->proc_root, "/proc");
    if (o->from_count) {
        /* Captured files describe another machine: none of this one's facts
         * (the host's name where a capture carries it). */
        f->sysfs_root[0] = f->proc_root[0] = '\0';
        return gd_import_files(o->from, o->from_count, f, err, errlen);
    }

    char lib[PATH_MAX + 32] = "";
    if (o->sim_scenario) {
        if (prepare_sim(o->sim_scenario, f, lib, sizeof lib, err, errlen) != 0)
            return -1;
    } else {
        gd_host_read("/sys", &f->host);
        snprintf(f->source, sizeof f->source, "nvml");
    }

    gd_nvml_session s;
    char why[512];
    if (gd_nvml_open(&s, lib[0] ? lib : NULL, why, sizeof why) != 0) {
        if (o->sim_scenario) { /* the simulator always loads: this is a scenario problem */
            snprintf(err, errlen, "%s", why);
            return -1;
        }
        f->driver_loaded = false;
        snprintf(f->driver_error, sizeof f->driver_error, "%s", why);
        return collect_host_areas(o, f, err, errlen);
    }
    int rc = -1;
    if (o->sim_scenario && s.api.SimClockSet)
        s.api.SimClockSet(0); /* the snapshot is taken at scenario time 0 */
    if (gd_nvml_snapshot(&s, f) != 0 || gd_series_init(&f->series, f->gpu_count) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    /* Bounded: the window's samples, at most GD_RETENTION_S worth. */
    double span = o->duration_s < GD_RETENTION_S ? o->duration_s : GD_RETENTION_S;
    gd_series_set_limit(&f->series, (size_t)(span / o->interval_s + 1.5));
    /* A simulated machine runs on scenario time: as fast as the CPU allows,
     * or paced by GPUDOCTOR_SIM_TIMESCALE (docs/scenarios.md). */
    gd_clock clock;
    double pace = 0;
    if (o->sim_scenario && sim_pace(&pace, err, errlen) != 0)
        goto out;
    gd_clock_start(&clock, !o->sim_scenario ? GD_CLOCK_WALL : pace > 0 ? GD_CLOCK_PACED : GD_CLOCK_FAST, pace);
    for (size_t k = 0;; k++) {
        double due = (double)k * o->interval_s;
        if (k > 0 && (due > o->duration_s + 1e-9 || (o->stop && *o->stop)))
            break;
        gd_clock_wait_until(&clock, due);
        if (k > 0 && o->stop && *o->stop)
            break;
        if (gd_clock_virtual(&clock) && s.api.SimClockSet)
            s.api.SimClockSet(due);
        long i = gd_series_push(&f->series, gd_clock_virtual(&clock) ? due : gd_clock_now(&clock));
        if (i < 0) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        gd_nvml_sample(&s, f, (size_t)i);
        if (o->progress)
            o->progress(o->progress_ud, gd_series_t(&f->series, i), o->duration_s, f->gpu_count);
        if (o->duration_s <= 0)
            break;
    }
    rc = 0;
out:
    gd_nvml_close(&s);
    /* Host areas last: PCIe links are read while the GPUs are still loaded. */
    return rc != 0 ? rc : collect_host_areas(o, f, err, errlen);
}
