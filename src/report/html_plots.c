/* SPDX-License-Identifier: Apache-2.0 */
/* Per-GPU plots over the window, peers behind, and the job's timeline. */
#include "html_plots.h"

#include "gpudoctor/job.h"
#include "html_escape.h"
#include "report_spans.h"
#include "svg_plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SPANS 24
#define PLOT_W 372
#define PLOT_H 190

typedef enum ref_kind { REF_NONE, REF_SLOWDOWN, REF_CLOCK_MAX, REF_POWER, REF_MEM_TOTAL } ref_kind;

enum { SPANS_NONE, SPANS_REASONS, SPANS_LINK };

typedef struct metric_plot {
    const char *title, *unit, *key;
    gd_metric m, m2; /* m2: added to m (PCIe RX + TX), or GD_M_COUNT */
    double scale; /* from the series' unit to the plot's */
    ref_kind ref;
    bool percent; /* 0..100 */
    int spans; /* what it shades: SPANS_REASONS, SPANS_LINK or nothing */
} metric_plot;

static const metric_plot metric_plots[] = {
    {"Temperature", "C", "temp_c", GD_M_TEMP_C, GD_M_COUNT, 1, REF_SLOWDOWN, false, SPANS_REASONS},
    {"SM clock", "MHz", "sm_clock_mhz", GD_M_SM_CLOCK_MHZ, GD_M_COUNT, 1, REF_CLOCK_MAX, false, SPANS_REASONS},
    {"Power", "W", "power_w", GD_M_POWER_W, GD_M_COUNT, 1, REF_POWER, false, SPANS_REASONS},
    {"Utilisation", "%", "util_gpu_pct", GD_M_UTIL_GPU_PCT, GD_M_COUNT, 1, REF_NONE, true, SPANS_NONE},
    {"Memory used", "MiB", "mem_used_mib", GD_M_MEM_USED_MIB, GD_M_COUNT, 1, REF_MEM_TOTAL, false, SPANS_NONE},
    {"PCIe throughput (RX + TX)", "MB/s", "pcie_kbps", GD_M_PCIE_RX_KBPS, GD_M_PCIE_TX_KBPS, 1.0 / 1000, REF_NONE,
     false, SPANS_LINK},
};

/* Metric mp of GPU g at sample i in the plot's unit, NAN when not read. */
static double value_at(const gd_facts *f, size_t i, size_t g, const metric_plot *mp)
{
    gd_value a = gd_series_at(&f->series, i, g, mp->m);
    if (mp->m2 == GD_M_COUNT)
        return gd_ok(a) ? a.v * mp->scale : NAN;
    gd_value b = gd_series_at(&f->series, i, g, mp->m2);
    if (!gd_ok(a) && !gd_ok(b))
        return NAN;
    return ((gd_ok(a) ? a.v : 0) + (gd_ok(b) ? b.v : 0)) * mp->scale;
}

typedef struct buffers {
    double *t, *v, *lo, *hi;
} buffers;

static size_t refs_of(const gd_gpu *gpu, const metric_plot *mp, gd_svg_ref *refs, char (*labels)[64])
{
    size_t n = 0;
    switch (mp->ref) {
    case REF_SLOWDOWN:
        if (gd_ok(gpu->temp_slowdown_c)) {
            snprintf(labels[n], 64, "slowdown %.0f C", gpu->temp_slowdown_c.v);
            refs[n] = (gd_svg_ref){gpu->temp_slowdown_c.v, labels[n]};
            n++;
        }
        break;
    case REF_CLOCK_MAX:
        if (gd_ok(gpu->clock_max_sm_mhz)) {
            snprintf(labels[n], 64, "max %.0f MHz", gpu->clock_max_sm_mhz.v);
            refs[n] = (gd_svg_ref){gpu->clock_max_sm_mhz.v, labels[n]};
            n++;
        }
        break;
    case REF_POWER:
        if (gd_ok(gpu->power_limit_w)) {
            snprintf(labels[n], 64, "limit %.0f W", gpu->power_limit_w.v);
            refs[n] = (gd_svg_ref){gpu->power_limit_w.v, labels[n]};
            n++;
        }
        if (gd_ok(gpu->power_limit_default_w) &&
            (!gd_ok(gpu->power_limit_w) || gpu->power_limit_default_w.v != gpu->power_limit_w.v)) {
            snprintf(labels[n], 64, "default %.0f W", gpu->power_limit_default_w.v);
            refs[n] = (gd_svg_ref){gpu->power_limit_default_w.v, labels[n]};
            n++;
        }
        break;
    case REF_MEM_TOTAL:
        if (gd_ok(gpu->mem_total_mib)) {
            snprintf(labels[n], 64, "total %.0f MiB", gpu->mem_total_mib.v);
            refs[n] = (gd_svg_ref){gpu->mem_total_mib.v, labels[n]};
            n++;
        }
        break;
    case REF_NONE: break;
    }
    return n;
}

