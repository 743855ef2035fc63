/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Plots as inline SVG for the HTML report: time series over a window
 * (lines, min-max bands, reference lines, shaded intervals) and stacked
 * bars. Colours are CSS classes the page defines (c0..c7: the Okabe-Ito
 * palette; peer, ref, r0..r7 for intervals), so the reader's light or dark
 * scheme applies. Long series are reduced to at most two points per
 * horizontal pixel bucket (its minimum and maximum, in time order): a spike
 * one sample wide still shows.
 */
#ifndef GD_SVG_PLOT_H
#define GD_SVG_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct gd_svg_point {
    double t, v; /* v NAN: a gap */
} gd_svg_point;

/* How gd_svg_downsample keeps each bucket. */
typedef enum gd_svg_keep {
    GD_SVG_MINMAX, /* its lowest and its highest sample, in time order (a line) */
    GD_SVG_MIN, /* its lowest (the low edge of a band) */
    GD_SVG_MAX, /* its highest (the high edge of a band) */
} gd_svg_keep;

/*
 * The n samples (t[i], v[i]) reduced for display over [t0, t1] in `buckets`
 * equal slices: n <= buckets keeps every sample; otherwise each slice gives
 * what `keep` says (a slice without a valid sample: one gap). Then a run of
 * points at one value keeps its two ends only (the middle draws nothing).
 * NAN values are gaps. out holds at least 2 * buckets points (n when
 * n <= buckets). Returns the points written.
 */
size_t gd_svg_downsample(const double *t, const double *v, size_t n, double t0, double t1, size_t buckets,
                         gd_svg_keep keep, gd_svg_point *out);

/* At most `cap` round tick values covering [lo, hi] about `target` apart in
 * count (1, 2 or 5 times a power of ten); *step gets their spacing. Returns
 * how many. lo and hi become the outer ticks (the axis' new ends). */
size_t gd_svg_ticks(double *lo, double *hi, int target, double *ticks, size_t cap, double *step);

/* A number as an axis or hover label: no more decimals than step needs. */
void gd_svg_number(double v, double step, char *buf, size_t len);

typedef struct gd_svg_series {
    const char *label; /* in the legend; NULL: not shown there */
    const char *cls; /* CSS class of its colour ("c0", "peer") */
    const double *t, *v; /* n samples; NAN values are gaps */
    const double *hi; /* non-NULL: a band from v (low) to hi (high) */
    size_t n;
    const char *attrs; /* extra attributes of its element: gpudoctor's own text (data-*) */
} gd_svg_series;

typedef struct gd_svg_ref {
    double y;
    const char *label; /* "slowdown 89 C": gpudoctor's own text */
} gd_svg_ref;

typedef struct gd_svg_span {
    double t0, t1;
    const char *label; /* the reason(s): escaped when written */
    int cls; /* r0..r7 */
} gd_svg_span;

typedef struct gd_svg_plot {
    const char *title; /* escaped when written */
    const char *unit; /* of the y axis: "C", "MHz", "%" */
    const char *x_unit; /* "s" */
    double t0, t1; /* the x range */
    double ymin, ymax; /* NAN: from the data and the reference lines */
    int width, height;
    const gd_svg_series *series;
    size_t nseries;
    const gd_svg_ref *refs;
    size_t nrefs;
    const gd_svg_span *spans;
    size_t nspans;
    const char *attrs; /* extra attributes of the <svg>: gpudoctor's own text */
} gd_svg_plot;

/* Writes the plot as one <svg> element. The plot area's pixel bounds and
 * value ranges are in its data-px, data-py, data-t and data-y attributes,
 * so a reader can map the points back to values. */
void gd_svg_plot_write(FILE *out, const gd_svg_plot *p);

typedef struct gd_svg_bars {
    const char *title, *unit; /* escaped when written */
    size_t ncat, nseg;
    const double *v; /* [ncat][nseg], stacked from zero */
    const char *const *seg_label; /* nseg names, for the legend */
    const char *const *seg_cls; /* nseg CSS classes */
    const char *const *cat_label; /* ncat labels under the bars (escaped), or NULL */
    const double *overlay; /* per category, a narrow bar beside the stack, or NULL */
    const char *overlay_label, *overlay_cls;
    int width, height;
} gd_svg_bars;

/* Writes stacked bars as one <svg> element; each segment has a <title>
 * with its value. */
void gd_svg_bars_write(FILE *out, const gd_svg_bars *b);

#endif
