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

static void pick_window(gd_trace_acc *a, const gd_trace_opts *o, gd_trace_result *r, window *w)
{
    *w = (window){INT64_MIN, INT64_MAX, false};
    /* Distinct step numbers, the last step's start and the latest step end (any host row named so). */
    size_t distinct = 0;
    long prev = -2;
    int64_t last_start = INT64_MIN, last_end = INT64_MIN;
    gd_sort(a->steps.v, a->steps.n, sizeof *a->steps.v, gd_trace_cmp_span_ts);
    long *nums = malloc((a->steps.n + 1) * sizeof *nums);
    for (size_t i = 0; i < a->steps.n; i++) {
        const gd_tspan *s = &a->steps.v[i];
        if (s->ts > last_start)
            last_start = s->ts;
        if (s->ts + s->dur > last_end)
            last_end = s->ts + s->dur;
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

int gd_trace_analyze(gd_trace_acc *a, const gd_trace_meta *meta, const gd_trace_opts *o, gd_trace_result *r, char *err,
                     size_t errlen)
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
    {
        int oom = 0;
        const char *tf = gd_trace_tf_resolve(a, &r->tf_gpu, &r->tf_other_gpu_events, &oom);
        if (oom) {
            snprintf(err, errlen, "out of memory analyzing the trace");
            return -1;
        }
        if (tf)
            r->format = tf;
    }

    window w;
    pick_window(a, o, r, &w);

    /* 1. Keep the GPU operations launched by a kept host row (HTA's filter). */
    gd_sort(a->rt.v, a->rt.n, sizeof *a->rt.v, cmp_rt_corr);
    size_t ng = a->gpu.n;
    kept *k = malloc((ng ? ng : 1) * sizeof *k);
    iv *u_all = malloc((ng ? ng : 1) * sizeof *u_all);
    iv *u_cls = malloc((ng ? ng : 1) * sizeof *u_cls);
    iv *u_comm = malloc((ng ? ng : 1) * sizeof *u_comm);
    double *scratch = malloc((ng + a->steps.n + 1) * sizeof *scratch);
    uint8_t *name_cls = NULL;
    name_agg *agg = NULL;
    name_rank *order = NULL;
    int rc = -1;
    if (!k || !u_all || !u_cls || !u_comm || !scratch)
        goto out;
    size_t nk = 0;
    size_t nnames = a->name_off.n;
    name_cls = malloc(nnames + 1);
    agg = calloc(nnames + 1, sizeof *agg);
    order = malloc((nnames + 1) * sizeof *order);
    if (!name_cls || !agg || !order)
        goto out;
    for (size_t i = 0; i < nnames; i++)
        name_cls[i] = (uint8_t)gd_trace_kernel_class(gd_trace_name(a, (uint32_t)i));
    for (size_t i = 0; i < ng; i++) {
        const gd_tgpu *g = &a->gpu.v[i];
        kept x = {g->ts, g->dur,  INT64_MIN, 0,           g->bytes,         g->stream,
                  -1,    g->name, g->cat,    GD_RT_OTHER, name_cls[g->name]};
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
                if (in_window(&w, a->rt.v[j].ts)) {
                    x.rt_ts = a->rt.v[j].ts;
                    x.rt_dur = a->rt.v[j].dur;
                    x.rt_kind = a->rt.v[j].kind;
                    x.rt_tid = a->rt.v[j].tid;
                    found = true;
                    break;
                }
            if (!found)
                continue;
        } else if (!in_window(&w, g->ts)) {
            /* Without a correlation HTA counts the row as a host row: kept by its own time. */
            continue;
        }
        k[nk++] = x;
    }
    r->gpu_events = nk;
    for (size_t i = 0; i < nk; i++)
        r->gpu_linked += k[i].rt_ts != INT64_MIN;
    r->has_gpu = nk > 0;
    gd_sort(k, nk, sizeof *k, cmp_kept_ts);

    /* 2. Temporal breakdown. */
    size_t nall = gd_trace_union(k, nk, -1, u_all);
    size_t ncomp = gd_trace_union(k, nk, GD_K_COMPUTE, u_cls);
    size_t ncomm = gd_trace_union(k, nk, GD_K_COMM, u_comm);
    if (nall) {
        r->span_us = gd_trace_us(u_all[nall - 1].hi - u_all[0].lo);
        double busy = gd_trace_union_us(u_all, nall);
        r->idle_us = r->span_us - busy;
        r->compute_us = gd_trace_union_us(u_cls, ncomp);
        r->non_compute_us = r->span_us - r->compute_us - r->idle_us;
        r->idle_pct = pct(r->idle_us, r->span_us);
        r->compute_pct = pct(r->compute_us, r->span_us);
        r->non_compute_pct = pct(r->non_compute_us, r->span_us);
        double comm = gd_trace_union_us(u_comm, ncomm);
        if (comm > 0)
            r->comm_overlap_pct = pct(gd_trace_overlap_us(u_cls, ncomp, u_comm, ncomm), comm);
    }

    /* 3. Idle time per stream: kernels, copies and memsets only. */
    {
        kept *s = malloc((nk ? nk : 1) * sizeof *s);
        if (!s)
            goto out;
        size_t ns = 0;
        for (size_t i = 0; i < nk; i++)
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
                else if (gap < o->kernel_wait_us * 1000)
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
    }

    /* 4. Steps, DataLoader and per-step GPU time. */
    gd_tspan *loader = a->loader.v;
    size_t nl = 0;
    gd_sort(loader, a->loader.n, sizeof *loader, gd_trace_cmp_span_ts);
    iv *u_dl = malloc((a->loader.n + 1) * sizeof *u_dl);
    if (!u_dl)
        goto out;
    for (size_t i = 0; i < a->loader.n; i++) {
        if (!in_window(&w, loader[i].ts))
            continue;
        r->dataloader_events++;
        nl = gd_trace_union_add(u_dl, nl, loader[i].ts, loader[i].ts + loader[i].dur);
    }
    r->steps = calloc(a->steps.n + 1, sizeof *r->steps);
    if (!r->steps) {
        free(u_dl);
        goto out;
    }
    for (size_t i = 0; i < a->steps.n; i++) {
        const gd_tspan *sp = &a->steps.v[i];
        if (sp->gpu_side || !in_window(&w, sp->ts))
            continue;
        if (o->step_first >= 0 && (sp->number < o->step_first || sp->number > o->step_last))
            continue;
        gd_trace_step *st = &r->steps[r->nsteps++];
        int64_t lo = sp->ts, hi = sp->ts + sp->dur;
        double busy = gd_trace_within(u_all, nall, lo, hi);
        st->number = sp->number;
        st->lo_ns = lo;
        st->hi_ns = hi;
        st->ts_us = gd_trace_us(lo);
        st->dur_us = gd_trace_us(sp->dur);
        st->compute_us = gd_trace_within(u_cls, ncomp, lo, hi);
        st->non_compute_us = busy - st->compute_us;
        st->idle_us = r->has_gpu ? st->dur_us - busy : 0;
        st->dataloader_us = gd_trace_within(u_dl, nl, lo, hi);
        r->step_total_us += st->dur_us;
        r->dataloader_us += st->dataloader_us;
        scratch[r->nsteps - 1] = st->dur_us;
        if (isnan(r->step_max_us) || st->dur_us > r->step_max_us) {
            r->step_max_us = st->dur_us;
            r->step_slowest = st->number;
        }
    }
    free(u_dl);
    if (r->nsteps) {
        gd_sort(scratch, r->nsteps, sizeof *scratch, cmp_double);
        r->step_median_us = gd_trace_quantile(scratch, r->nsteps, 0.5);
        r->step_p90_us = gd_trace_quantile(scratch, r->nsteps, 0.9);
        r->dataloader_pct = pct(r->dataloader_us, r->step_total_us);
        if (r->has_gpu) {
            r->step_idle_us = 0;
            for (size_t i = 0; i < r->nsteps; i++)
                r->step_idle_us += r->steps[i].idle_us;
            r->step_idle_pct = pct(r->step_idle_us, r->step_total_us);
        }
    }

    /* 5. Kernels by name and class (durations summed, as HTA's kernel breakdown). */
    size_t nlaunch = 0;
    for (size_t i = 0; i < nk; i++) {
        agg[k[i].name].total += gd_trace_us(k[i].dur);
        agg[k[i].name].count++;
        r->class_us[k[i].cls] += gd_trace_us(k[i].dur);
        r->class_count[k[i].cls]++;
        if (k[i].cat == GD_TCAT_MEMCPY) {
            gd_copy_kind ck = copy_kind(gd_trace_name(a, k[i].name));
            gd_trace_copies *c = &r->copies[ck];
            c->count++;
            c->time_us += gd_trace_us(k[i].dur);
            if (k[i].bytes > 0)
                c->bytes += (double)k[i].bytes;
            if (ck == GD_COPY_H2D_PAGEABLE || ck == GD_COPY_D2H_PAGEABLE)
                for (size_t s = 0; s < r->nsteps; s++)
                    if (k[i].ts >= r->steps[s].lo_ns && k[i].ts < r->steps[s].hi_ns) {
                        r->pageable_in_step_us += gd_trace_us(k[i].dur);
                        break;
                    }
        }
        /* 6. Launches: HTA's launch set with a GPU partner. */
        if (k[i].rt_ts != INT64_MIN && (k[i].rt_kind == GD_RT_LAUNCH || k[i].rt_kind == GD_RT_MEMCPY_ASYNC ||
                                        k[i].rt_kind == GD_RT_MEMSET_ASYNC)) {
            int64_t cpu = k[i].rt_dur, gpu = k[i].dur; /* ns: HTA's cut-offs are 50 and 100 us */
            int64_t delay = k[i].ts - k[i].rt_ts - k[i].rt_dur;
            if (delay < 0)
                delay = 0;
            nlaunch++;
            if (cpu <= 50000 && gpu < cpu)
                r->short_kernels++;
            if (cpu > 50000)
                r->runtime_outliers++;
            if (delay > 100000)
                r->delay_outliers++;
        }
    }
    for (int c = 0; c < GD_COPY_NKINDS; c++)
        r->copies[c].gbps = r->copies[c].time_us > 0 ? r->copies[c].bytes / (r->copies[c].time_us * 1e3) : NAN;
    r->launches = nlaunch;
    if (nlaunch) {
        size_t m = 0;
        for (size_t i = 0; i < nk; i++)
            if (k[i].rt_ts != INT64_MIN && (k[i].rt_kind == GD_RT_LAUNCH || k[i].rt_kind == GD_RT_MEMCPY_ASYNC ||
                                            k[i].rt_kind == GD_RT_MEMSET_ASYNC))
                scratch[m++] = gd_trace_us(k[i].rt_dur);
        r->launch_cpu_median_us = gd_trace_median(scratch, m);
        m = 0;
        for (size_t i = 0; i < nk; i++)
            if (k[i].rt_ts != INT64_MIN && (k[i].rt_kind == GD_RT_LAUNCH || k[i].rt_kind == GD_RT_MEMCPY_ASYNC ||
                                            k[i].rt_kind == GD_RT_MEMSET_ASYNC)) {
                int64_t d = k[i].ts - k[i].rt_ts - k[i].rt_dur;
                scratch[m++] = d < 0 ? 0 : gd_trace_us(d);
            }
        r->launch_delay_median_us = gd_trace_median(scratch, m);
        m = 0;
        for (size_t i = 0; i < nk; i++)
            if (k[i].rt_kind == GD_RT_LAUNCH && k[i].cat == GD_TCAT_KERNEL)
                scratch[m++] = gd_trace_us(k[i].dur);
        r->kernel_median_us = m ? gd_trace_median(scratch, m) : NAN;
    }
    for (size_t i = 0; i < nnames; i++)
        order[i] = (name_rank){agg[i].total, (uint32_t)i};
    gd_sort(order, nnames, sizeof *order, cmp_name_total);
    for (size_t i = 0; i < nnames; i++) {
        uint32_t id = order[i].id;
        if (!agg[id].count)
            continue;
        gd_kclass c = (gd_kclass)name_cls[id];
        if (r->ntop[c] >= GD_TRACE_TOP)
            continue;
        gd_trace_kernel *t = &r->top[c][r->ntop[c]++];
        snprintf(t->name, sizeof t->name, "%s", gd_trace_name(a, id));
        t->cls = c;
        t->total_us = agg[id].total;
        t->count = agg[id].count;
        t->share_pct = pct(agg[id].total, r->class_us[c]);
    }

    /* 7. Synchronizations: blocking calls among the kept host rows. */
    {
        uint32_t top_id = UINT32_MAX;
        double top_us = -1;
        memset(agg, 0, (nnames + 1) * sizeof *agg);
        for (size_t i = 0; i < a->rt.n; i++) {
            const gd_trt *t = &a->rt.v[i];
            if (t->kind != GD_RT_SYNC || !in_window(&w, t->ts))
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
            if (t->name < nnames) {
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

    /* 8. Host reads and exposed copies inside the steps. */
    if (gd_trace_stalls(a, k, nk, u_cls, ncomp, r))
        goto out;
    rc = 0;
out:
    if (rc)
        snprintf(err, errlen, "out of memory analyzing the trace");
    free(k);
    free(u_all);
    free(u_cls);
    free(u_comm);
    free(scratch);
    free(name_cls);
    free(agg);
    free(order);
    return rc;
}

void gd_trace_result_free(gd_trace_result *r)
{
    free(r->steps);
    r->steps = NULL;
    r->nsteps = 0;
}
