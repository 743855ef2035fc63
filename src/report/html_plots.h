/* SPDX-License-Identifier: Apache-2.0 */
/* The curves of the HTML report: each GPU's metrics over the window with
 * its peers' range behind them, and the job's CPU beside the GPUs' work. */
#ifndef GD_HTML_PLOTS_H
#define GD_HTML_PLOTS_H

#include "gpudoctor/findings.h"
#include "gpudoctor/model.h"

#include <stdio.h>

/* One section per GPU (id "gpu-N"): temperature with its slowdown
 * threshold, SM clock with its maximum, power with its limit, utilisation,
 * memory used with the total and PCIe throughput; clock event reasons and
 * downgraded links shaded and labelled; the other GPUs' range as a grey
 * band. */
void gd_html_gpu_plots(FILE *out, const gd_facts *f, const gd_findings *fs);

/* `run`: the job's CPU (its process tree, its busiest thread) against the
 * GPUs' mean utilisation over the window; nothing without job samples. */
void gd_html_job_plot(FILE *out, const gd_facts *f);

/* The same with spans shaded on its time axis (run --profile: the profiled steps). */
struct gd_svg_span;
void gd_html_job_plot_spans(FILE *out, const gd_facts *f, const struct gd_svg_span *spans, size_t nspans);

/* What a command adds to the page of `run`: a section right under the
 * verdict (the causes ranked), and spans on the job's timeline (the
 * profiled steps of run --profile). */
typedef struct gd_html_extra {
    void (*section)(FILE *out, const void *ud);
    const void *ud;
    const struct gd_svg_span *spans;
    size_t nspans;
} gd_html_extra;

/* gd_report_html with x's section and spans (x may be NULL). */
void gd_report_html_with(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_html_extra *x);

#endif
