/* SPDX-License-Identifier: Apache-2.0 */
/* The pieces every HTML page of gpudoctor shares: the head with its style
 * (light and dark by prefers-color-scheme, print rules; no font, script or
 * file fetched), the verdict and the findings. */
#ifndef GD_HTML_PAGE_H
#define GD_HTML_PAGE_H

#include "gpudoctor/findings.h"

#include <stdbool.h>
#include <stdio.h>

/* <!doctype html> up to the opened <main>; title is escaped. */
void gd_html_begin(FILE *out, const char *title);

/* The closing of what gd_html_begin opened, with the tool's version. */
void gd_html_end(FILE *out);

/* The verdict box of a fleet's or a trace's page: CRITICAL, WARNING or OK
 * and the counts (check's and run's page say gd_report_verdict's). */
void gd_html_verdict(FILE *out, const gd_findings *fs, size_t gpus);

/* The verdict box of a word and the rest of its line (escaped). */
void gd_html_verdict_line(FILE *out, const char *word, const char *rest);

/* The findings, with by_cause (a machine's report) by cause
 * (checks/causes.h), ranked: one card per cause on its GPUs (severity,
 * where, id, headline, each GPU's evidence and its source, timeline,
 * impact, the fix once), its symptoms nested under it without a fix of
 * their own; else (a fleet's, a trace's) one card each. Ignored ones last,
 * marked. With gpu_links, a GPU's finding links to that GPU's plots
 * (#gpu-N). */
void gd_html_findings(FILE *out, const gd_findings *fs, bool timeline, bool gpu_links, bool by_cause);

/* "Not checked": each check that could not judge, the GPU and why. */
void gd_html_skips(FILE *out, const gd_findings *fs);

/* <tr> of label and text cells: each escaped. */
void gd_html_row(FILE *out, const char *tag, const char *const *cells, size_t n);

#endif
