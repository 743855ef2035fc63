/* SPDX-License-Identifier: Apache-2.0 */
/* Inline SVG plots: axes, ticks, units, legends, bands, intervals, bars. */
#include "svg_plot.h"

#include "html_escape.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

size_t gd_svg_downsample(const double *t, const double *v, size_t n, double t0, double t1, size_t buckets,
                         gd_svg_keep keep, gd_svg_point *out)
{
    size_t k = 0;
    double span = t1 > t0 ? t1 - t0 : 1;
    size_t i = 0;
    for (size_t b = 0; n <= buckets && b < n; b++)
        out[k++] = (gd_svg_point){t[b], v[b]};
    for (size_t b = 0; n > buckets && b < buckets; b++) {
        double end = t0 + span * (double)(b + 1) / (double)buckets;
        size_t start = i, lo = SIZE_MAX, hi = SIZE_MAX;
        while (i < n && (b + 1 == buckets || t[i] < end)) {
            if (!isnan(v[i])) {
                if (lo == SIZE_MAX || v[i] < v[lo])
                    lo = i;
                if (hi == SIZE_MAX || v[i] > v[hi])
                    hi = i;
            }
            i++;
        }
        if (i == start) /* no sample in this slice: the line runs on */
            continue;
        if (lo == SIZE_MAX) {
            out[k++] = (gd_svg_point){t[start], NAN};
            continue;
        }
        if (keep == GD_SVG_MIN) {
            out[k++] = (gd_svg_point){t[lo], v[lo]};
        } else if (keep == GD_SVG_MAX) {
            out[k++] = (gd_svg_point){t[hi], v[hi]};
        } else {
            size_t a = lo < hi ? lo : hi, z = lo < hi ? hi : lo;
            out[k++] = (gd_svg_point){t[a], v[a]};
            if (z != a && v[z] != v[a])
                out[k++] = (gd_svg_point){t[z], v[z]};
        }
    }
    /* A flat run keeps its two ends: the middle points draw nothing new. */
    size_t m = 0;
    double prev = NAN;
    for (size_t j = 0; j < k; j++) {
        double cur = out[j].v;
        bool flat = j > 0 && j + 1 < k && !isnan(cur) && cur == prev && cur == out[j + 1].v;
        prev = cur;
        if (!flat)
            out[m++] = out[j];
    }
    return m;
}

size_t gd_svg_ticks(double *lo, double *hi, int target, double *ticks, size_t cap, double *step)
{
    if (!isfinite(*lo) || !isfinite(*hi)) {
        *lo = 0;
        *hi = 1;
    }
    if (*hi < *lo) {
        double x = *lo;
        *lo = *hi;
        *hi = x;
    }
    /* Flat, or flat but for float noise or a last digit (4200 +- 1e-9, a
     * rate's rounding): one value, drawn as a line at mid-height on round
     * ticks. Scaled to its noise, it gave five "4200.000000" labels and a
     * zig-zag across the whole plot. */
    if (*hi - *lo <= fmax(fabs(*lo), fabs(*hi)) * 1e-4 || *hi - *lo < 1e-5) { /* 1e-5: labels keep 6 decimals */
        double mid = (*lo + *hi) / 2, d = fabs(mid) > 0 ? fabs(mid) * 0.1 : 1;
        *lo = mid - d;
        *hi = mid + d;
    }
    if (target < 1)
        target = 1;
    double raw = (*hi - *lo) / target, mag = pow(10, floor(log10(raw)));
    double st = 0;
    size_t count = 0;
    for (int tries = 0; tries < 8; tries++) {
        double f = raw / mag;
        st = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
        double a = floor(*lo / st + 1e-9) * st, b = ceil(*hi / st - 1e-9) * st;
        count = (size_t)llround((b - a) / st) + 1;
        if (count <= cap || cap == 0) {
            *lo = a;
            *hi = b;
            break;
        }
        raw *= 2;
    }
    if (count > cap)
        count = cap;
    for (size_t i = 0; i < count; i++) {
        double x = *lo + (double)i * st;
        ticks[i] = fabs(x) < st * 1e-9 ? 0 : x;
    }
    *step = st;
    return count;
}

