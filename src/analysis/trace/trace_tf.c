/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TensorFlow's Chrome traces (docs/trace.md, "What it reads"). Neither
 * layout has Kineto's categories or args.stream: a device and its streams
 * are processes (and threads) named in metadata events, so the events wait
 * in the accumulator until the whole trace is read, then the names say which
 * ran on the GPU.
 *
 * - TF1's Timeline (tf.client.timeline, generate_chrome_trace_format): one
 *   process per StepStats device, named "<device> Compute". The GPU tracer's
 *   devices are "/device:GPU:N/stream:all" (every kernel), "/device:GPU:N/
 *   stream:S" (the same kernels by stream; "stream:S<MemcpyHtoD>" for the
 *   copies of newer versions) and "/device:GPU:N/memcpy". Events are "X"
 *   with cat "Op", the op type as name, args {name, op}.
 * - TensorBoard's profile plugin (trace.json.gz, the trace viewer's JSON):
 *   one process per XPlane, "/device:GPU:N" for a GPU and "/host:CPU" for the
 *   host; a GPU's threads are its XLines: "Stream #S(...)" hold the kernels
 *   and copies (MemcpyH2D, ...), "Steps" the steps; the other lines (TensorFlow
 *   Ops, XLA Ops, name scopes) repeat the same time and are left out.
 */
#include "analysis/trace/trace_internal.h"
#include "core/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Streams TF1 names without a number. */
#define STREAM_ALL 1000000
#define STREAM_MEMCPY 1000001

enum role { R_NONE = 0, R_TF1_STREAM, R_TF1_ALL, R_TF1_MEMCPY, R_TB_GPU, R_TB_STREAM, R_TB_STEPS };

typedef struct named {
    int64_t pid, tid;
    int role, gpu;
    int32_t stream;
    char dir[5]; /* "HtoD", "DtoH", "DtoD" from a TF1 stream's <Memcpy...> suffix */
} named;

static bool starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static bool ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Leading digits of s as a number (at most 9 of them), -1 without any. */
static long digits(const char *s, const char **rest)
{
    long v = -1;
    int n = 0;
    for (; *s >= '0' && *s <= '9'; s++, n++)
        if (n < 9)
            v = (v < 0 ? 0 : v * 10) + (*s - '0');
    if (rest)
        *rest = s;
    return v;
}

/* A copy's direction as Kineto writes it, from TF's spellings. */
static const char *direction(const char *s)
{
    if (strstr(s, "HtoD") || strstr(s, "H2D"))
        return "HtoD";
    if (strstr(s, "DtoH") || strstr(s, "D2H"))
        return "DtoH";
    if (strstr(s, "DtoD") || strstr(s, "D2D") || strstr(s, "PtoP") || strstr(s, "P2P"))
        return "DtoD";
    return "";
}

/* What a process name says, TF1's or TensorBoard's. */
static void process_role(const char *name, named *x)
{
    const char *p = strstr(name, "/device:GPU:");
    if (!p)
        return;
    const char *rest;
    long gpu = digits(p + 12, &rest);
    if (gpu < 0)
        return;
    x->gpu = (int)gpu;
    if (starts(rest, "/stream:") && ends(rest, " Compute")) {
        const char *after;
        long s = digits(rest + 8, &after);
        if (starts(rest + 8, "all "))
            x->role = R_TF1_ALL, x->stream = STREAM_ALL;
        else if (s >= 0) {
            x->role = R_TF1_STREAM, x->stream = (int32_t)s;
            if (*after == '<')
                snprintf(x->dir, sizeof x->dir, "%s", direction(after));
        }
    } else if (starts(rest, "/memcpy") && ends(rest, " Compute")) {
        x->role = R_TF1_MEMCPY, x->stream = STREAM_MEMCPY;
    } else if (p == name && (*rest == 0 || (*rest == ' ' && !ends(rest, " Compute") && !ends(rest, " Tensors")))) {
        x->role = R_TB_GPU;
    }
}

