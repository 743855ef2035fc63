/* SPDX-License-Identifier: Apache-2.0 */
/* The accumulator: each event kept as a few words, or not at all. */
#include "analysis/trace/trace_internal.h"

#include <stdlib.h>
#include <string.h>

#define NAME_MAX_KEPT 512 /* longer kernel names are told apart by their first 512 bytes */

int gd_trace_grow(void **v, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *p = realloc(*v, n * size);
    if (!p)
        return -1;
    *v = p;
    *cap = n;
    return 0;
}

#define PUSH GD_PUSH

gd_trace_acc *gd_trace_acc_new(void)
{
    gd_trace_acc *a = calloc(1, sizeof *a);
    return a;
}

void gd_trace_acc_free(gd_trace_acc *a)
{
    if (!a)
        return;
    free(a->gpu.v);
    free(a->rt.v);
    free(a->steps.v);
    free(a->loader.v);
    free(a->items.v);
    free(a->procs.v);
    free(a->pending.v);
    free(a->arena.v);
    free(a->name_off.v);
    free(a->slots);
    free(a);
}

size_t gd_trace_acc_bytes(const gd_trace_acc *a)
{
    return a->gpu.cap * sizeof *a->gpu.v + a->rt.cap * sizeof *a->rt.v + a->steps.cap * sizeof *a->steps.v +
           a->loader.cap * sizeof *a->loader.v + a->items.cap * sizeof *a->items.v + a->procs.cap * sizeof *a->procs.v +
           a->pending.cap * sizeof *a->pending.v + a->arena.cap + a->name_off.cap * sizeof(uint32_t) +
           a->nslots * sizeof(uint32_t);
}

void gd_trace_acc_cap(gd_trace_acc *a, size_t max_bytes)
{
    a->max_bytes = max_bytes;
}

const char *gd_trace_name(const gd_trace_acc *a, uint32_t id)
{
    return id < a->name_off.n ? a->arena.v + a->name_off.v[id] : "";
}

/* A hash of a name, 8 bytes at a time (kernel names run to hundreds of bytes). */
static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ n;
    for (; n >= 8; s += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    for (; n; s++, n--)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h ^ (h >> 32);
}

static int rehash(gd_trace_acc *a)
{
    size_t n = a->nslots ? a->nslots * 2 : 1024;
    uint32_t *s = malloc(n * sizeof *s);
    if (!s)
        return -1;
    memset(s, 0xff, n * sizeof *s);
    for (uint32_t id = 0; id < a->name_off.n; id++) {
        const char *nm = a->arena.v + a->name_off.v[id];
        size_t i = hash(nm, strlen(nm)) & (n - 1);
        while (s[i] != UINT32_MAX)
            i = (i + 1) & (n - 1);
        s[i] = id;
    }
    free(a->slots);
    a->slots = s;
    a->nslots = n;
    return 0;
}

uint32_t gd_trace_intern(gd_trace_acc *a, const char *name, size_t len)
{
    if (len > NAME_MAX_KEPT)
        len = NAME_MAX_KEPT;
    if ((a->name_off.n + 1) * 2 > a->nslots && rehash(a))
        return UINT32_MAX;
    size_t i = hash(name, len) & (a->nslots - 1);
    for (; a->slots[i] != UINT32_MAX; i = (i + 1) & (a->nslots - 1)) {
        const char *nm = a->arena.v + a->name_off.v[a->slots[i]];
        if (strncmp(nm, name, len) == 0 && nm[len] == 0)
            return a->slots[i];
    }
    size_t off = a->arena.n;
    if (gd_trace_grow((void **)&a->arena.v, &a->arena.cap, off + len + 1, 1))
        return UINT32_MAX;
    memcpy(a->arena.v + off, name, len);
    a->arena.v[off + len] = 0;
    a->arena.n = off + len + 1;
    uint32_t id = (uint32_t)a->name_off.n;
    if (PUSH(a->name_off, (uint32_t)off))
        return UINT32_MAX;
    a->slots[i] = id;
    return id;
}