static void metric_plot_write(FILE *out, const gd_facts *f, size_t g, const metric_plot *mp, buffers *b,
                              const gd_svg_span *spans, size_t nspans)
{
    const gd_series *s = &f->series;
    size_t valid = 0, peers_valid = 0;
    for (size_t i = 0; i < s->n; i++) {
        b->t[i] = gd_series_t(s, i);
        b->v[i] = value_at(f, i, g, mp);
        valid += !isnan(b->v[i]);
        b->lo[i] = INFINITY;
        b->hi[i] = -INFINITY;
        for (size_t p = 0; p < f->gpu_count; p++) {
            double x = p == g ? NAN : value_at(f, i, p, mp);
            if (!isnan(x)) {
                b->lo[i] = fmin(b->lo[i], x);
                b->hi[i] = fmax(b->hi[i], x);
            }
        }
        if (b->lo[i] > b->hi[i])
            b->lo[i] = b->hi[i] = NAN;
        else
            peers_valid++;
    }
    const gd_gpu *gpu = &f->gpus[g];
    if (valid == 0) {
        fprintf(out, "<div class=\"na\">%s: not reported by GPU %d</div>\n", mp->title, gpu->index);
        return;
    }
    char label[32], attrs[96], ref_labels[2][64];
    snprintf(label, sizeof label, "GPU %d", gpu->index);
    snprintf(attrs, sizeof attrs, "data-gpu=\"%d\" data-metric=\"%s\"", gpu->index, mp->key);
    gd_svg_series series[2];
    size_t ns = 0;
    if (peers_valid)
        series[ns++] =
            (gd_svg_series){.label = "other GPUs", .cls = "peer", .t = b->t, .v = b->lo, .hi = b->hi, .n = s->n};
    series[ns++] = (gd_svg_series){.label = label, .cls = "c0", .t = b->t, .v = b->v, .n = s->n, .attrs = attrs};
    gd_svg_ref refs[2];
    size_t nrefs = refs_of(gpu, mp, refs, ref_labels);
    gd_svg_plot p = {.title = mp->title,
                     .unit = mp->unit,
                     .x_unit = "s",
                     .t0 = b->t[0],
                     .t1 = b->t[s->n - 1],
                     .ymin = mp->percent ? 0 : NAN,
                     .ymax = mp->percent ? 100 : NAN,
                     .width = PLOT_W,
                     .height = PLOT_H,
                     .series = series,
                     .nseries = ns,
                     .refs = refs,
                     .nrefs = nrefs,
                     .spans = spans,
                     .nspans = nspans,
                     .attrs = attrs};
    gd_svg_plot_write(out, &p);
}

/* The ids of GPU g's findings, for its heading. */
static void gpu_findings(FILE *out, const gd_findings *fs, int gpu)
{
    bool any = false;
    for (size_t i = 0; i < fs->n; i++) {
        if (fs->v[i].gpu != gpu || fs->v[i].ignored)
            continue;
        fputs(any ? ", " : " &middot; findings: ", out);
        fprintf(out, "<code>");
        gd_html_text(out, fs->v[i].id);
        fprintf(out, "</code> (%s)", gd_severity_name(fs->v[i].severity));
        any = true;
    }
}

/* At most MAX_SPANS intervals: a state that flaps all window long is
 * merged over wider and wider gaps until its bands fit. */
static size_t spans_within(const gd_facts *f, size_t g, double merge_s, gd_report_span *out,
                           size_t (*find)(const gd_facts *, size_t, double, gd_report_span *, size_t))
{
    size_t n = find(f, g, merge_s, out, MAX_SPANS + 1);
    for (int tries = 0; n > MAX_SPANS && tries < 12; tries++)
        n = find(f, g, merge_s *= 2, out, MAX_SPANS + 1);
    return n > MAX_SPANS ? MAX_SPANS : n;
}

static void to_svg_spans(const gd_report_span *in, size_t n, gd_svg_span *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (gd_svg_span){in[i].t0, in[i].t1, in[i].label, in[i].cls};
}

