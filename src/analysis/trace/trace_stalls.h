/* SPDX-License-Identifier: Apache-2.0 */
/* What stalls the step besides the DataLoader (trace_stalls.c). */
#ifndef GD_TRACE_STALLS_H
#define GD_TRACE_STALLS_H

#include "analysis/trace/trace_internal.h"

/*
 * Host reads (.item(), .cpu()) and exposed host-to-device copies inside the
 * steps: fills r's read_* and step_copy_* fields and the steps' reads,
 * read_blocked_us, copy_exposed_us. k: the kept GPU operations by time;
 * comp: the union of compute kernels. Returns 0 or -1 (out of memory).
 */
int gd_trace_stalls(gd_trace_acc *a, const gd_tkept *k, size_t nk, const gd_tiv *comp, size_t ncomp,
                    gd_trace_result *r);

#endif
