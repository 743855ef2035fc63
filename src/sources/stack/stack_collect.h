/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the software stack: runtimes, frameworks, the job's environment
 * and the kernel log. */
#ifndef GD_SOURCES_STACK_STACK_COLLECT_H
#define GD_SOURCES_STACK_STACK_COLLECT_H

#include "gpudoctor/stack.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct gd_stack_opts {
    const char *const *python; /* --python PATH..., may be NULL */
    size_t python_count;
    const char *root; /* the context's fs_root (GPUDOCTOR_ROOT); NULL or "": / */
    const char *proc_root; /* the job's environment is read here; NULL or "": nowhere */
    const char *kernel_log; /* a file of kernel log lines; NULL or "": the machine's own log */
} gd_stack_opts;

/* Checks a root, when given: 0, or -1 with a message when it does not exist
 * or is not a directory (nothing under it could be read: exit 3). */
int gd_stack_root_check(const char *root, char *err, size_t errlen);

/* Reads the software stack facts into f->stack (allocated here; freed by
 * gd_facts_free). What cannot be read is recorded in the facts, not an
 * error. Returns 0, or -1 when out of memory. */
int gd_stack_collect(gd_facts *f, const gd_stack_opts *o);

#endif
