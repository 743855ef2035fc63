/* SPDX-License-Identifier: Apache-2.0 */
/* `run --profile`: what the hook's processes said, summed up (pure). */
#include "analysis/profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gd_profile_free(gd_profile *p)
{
    for (size_t i = 0; p->ranks && i < p->nranks; i++)
        gd_trace_result_free(&p->ranks[i]);
    free(p->ranks);
    p->ranks = NULL;
    p->nranks = 0;
}

const gd_profile_proc *gd_profile_proc_of(const gd_profile *p, size_t r)
{
    for (size_t i = 0; i < p->nprocs; i++)
        if (p->procs[i].result == (int)r)
            return &p->procs[i];
    return NULL;
}

/* The profiled steps' median against the unprofiled ones', over the
 * processes that measured both (their mean). */
static double overhead(const gd_profile *p)
{
    double sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < p->nprocs; i++) {
        const gd_profile_proc *q = &p->procs[i];
        if (q->trace[0] && q->step_s_unprofiled > 0 && q->step_s_profiled > 0) {
            sum += 100 * (q->step_s_profiled / q->step_s_unprofiled - 1);
            n++;
        }
    }
    return n ? sum / (double)n : NAN;
}

void gd_profile_explain(gd_profile *p)
{
    p->overhead_pct = overhead(p);
    p->not_profiled[0] = 0;
    if (p->nranks > 0)
        return;
    const gd_profile_proc *torch = NULL, *tf = NULL, *err = NULL;
    long steps = 0;
    for (size_t i = 0; i < p->nprocs; i++) {
        const gd_profile_proc *q = &p->procs[i];
        if (q->torch[0] && (!torch || q->steps > torch->steps))
            torch = q;
        if (q->tensorflow)
            tf = q;
        if (q->error[0] && !err)
            err = q;
        if (q->steps > steps)
            steps = q->steps;
    }
    if (p->unread[0])
        snprintf(p->not_profiled, sizeof p->not_profiled, "its trace could not be read: %s", p->unread);
    else if (p->nprocs == 0)
        snprintf(
            p->not_profiled, sizeof p->not_profiled,
            "no Python process of the job ran the start-up hook (not a Python job, or one started with -S, -E or -I)");
    else if (err)
        snprintf(p->not_profiled, sizeof p->not_profiled, "the hook failed in PID %ld: %s", err->pid, err->error);
    else if (!torch && tf)
        snprintf(p->not_profiled, sizeof p->not_profiled,
                 "a TensorFlow job: the hook profiles PyTorch only (use the TensorFlow profiler, then 'gpudoctor "
                 "trace')");
    else if (!torch)
        snprintf(p->not_profiled, sizeof p->not_profiled, "the job never imported torch");
    else if (steps == 0)
        snprintf(p->not_profiled, sizeof p->not_profiled, "the job never stepped (torch %s: no %s counted)",
                 torch->torch, strcmp(torch->mode, "optimizer") == 0 ? "optimizer step" : "DataLoader batch");
    else
        snprintf(p->not_profiled, sizeof p->not_profiled,
                 "the job ended after %ld steps, before step %ld where profiling starts (--profile-steps)", steps,
                 p->first);
}
