/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The check registry. A check is a pure function of the collected facts:
 * it does no I/O and reports findings, or says why it could not judge.
 */
#ifndef GPUDOCTOR_CHECKS_H
#define GPUDOCTOR_CHECKS_H

#include "gpudoctor/findings.h"
#include "gpudoctor/model.h"

#include <stdbool.h>
#include <stddef.h>

/* What a check needs to judge anything. Missing, the check is not run and
 * says why once, from here (gd_check_run), not in its own code. */
typedef enum gd_check_need {
    GD_NEED_JOB = 1u << 0, /* --pid (first: a job check without a job says so) */
    GD_NEED_PCIE = 1u << 1, /* a sysfs tree or an lspci capture: f->pcie */
    GD_NEED_STACK = 1u << 2, /* the software stack was collected: f->stack */
    GD_NEED_ENV = 1u << 3, /* the job's environment was read */
    GD_NEED_KERNEL_LOG = 1u << 4, /* a kernel log was read */
    GD_NEED_XID_SOURCE = 1u << 5, /* a kernel log was read, or NVML's Xid events were watched */
} gd_check_need;

typedef struct gd_check gd_check;
typedef void (*gd_check_fn)(const gd_check *self, const gd_facts *f, gd_findings *out);

/* A check's severity rule as the severities it may give (docs/checks.md
 * states the rule of each row; a unit test holds the two together). A
 * finding outside its row's rule is a bug: gd_check_run asserts it. */
#define GD_SEVS_INFO (1u << GD_SEV_INFO)
#define GD_SEVS_WARNING (1u << GD_SEV_WARNING)
#define GD_SEVS_CRITICAL (1u << GD_SEV_CRITICAL)
#define GD_SEVS_NONE 0u /* gives notes ("not checked") only */

struct gd_check {
    const char *id; /* finding id it reports (its findings carry no other) */
    const char *group; /* "driver", "thermal", "health", ... */
    const char *summary; /* one line: what it looks at */
    unsigned needs; /* gd_check_need bits */
    gd_check_fn run; /* receives its own entry */
    unsigned severities; /* GD_SEVS_* bits: the severity rule */
    /* The fix template: the fix a finding of this check gets when the check
     * gives none of its own (a NULL fix), and the text a check that adds to
     * it starts from; NULL where the evidence decides the fix and the check
     * writes it. */
    const char *fix;
};

/* The registry: an explicit table, in report order. */
extern const gd_check gd_checks[];
extern const size_t gd_checks_count;

/* The entry of a finding id, or NULL. */
const gd_check *gd_check_find(const char *id);

/* Runs one check when what it needs is there; otherwise records why not. */
void gd_check_run(const gd_check *c, const gd_facts *f, gd_findings *out);

/* Runs every check over f, then sorts the findings. */
void gd_checks_run_all(const gd_facts *f, gd_findings *out);

/* What one check judged (coverage.c): a check is judged only for what the
 * evidence held (a dmon capture has no clock event reasons: throttling is
 * not judged there, however quiet it is). */
typedef enum gd_check_state {
    GD_CHECK_NOT_APPLICABLE = 0, /* could not have applied here: a job's check on a capture, a
                                    benchmark's in check, the capture's notes */
    GD_CHECK_NOT_JUDGED, /* it could have, and did not: why says why */
    GD_CHECK_PART, /* judged for some GPUs, not others */
    GD_CHECK_JUDGED,
} gd_check_state;

/* The state of check c after the checks ran, and why (when not judged, or
 * judged in part: the first reason; "" otherwise). */
gd_check_state gd_check_coverage(const gd_check *c, const gd_facts *f, const gd_findings *fs, char *why, size_t len);

/* Whether a "not checked" note could have applied here: a job's, its
 * environment's or the software stack's check says nothing of a capture
 * (never "no --pid" on one). */
bool gd_skip_applies(const gd_facts *f, const gd_skip *k);

/* What one group of checks judged (coverage.c). */
typedef struct gd_coverage {
    bool judged; /* a finding, or a check that ran on facts the evidence holds */
    bool gpu_state; /* it judged GPUs' own readings (not only a kernel log) */
    size_t gpus; /* GPUs whose evidence holds what the group judges */
    char why[256]; /* when !judged: why not */
    /* Its checks, one by one (gd_check_coverage): the group's state is
     * not applicable when none applies, judged when every one that applies
     * was, not judged when none was, else in part. */
    gd_check_state state;
    size_t checks, applicable, judged_checks; /* judged_checks: judged or in part */
    char label[32]; /* "software stack", "PCIe", "job" */
    char brief[64]; /* when not judged: a few words ("no --pid", "not in this capture") */
} gd_coverage;

/* Fills out for a group of the registry ("thermal", "input", ...) after
 * the checks ran: a group whose checks all said "not checked", or whose
 * facts the evidence does not hold, is not judged. */
void gd_group_coverage(const gd_facts *f, const gd_findings *fs, const char *group, gd_coverage *out);

/* The groups that judge the GPUs' own state (health, thermal, power,
 * clocks, pcie, vram, utilization, config) and the kernel log, the GPUs'
 * own word on it (Xids, a GPU lost): "PCIe links and settings of 8 GPUs
 * and the kernel log (2362 lines, no Xid, no lost GPU)" into judged,
 * "temperatures, power and clocks" into missing ("" when all were judged).
 * Returns how many were judged (the kernel log counting one, when it had
 * a line): 0 means the report says nothing of the GPUs' state, and `check`
 * exits 3. A topology matrix (which GPU is wired to which) judges none of
 * it. */
size_t gd_judged_summary(const gd_facts *f, const gd_findings *fs, char *judged, size_t jlen, char *missing,
                         size_t mlen);

/* The groups of the registry in report order, one call each: fn(ud, group). */
void gd_coverage_each_group(void (*fn)(void *ud, const char *group), void *ud);

/* Coverage in a line or two, what a report says by default: "judged 11 of
 * 13 groups (3 in part); not judged: job (no --pid), topology (no PCIe
 * tree)". Only groups that could have applied are counted (no job on a
 * capture, no benchmark in check). Returns the groups judged. */
size_t gd_coverage_line(const gd_facts *f, const gd_findings *fs, char *buf, size_t len);

/* Whether no GPU was under load in any sample of a window (idle GPUs lower
 * their clocks and links: the checks that need load judged nothing). */
bool gd_coverage_all_idle(const gd_facts *f);

/* The thresholds a user may change, by name ("thermal.hot.from_c"): 0, -1
 * for a name that is not one, -2 for a value outside [lo, hi] (with *lo and
 * *hi filled when not NULL). Process-wide: set them before the checks run. */
int gd_threshold_set(const char *name, double value, double *lo, double *hi);

/* The i-th changeable threshold's name, default and meaning; NULL past the end. */
const char *gd_threshold_at(size_t i, double *dflt, const char **meaning);

#endif
