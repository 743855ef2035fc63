/* SPDX-License-Identifier: Apache-2.0 */
/* A process of the job's tree from its /proc entry (proc_tree.h). */
#include "proc_tree.h"

#include "sources/host/hostinfo.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *base_name(const char *s)
{
    const char *b = strrchr(s, '/');
    return b ? b + 1 : s;
}

/* python, python3, python3.11, pypy3: an interpreter. */
static bool is_python(const char *name)
{
    return strncmp(name, "python", 6) == 0 || strncmp(name, "pypy", 4) == 0;
}

void gd_proc_parse_cmdline(const char *cmdline, size_t len, gd_job_proc *p)
{
    const char *args[64];
    size_t n = 0;
    for (size_t i = 0; i < len && n < 64;) {
        size_t k = strnlen(cmdline + i, len - i);
        if (i + k >= len) /* the last argument without its NUL: not ours to trust */
            break;
        args[n++] = cmdline + i;
        i += k + 1;
    }
    if (n == 0)
        return;
    const char *prog = base_name(args[0]);
    p->python = is_python(prog) || is_python(p->comm);
    for (size_t i = 1; p->python && i < n; i++) {
        const char *a = args[i];
        if (strcmp(a, "-m") == 0 && i + 1 < n) {
            prog = args[i + 1];
            break;
        }
        if (strncmp(a, "-m", 2) == 0 && a[2]) {
            prog = a + 2;
            break;
        }
        if (strcmp(a, "-c") == 0 || strncmp(a, "-c", 2) == 0) {
            prog = "-c";
            break;
        }
        if ((strcmp(a, "-X") == 0 || strcmp(a, "-W") == 0) && i + 1 < n) {
            i++;
            continue;
        }
        if (a[0] == '-')
            continue;
        prog = base_name(a);
        break;
    }
    snprintf(p->prog, sizeof p->prog, "%.31s", prog);
}

/* VALUE of NAME=VALUE at the start of entry e, or NULL. */
static const char *env_value(const char *e, const char *name)
{
    size_t n = strlen(name);
    return strncmp(e, name, n) == 0 && e[n] == '=' ? e + n + 1 : NULL;
}

void gd_proc_parse_environ(const char *env, size_t len, gd_job_proc *p)
{
    static const char *const ranks[] = {"RANK", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                        "SLURM_PROCID"};
    int best = 6; /* the first name of `ranks` found wins */
    for (size_t i = 0; i < len;) {
        size_t k = strnlen(env + i, len - i);
        if (i + k >= len)
            break;
        const char *e = env + i, *v;
        i += k + 1;
        if ((v = env_value(e, "CUDA_VISIBLE_DEVICES"))) {
            p->has_cuda_visible = true;
            snprintf(p->cuda_visible, sizeof p->cuda_visible, "%.127s", v);
        } else if ((v = env_value(e, "NVIDIA_VISIBLE_DEVICES"))) {
            p->has_nvidia_visible = true;
            snprintf(p->nvidia_visible, sizeof p->nvidia_visible, "%.127s", v);
        }
        for (int r = 0; r < best; r++) {
            if (!(v = env_value(e, ranks[r])) || !isdigit((unsigned char)v[0]))
                continue;
            char *end;
            long x = strtol(v, &end, 10);
            if (*end == '\0' && x >= 0 && x < 1 << 24) {
                p->rank = (int)x;
                best = r;
            }
            break;
        }
    }
}

void gd_proc_parse_maps_line(const char *line, gd_job_proc *p)
{
    const char *path = strchr(line, '/');
    if (!path)
        return;
    const char *b = base_name(path);
    if (strncmp(b, "libcuda.so", 10) == 0)
        p->cuda = true;
    if (strncmp(b, "libtorch", 8) == 0)
        p->torch = true;
}

void gd_proc_parse_fd_target(const char *target, gd_job_proc *p)
{
    if (strncmp(target, "/dev/nvidia", 11) != 0)
        return;
    const char *s = target + 11;
    if (strcmp(s, "ctl") == 0 || strncmp(s, "-uvm", 4) == 0) {
        p->nvidia_ctl = true;
        return;
    }
    if (!isdigit((unsigned char)*s))
        return;
    char *end;
    long m = strtol(s, &end, 10);
    if (*end == '\0' && m >= 0 && m < 64)
        p->dev_minors |= 1ull << m;
}

/* A whole small file (cmdline, environ) into a buffer; its length, 0 when unreadable. */
static size_t read_whole(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t len = 0;
    ssize_t n;
    while (len < cap && (n = read(fd, buf + len, cap - len)) > 0)
        len += (size_t)n;
    close(fd);
    return len;
}

void gd_proc_read_maps(const char *root, gd_job_proc *p)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%d/maps", root, p->pid);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return;
    }
    char line[1024];
    for (int k = 0; k < 100000 && fgets(line, sizeof line, f) && !(p->torch && p->cuda); k++)
        gd_proc_parse_maps_line(line, p);
    fclose(f);
}

static void read_fds(const char *root, gd_job_proc *p)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%d/fd", root, p->pid);
    DIR *d = opendir(path);
    if (!d)
        return;
    /* What it held at any time in the window: a job that closes its devices
     * at exit still used them. */
    struct dirent *e;
    for (int k = 0; k < 65536 && (e = readdir(d)); k++) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char link[1024], target[256];
        snprintf(link, sizeof link, "%s/%s", path, e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        gd_proc_parse_fd_target(target, p);
    }
    closedir(d);
}

void gd_proc_identify(const char *root, gd_job_proc *p, bool env, bool maps)
{
    char path[600];
    static const size_t cap = 64 * 1024;
    char *buf = malloc(cap);
    if (!buf)
        return;
    snprintf(path, sizeof path, "%s/%d/cmdline", root, p->pid);
    size_t n = read_whole(path, buf, cap);
    if (n > 0)
        gd_proc_parse_cmdline(buf, n, p);
    snprintf(path, sizeof path, "%s/%d/environ", root, p->pid);
    if (env && (n = read_whole(path, buf, cap)) > 0)
        gd_proc_parse_environ(buf, n, p);
    free(buf);
    if (maps)
        gd_proc_read_maps(root, p);
    read_fds(root, p);
}

int gd_proc_gpu_minor(const char *root, const char *pci_bus_id)
{
    /* NVML's "00000000:18:00.0" is the driver's "0000:18:00.0", lower case. */
    char bus[32];
    const char *id = strlen(pci_bus_id) > 12 ? pci_bus_id + strlen(pci_bus_id) - 12 : pci_bus_id;
    size_t i = 0;
    for (; id[i] && i < sizeof bus - 1; i++)
        bus[i] = (char)tolower((unsigned char)id[i]);
    bus[i] = '\0';
    char path[700], text[4096];
    snprintf(path, sizeof path, "%s/driver/nvidia/gpus/%s/information", root, bus);
    if (gd_proc_read_small(path, text, sizeof text) <= 0)
        return -1;
    const char *m = strstr(text, "Device Minor:");
    if (!m)
        return -1;
    char *end;
    long v = strtol(m + 13, &end, 10);
    return end != m + 13 && v >= 0 && v < 64 ? (int)v : -1;
}
