/*
 * Software stack facts: CUDA runtimes and frameworks installed, the job's
 * environment, and Xid events from the kernel log.
 */
#ifndef GPUDOCTOR_STACK_H
#define GPUDOCTOR_STACK_H

#include "gpudoctor/model.h"

#include <stddef.h>

typedef struct gd_stack_facts {
    int reserved; /* filled in by the stack backend */
} gd_stack_facts;

typedef struct gd_stack_opts {
    const char *const *python; /* --python PATH..., may be NULL */
    size_t python_count;
} gd_stack_opts;

/* Reads the software stack facts into f->stack. Returns 0 or -1. */
int gd_stack_collect(gd_facts *f, const gd_stack_opts *o);

void gd_stack_facts_free(gd_stack_facts *s);

#endif