void gd_html_gpu_plots(FILE *out, const gd_facts *f, const gd_findings *fs)
{
    const gd_series *s = &f->series;
    fputs("<h2 id=\"plots\">Over the window</h2>\n", out);
    if (s->n < 2 || f->gpu_count == 0) {
        fputs("<p>One snapshot: no curves to draw (the table below holds its values).</p>\n", out);
        return;
    }
    fputs("<p class=\"meta\">Each GPU in colour, the other GPUs' range (lowest to highest at each moment) as a "
          "grey band behind it. Shaded on the temperature, clock and power plots: the clock event reasons NVML "
          "gave (gpu_idle left out); on the PCIe plot: a link below its maximum under load. Dashed: the board's "
          "threshold or limit. Long windows are "
          "drawn at two points per pixel column (its lowest and highest value), so short spikes stay visible; the "
          "tables give the exact numbers.</p>\n",
          out);
    buffers b = {calloc(s->n, sizeof(double)), calloc(s->n, sizeof(double)), calloc(s->n, sizeof(double)),
                 calloc(s->n, sizeof(double))};
    gd_report_span *rs = calloc(MAX_SPANS + 1, sizeof *rs), *ps = calloc(MAX_SPANS + 1, sizeof *ps);
    gd_svg_span reasons[MAX_SPANS], links[MAX_SPANS];
    double t0 = gd_series_t(s, 0), t1 = gd_series_t(s, s->n - 1);
    double merge_s = (t1 - t0) / 160; /* about a pixel column of a plot */
    for (size_t g = 0; b.t && b.v && b.lo && b.hi && rs && ps && g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        fprintf(out, "<section class=\"gpu\" id=\"gpu-%d\"><h3>GPU %d &middot; ", gpu->index, gpu->index);
        gd_html_text(out, gpu->name[0] ? gpu->name : "unnamed");
        fputs(" &middot; <code>", out);
        gd_html_text(out, gpu->pci_bus_id);
        fputs("</code>", out);
        if (gpu->lost)
            fprintf(out, " &middot; lost at %.1f s", gpu->lost_at_s);
        gpu_findings(out, fs, gpu->index);
        fputs("</h3>\n<div class=\"plots\">\n", out);
        size_t nr = spans_within(f, g, merge_s, rs, gd_reason_spans),
               np = spans_within(f, g, merge_s, ps, gd_pcie_spans);
        to_svg_spans(rs, nr, reasons);
        to_svg_spans(ps, np, links);
        for (size_t k = 0; k < sizeof metric_plots / sizeof metric_plots[0]; k++) {
            const metric_plot *mp = &metric_plots[k];
            metric_plot_write(out, f, g, mp, &b, mp->spans == SPANS_LINK ? links : reasons,
                              mp->spans == SPANS_LINK      ? np
                              : mp->spans == SPANS_REASONS ? nr
                                                           : 0);
        }
        fputs("</div></section>\n", out);
    }
    free(b.t);
    free(b.v);
    free(b.lo);
    free(b.hi);
    free(rs);
    free(ps);
}

void gd_html_job_plot(FILE *out, const gd_facts *f)
{
    gd_html_job_plot_spans(out, f, NULL, 0);
}

void gd_html_job_plot_spans(FILE *out, const gd_facts *f, const gd_svg_span *spans, size_t nspans)
{
    const gd_job_facts *j = f->job;
    if (!j || !j->read || j->n < 2)
        return;
    fputs("<h2 id=\"job\">The job: CPU against GPU</h2>\n<p class=\"meta\">", out);
    fprintf(out, "PID %ld ", j->pid);
    gd_html_text(out, j->comm);
    fprintf(out, ": its process tree's CPU time (100 %% = one core busy) and its busiest thread, against the "
                 "GPUs' mean utilisation. A job whose CPU is busy while the GPUs wait is held back by its host "
                 "side (data loading, the Python main thread).</p>\n");
    const gd_series *s = &f->series;
    double *jt = calloc(j->n, sizeof(double)), *cpu = calloc(j->n, sizeof(double)), *top = calloc(j->n, sizeof(double)),
           *gt = calloc(s->n + 1, sizeof(double)), *gpu = calloc(s->n + 1, sizeof(double));
    if (jt && cpu && top && gt && gpu) {
        for (size_t i = 0; i < j->n; i++) {
            const gd_job_sample *x = gd_job_at(j, i);
            jt[i] = x->t;
            cpu[i] = isnan(x->job_cores) ? NAN : 100 * x->job_cores;
            top[i] = isnan(x->top_thread_core) ? NAN : 100 * x->top_thread_core;
        }
        for (size_t i = 0; i < s->n; i++) {
            double sum = 0;
            size_t n = 0;
            for (size_t g = 0; g < f->gpu_count; g++) {
                gd_value u = gd_series_at(s, i, g, GD_M_UTIL_GPU_PCT);
                if (gd_ok(u)) {
                    sum += u.v;
                    n++;
                }
            }
            gt[i] = gd_series_t(s, i);
            gpu[i] = n ? sum / (double)n : NAN;
        }
        gd_svg_series series[] = {
            {.label = "job CPU", .cls = "c1", .t = jt, .v = cpu, .n = j->n, .attrs = "data-metric=\"job_cpu_pct\""},
            {.label = "busiest thread", .cls = "c3", .t = jt, .v = top, .n = j->n},
            {.label = "GPU busy (mean)",
             .cls = "c0",
             .t = gt,
             .v = gpu,
             .n = s->n,
             .attrs = "data-metric=\"gpu_util_mean_pct\""},
        };
        double t0 = fmin(jt[0], s->n ? gt[0] : jt[0]), t1 = fmax(jt[j->n - 1], s->n ? gt[s->n - 1] : jt[j->n - 1]);
        gd_svg_plot p = {.title = "Job CPU and GPU busy",
                         .unit = "%",
                         .x_unit = "s",
                         .t0 = t0,
                         .t1 = t1,
                         .ymin = 0,
                         .ymax = NAN,
                         .width = 800,
                         .height = 240,
                         .series = series,
                         .nseries = 3,
                         .spans = spans,
                         .nspans = nspans,
                         .attrs = "data-metric=\"job\""};
        gd_svg_plot_write(out, &p);
    }
    free(jt);
    free(cpu);
    free(top);
    free(gt);
    free(gpu);
}
