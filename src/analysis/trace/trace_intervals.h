/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Time arithmetic of the trace analysis (trace_intervals.c): unions of GPU
 * operations' intervals, their lengths and overlaps, and medians. Both
 * trace_analyze.c and trace_stalls.c measure with it, so it lies in neither.
 */
#ifndef GD_TRACE_INTERVALS_H
#define GD_TRACE_INTERVALS_H

#include "analysis/trace/trace_internal.h"

/* Orders spans by start (qsort's comparator). */
int gd_trace_cmp_span_ts(const void *x, const void *y);

/* Quantile q of sorted v (numpy's linear interpolation), NAN when empty. */
double gd_trace_quantile(const double *v, size_t n, double q);
/* The median of v (sorted in place; numpy's interpolation), NAN when empty. */
double gd_trace_median(double *v, size_t n);

/*
 * Adds [lo, hi] to the union u[0..n) of intervals added by start, as HTA
 * merges: it joins the last run when it starts at or before the run's end.
 * Returns the union's new length (room for one more needed). Inline: it runs
 * once per GPU operation.
 */
static inline size_t gd_trace_union_add(gd_tiv *u, size_t n, int64_t lo, int64_t hi)
{
    if (n && lo <= u[n - 1].hi) {
        if (hi > u[n - 1].hi)
            u[n - 1].hi = hi;
        return n;
    }
    u[n] = (gd_tiv){lo, hi};
    return n + 1;
}

/*
 * The union of the intervals of k[0..n) (sorted by ts) whose class is
 * want_cls (-1: all) into out (room for n). Returns its length.
 */
size_t gd_trace_union(const gd_tkept *k, size_t n, int want_cls, gd_tiv *out);
/* Length of a union, in us. */
double gd_trace_union_us(const gd_tiv *v, size_t n);
/* Length in us of the union v (sorted, disjoint; ns) within [lo, hi) (ns). */
double gd_trace_within(const gd_tiv *v, size_t n, int64_t lo, int64_t hi);
/* |a ∩ b| of two unions, in us. */
double gd_trace_overlap_us(const gd_tiv *a, size_t na, const gd_tiv *b, size_t nb);

#endif
