/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The numbers of one rank, from the accumulator (docs/trace.md gives each
 * definition; they follow Holistic Trace Analysis where it has one).
 */
#include "core/stats.h"
#include "analysis/trace/trace_intervals.h"
#include "analysis/trace/trace_stalls.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

gd_kclass gd_trace_kernel_class(const char *n)
{
    /* HTA's regexes, applied with re.match (anchored at the start), in its order. */
    if (starts(n, "nccl") || starts(n, "hip") || starts(n, "hccl") || strstr(n, "ncclKernel"))
        return GD_K_COMM;
    if (starts(n, "Memcpy") || starts(n, "hipMemcpy") || starts(n, "Memset") || starts(n, "hipMemset") ||
        starts(n, "dma"))
        return GD_K_MEMORY;
    static const char *const not_compute_prefix[] = {"nccl",        "Stream Wait Event",
                                                     "runFunction", "hip",
                                                     "job_exe",     "packet",
                                                     "pe_exe",      "cpum_exe_subgraph",
                                                     "hccl",        "collective_subgraph_execution"};
    for (size_t i = 0; i < sizeof not_compute_prefix / sizeof *not_compute_prefix; i++)
        if (starts(n, not_compute_prefix[i]))
            return GD_K_OTHER;
    if (strstr(n, "Memcpy") || strstr(n, "Memset") || strstr(n, "dma") || strstr(n, "Sync") ||
        (starts(n, "cuda") && strstr(n + 4, "LaunchKernel")))
        return GD_K_OTHER;
    return GD_K_COMPUTE;
}

const char *gd_copy_kind_name(gd_copy_kind k)
{
    static const char *const names[] = {"h2d_pageable", "h2d_pinned", "d2h_pageable", "d2h_pinned", "d2d", "other"};
    return k < GD_COPY_NKINDS ? names[k] : "other";
}

static gd_copy_kind copy_kind(const char *n)
{
    bool pageable = strstr(n, "Pageable") != NULL, pinned = strstr(n, "Pinned") != NULL;
    if (strstr(n, "HtoD"))
        return pageable ? GD_COPY_H2D_PAGEABLE : pinned ? GD_COPY_H2D_PINNED : GD_COPY_OTHER;
    if (strstr(n, "DtoH"))
        return pageable ? GD_COPY_D2H_PAGEABLE : pinned ? GD_COPY_D2H_PINNED : GD_COPY_OTHER;
    if (strstr(n, "DtoD"))
        return GD_COPY_D2D;
    return GD_COPY_OTHER;
}

typedef gd_tkept kept;
typedef gd_tiv iv;

static int cmp_rt_corr(const void *x, const void *y)
{
    const gd_trt *a = x, *b = y;
    if (a->corr != b->corr)
        return a->corr < b->corr ? -1 : 1;
    return a->ts < b->ts ? -1 : a->ts > b->ts;
}

static int cmp_kept_ts(const void *x, const void *y)
{
    const kept *a = x, *b = y;
    return a->ts < b->ts ? -1 : a->ts > b->ts;
}

