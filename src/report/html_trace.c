/* SPDX-License-Identifier: Apache-2.0 */
/* The HTML page of `trace` (docs/report.md): verdict, findings, the ranks
 * side by side, each rank's steps as stacked bars and its top kernels. */
#include "html_escape.h"
#include "html_page.h"
#include "report/trace_report.h"
#include "svg_plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BARS 120

static const char *const class_names[GD_K_NCLASS] = {"compute", "memory", "communication", "other"};

static void cell_num(FILE *out, double v, int decimals)
{
    if (isnan(v))
        fputs("<td class=\"num\">n/a</td>", out);
    else
        fprintf(out, "<td class=\"num\">%.*f</td>", decimals, v);
}

/* Bars of compute, non-compute and idle GPU time (v: [n][3]), with the
 * DataLoader's host time beside each where given. */
static void temporal_bars(FILE *out, const char *title, const char *unit, size_t n, const double *v,
                          const char *const *cat, const double *dataloader)
{
    static const char *const seg[] = {"compute", "non-compute", "idle"}, *const cls[] = {"c2", "c1", "peer"};
    gd_svg_bars b = {.title = title,
                     .unit = unit,
                     .ncat = n,
                     .nseg = 3,
                     .v = v,
                     .seg_label = seg,
                     .seg_cls = cls,
                     .cat_label = cat,
                     .overlay = dataloader,
                     .overlay_label = "DataLoader (host)",
                     .overlay_cls = "c5",
                     .width = 800,
                     .height = 250};
    gd_svg_bars_write(out, &b);
}

static void ranks_table(FILE *out, const gd_trace_run *run)
{
    fputs("<h2 id=\"ranks\">Ranks</h2>\n<table>\n", out);
    const char *head[] = {"rank",         "steps",        "step median (ms)", "p90 (ms)",
                          "slowest (ms)", "GPU idle %",   "compute %",        "non-compute %",
                          "DataLoader %", "syncs / step", "kernels",          "events"};
    gd_html_row(out, "th", head, sizeof head / sizeof head[0]);
    for (size_t i = 0; i < run->nranks; i++) {
        const gd_trace_result *r = &run->ranks[i];
        fprintf(out, "<tr><td><a href=\"#rank-%d\">%d</a></td><td class=\"num\">%zu</td>", r->rank, r->rank, r->nsteps);
        bool steps = r->nsteps > 0;
        cell_num(out, steps ? r->step_median_us / 1000 : NAN, 3);
        cell_num(out, steps ? r->step_p90_us / 1000 : NAN, 3);
        cell_num(out, steps ? r->step_max_us / 1000 : NAN, 3);
        cell_num(out, r->has_gpu ? r->idle_pct : NAN, 1);
        cell_num(out, r->has_gpu ? r->compute_pct : NAN, 1);
        cell_num(out, r->has_gpu ? r->non_compute_pct : NAN, 1);
        cell_num(out, r->dataloader_pct, 1);
        cell_num(out, steps ? r->sync_per_step : NAN, 1);
        size_t kernels = 0;
        for (int c = 0; c < GD_K_NCLASS; c++)
            kernels += r->class_count[c];
        fprintf(out, "<td class=\"num\">%zu</td><td class=\"num\">%llu</td></tr>\n", kernels,
                (unsigned long long)r->events);
    }
    fputs("</table>\n", out);
    if (run->nranks < 2)
        return;
    /* The temporal breakdown of every rank side by side: the slow one stands out. */
    size_t n = run->nranks;
    double *v = calloc(n * 3, sizeof(double));
    char(*labels)[16] = calloc(n, sizeof *labels);
    const char **cat = calloc(n, sizeof *cat);
    if (v && labels && cat) {
        for (size_t i = 0; i < n; i++) {
            const gd_trace_result *r = &run->ranks[i];
            v[i * 3] = r->has_gpu ? r->compute_pct : NAN;
            v[i * 3 + 1] = r->has_gpu ? r->non_compute_pct : NAN;
            v[i * 3 + 2] = r->has_gpu ? r->idle_pct : NAN;
            snprintf(labels[i], sizeof labels[i], "rank %d", r->rank);
            cat[i] = labels[i];
        }
        temporal_bars(out, "GPU time by rank", "%", n, v, cat, NULL);
    }
    free(v);
    free(labels);
    free(cat);
}

/* The steps as stacked bars (ms): compute, non-compute, idle, with the
 * DataLoader's host time beside; more than MAX_BARS steps are averaged in
 * runs. */
static void steps_plot(FILE *out, const gd_trace_result *r)
{
    if (r->nsteps == 0)
        return;
    size_t per = (r->nsteps + MAX_BARS - 1) / MAX_BARS, nb = (r->nsteps + per - 1) / per;
    double *v = calloc(nb * 3, sizeof(double)), *dl = calloc(nb, sizeof(double));
    char(*labels)[32] = calloc(nb, sizeof *labels);
    const char **cat = calloc(nb, sizeof *cat);
    if (v && dl && labels && cat) {
        for (size_t b = 0; b < nb; b++) {
            size_t lo = b * per, hi = lo + per < r->nsteps ? lo + per : r->nsteps;
            for (size_t i = lo; i < hi; i++) {
                const gd_trace_step *s = &r->steps[i];
                v[b * 3] += s->compute_us / 1000 / (double)(hi - lo);
                v[b * 3 + 1] += s->non_compute_us / 1000 / (double)(hi - lo);
                v[b * 3 + 2] += s->idle_us / 1000 / (double)(hi - lo);
                dl[b] += s->dataloader_us / 1000 / (double)(hi - lo);
            }
            if (hi - lo > 1)
                snprintf(labels[b], sizeof labels[b], "#%ld-%ld", r->steps[lo].number, r->steps[hi - 1].number);
            else
                snprintf(labels[b], sizeof labels[b], "#%ld", r->steps[lo].number);
            cat[b] = labels[b];
        }
        char title[64];
        snprintf(title, sizeof title, "Steps of rank %d%s", r->rank, per > 1 ? " (averaged in runs)" : "");
        temporal_bars(out, title, "ms", nb, v, cat, dl);
    }
    free(v);
    free(dl);
    free(labels);
    free(cat);
}