static bool starts(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

static bool ends(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static bool equals(const char *s, size_t n, const char *lit)
{
    return n == strlen(lit) && memcmp(s, lit, n) == 0;
}

static int runtime_kind(const char *s, size_t n)
{
    static const char *const sync[] = {
        "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaMemcpy", "cudaMemcpy2D",
        "hipDeviceSynchronize",  "hipStreamSynchronize",  "hipEventSynchronize",  "hipMemcpy",  "cuCtxSynchronize",
        "cuStreamSynchronize",   "cuEventSynchronize"};
    static const char *const other_launch[] = {"cuLaunchKernel",           "cuLaunchKernelEx", "hipLaunchKernel",
                                               "hipExtModuleLaunchKernel", "hipMemcpyAsync",   "hipMemsetAsync",
                                               "hipMemcpyWithStream"};
    if (equals(s, n, "cudaLaunchKernel") || equals(s, n, "cudaLaunchKernelExC") ||
        equals(s, n, "runFunction - job_prep_and_submit_for_execution"))
        return GD_RT_LAUNCH;
    if (equals(s, n, "cudaMemcpyAsync"))
        return GD_RT_MEMCPY_ASYNC;
    if (equals(s, n, "cudaMemsetAsync"))
        return GD_RT_MEMSET_ASYNC;
    for (size_t i = 0; i < sizeof sync / sizeof *sync; i++)
        if (equals(s, n, sync[i]))
            return GD_RT_SYNC;
    for (size_t i = 0; i < sizeof other_launch / sizeof *other_launch; i++)
        if (equals(s, n, other_launch[i]))
            return GD_RT_LAUNCH_OTHER;
    return GD_RT_OTHER;
}

/* "ProfilerStep#N": N, or -1. */
static long step_number(const char *s, size_t n)
{
    if (!starts(s, n, "ProfilerStep#") || n == 13)
        return -1;
    long v = 0;
    for (size_t i = 13; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        v = v < 100000000000L ? v * 10 + (s[i] - '0') : v;
    return (s[13] >= '0' && s[13] <= '9') ? v : -1;
}

int gd_trace_acc_add(gd_trace_acc *a, const gd_trace_event *e)
{
    /* At the cap, everything after is left out (not a sample of it): the
     * analysis is of the trace's first part, whole. Half the cap: a table
     * that doubles next (at most all that is held) stays within it. */
    if (a->max_bytes && (a->dropped || gd_trace_acc_bytes(a) >= a->max_bytes / 2)) {
        a->dropped++;
        return 0;
    }
    /* Process and thread names: TensorFlow names its devices and streams only there. */
    if (e->ph == 'M') {
        if (e->pid < 0 || !e->arg_name || !e->name)
            return 0;
        bool proc = equals(e->name, e->name_len, "process_name");
        if (!proc && (e->tid < 0 || !equals(e->name, e->name_len, "thread_name")))
            return 0;
        uint32_t id = gd_trace_intern(a, e->arg_name, e->arg_name_len);
        gd_tproc p = {e->pid, proc ? -1 : e->tid, id};
        return id == UINT32_MAX ? -1 : PUSH(a->procs, p);
    }
    /* HTA keeps rows with a duration and a category, less the profiler's own span.
     * Rows without a category are kept as host rows: the legacy format has none. */
    if (!e->has_dur || !e->has_ts || e->cat == GD_TCAT_TRACE || e->dur_ns < 0)
        return 0;
    if (e->has_cat == false && e->ph != 'X')
        return 0;
    /* The trace's own resolution (ns when ts or dur has a fraction): sub-microsecond parts
     * are kept, not rounded away, as they add up over thousands of kernels. */
    int64_t ts = e->ts_ns, dur = e->dur_ns;
    if (e->stream >= 0) {
        uint32_t id = gd_trace_intern(a, e->name ? e->name : "", e->name ? e->name_len : 0);
        if (id == UINT32_MAX)
            return -1;
        gd_tgpu g = {ts,
                     dur,
                     e->correlation,
                     e->bytes,
                     (int32_t)(e->stream > INT32_MAX ? INT32_MAX : e->stream),
                     id,
                     (uint8_t)e->cat};
        return PUSH(a->gpu, g);
    }
    const char *nm = e->name ? e->name : "";
    size_t nl = e->name ? e->name_len : 0;
    /* Event Sync and Context Sync are GPU rows for HTA's filter; they take no part here. */
    if (e->cat == GD_TCAT_CUDA_SYNC)
        return 0;
    if (e->cat == GD_TCAT_RUNTIME || e->cat == GD_TCAT_DRIVER || e->correlation >= 0) {
        int kind = (e->cat == GD_TCAT_RUNTIME || e->cat == GD_TCAT_DRIVER) ? runtime_kind(nm, nl) : GD_RT_OTHER;
        uint32_t id = UINT32_MAX;
        if (kind == GD_RT_SYNC && (id = gd_trace_intern(a, nm, nl)) == UINT32_MAX)
            return -1;
        if (e->correlation >= 0 || kind == GD_RT_SYNC) {
            gd_trt r = {
                ts,           dur, e->correlation, id, (int32_t)(e->tid >= 0 && e->tid <= INT32_MAX ? e->tid : -1),
                (uint8_t)kind};
            if (PUSH(a->rt, r))
                return -1;
        }
    }
    /* TensorFlow: no Kineto category ("Op" in TF1's timeline, none in TensorBoard's); the process
     * names, read by the end, tell which of these ran on a GPU. */
    if ((!e->has_cat || e->cat == GD_TCAT_OTHER) && e->ph == 'X' && e->pid >= 0 && e->correlation < 0) {
        uint32_t id = gd_trace_intern(a, nm, nl);
        gd_tpend p = {ts, dur, e->bytes, e->pid, e->tid, id};
        if (id == UINT32_MAX || PUSH(a->pending, p))
            return -1;
    }
    if ((e->cat == GD_TCAT_CPU_OP || !e->has_cat) &&
        (equals(nm, nl, "aten::item") || equals(nm, nl, "aten::_local_scalar_dense"))) {
        gd_tspan s = {ts, dur, equals(nm, nl, "aten::item") ? 1 : 0, false}; /* 1: the outer call */
        return PUSH(a->items, s);
    }
    long step = step_number(nm, nl);
    if (step >= 0) {
        gd_tspan s = {ts, dur, step, e->cat == GD_TCAT_GPU_USER_ANNOTATION};
        return PUSH(a->steps, s);
    }
    if (e->cat != GD_TCAT_GPU_USER_ANNOTATION &&
        ((starts(nm, nl, "enumerate(DataLoader)#") && ends(nm, nl, ".__next__")) ||
         starts(nm, nl, "enumerate(DataPipe)#"))) {
        if (starts(nm, nl, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter"))
            a->loader_multiprocess = true;
        gd_tspan s = {ts, dur, -1, false};
        return PUSH(a->loader, s);
    }
    return 0;
}

void gd_trace_opts_default(gd_trace_opts *o)
{
    memset(o, 0, sizeof *o);
    o->step_first = o->step_last = -1;
    o->kernel_wait_us = 30;
}