void gd_svg_number(double v, double step, char *buf, size_t len)
{
    int decimals = 0;
    if (step > 0 && step < 1)
        decimals = (int)ceil(-log10(step) - 1e-9);
    if (decimals > 6)
        decimals = 6;
    if (fabs(v) < 0.5 * pow(10, -decimals))
        v = 0; /* no "-0" */
    snprintf(buf, len, "%.*f", decimals, v);
}

/* Plot area in pixels: left, right, top, bottom. */
typedef struct frame {
    double x0, x1, y0, y1; /* y0 the bottom (larger), y1 the top */
    double t0, t1, v0, v1; /* the values at those edges */
} frame;

static double px_x(const frame *fr, double t)
{
    double x = fr->x0 + (t - fr->t0) / (fr->t1 - fr->t0) * (fr->x1 - fr->x0);
    return x < fr->x0 ? fr->x0 : x > fr->x1 ? fr->x1 : x;
}

static double px_y(const frame *fr, double v)
{
    double y = fr->y0 - (v - fr->v0) / (fr->v1 - fr->v0) * (fr->y0 - fr->y1);
    return y > fr->y0 ? fr->y0 : y < fr->y1 ? fr->y1 : y;
}

/* A value exactly enough for a reader to compare with the data. */
static void value_text(double v, char *buf, size_t len)
{
    snprintf(buf, len, "%.10g", v);
}

static void series_range(const gd_svg_series *s, double *lo, double *hi, size_t *valid)
{
    for (size_t i = 0; i < s->n; i++) {
        double a = s->v[i], b = s->hi ? s->hi[i] : a;
        if (!isnan(a)) {
            *lo = fmin(*lo, a);
            *hi = fmax(*hi, a);
            (*valid)++;
        }
        if (!isnan(b)) {
            *lo = fmin(*lo, b);
            *hi = fmax(*hi, b);
        }
    }
}

/* Points as path data: "M x y x y ..." with a new M after each gap. */
static void path_points(FILE *out, const frame *fr, const gd_svg_point *p, size_t n, bool skip_gaps, bool *open)
{
    for (size_t i = 0; i < n; i++) {
        if (isnan(p[i].v)) {
            if (!skip_gaps)
                *open = false;
            continue;
        }
        fprintf(out, "%s%.0f %.1f", *open ? " " : "M", px_x(fr, p[i].t), px_y(fr, p[i].v));
        *open = true;
    }
}

static void write_line(FILE *out, const frame *fr, const gd_svg_series *s, size_t buckets, gd_svg_point *pts)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t valid = 0;
    series_range(s, &lo, &hi, &valid);
    if (valid == 0)
        return;
    char a[32], b[32];
    if (s->hi) {
        size_t n = gd_svg_downsample(s->t, s->hi, s->n, fr->t0, fr->t1, buckets, GD_SVG_MAX, pts);
        fprintf(out, "<path class=\"band %s\" d=\"", s->cls);
        bool open = false;
        path_points(out, fr, pts, n, true, &open);
        n = gd_svg_downsample(s->t, s->v, s->n, fr->t0, fr->t1, buckets, GD_SVG_MIN, pts);
        for (size_t i = n; i-- > 0;)
            if (!isnan(pts[i].v))
                fprintf(out, " %.0f %.1f", px_x(fr, pts[i].t), px_y(fr, pts[i].v));
        fputs("Z\"", out);
    } else {
        size_t n = gd_svg_downsample(s->t, s->v, s->n, fr->t0, fr->t1, buckets, GD_SVG_MINMAX, pts);
        fprintf(out, "<path class=\"line %s\" d=\"", s->cls);
        bool open = false;
        path_points(out, fr, pts, n, false, &open);
        fputc('"', out);
    }
    value_text(lo, a, sizeof a);
    value_text(hi, b, sizeof b);
    fprintf(out, " data-n=\"%zu\" data-min=\"%s\" data-max=\"%s\"%s%s><title>", valid, a, b, s->attrs ? " " : "",
            s->attrs ? s->attrs : "");
    gd_html_text(out, s->label ? s->label : "");
    fprintf(out, ": %s to %s</title></path>\n", a, b);
}

