/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `run --profile`'s joined report (docs/run.md): the machine's findings (the
 * GPUs, the host), the job's (its /proc) and the profiler trace's, joined
 * into causes ranked by the share of the step that each could win back. A
 * cause seen by several sources is one cause with the evidence of each; the
 * causes that live in the same GPU idle time share it, never more.
 */
#ifndef GD_CHECKS_JOINED_H
#define GD_CHECKS_JOINED_H

#include "analysis/profile.h"
#include "checks/causes.h"
#include "gpudoctor/findings.h"
#include "gpudoctor/model.h"

#define GD_CAUSE_MAX 32
#define GD_CAUSE_MAX_IDS 6

const char *gd_cause_kind_name(gd_cause_kind k);

typedef struct gd_cause {
    char key[48]; /* "dataloader", "host_reads", ... or a machine finding's id */
    gd_cause_kind kind;
    gd_severity severity; /* the worst of its findings */
    char title[320];
    /* Share of the step (of the job's time without a trace) the fix could
     * give back, after overlaps; NAN when no source can estimate it. */
    double win_pct;
    double seen_pct; /* what its best source alone says, before overlaps; NAN */
    size_t nids;
    char ids[GD_CAUSE_MAX_IDS][48]; /* the findings joined into it */
    json_t *evidence; /* {"trace": {...}, "job": {...}, "gpus": {...}}: the sources that saw it; owned */
    char overlap[400]; /* how it shares time with the others, "" */
    char fix[768];
} gd_cause;

typedef struct gd_causes {
    size_t n;
    gd_cause v[GD_CAUSE_MAX];
    /* The GPU idle time the causes inside it share: the trace's idle share of
     * the steps, else 100 - the job's GPUs' busy mean; NAN unknown. */
    double idle_pct;
    const char *idle_source; /* "trace", "gpus", NULL */
} gd_causes;

/*
 * Joins machine (the run's findings), trace (the trace checks' findings over
 * p's ranks) and the job's facts into out, ranked: estimated wins first,
 * largest first, then by severity. Info findings and the ones that are no
 * cause (no GPU, no driver) are left out. Pure.
 */
void gd_join_causes(const gd_facts *f, const gd_findings *machine, const gd_profile *p, const gd_findings *trace,
                    gd_causes *out);

void gd_causes_free(gd_causes *c);

#endif
