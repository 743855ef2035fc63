/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Renderers: turn facts and findings into text or JSON. They never probe.
 */
#ifndef GPUDOCTOR_REPORT_H
#define GPUDOCTOR_REPORT_H

#include "gpudoctor/findings.h"
#include "gpudoctor/model.h"
#include "gpudoctor/schema.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* The check report (docs/interface.md section 4). Caller owns the result. */
json_t *gd_report_json(const gd_facts *f, const gd_findings *fs);

/* The "host" and "driver" objects, shared by `check` and `info`. */
json_t *gd_report_host_json(const gd_facts *f);
json_t *gd_report_driver_json(const gd_facts *f);

/* State of GPU g at the end of the window (docs/interface.md, "state"). */
json_t *gd_report_gpu_state_json(const gd_facts *f, size_t g);

/* Names of the reason bits set in mask, as a JSON array. */
json_t *gd_report_reasons_json(unsigned long long mask);

/* One line naming the findings at or above min (ignored ones left out),
 * grouped by id in report order with their GPUs: "health.xid GPU 3,4;
 * thermal.throttling GPU 5; driver.missing". Whole groups only: what does not
 * fit in len (with its NUL) is counted as "; +N more". Returns the length
 * written; "" when nothing counts. */
size_t gd_report_summary_line(char *buf, size_t len, const gd_findings *fs, gd_severity min);

typedef struct gd_text_style {
    bool color; /* ANSI colours (a terminal, and NO_COLOR unset) */
    int width; /* columns to wrap prose at */
    bool details; /* --details: every check, what each judged and why some did not */
} gd_text_style;

/*
 * Human report of `check`: the answer first (the verdict counting causes,
 * what was judged in a line or two, the causes ranked with what to do),
 * then the GPUs, each cause's evidence with its symptoms nested, the job;
 * with st->details, every check ("Checked", "Not checked").
 */
void gd_report_text(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_text_style *st);

/* What a command adds to that report: a section right under the verdict in
 * place of the findings' ranked causes (`run`'s causes, ranked by the time
 * each could win back: the answer first, said once), and one after the job
 * (what `run --profile` profiled). Either may be NULL. */
typedef struct gd_text_extra {
    void (*under_verdict)(FILE *out, const gd_text_style *st, const void *ud);
    void (*at_end)(FILE *out, const gd_text_style *st, const void *ud);
    /* Whether the section under the verdict said finding x's fix (the
     * findings below then leave it out), or NULL: none. */
    bool (*said)(const gd_finding *x, const void *ud);
    const void *ud;
} gd_text_extra;
void gd_report_text_with(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_text_style *st,
                         const gd_text_extra *x);

/* The job of `run` and `check --pid` (what was sampled, a per-second timeline
 * of GPU busy beside the job's and the host's CPU); nothing without a job. */
void gd_report_job_text(FILE *out, const gd_facts *f, const gd_text_style *st);
/* The same as the report's "job" object; NULL without a job. Caller owns it. */
json_t *gd_report_job_json(const gd_facts *f);

/* `info`: the host and driver, one line per GPU (gpu_table.h) and their
 * processes, on one screen; with `details`, also what nvidia-smi -q would
 * tell, one readable block per GPU. */
void gd_info_text(FILE *out, const gd_facts *f, const gd_text_style *st, bool details);
json_t *gd_info_json(const gd_facts *f);

/* The causes[] array of a JSON report: the findings that count grouped
 * into causes, each naming its findings and symptoms by their index in
 * findings[] (docs/interface.md). Caller owns it. */
json_t *gd_report_causes_json(const gd_findings *fs);

/* The findings[] array of a JSON report (series: say each finding's timeline). */
json_t *gd_report_findings_json(const gd_findings *fs, bool series);

/*
 * The HTML page of `check` and `run` (docs/report.md): verdict, findings,
 * per-GPU plots over the window, the job's timeline, the topology and what
 * was (not) checked, as one self-contained file (inline style and SVG; no
 * script, font or URL fetched). Text from outside is escaped.
 */
void gd_report_html(FILE *out, const gd_facts *f, const gd_findings *fs);

/* Writes a JSON value followed by a newline; returns 0 or -1. */
int gd_json_print(FILE *out, json_t *j);

#endif