static void write_legend_item(FILE *out, double *x, double y, const char *kind, const char *cls, const char *label)
{
    if (strcmp(kind, "line") == 0)
        fprintf(out, "<line class=\"line %s\" x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/>", cls, *x, y - 4,
                *x + 14, y - 4);
    else
        fprintf(out, "<rect class=\"%s %s\" x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"8\"/>", kind, cls, *x, y - 8);
    fprintf(out, "<text class=\"legend\" x=\"%.0f\" y=\"%.0f\">", *x + 18, y);
    gd_html_text(out, label);
    fputs("</text>", out);
    *x += 26 + 5.6 * (double)strlen(label);
}

static void write_spans(FILE *out, const frame *fr, const gd_svg_plot *p)
{
    for (size_t i = 0; i < p->nspans; i++) {
        const gd_svg_span *s = &p->spans[i];
        double x0 = px_x(fr, s->t0), x1 = px_x(fr, s->t1);
        if (x1 - x0 < 1)
            x1 = x0 + 1;
        char a[32], b[32];
        gd_svg_number(s->t0, 0.1, a, sizeof a);
        gd_svg_number(s->t1, 0.1, b, sizeof b);
        fprintf(out, "<rect class=\"span r%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>",
                s->cls & 7, x0, fr->y1, x1 - x0, fr->y0 - fr->y1);
        gd_html_text(out, s->label);
        fprintf(out, ", %s to %s s</title></rect>\n", a, b);
        size_t room = (size_t)((x1 - x0 - 4) / 5.5);
        if (room >= 5 && s->label) {
            size_t len = strlen(s->label);
            fprintf(out, "<text class=\"slabel\" x=\"%.1f\" y=\"%.1f\">", x0 + 2, fr->y1 + 9);
            gd_html_text_n(out, s->label, len < room ? len : room);
            fputs("</text>\n", out);
        }
    }
}

static void write_axes(FILE *out, const frame *fr, const double *yt, size_t ny, double ystep, const char *x_unit)
{
    char num[32];
    for (size_t i = 0; i < ny; i++) {
        double y = px_y(fr, yt[i]);
        gd_svg_number(yt[i], ystep, num, sizeof num);
        fprintf(out, "<line class=\"grid\" x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>", fr->x0, y, fr->x1, y);
        fprintf(out, "<text class=\"tick\" x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", fr->x0 - 4, y + 3,
                num);
    }
    double lo = fr->t0, hi = fr->t1, xt[16], xstep;
    size_t nx = gd_svg_ticks(&lo, &hi, 5, xt, 16, &xstep);
    for (size_t i = 0; i < nx; i++) {
        if (xt[i] < fr->t0 - 1e-9 || xt[i] > fr->t1 + 1e-9)
            continue;
        double x = px_x(fr, xt[i]);
        gd_svg_number(xt[i], xstep, num, sizeof num);
        fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\"/>", x, fr->y0, x,
                fr->y0 + 3);
        fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n", x, fr->y0 + 13,
                num);
    }
    fprintf(out, "<path class=\"axis\" d=\"M%.0f %.0fV%.0fH%.0f\"/>", fr->x0, fr->y1, fr->y0, fr->x1);
    fprintf(out, "<text class=\"tick\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">", fr->x1, fr->y0 + 25);
    gd_html_text(out, x_unit);
    fputs("</text>\n", out);
}

