/* SPDX-License-Identifier: Apache-2.0 */
/* `run --profile`: the joined report's section in text, JSON and HTML (docs/run.md). */
#ifndef GD_PROFILE_REPORT_H
#define GD_PROFILE_REPORT_H

#include "analysis/profile.h"
#include "checks/joined.h"
#include "gpudoctor/findings.h"
#include "gpudoctor/report.h"

#include <jansson.h>
#include <stdio.h>

typedef struct gd_profile_view {
    const gd_facts *f;
    const gd_findings *machine; /* the run's findings */
    const gd_profile *p; /* NULL: a run without --profile (its causes from the GPUs and the job) */
    const gd_findings *trace; /* the trace checks' findings */
    const gd_causes *causes;
} gd_profile_view;

/* Right under the verdict (the answer first): why nothing was profiled,
 * when that was asked, then the causes ranked by the time each could win
 * back; nothing for a run without --profile and without a cause. */
void gd_profile_causes_text(FILE *out, const gd_profile_view *v, const gd_text_style *st);

/* Whether gd_profile_causes_text said finding x's fix: x is one of a
 * ranked cause's findings (v: a gd_profile_view). */
bool gd_profile_cause_said(const gd_finding *x, const void *v);

/* What was profiled: the steps, the trace's numbers per rank, the cost
 * (at the report's end); nothing where nothing was profiled. */
void gd_profile_steps_text(FILE *out, const gd_profile_view *v, const gd_text_style *st);

/* The report's "profile" object (docs/run.md). Caller owns it. */
json_t *gd_profile_report_json(const gd_profile_view *v);

/* The whole HTML page of `run` (--profile or not): the run's page with the
 * causes ranked under the verdict and the profiled steps shaded on the
 * job's timeline. */
void gd_profile_report_html(FILE *out, const gd_profile_view *v);

#endif