static int cmp_kept_stream_ts(const void *x, const void *y)
{
    const kept *a = x, *b = y;
    if (a->stream != b->stream)
        return a->stream < b->stream ? -1 : 1;
    return a->ts < b->ts ? -1 : a->ts > b->ts;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

typedef struct name_agg {
    double total;
    size_t count;
} name_agg;

/* A name's total beside its id, so that sorting needs no shared state: the ranks of a
 * directory are analysed on several threads at once. */
typedef struct name_rank {
    double total;
    uint32_t id;
} name_rank;

static int cmp_name_total(const void *x, const void *y)
{
    const name_rank *a = x, *b = y;
    if (a->total != b->total)
        return a->total > b->total ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : NAN;
}

/* The host window of kept rows: [lo, hi] with hi_open meaning ts < hi. */
typedef struct window {
    int64_t lo, hi;
    bool hi_open;
} window;

static bool in_window(const window *w, int64_t ts)
{
    return ts >= w->lo && (w->hi_open ? ts < w->hi : ts <= w->hi);
}

/* Sorts the step spans by time; how many distinct step numbers they have
 * (0 when out of memory), the last one's start and the latest end. */
static size_t step_numbers(gd_trace_acc *a, int64_t *last_start, int64_t *last_end)
{
    size_t distinct = 0;
    long prev = -2;
    *last_start = *last_end = INT64_MIN;
    gd_sort(a->steps.v, a->steps.n, sizeof *a->steps.v, gd_trace_cmp_span_ts);
    long *nums = malloc((a->steps.n + 1) * sizeof *nums);
    for (size_t i = 0; i < a->steps.n; i++) {
        const gd_tspan *s = &a->steps.v[i];
        if (s->ts > *last_start)
            *last_start = s->ts;
        if (s->ts + s->dur > *last_end)
            *last_end = s->ts + s->dur;
        if (nums)
            nums[i] = s->number;
    }
    if (nums) {
        for (size_t i = 1; i < a->steps.n; i++) /* insertion sort is fine: a trace has few steps */
            for (size_t j = i; j > 0 && nums[j - 1] > nums[j]; j--) {
                long t = nums[j];
                nums[j] = nums[j - 1];
                nums[j - 1] = t;
            }
        for (size_t i = 0; i < a->steps.n; i++)
            if (nums[i] != prev)
                distinct++, prev = nums[i];
        free(nums);
    }
    return distinct;
}

/* The host steps the trace has, and the first and last step numbers. */
static void steps_in_trace(const gd_trace_acc *a, gd_trace_result *r)
{
    size_t host_steps = 0;
    for (size_t i = 0; i < a->steps.n; i++)
        host_steps += !a->steps.v[i].gpu_side;
    r->steps_in_trace = host_steps;
    r->step_first_in_trace = r->step_last_in_trace = -1;
    for (size_t i = 0; i < a->steps.n; i++) {
        const gd_tspan *s = &a->steps.v[i];
        if (s->gpu_side)
            continue;
        if (r->step_first_in_trace < 0 || s->number < r->step_first_in_trace)
            r->step_first_in_trace = s->number;
        if (s->number > r->step_last_in_trace)
            r->step_last_in_trace = s->number;
    }
}

/* The host window analysed: --steps A:B, else every step but the last (HTA's
 * rule, unless --include-last-step), else the whole trace. */
static void pick_window(gd_trace_acc *a, const gd_trace_opts *o, gd_trace_result *r, window *w)
{
    *w = (window){INT64_MIN, INT64_MAX, false};
    int64_t last_start, last_end;
    size_t distinct = step_numbers(a, &last_start, &last_end);
    steps_in_trace(a, r);
    if (o->step_first >= 0) {
        w->lo = INT64_MAX;
        w->hi = INT64_MIN;
        for (size_t i = 0; i < a->steps.n; i++) {
            const gd_tspan *s = &a->steps.v[i];
            if (s->gpu_side || s->number < o->step_first || s->number > o->step_last)
                continue;
            if (s->ts < w->lo)
                w->lo = s->ts;
            if (s->ts + s->dur > w->hi)
                w->hi = s->ts + s->dur;
        }
        return;
    }
    if (distinct >= 2 && !o->include_last_step) {
        w->hi = last_start;
        w->hi_open = true;
        r->last_step_dropped = true;
    } else if (distinct >= 1) {
        w->hi = last_end;
    }
}

/* One rank's analysis under way: the kept GPU operations, their unions and
 * the working arrays the stages share. */
typedef struct analysis {
    gd_trace_acc *a;
    const gd_trace_opts *o;
    gd_trace_result *r;
    window w;
    kept *k; /* the kept GPU operations, by time */
    size_t nk;
    iv *u_all, *u_cls, *u_comm; /* unions: every operation, compute kernels, communication */
    size_t nall, ncomp, ncomm;
    double *scratch; /* room for a value per GPU operation or step */
    size_t nnames;
    uint8_t *name_cls; /* each interned name's kernel class */
    name_agg *agg; /* per name */
    name_rank *order;
} analysis;

/* The result before any analysis: the reader's counts, every number not yet known. */
static void result_start(const gd_trace_acc *a, const gd_trace_meta *meta, gd_trace_result *r)
{
    memset(r, 0, sizeof *r);
    r->rank = meta->rank >= 0 ? meta->rank : 0;
    r->compute_major = meta->compute_major;
    r->legacy = meta->legacy;
    r->truncated = meta->truncated;
    r->events = meta->events;
    r->skipped = meta->skipped;
    r->bytes = meta->bytes;
    r->dropped = a->dropped;
    r->memory_cap_mib = a->max_bytes >> 20;
    snprintf(r->note, sizeof r->note, "%s", meta->note);
    r->dataloader_pct = r->sync_pct = r->comm_overlap_pct = NAN;
    r->step_median_us = r->step_p90_us = r->step_max_us = NAN;
    r->step_idle_us = r->step_idle_pct = NAN;
    r->launch_cpu_median_us = r->launch_delay_median_us = r->kernel_median_us = NAN;
    r->step_slowest = -1;
    r->dataloader_multiprocess = a->loader_multiprocess;
    r->read_blocked_pct = r->step_copy_exposed_pct = r->read_bytes_median = r->item_pct = NAN;
    r->format = meta->legacy ? "legacy" : "kineto";
    r->tf_gpu = -1;
}

/* A TensorFlow trace's GPU events and steps, and its format's name; 0 or -1 (out of memory). */
static int resolve_tensorflow(gd_trace_acc *a, gd_trace_result *r)
{
    int oom = 0;
    const char *tf = gd_trace_tf_resolve(a, &r->tf_gpu, &r->tf_other_gpu_events, &oom);
    if (oom)
        return -1;
    if (tf)
        r->format = tf;
    return 0;
}

static int analysis_alloc(analysis *x)
{
    size_t ng = x->a->gpu.n;
    x->k = malloc((ng ? ng : 1) * sizeof *x->k);
    x->u_all = malloc((ng ? ng : 1) * sizeof *x->u_all);
    x->u_cls = malloc((ng ? ng : 1) * sizeof *x->u_cls);
    x->u_comm = malloc((ng ? ng : 1) * sizeof *x->u_comm);
    x->scratch = malloc((ng + x->a->steps.n + 1) * sizeof *x->scratch);
    if (!x->k || !x->u_all || !x->u_cls || !x->u_comm || !x->scratch)
        return -1;
    x->nnames = x->a->name_off.n;
    x->name_cls = malloc(x->nnames + 1);
    x->agg = calloc(x->nnames + 1, sizeof *x->agg);
    x->order = malloc((x->nnames + 1) * sizeof *x->order);
    if (!x->name_cls || !x->agg || !x->order)
        return -1;
    return 0;
}

static void analysis_free(analysis *x)
{
    free(x->k);
    free(x->u_all);
    free(x->u_cls);
    free(x->u_comm);
    free(x->scratch);
    free(x->name_cls);
    free(x->agg);
    free(x->order);
}

static void classify_names(analysis *x)
{
    for (size_t i = 0; i < x->nnames; i++)
        x->name_cls[i] = (uint8_t)gd_trace_kernel_class(gd_trace_name(x->a, (uint32_t)i));
}

/* The GPU operations launched by a host row in the window (HTA's filter), by time. */
static void keep_launched_ops(analysis *x)
{
    gd_trace_acc *a = x->a;
    gd_sort(a->rt.v, a->rt.n, sizeof *a->rt.v, cmp_rt_corr);
    size_t nk = 0;
    for (size_t i = 0; i < a->gpu.n; i++) {
        const gd_tgpu *g = &a->gpu.v[i];
        kept k = {g->ts,  g->dur,      INT64_MIN,           0, g->bytes, g->stream, -1, g->name,
                  g->cat, GD_RT_OTHER, x->name_cls[g->name]};
        if (g->corr >= 0) {
            size_t lo = 0, hi = a->rt.n;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (a->rt.v[mid].corr < g->corr)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            bool found = false;
            for (size_t j = lo; j < a->rt.n && a->rt.v[j].corr == g->corr; j++)
                if (in_window(&x->w, a->rt.v[j].ts)) {
                    k.rt_ts = a->rt.v[j].ts;
                    k.rt_dur = a->rt.v[j].dur;
                    k.rt_kind = a->rt.v[j].kind;
                    k.rt_tid = a->rt.v[j].tid;
                    found = true;
                    break;
                }
            if (!found)
                continue;
        } else if (!in_window(&x->w, g->ts)) {
            /* Without a correlation HTA counts the row as a host row: kept by its own time. */
            continue;
        }
        x->k[nk++] = k;
    }
    x->nk = nk;
    gd_trace_result *r = x->r;
    r->gpu_events = nk;
    for (size_t i = 0; i < nk; i++)
        r->gpu_linked += x->k[i].rt_ts != INT64_MIN;
    r->has_gpu = nk > 0;
    gd_sort(x->k, nk, sizeof *x->k, cmp_kept_ts);
}

/* HTA's temporal breakdown: compute, non-compute and idle time from the GPU's first operation to its last. */
static void temporal_breakdown(analysis *x)
{
    gd_trace_result *r = x->r;
    x->nall = gd_trace_union(x->k, x->nk, -1, x->u_all);
    x->ncomp = gd_trace_union(x->k, x->nk, GD_K_COMPUTE, x->u_cls);
    x->ncomm = gd_trace_union(x->k, x->nk, GD_K_COMM, x->u_comm);
    if (!x->nall)
        return;
    r->span_us = gd_trace_us(x->u_all[x->nall - 1].hi - x->u_all[0].lo);
    double busy = gd_trace_union_us(x->u_all, x->nall);
    r->idle_us = r->span_us - busy;
    r->compute_us = gd_trace_union_us(x->u_cls, x->ncomp);
    r->non_compute_us = r->span_us - r->compute_us - r->idle_us;
    r->idle_pct = pct(r->idle_us, r->span_us);
    r->compute_pct = pct(r->compute_us, r->span_us);
    r->non_compute_pct = pct(r->non_compute_us, r->span_us);
    double comm = gd_trace_union_us(x->u_comm, x->ncomm);
    if (comm > 0)
        r->comm_overlap_pct = pct(gd_trace_overlap_us(x->u_cls, x->ncomp, x->u_comm, x->ncomm), comm);
}

/* HTA's idle time breakdown per stream (kernels, copies and memsets only):
 * waiting for the host, for a kernel, or other. 0 or -1 (out of memory). */
static int stream_idle(analysis *x)
{
    const kept *k = x->k;
    gd_trace_result *r = x->r;
    kept *s = malloc((x->nk ? x->nk : 1) * sizeof *s);
    if (!s)
        return -1;
    size_t ns = 0;
    for (size_t i = 0; i < x->nk; i++)
        if (k[i].cat == GD_TCAT_KERNEL || k[i].cat == GD_TCAT_MEMCPY || k[i].cat == GD_TCAT_MEMSET)
            s[ns++] = k[i];
    gd_sort(s, ns, sizeof *s, cmp_kept_stream_ts);
    for (size_t i = 0; i < ns;) {
        size_t j = i;
        gd_trace_stream st = {.stream = s[i].stream};
        int64_t host = 0, kern = 0, other = 0; /* ns, summed exactly */
        for (; j < ns && s[j].stream == s[i].stream; j++) {
            st.events++;
            if (j == i)
                continue;
            int64_t prev_end = s[j - 1].ts + s[j - 1].dur;
            int64_t gap = s[j].ts - prev_end;
            if (s[j].rt_ts != INT64_MIN && s[j].rt_ts > prev_end)
                host += gap;
            else if (gap < x->o->kernel_wait_us * 1000)
                kern += gap;
            else
                other += gap;
        }
        st.host_wait_us = gd_trace_us(host);
        st.kernel_wait_us = gd_trace_us(kern);
        st.other_us = gd_trace_us(other);
        st.idle_us = gd_trace_us(host + kern + other);
        if (r->nstreams < GD_TRACE_MAX_STREAMS)
            r->streams[r->nstreams++] = st;
        i = j;
    }
    free(s);
    return 0;
}

/* The union of the DataLoader's calls in the window into u_dl (room for all
 * of them); counts them in r. Returns the union's length. */
static size_t dataloader_union(analysis *x, iv *u_dl)
{
    gd_tspan *loader = x->a->loader.v;
    size_t nl = 0;
    for (size_t i = 0; i < x->a->loader.n; i++) {
        if (!in_window(&x->w, loader[i].ts))
            continue;
        x->r->dataloader_events++;
        nl = gd_trace_union_add(u_dl, nl, loader[i].ts, loader[i].ts + loader[i].dur);
    }
    return nl;
}

/* Each analysed step's GPU time (compute, non-compute, idle) and DataLoader time. */
static void measure_steps(analysis *x, const iv *u_dl, size_t nl)
{
    gd_trace_acc *a = x->a;
    const gd_trace_opts *o = x->o;
    gd_trace_result *r = x->r;
    for (size_t i = 0; i < a->steps.n; i++) {
        const gd_tspan *sp = &a->steps.v[i];
        if (sp->gpu_side || !in_window(&x->w, sp->ts))
            continue;
        if (o->step_first >= 0 && (sp->number < o->step_first || sp->number > o->step_last))
            continue;
        gd_trace_step *st = &r->steps[r->nsteps++];
        int64_t lo = sp->ts, hi = sp->ts + sp->dur;
        double busy = gd_trace_within(x->u_all, x->nall, lo, hi);
        st->number = sp->number;
        st->lo_ns = lo;
        st->hi_ns = hi;
        st->ts_us = gd_trace_us(lo);
        st->dur_us = gd_trace_us(sp->dur);
        st->compute_us = gd_trace_within(x->u_cls, x->ncomp, lo, hi);
        st->non_compute_us = busy - st->compute_us;
        st->idle_us = r->has_gpu ? st->dur_us - busy : 0;
        st->dataloader_us = gd_trace_within(u_dl, nl, lo, hi);
        r->step_total_us += st->dur_us;
        r->dataloader_us += st->dataloader_us;
        x->scratch[r->nsteps - 1] = st->dur_us;
        if (isnan(r->step_max_us) || st->dur_us > r->step_max_us) {
            r->step_max_us = st->dur_us;
            r->step_slowest = st->number;
        }
    }
}

/* The step times' median and p90 (their durations are in scratch), the
 * DataLoader's and the idle time's shares. */
static void step_statistics(analysis *x)
{
    gd_trace_result *r = x->r;
    if (!r->nsteps)
        return;
    gd_sort(x->scratch, r->nsteps, sizeof *x->scratch, cmp_double);
    r->step_median_us = gd_trace_quantile(x->scratch, r->nsteps, 0.5);
    r->step_p90_us = gd_trace_quantile(x->scratch, r->nsteps, 0.9);
    r->dataloader_pct = pct(r->dataloader_us, r->step_total_us);
    if (r->has_gpu) {
        r->step_idle_us = 0;
        for (size_t i = 0; i < r->nsteps; i++)
            r->step_idle_us += r->steps[i].idle_us;
        r->step_idle_pct = pct(r->step_idle_us, r->step_total_us);
    }
}

/* The steps in the window with their GPU and DataLoader time. 0 or -1 (out of memory). */
static int time_steps(analysis *x)
{
    gd_trace_acc *a = x->a;
    gd_sort(a->loader.v, a->loader.n, sizeof *a->loader.v, gd_trace_cmp_span_ts);
    iv *u_dl = malloc((a->loader.n + 1) * sizeof *u_dl);
    if (!u_dl)
        return -1;
    size_t nl = dataloader_union(x, u_dl);
    x->r->steps = calloc(a->steps.n + 1, sizeof *x->r->steps);
    if (!x->r->steps) {
        free(u_dl);
        return -1;
    }
    measure_steps(x, u_dl, nl);
    free(u_dl);
    step_statistics(x);
    return 0;
}

/* A kernel's time by name and by class (durations summed, as HTA's kernel breakdown). */
static void count_kernel(analysis *x, const kept *k)
{
    gd_trace_result *r = x->r;
    x->agg[k->name].total += gd_trace_us(k->dur);
    x->agg[k->name].count++;
    r->class_us[k->cls] += gd_trace_us(k->dur);
    r->class_count[k->cls]++;
}

/* A copy by its kind, and a pageable copy's time inside the steps. */
static void count_copy(analysis *x, const kept *k)
{
    gd_trace_result *r = x->r;
    gd_copy_kind ck = copy_kind(gd_trace_name(x->a, k->name));
    gd_trace_copies *c = &r->copies[ck];
    c->count++;
    c->time_us += gd_trace_us(k->dur);
    if (k->bytes > 0)
        c->bytes += (double)k->bytes;
    if (ck == GD_COPY_H2D_PAGEABLE || ck == GD_COPY_D2H_PAGEABLE)
        for (size_t s = 0; s < r->nsteps; s++)
            if (k->ts >= r->steps[s].lo_ns && k->ts < r->steps[s].hi_ns) {
                r->pageable_in_step_us += gd_trace_us(k->dur);
                break;
            }
}

/* Whether k is in HTA's launch set: launched by a kept launch, copy or memset call. */
static bool hta_launch(const kept *k)
{
    return k->rt_ts != INT64_MIN &&
           (k->rt_kind == GD_RT_LAUNCH || k->rt_kind == GD_RT_MEMCPY_ASYNC || k->rt_kind == GD_RT_MEMSET_ASYNC);
}

/* A launch of HTA's set: its short kernels and its CPU and delay outliers. */
static void count_launch(analysis *x, const kept *k)
{
    gd_trace_result *r = x->r;
    int64_t cpu = k->rt_dur, gpu = k->dur; /* ns: HTA's cut-offs are 50 and 100 us */
    int64_t delay = k->ts - k->rt_ts - k->rt_dur;
    if (delay < 0)
        delay = 0;
    r->launches++;
    if (cpu <= 50000 && gpu < cpu)
        r->short_kernels++;
    if (cpu > 50000)
        r->runtime_outliers++;
    if (delay > 100000)
        r->delay_outliers++;
}

/* The medians of the launch set (CPU time, delay) and of the launched kernels. */
static void launch_medians(analysis *x)
{
    const kept *k = x->k;
    gd_trace_result *r = x->r;
    double *scratch = x->scratch;
    size_t m = 0;
    for (size_t i = 0; i < x->nk; i++)
        if (hta_launch(&k[i]))
            scratch[m++] = gd_trace_us(k[i].rt_dur);
    r->launch_cpu_median_us = gd_trace_median(scratch, m);
    m = 0;
    for (size_t i = 0; i < x->nk; i++)
        if (hta_launch(&k[i])) {
            int64_t d = k[i].ts - k[i].rt_ts - k[i].rt_dur;
            scratch[m++] = d < 0 ? 0 : gd_trace_us(d);
        }
    r->launch_delay_median_us = gd_trace_median(scratch, m);
    m = 0;
    for (size_t i = 0; i < x->nk; i++)
        if (k[i].rt_kind == GD_RT_LAUNCH && k[i].cat == GD_TCAT_KERNEL)
            scratch[m++] = gd_trace_us(k[i].dur);
    r->kernel_median_us = m ? gd_trace_median(scratch, m) : NAN;
}

/* Kernels, copies and launches: one pass over the kept operations. */
static void operation_totals(analysis *x)
{
    gd_trace_result *r = x->r;
    for (size_t i = 0; i < x->nk; i++) {
        const kept *k = &x->k[i];
        count_kernel(x, k);
        if (k->cat == GD_TCAT_MEMCPY)
            count_copy(x, k);
        if (hta_launch(k))
            count_launch(x, k);
    }
    for (int c = 0; c < GD_COPY_NKINDS; c++)
        r->copies[c].gbps = r->copies[c].time_us > 0 ? r->copies[c].bytes / (r->copies[c].time_us * 1e3) : NAN;
    if (r->launches)
        launch_medians(x);
}

/* The longest kernels of each class, by their total time. */
static void top_kernels(analysis *x)
{
    gd_trace_result *r = x->r;
    for (size_t i = 0; i < x->nnames; i++)
        x->order[i] = (name_rank){x->agg[i].total, (uint32_t)i};
    gd_sort(x->order, x->nnames, sizeof *x->order, cmp_name_total);
    for (size_t i = 0; i < x->nnames; i++) {
        uint32_t id = x->order[i].id;
        if (!x->agg[id].count)
            continue;
        gd_kclass c = (gd_kclass)x->name_cls[id];
        if (r->ntop[c] >= GD_TRACE_TOP)
            continue;
        gd_trace_kernel *t = &r->top[c][r->ntop[c]++];
        snprintf(t->name, sizeof t->name, "%s", gd_trace_name(x->a, id));
        t->cls = c;
        t->total_us = x->agg[id].total;
        t->count = x->agg[id].count;
        t->share_pct = pct(x->agg[id].total, r->class_us[c]);
    }
}

/* Synchronizations: blocking calls among the kept host rows, inside the steps. */
static void synchronizations(analysis *x)
{
    gd_trace_acc *a = x->a;
    gd_trace_result *r = x->r;
    name_agg *agg = x->agg; /* reused: the sync time per name */
    uint32_t top_id = UINT32_MAX;
    double top_us = -1;
    memset(agg, 0, (x->nnames + 1) * sizeof *agg);
    for (size_t i = 0; i < a->rt.n; i++) {
        const gd_trt *t = &a->rt.v[i];
        if (t->kind != GD_RT_SYNC || !in_window(&x->w, t->ts))
            continue;
        bool in_step = r->nsteps == 0;
        for (size_t s = 0; s < r->nsteps; s++)
            if (t->ts >= r->steps[s].lo_ns && t->ts < r->steps[s].hi_ns) {
                r->steps[s].syncs++;
                in_step = true;
                break;
            }
        if (!in_step)
            continue;
        r->syncs++;
        r->sync_us += gd_trace_us(t->dur);
        if (t->name < x->nnames) {
            agg[t->name].total += gd_trace_us(t->dur);
            if (agg[t->name].total > top_us)
                top_us = agg[t->name].total, top_id = t->name;
        }
    }
    if (top_id != UINT32_MAX)
        snprintf(r->sync_top, sizeof r->sync_top, "%s", gd_trace_name(a, top_id));
    if (r->nsteps) {
        r->sync_pct = pct(r->sync_us, r->step_total_us);
        r->sync_per_step = (double)r->syncs / (double)r->nsteps;
    }
}

int gd_trace_analyze(gd_trace_acc *a, const gd_trace_meta *meta, const gd_trace_opts *o, gd_trace_result *r, char *err,
                     size_t errlen)
{
    result_start(a, meta, r);
    if (resolve_tensorflow(a, r) != 0) {
        snprintf(err, errlen, "out of memory analyzing the trace");
        return -1;
    }
    analysis x = {.a = a, .o = o, .r = r};
    pick_window(a, o, r, &x.w);
    int rc = -1;
    if (analysis_alloc(&x) == 0) {
        classify_names(&x);
        keep_launched_ops(&x);
        temporal_breakdown(&x);
        if (stream_idle(&x) == 0 && time_steps(&x) == 0) {
            operation_totals(&x);
            top_kernels(&x);
            synchronizations(&x);
            rc = gd_trace_stalls(a, x.k, x.nk, x.u_cls, x.ncomp, r) ? -1 : 0;
        }
    }
    if (rc)
        snprintf(err, errlen, "out of memory analyzing the trace");
    analysis_free(&x);
    return rc;
}

void gd_trace_result_free(gd_trace_result *r)
{
    free(r->steps);
    r->steps = NULL;
    r->nsteps = 0;
}