static void kernels_table(FILE *out, const gd_trace_result *r)
{
    bool any = false;
    for (int c = 0; c < GD_K_NCLASS; c++)
        any |= r->ntop[c] > 0;
    if (!any)
        return;
    fputs("<h3>Top kernels</h3>\n<table>\n<tr><th>class</th><th>kernel</th><th>count</th><th>total (ms)</th>"
          "<th>share of class %</th></tr>\n",
          out);
    for (int c = 0; c < GD_K_NCLASS; c++)
        for (size_t k = 0; k < r->ntop[c]; k++) {
            const gd_trace_kernel *x = &r->top[c][k];
            fprintf(out, "<tr><td>%s</td><td><code>", class_names[c]);
            gd_html_text(out, x->name);
            fprintf(out, "</code></td><td class=\"num\">%zu</td>", x->count);
            cell_num(out, x->total_us / 1000, 3);
            cell_num(out, x->share_pct, 1);
            fputs("</tr>\n", out);
        }
    fputs("</table>\n", out);
}

static void rank_section(FILE *out, const gd_trace_result *r)
{
    fprintf(out, "<section class=\"rank\" id=\"rank-%d\"><h2>Rank %d</h2>\n", r->rank, r->rank);
    if (r->legacy)
        fputs("<p class=\"banner\">Legacy profiler format: no GPU events.</p>\n", out);
    if (r->note[0]) {
        fputs("<p class=\"banner\">", out);
        gd_html_text(out, r->note);
        fputs("</p>\n", out);
    }
    if (r->dropped)
        fprintf(out,
                "<p class=\"banner\">The memory cap (%zu MiB for this rank, trace --max-memory) was reached: the "
                "last %llu of %llu events were left out; this analysis covers the trace up to there.</p>\n",
                r->memory_cap_mib, (unsigned long long)r->dropped, (unsigned long long)r->events);
    fprintf(out,
            "<p class=\"meta\">%zu step%s analyzed of %zu in the trace%s; GPU span %.3f ms: compute %.1f %%, "
            "non-compute %.1f %%, idle %.1f %%.</p>\n",
            r->nsteps, r->nsteps == 1 ? "" : "s", r->steps_in_trace,
            r->last_step_dropped ? " (the last one left out, as HTA does)" : "", r->span_us / 1000, r->compute_pct,
            r->non_compute_pct, r->idle_pct);
    steps_plot(out, r);
    kernels_table(out, r);
    if (r->nstreams) {
        fputs("<h3>Idle time by stream</h3>\n<table>\n<tr><th>stream</th><th>idle (ms)</th><th>host wait</th>"
              "<th>kernel wait</th><th>other</th></tr>\n",
              out);
        for (size_t i = 0; i < r->nstreams; i++) {
            const gd_trace_stream *s = &r->streams[i];
            fprintf(out, "<tr><td>%lld</td>", (long long)s->stream);
            cell_num(out, s->idle_us / 1000, 3);
            cell_num(out, s->host_wait_us / 1000, 3);
            cell_num(out, s->kernel_wait_us / 1000, 3);
            cell_num(out, s->other_us / 1000, 3);
            fputs("</tr>\n", out);
        }
        fputs("</table>\n", out);
    }
    fputs("</section>\n", out);
}

void gd_trace_report_html(FILE *out, const gd_trace_run *run)
{
    char title[512];
    snprintf(title, sizeof title, "gpudoctor trace: %s", run->path);
    gd_html_begin(out, title);
    fputs("<h1>gpudoctor trace report</h1>\n<p class=\"meta\"><code>", out);
    gd_html_text(out, run->path);
    uint64_t events = 0;
    for (size_t i = 0; i < run->nranks; i++)
        events += run->ranks[i].events;
    fprintf(out,
            "</code>: %zu file%s, %zu rank%s, %llu events. Holistic Trace Analysis' temporal and idle time "
            "breakdowns with its defaults (docs/trace.md).</p>\n",
            run->files, run->files == 1 ? "" : "s", run->nranks, run->nranks == 1 ? "" : "s",
            (unsigned long long)events);
    if (run->files_found > run->files)
        fprintf(out,
                "<p class=\"banner\">%zu trace files found: the first %zu by name were analysed, %zu left "
                "out.</p>\n",
                run->files_found, run->files, run->files_found - run->files);
    gd_html_verdict(out, run->findings, run->nranks);
    gd_html_findings(out, run->findings, false, false, false);
    ranks_table(out, run);
    for (size_t i = 0; i < run->nranks; i++)
        rank_section(out, &run->ranks[i]);
    gd_html_end(out);
}
