/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Causes, not GPU x id pairs (docs/checks.md, "Causes and symptoms"): the
 * findings of a report grouped into the problems a person fixes. One power
 * brake on 8 GPUs is one cause "on 8 GPUs"; a single-threaded DataLoader
 * and the 8 GPUs it leaves idle are one cause with 8 symptoms. The rules
 * are two tables: which ids are one cause seen by several checks (the
 * DataLoader, as `run --profile` joins them), and which ids are symptoms of
 * which causes, and where (the same GPU, or anywhere). Pure: reports and
 * exit codes read it, nothing is dropped (each finding that counts is in
 * exactly one cause, as a member or a symptom).
 */
#ifndef GD_CHECKS_CAUSES_H
#define GD_CHECKS_CAUSES_H

#include "gpudoctor/findings.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum gd_cause_kind {
    GD_CAUSE_HARDWARE = 0, /* the GPUs, PCIe, the host's hardware */
    GD_CAUSE_JOB, /* the job's input side and set-up: loader, GIL, I/O, environment */
    GD_CAUSE_TRACE, /* what the trace shows in the step: host waits, syncs, small kernels, copies */
} gd_cause_kind;

/* Ids that are one cause seen by several checks or sources: the findings
 * of one key are one cause (`run --profile` ranks them as one). */
typedef struct gd_cause_rule {
    const char *id, *key;
    gd_cause_kind kind;
    bool in_idle; /* the cause makes the GPU wait: it lives in the GPU's idle time */
    const char *title; /* the cause's name, whichever of its ids was seen */
} gd_cause_rule;

/* The rule of a finding id, or NULL (a finding id alone is its own cause). */
const gd_cause_rule *gd_cause_rule_of(const char *id);

/* Where a symptom's cause must be for the symptom to be its. */
typedef enum gd_symptom_scope {
    GD_SYMPTOM_SAME_GPU, /* on a GPU the symptom is on (its gpu, or a GPU of its evidence's pairs) */
    GD_SYMPTOM_ANYWHERE, /* the host, the job, any GPU */
} gd_symptom_scope;

#define GD_SYMPTOM_MAX_CAUSES 16

/* A symptom: what it is, the causes that explain it (ids or cause keys,
 * the first present wins), where they must be, and why in one line. */
typedef struct gd_symptom_rule {
    const char *id;
    gd_symptom_scope scope;
    bool idle; /* the symptom is the GPU's idle time itself (run --profile shares it out) */
    const char *causes[GD_SYMPTOM_MAX_CAUSES];
    const char *why;
} gd_symptom_rule;

extern const gd_symptom_rule gd_symptom_rules[];
extern const size_t gd_symptom_rules_count;

/* The symptom rule of a finding id, or NULL. */
const gd_symptom_rule *gd_symptom_rule_of(const char *id);

/* One cause of a report: indexes into the findings (report order). */
typedef struct gd_grouped_cause {
    const size_t *members; /* the cause itself; members[0] is its worst, first in report order */
    size_t nmembers;
    const size_t *symptoms; /* what it explains, report order */
    size_t nsymptoms;
    gd_severity severity; /* the worst of members and symptoms */
    double impact_pct; /* the largest of members and symptoms, NAN */
} gd_grouped_cause;

typedef struct gd_grouped_causes {
    size_t n;
    gd_grouped_cause *v; /* worst first: severity, then impact */
    size_t *slots; /* storage of members and symptoms */
} gd_grouped_causes;

/*
 * Groups fs's findings that count (not ignored) into causes: findings of
 * one id and severity whose fixes read the same once each GPU's number is
 * taken out are one cause on several GPUs; ids of one rule key are one
 * cause; a symptom goes to the cause of the first finding that explains it
 * (followed to its root). Returns 0, or -1 out of memory (out empty).
 */
int gd_group_causes(const gd_findings *fs, gd_grouped_causes *out);

void gd_grouped_causes_free(gd_grouped_causes *c);

/* Causes of severity s. */
size_t gd_grouped_causes_count(const gd_grouped_causes *c, gd_severity s);

/* The distinct GPUs a cause is on (its members' and symptoms' GPUs, and the
 * GPUs of pairs in their evidence), ascending, at most cap; returns how
 * many there are. *host: whether a member or symptom is host-wide. */
size_t gd_grouped_cause_gpus(const gd_findings *fs, const gd_grouped_cause *c, int *gpus, size_t cap, bool *host);

/* The distinct GPUs of every cause at or above min, as gd_grouped_cause_gpus. */
size_t gd_grouped_causes_gpus(const gd_findings *fs, const gd_grouped_causes *c, gd_severity min, int *gpus, size_t cap,
                              bool *host);

/* The GPUs a finding is on: its own, and those of its evidence's pairs
 * (p2p.slow_pair names each pair's "from" and "to"), first seen first, at
 * most cap; returns how many were put in g. */
size_t gd_finding_gpus(const gd_finding *x, int *g, size_t cap);

/* text with a GPU's own number made generic ("GPU 3" -> "GPU #", "-i 3" ->
 * "-i #"), so that the same sentence about two GPUs compares equal. */
void gd_cause_generic_text(const char *text, int gpu, char *buf, size_t len);

#endif