static int cmp_named(const void *x, const void *y)
{
    const named *a = x, *b = y;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static const named *find(const named *v, size_t n, int64_t pid, int64_t tid)
{
    named key = {.pid = pid, .tid = tid};
    return bsearch(&key, v, n, sizeof *v, cmp_named);
}

/* Whether role r of GPU gpu is analyzed, given what the trace has. */
static bool analyzed(int r, bool tf1_streams)
{
    if (r == R_TF1_STREAM)
        return true;
    if (r == R_TF1_ALL || r == R_TF1_MEMCPY)
        return !tf1_streams; /* the same kernels again */
    return r == R_TB_STREAM || r == R_TB_STEPS;
}

static int add_op(gd_trace_acc *a, const gd_tpend *p, const named *x)
{
    const char *nm = gd_trace_name(a, p->name);
    bool copy =
        x->role == R_TF1_MEMCPY || x->dir[0] || starts(nm, "Memcpy") || starts(nm, "MEMCPY") || starts(nm, "memcpy");
    bool set = !copy && (starts(nm, "Memset") || starts(nm, "MEMSET") || starts(nm, "memset"));
    uint32_t id = p->name;
    if (copy || set) {
        char buf[32];
        const char *d = x->dir[0] ? x->dir : direction(nm);
        snprintf(buf, sizeof buf, "%s%s%s", set ? "Memset" : "Memcpy", *d ? " " : "", d);
        if ((id = gd_trace_intern(a, buf, strlen(buf))) == UINT32_MAX)
            return -1;
    }
    gd_tgpu g = {p->ts,
                 p->dur,
                 -1,
                 p->bytes,
                 x->stream,
                 id,
                 (uint8_t)(copy ? GD_TCAT_MEMCPY : set ? GD_TCAT_MEMSET : GD_TCAT_KERNEL)};
    return GD_PUSH(a->gpu, g);
}

const char *gd_trace_tf_resolve(gd_trace_acc *a, int *gpu_out, size_t *other_gpu_events, int *oom)
{
    *oom = 0;
    *gpu_out = -1;
    *other_gpu_events = 0;
    named *v = calloc(a->procs.n + 1, sizeof *v);
    if (!v) {
        *oom = 1;
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 0; i < a->procs.n; i++) /* processes first: their threads need them */
        if (a->procs.v[i].tid < 0) {
            named x = {.pid = a->procs.v[i].pid, .tid = -1, .gpu = -1};
            process_role(gd_trace_name(a, a->procs.v[i].name), &x);
            if (x.role != R_NONE)
                v[n++] = x;
        }
    gd_sort(v, n, sizeof *v, cmp_named);
    size_t nproc = n;
    for (size_t i = 0; i < a->procs.n; i++) {
        const gd_tproc *t = &a->procs.v[i];
        const named *pr = t->tid >= 0 ? find(v, nproc, t->pid, -1) : NULL;
        if (!pr || pr->role != R_TB_GPU)
            continue;
        const char *tn = gd_trace_name(a, t->name);
        named x = {.pid = t->pid, .tid = t->tid, .gpu = pr->gpu};
        long s = starts(tn, "Stream #") ? digits(tn + 8, NULL) : -1;
        if (s >= 0)
            x.role = R_TB_STREAM, x.stream = (int32_t)s;
        else if (strcmp(tn, "Steps") == 0)
            x.role = R_TB_STEPS;
        else
            continue;
        v[n++] = x;
    }
    gd_sort(v, n, sizeof *v, cmp_named);
    const char *format = NULL;
    int gpu = -1;
    bool tf1 = false, tf1_streams = false;
    for (size_t i = 0; i < n; i++)
        if (gpu < 0 || v[i].gpu < gpu)
            gpu = v[i].gpu;
    for (size_t i = 0; i < n; i++) {
        tf1 = tf1 || v[i].role == R_TF1_STREAM || v[i].role == R_TF1_ALL || v[i].role == R_TF1_MEMCPY;
        tf1_streams = tf1_streams || (v[i].role == R_TF1_STREAM && v[i].gpu == gpu);
    }
    if (gpu >= 0) {
        format = tf1 ? "tf_timeline" : "tf_profile";
        long step_index = 0;
        for (size_t i = 0; i < a->pending.n && !*oom; i++) {
            const gd_tpend *p = &a->pending.v[i];
            const named *x = find(v, n, p->pid, -1);
            if (x && x->role == R_TB_GPU)
                x = find(v, n, p->pid, p->tid);
            if (!x || !analyzed(x->role, tf1_streams))
                continue;
            if (x->gpu != gpu) {
                (*other_gpu_events)++;
                continue;
            }
            if (x->role == R_TB_STEPS) {
                long num = digits(gd_trace_name(a, p->name), NULL);
                gd_tspan s = {p->ts, p->dur, num >= 0 ? num : step_index, false};
                step_index++;
                *oom = GD_PUSH(a->steps, s) != 0;
            } else {
                *oom = add_op(a, p, x) != 0;
            }
        }
    }
    *gpu_out = gpu;
    free(v);
    free(a->pending.v); /* resolved once: a second analysis finds nothing pending */
    a->pending.v = NULL;
    a->pending.n = a->pending.cap = 0;
    return format;
}