void gd_svg_plot_write(FILE *out, const gd_svg_plot *p)
{
    int w = p->width > 0 ? p->width : 380, h = p->height > 0 ? p->height : 200;
    frame fr = {.x0 = 50, .x1 = w - 12, .y0 = h - 44, .y1 = 22, .t0 = p->t0, .t1 = p->t1 > p->t0 ? p->t1 : p->t0 + 1};
    double lo = INFINITY, hi = -INFINITY;
    size_t valid = 0;
    for (size_t i = 0; i < p->nseries; i++)
        series_range(&p->series[i], &lo, &hi, &valid);
    for (size_t i = 0; i < p->nrefs; i++)
        if (isfinite(p->refs[i].y)) {
            lo = fmin(lo, p->refs[i].y);
            hi = fmax(hi, p->refs[i].y);
        }
    if (!isnan(p->ymin))
        lo = p->ymin;
    if (!isnan(p->ymax))
        hi = p->ymax;
    double yt[16], ystep;
    size_t ny = gd_svg_ticks(&lo, &hi, 4, yt, 16, &ystep);
    fr.v0 = lo;
    fr.v1 = hi;
    char a[32], b[32], c[32], d[32];
    value_text(fr.t0, a, sizeof a);
    value_text(fr.t1, b, sizeof b);
    value_text(lo, c, sizeof c);
    value_text(hi, d, sizeof d);
    fprintf(out,
            "<svg class=\"plot\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" data-px=\"%.0f %.0f\" "
            "data-py=\"%.0f %.0f\" data-t=\"%s %s\" data-y=\"%s %s\"%s%s><title>",
            w, h, w, h, fr.x0, fr.x1, fr.y0, fr.y1, a, b, c, d, p->attrs ? " " : "", p->attrs ? p->attrs : "");
    gd_html_text(out, p->title);
    fputs("</title>\n<text class=\"ptitle\" x=\"4\" y=\"14\">", out);
    gd_html_text(out, p->title);
    if (p->unit && *p->unit) {
        fputs(" (", out);
        gd_html_text(out, p->unit);
        fputc(')', out);
    }
    fputs("</text>\n", out);
    write_spans(out, &fr, p);
    write_axes(out, &fr, yt, ny, ystep, p->x_unit ? p->x_unit : "s");
    size_t buckets = (size_t)((fr.x1 - fr.x0) / 3); /* a column of 3 px: the page stays small */
    gd_svg_point pts[2 * 512 + 1];
    if (buckets > 512)
        buckets = 512;
    for (size_t i = 0; i < p->nseries; i++)
        write_line(out, &fr, &p->series[i], buckets, pts);
    for (size_t i = 0; i < p->nrefs; i++) {
        if (!isfinite(p->refs[i].y))
            continue;
        double y = px_y(&fr, p->refs[i].y);
        fprintf(out, "<line class=\"ref\" x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>", fr.x0, y, fr.x1, y);
        fprintf(out, "<text class=\"rlabel\" x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", fr.x1 - 2,
                y - 3 < fr.y1 + 8 ? y + 10 : y - 3);
        gd_html_text(out, p->refs[i].label);
        fputs("</text>\n", out);
    }
    double lx = 4, ly = h - 6;
    for (size_t i = 0; i < p->nseries; i++)
        if (p->series[i].label)
            write_legend_item(out, &lx, ly, p->series[i].hi ? "band" : "line", p->series[i].cls, p->series[i].label);
    if (p->nrefs)
        write_legend_item(out, &lx, ly, "line", "ref", "limit");
    fputs("</svg>\n", out);
}

