/* SPDX-License-Identifier: Apache-2.0 */
/* Unions of intervals, their lengths and overlaps, medians (trace_intervals.h). */
#include "analysis/trace/trace_intervals.h"
#include "core/stats.h"

#include <math.h>

int gd_trace_cmp_span_ts(const void *x, const void *y)
{
    const gd_tspan *a = x, *b = y;
    return a->ts < b->ts ? -1 : a->ts > b->ts;
}

double gd_trace_quantile(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    if (i + 1 >= n)
        return v[n - 1];
    return v[i] + (v[i + 1] - v[i]) * (pos - (double)i);
}

double gd_trace_median(double *v, size_t n)
{
    return gd_median(v, n); /* numpy's median: quantile 0.5, the two middles' mean */
}

size_t gd_trace_union(const gd_tkept *k, size_t n, int want_cls, gd_tiv *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (want_cls < 0 || k[i].cls == want_cls)
            m = gd_trace_union_add(out, m, k[i].ts, k[i].ts + k[i].dur);
    return m;
}

double gd_trace_union_us(const gd_tiv *v, size_t n)
{
    int64_t t = 0;
    for (size_t i = 0; i < n; i++)
        t += v[i].hi - v[i].lo;
    return gd_trace_us(t);
}

double gd_trace_within(const gd_tiv *v, size_t n, int64_t lo, int64_t hi)
{
    size_t a = 0, b = n;
    while (a < b) { /* first interval that ends after lo */
        size_t mid = (a + b) / 2;
        if (v[mid].hi <= lo)
            a = mid + 1;
        else
            b = mid;
    }
    int64_t t = 0;
    for (size_t i = a; i < n && v[i].lo < hi; i++) {
        int64_t x = v[i].lo > lo ? v[i].lo : lo, y = v[i].hi < hi ? v[i].hi : hi;
        if (y > x)
            t += y - x;
    }
    return gd_trace_us(t);
}

double gd_trace_overlap_us(const gd_tiv *a, size_t na, const gd_tiv *b, size_t nb)
{
    int64_t t = 0;
    for (size_t i = 0, j = 0; i < na && j < nb;) {
        int64_t x = a[i].lo > b[j].lo ? a[i].lo : b[j].lo, y = a[i].hi < b[j].hi ? a[i].hi : b[j].hi;
        if (y > x)
            t += y - x;
        if (a[i].hi < b[j].hi)
            i++;
        else
            j++;
    }
    return gd_trace_us(t);
}
