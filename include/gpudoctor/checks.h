/*
 * The check registry. A check is a pure function of the collected facts:
 * it does no I/O and reports findings, or says why it could not judge.
 */
#ifndef GPUDOCTOR_CHECKS_H
#define GPUDOCTOR_CHECKS_H

#include "gpudoctor/findings.h"
#include "gpudoctor/model.h"

/* What a check needs to judge anything. Missing, the check is not run and
 * says why once, from here (gd_check_run), not in its own code. */
typedef enum gd_check_need {
    GD_NEED_JOB = 1u << 0, /* --pid (first: a job check without a job says so) */
    GD_NEED_PCIE = 1u << 1, /* a sysfs tree or an lspci capture: f->pcie */
    GD_NEED_STACK = 1u << 2, /* the software stack was collected: f->stack */
    GD_NEED_ENV = 1u << 3, /* the job's environment was read */
    GD_NEED_KERNEL_LOG = 1u << 4, /* a kernel log was read */
} gd_check_need;

typedef struct gd_check gd_check;
typedef void (*gd_check_fn)(const gd_check *self, const gd_facts *f, gd_findings *out);

struct gd_check {
    const char *id; /* finding id it reports */
    const char *group; /* "driver", "thermal", "health", ... */
    const char *summary; /* one line: what it looks at */
    unsigned needs; /* gd_check_need bits */
    gd_check_fn run; /* receives its own entry */
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

/* The thresholds a user may change, by name ("thermal.hot.from_c"): 0, -1
 * for a name that is not one, -2 for a value outside [lo, hi] (with *lo and
 * *hi filled when not NULL). Process-wide: set them before the checks run. */
int gd_threshold_set(const char *name, double value, double *lo, double *hi);

/* The i-th changeable threshold's name, default and meaning; NULL past the end. */
const char *gd_threshold_at(size_t i, double *dflt, const char **meaning);

#endif