void gd_svg_bars_write(FILE *out, const gd_svg_bars *b)
{
    int w = b->width > 0 ? b->width : 760, h = b->height > 0 ? b->height : 240;
    frame fr = {.x0 = 56, .x1 = w - 12, .y0 = h - 44, .y1 = 22, .t0 = 0, .t1 = b->ncat ? (double)b->ncat : 1};
    double hi = 0;
    for (size_t c = 0; c < b->ncat; c++) {
        double sum = 0;
        for (size_t s = 0; s < b->nseg; s++)
            sum += isnan(b->v[c * b->nseg + s]) ? 0 : b->v[c * b->nseg + s];
        hi = fmax(hi, sum);
        if (b->overlay && !isnan(b->overlay[c]))
            hi = fmax(hi, b->overlay[c]);
    }
    double lo = 0, yt[16], ystep;
    size_t ny = gd_svg_ticks(&lo, &hi, 4, yt, 16, &ystep);
    fr.v0 = lo;
    fr.v1 = hi;
    fprintf(out, "<svg class=\"plot bars\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\"><title>", w, h,
            w, h);
    gd_html_text(out, b->title);
    fputs("</title>\n<text class=\"ptitle\" x=\"4\" y=\"14\">", out);
    gd_html_text(out, b->title);
    fputs(" (", out);
    gd_html_text(out, b->unit);
    fputs(")</text>\n", out);
    char num[32];
    for (size_t i = 0; i < ny; i++) {
        double y = px_y(&fr, yt[i]);
        gd_svg_number(yt[i], ystep, num, sizeof num);
        fprintf(out, "<line class=\"grid\" x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>", fr.x0, y, fr.x1, y);
        fprintf(out, "<text class=\"tick\" x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", fr.x0 - 4, y + 3,
                num);
    }
    double slot = (fr.x1 - fr.x0) / fr.t1;
    size_t every = b->ncat > 24 ? (b->ncat + 23) / 24 : 1;
    for (size_t c = 0; c < b->ncat; c++) {
        double bw = fmin(slot * (b->overlay ? 0.6 : 0.8), 64), base = 0;
        double x = fr.x0 + slot * (double)c + (slot - bw - (b->overlay ? bw / 3 : 0)) / 2;
        for (size_t s = 0; s < b->nseg; s++) {
            double v = b->v[c * b->nseg + s];
            if (isnan(v) || v <= 0)
                continue;
            double ya = px_y(&fr, base), yb = px_y(&fr, base + v);
            gd_svg_number(v, ystep / 100, num, sizeof num);
            fprintf(out, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>",
                    b->seg_cls[s], x, yb, bw, ya - yb);
            if (b->cat_label) {
                gd_html_text(out, b->cat_label[c]);
                fputs(": ", out);
            }
            gd_html_text(out, b->seg_label[s]);
            fprintf(out, " %s ", num);
            gd_html_text(out, b->unit);
            fputs("</title></rect>\n", out);
            base += v;
        }
        if (b->overlay && !isnan(b->overlay[c]) && b->overlay[c] > 0) {
            double yb = px_y(&fr, b->overlay[c]);
            gd_svg_number(b->overlay[c], ystep / 100, num, sizeof num);
            fprintf(out, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>",
                    b->overlay_cls, x + bw, yb, bw / 3, fr.y0 - yb);
            gd_html_text(out, b->overlay_label);
            fprintf(out, " %s ", num);
            gd_html_text(out, b->unit);
            fputs("</title></rect>\n", out);
        }
        if (b->cat_label && c % every == 0) {
            fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">", x + bw / 2, fr.y0 + 13);
            gd_html_text(out, b->cat_label[c]);
            fputs("</text>\n", out);
        }
    }
    fprintf(out, "<path class=\"axis\" d=\"M%.0f %.0fV%.0fH%.0f\"/>", fr.x0, fr.y1, fr.y0, fr.x1);
    double lx = 4, ly = h - 6;
    for (size_t s = 0; s < b->nseg; s++)
        write_legend_item(out, &lx, ly, "bar", b->seg_cls[s], b->seg_label[s]);
    if (b->overlay)
        write_legend_item(out, &lx, ly, "bar", b->overlay_cls, b->overlay_label);
    fputs("</svg>\n", out);
}
