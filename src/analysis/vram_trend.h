/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Is memory use rising steadily? A robust line through (t, used) samples:
 * the Theil-Sen slope (median of pairwise slopes, 29% breakdown point, so
 * noise and a few outliers do not move it), the fit's R^2, and a check that
 * the rise is spread over the window rather than one allocation step.
 */
#ifndef GD_VRAM_TREND_H
#define GD_VRAM_TREND_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gd_vram_trend {
    size_t n; /* points fitted */
    double slope; /* y units per t unit (Theil-Sen) */
    double intercept; /* median of y - slope t */
    double r2; /* 1 - SSres/SStot around that line; 0 for a flat series */
    double span; /* t of the last point - t of the first */
    double rise; /* slope x span */
    bool steady; /* the medians of the window's four quarters rise one after another */
    bool one_step; /* one level shift (an allocation) fits the samples at least as well as the line */
} gd_vram_trend;

/* Points the slope is computed over at most: longer series are thinned
 * evenly (Theil-Sen is quadratic in the number of points). */
#define GD_VRAM_TREND_MAX_POINTS 200

/*
 * Fits n points, t in increasing order. Returns 0, or -1 when fewer than 4
 * points or out of memory (out is then zeroed).
 */
int gd_vram_trend_fit(const double *t, const double *y, size_t n, gd_vram_trend *out);

#endif
