/* SPDX-License-Identifier: Apache-2.0 */
/* The job's /proc entries as text: pure, unit-tested and fuzzed
 * (tests/fuzz/fuzz_proc_tree.c). */
#include "proc_parse.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    static const char *const ranks[] = {"RANK",     "LOCAL_RANK", "OMPI_COMM_WORLD_RANK",
                                        "PMI_RANK", "PMIX_RANK",  "SLURM_PROCID"};
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
    if (strncmp(b, "libtorch_cuda", 13) == 0 || strncmp(b, "libc10_cuda", 11) == 0)
        p->torch_cuda = true;
    if (strncmp(b, "libcudart.so", 12) == 0)
        p->cudart = true;
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

/* CPUs in a list like "0-3,8,10-11". A CPU number beyond any kernel's
 * (NR_CPUS is at most 8192) makes it malformed: 0, as for any other. */
#define GD_MAX_CPU_NUMBER (1L << 20)
int gd_proc_count_cpu_list(const char *s)
{
    long n = 0;
    while (*s && *s != '\n') {
        char *end;
        long a = strtol(s, &end, 10);
        if (end == s || a < 0 || a > GD_MAX_CPU_NUMBER)
            return 0;
        long b = a;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        if (b < 0 || b > GD_MAX_CPU_NUMBER)
            return 0;
        if (b >= a)
            n += b - a + 1;
        if (n > GD_MAX_CPU_NUMBER)
            return 0;
        s = *end == ',' ? end + 1 : end;
    }
    return (int)n;
}

bool gd_proc_parse_thread_stat(const char *buf, char *state, double *cpu_ticks, char *comm, size_t commlen)
{
    const char *open = strchr(buf, '('), *close = strrchr(buf, ')');
    /* "PID (COMM) S ...": a state must follow the name (a cut line ends at ')'). */
    if (!open || !close || close < open || close[1] != ' ' || close[2] == '\0')
        return false;
    snprintf(comm, commlen, "%.*s", (int)(close - open - 1), open + 1);
    const char *p = close + 2;
    *state = *p;
    for (int k = 0; k < 11 && p; k++) /* state ... cmajflt: utime is the 12th field after ')' */
        p = strchr(p + 1, ' ');
    if (!p)
        return false;
    char *end;
    double ut = strtod(p + 1, &end), st = strtod(end, NULL);
    *cpu_ticks = ut + st;
    return true;
}
