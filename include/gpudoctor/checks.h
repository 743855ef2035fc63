/*
 * The check registry. A check is a pure function of the collected facts:
 * it does no I/O and reports findings, or says why it could not judge.
 */
#ifndef GPUDOCTOR_CHECKS_H
#define GPUDOCTOR_CHECKS_H

#include "gpudoctor/findings.h"
#include "gpudoctor/model.h"

typedef void (*gd_check_fn)(const gd_facts *f, gd_findings *out);

typedef struct gd_check {
    const char *id;      /* finding id it reports */
    const char *group;   /* "driver", "thermal", "health", ... */
    const char *summary; /* one line: what it looks at */
    gd_check_fn run;
} gd_check;

/* The registry: an explicit table, in report order. */
extern const gd_check gd_checks[];
extern const size_t gd_checks_count;

/* Runs every check over f, then sorts the findings. */
void gd_checks_run_all(const gd_facts *f, gd_findings *out);

#endif
