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

/* The verdict box: CRITICAL, WARNING or OK and the counts. */
void gd_html_verdict(FILE *out, const gd_findings *fs, size_t gpus);

/* Every finding as a card (severity, GPU, id, title, evidence and its
 * source, timeline, impact, fix); ignored ones last, marked. With
 * gpu_links, a GPU's finding links to that GPU's plots (#gpu-N). */
void gd_html_findings(FILE *out, const gd_findings *fs, bool timeline, bool gpu_links);

/* "Not checked": each check that could not judge, the GPU and why. */
void gd_html_skips(FILE *out, const gd_findings *fs);

/* <tr> of label and text cells: each escaped. */
void gd_html_row(FILE *out, const char *tag, const char *const *cells, size_t n);

#endif
