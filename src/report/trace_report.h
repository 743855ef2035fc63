/* SPDX-License-Identifier: Apache-2.0 */
/* `gpudoctor trace`: the text report and the JSON of contract section 7. */
#ifndef GD_TRACE_REPORT_H
#define GD_TRACE_REPORT_H

#include "analysis/trace/trace.h"
#include "gpudoctor/findings.h"
#include "gpudoctor/report.h"

#include <jansson.h>
#include <stdio.h>

typedef struct gd_trace_run {
    size_t files; /* analysed */
    size_t files_found; /* trace files found (a directory of more than the most analysed: the rest left out) */
    const char *path; /* the file or directory given */
    const gd_trace_result *ranks; /* one per file, by rank */
    size_t nranks;
    const gd_findings *findings;
} gd_trace_run;

void gd_trace_report_text(FILE *out, const gd_trace_run *run, const gd_text_style *st);
json_t *gd_trace_report_json(const gd_trace_run *run);

/* The HTML page (docs/report.md): verdict, findings, the ranks compared,
 * each rank's steps as stacked bars, its top kernels and idle streams. */
void gd_trace_report_html(FILE *out, const gd_trace_run *run);

#endif
