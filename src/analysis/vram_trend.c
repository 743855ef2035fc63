/* SPDX-License-Identifier: Apache-2.0 */
/* Robust trend of a memory series: Theil-Sen slope, R^2, quarter medians. */
#include "vram_trend.h"
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Index of the k-th of m evenly thinned points out of n. */
static size_t pick(size_t k, size_t m, size_t n)
{
    return m >= n ? k : (size_t)((double)k * (double)(n - 1) / (double)(m - 1) + 0.5);
}

static double theil_sen_slope(const double *t, const double *y, size_t n, double *work)
{
    size_t m = n < GD_VRAM_TREND_MAX_POINTS ? n : GD_VRAM_TREND_MAX_POINTS, k = 0;
    for (size_t a = 0; a < m; a++)
        for (size_t b = a + 1; b < m; b++) {
            size_t i = pick(a, m, n), j = pick(b, m, n);
            if (t[j] > t[i])
                work[k++] = (y[j] - y[i]) / (t[j] - t[i]);
        }
    return k ? gd_median(work, k) : 0;
}

/* R^2 of the line; *ss_res gets its sum of squared residuals. */
static double r_squared(const double *t, const double *y, size_t n, double slope, double intercept, double *ss_res_out)
{
    double mean = 0, ss_tot = 0, ss_res = 0;
    for (size_t i = 0; i < n; i++)
        mean += y[i] / (double)n;
    for (size_t i = 0; i < n; i++) {
        double e = y[i] - (intercept + slope * t[i]);
        ss_res += e * e;
        ss_tot += (y[i] - mean) * (y[i] - mean);
    }
    *ss_res_out = ss_res;
    return ss_tot > 0 ? fmax(0, 1 - ss_res / ss_tot) : 0;
}

/* A leak raises every quarter above the one before; a one-off allocation
 * raises at most one step, leaving two neighbouring quarters level. */
static bool quarters_rise(const double *y, size_t n, double *work)
{
    double prev = -INFINITY;
    for (size_t q = 0; q < 4; q++) {
        size_t lo = q * n / 4, hi = (q + 1) * n / 4;
        memcpy(work, y + lo, (hi - lo) * sizeof *work);
        double med = gd_median(work, hi - lo);
        if (!(med > prev))
            return false;
        prev = med;
    }
    return true;
}

/* The smallest sum of squared residuals of a two-level fit (one level
 * before sample k, another from k on), over every k. Noise makes the
 * quarter medians of a single allocation step rise by chance; the step
 * still fits its samples better than any line does. */
static double best_step_sse(const double *y, size_t n)
{
    double mean = 0, total = 0, total_sq = 0, best = INFINITY;
    for (size_t i = 0; i < n; i++)
        mean += y[i] / (double)n;
    for (size_t i = 0; i < n; i++) {
        total += y[i] - mean;
        total_sq += (y[i] - mean) * (y[i] - mean);
    }
    double left = 0, left_sq = 0;
    for (size_t k = 1; k < n; k++) {
        double d = y[k - 1] - mean;
        left += d;
        left_sq += d * d;
        double right = total - left, right_sq = total_sq - left_sq;
        double sse = left_sq - left * left / (double)k + right_sq - right * right / (double)(n - k);
        best = sse < best ? sse : best;
    }
    return best;
}

int gd_vram_trend_fit(const double *t, const double *y, size_t n, gd_vram_trend *out)
{
    memset(out, 0, sizeof *out);
    if (n < 4)
        return -1;
    size_t m = n < GD_VRAM_TREND_MAX_POINTS ? n : GD_VRAM_TREND_MAX_POINTS;
    size_t cap = m * (m - 1) / 2 > n ? m * (m - 1) / 2 : n;
    double *work = malloc(cap * sizeof *work);
    if (!work)
        return -1;
    out->n = n;
    out->slope = theil_sen_slope(t, y, n, work);
    for (size_t i = 0; i < n; i++)
        work[i] = y[i] - out->slope * t[i];
    out->intercept = gd_median(work, n);
    double line_sse;
    out->r2 = r_squared(t, y, n, out->slope, out->intercept, &line_sse);
    out->one_step = best_step_sse(y, n) <= line_sse;
    out->span = t[n - 1] - t[0];
    out->rise = out->slope * out->span;
    out->steady = quarters_rise(y, n, work);
    free(work);
    return 0;
}
