/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What stalls the step besides the DataLoader (docs/trace.md): host reads of
 * device memory (.item(), .cpu(), printing a tensor) that make the host wait
 * for the GPU to drain, and host-to-device copies that no compute overlaps,
 * which a prefetch on a side stream would hide.
 */
#include "analysis/trace/trace_stalls.h"
#include "analysis/trace/trace_intervals.h"
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A sync call that starts this soon after a read's copy call returns is the
 * read's own (at::cuda::memcpy_and_sync: cudaMemcpyAsync, then
 * cudaStreamSynchronize). */
#define READ_SYNC_GAP_NS 50000 /* 50 us */

static bool is_dtoh(const char *n)
{
    return strstr(n, "DtoH") || strstr(n, "D2H");
}

static bool is_htod(const char *n)
{
    return strstr(n, "HtoD") || strstr(n, "H2D");
}

/* The analyzed step that holds time t, or NULL (steps are by time and do not overlap). */
static gd_trace_step *step_of(gd_trace_result *r, int64_t t)
{
    size_t lo = 0, hi = r->nsteps;
    while (lo < hi) { /* first step that starts after t */
        size_t mid = (lo + hi) / 2;
        if (r->steps[mid].lo_ns <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    gd_trace_step *s = &r->steps[lo - 1];
    return t < s->hi_ns ? s : NULL;
}

static int cmp_rt_ts(const void *x, const void *y)
{
    const gd_trt *a = *(const gd_trt *const *)x, *b = *(const gd_trt *const *)y;
    return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/* Whether t falls inside one of the spans (sorted by start; nested ones too). */
static bool inside(const gd_tspan *v, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].ts <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo, looked = 0; i > 0 && looked < 8; i--, looked++)
        if (t < v[i - 1].ts + v[i - 1].dur)
            return true;
    return false;
}

/* The sync call right after a read's copy call on its thread, not taken yet; NULL if none. */
static gd_trt *follow_up_sync(gd_trt **syncs, size_t n, bool *used, const gd_tkept *k)
{
    int64_t end = k->rt_ts + k->rt_dur;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (syncs[mid]->ts < end)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < n && syncs[i]->ts <= end + READ_SYNC_GAP_NS; i++)
        if (!used[i] && (syncs[i]->tid == k->rt_tid || syncs[i]->tid < 0 || k->rt_tid < 0)) {
            used[i] = true;
            return syncs[i];
        }
    return NULL;
}

int gd_trace_stalls(gd_trace_acc *a, const gd_tkept *k, size_t nk, const gd_tiv *comp, size_t ncomp, gd_trace_result *r)
{
    if (r->nsteps == 0)
        return 0;
    size_t ns = 0;
    for (size_t i = 0; i < a->rt.n; i++)
        ns += a->rt.v[i].kind == GD_RT_SYNC;
    gd_trt **syncs = malloc((ns + 1) * sizeof *syncs);
    bool *used = calloc(ns + 1, sizeof *used);
    double *bytes = malloc((nk + 1) * sizeof *bytes);
    if (!syncs || !used || !bytes) {
        free(syncs);
        free(used);
        free(bytes);
        return -1;
    }
    ns = 0;
    for (size_t i = 0; i < a->rt.n; i++)
        if (a->rt.v[i].kind == GD_RT_SYNC)
            syncs[ns++] = &a->rt.v[i];
    gd_sort(syncs, ns, sizeof *syncs, cmp_rt_ts);
    gd_sort(a->items.v, a->items.n, sizeof *a->items.v, gd_trace_cmp_span_ts);

    size_t nbytes = 0;
    for (size_t i = 0; i < nk; i++) {
        if (k[i].cat != GD_TCAT_MEMCPY)
            continue;
        const char *name = gd_trace_name(a, k[i].name);
        if (is_dtoh(name) && k[i].rt_ts != INT64_MIN) {
            gd_trace_step *s = step_of(r, k[i].rt_ts);
            if (!s)
                continue;
            double blocked = gd_trace_us(k[i].rt_dur);
            if (k[i].rt_kind == GD_RT_SYNC) /* a synchronous cudaMemcpy: in the syncs too */
                r->read_sync_us += gd_trace_us(k[i].rt_dur);
            gd_trt *f = follow_up_sync(syncs, ns, used, &k[i]);
            if (f) {
                blocked += gd_trace_us(f->dur);
                r->read_sync_us += gd_trace_us(f->dur);
            }
            r->reads++;
            r->reads_item += inside(a->items.v, a->items.n, k[i].rt_ts);
            r->read_blocked_us += blocked;
            s->reads++;
            s->read_blocked_us += blocked;
            if (k[i].bytes >= 0)
                bytes[nbytes++] = (double)k[i].bytes;
        } else if (is_htod(name) && !strstr(name, "Pageable")) {
            gd_trace_step *s = step_of(r, k[i].ts);
            if (!s)
                continue;
            double exposed = gd_trace_us(k[i].dur) - gd_trace_within(comp, ncomp, k[i].ts, k[i].ts + k[i].dur);
            r->step_copies++;
            r->step_copy_us += gd_trace_us(k[i].dur);
            r->step_copy_exposed_us += exposed;
            if (k[i].bytes > 0)
                r->step_copy_bytes += (double)k[i].bytes;
            if (k[i].rt_ts != INT64_MIN && k[i].rt_ts + k[i].rt_dur >= k[i].ts + k[i].dur)
                r->step_copies_waited++;
            s->copy_exposed_us += exposed;
        }
    }
    for (size_t i = 0; i < a->items.n; i++)
        if (a->items.v[i].number == 1 && step_of(r, a->items.v[i].ts)) {
            r->item_calls++;
            r->item_us += gd_trace_us(a->items.v[i].dur);
        }
    if (nbytes)
        r->read_bytes_median = gd_trace_median(bytes, nbytes);
    if (r->step_total_us > 0) {
        r->read_blocked_pct = 100 * r->read_blocked_us / r->step_total_us;
        r->item_pct = 100 * r->item_us / r->step_total_us;
        r->step_copy_exposed_pct = 100 * r->step_copy_exposed_us / r->step_total_us;
    }
    free(syncs);
    free(used);
    free(bytes);
    return 0;
}
