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
    const gd_profile_proc *torch = NULL, *tf = NULL, *err = NULL, *aside = NULL;
    long steps = 0;
    for (size_t i = 0; i < p->nprocs; i++) {
        const gd_profile_proc *q = &p->procs[i];
        if (q->torch[0] && (!torch || q->steps > torch->steps))
            torch = q;
        if (q->tensorflow)
            tf = q;
        if (q->error[0] && !err)
            err = q;
        if (q->stepped_aside[0] && !aside)
            aside = q;
        if (q->steps > steps)
            steps = q->steps;
    }
    if (p->unread[0])
        snprintf(p->not_profiled, sizeof p->not_profiled, "its trace could not be read: %s", p->unread);
    else if (p->nprocs == 0 && p->no_site)
        snprintf(p->not_profiled, sizeof p->not_profiled,
                 "the command runs Python with -S, which imports no sitecustomize: gpudoctor left its PYTHONPATH "
                 "alone, so that the hook's folder is not on the job's sys.path (run it without -S to profile it)");
    else if (p->nprocs == 0)
        snprintf(
            p->not_profiled, sizeof p->not_profiled,
            "no Python process of the job ran the start-up hook (not a Python job, or one started with -S, -E or -I)");
    else if (aside)
        snprintf(p->not_profiled, sizeof p->not_profiled,
                 "the hook stepped aside in PID %ld so that the job runs as without it: %s", aside->pid,
                 aside->stepped_aside);
    else if (err)
        snprintf(p->not_profiled, sizeof p->not_profiled, "the hook failed in PID %ld: %s", err->pid, err->error);
    else if (!torch && tf)
        snprintf(p->not_profiled, sizeof p->not_profiled,
                 "a TensorFlow job: the hook profiles PyTorch only (use the TensorFlow profiler, then 'gpudoctor "
                 "trace')");
    else if (!torch)
        snprintf(p->not_profiled, sizeof p->not_profiled, "the job never imported torch");
    else if (steps == 0 && strcmp(torch->mode, "batch") == 0 && strcmp(torch->step_asked, "batch") == 0)
        snprintf(p->not_profiled, sizeof p->not_profiled,
                 "the job iterated no DataLoader, and GPUDOCTOR_PROFILE_STEP=batch counts a step per DataLoader "
                 "batch only (unset it to count optimizer steps, torch %s)",
                 torch->torch);
    else if (steps == 0 && strcmp(torch->mode, "batch") == 0)
        /* Its optimizer may well have stepped: without a global hook no step of it can be counted. */
        snprintf(p->not_profiled, sizeof p->not_profiled,
                 "the job never stepped as the hook counts steps: torch %s has no global optimizer step hook "
                 "(torch 2.0 added one; 1.13 has its profiler's step entry), so a step is a DataLoader batch, and "
                 "this job iterated no DataLoader: feed its batches through a torch.utils.data.DataLoader, or run "
                 "it with torch 1.13 or newer",
                 torch->torch);
    else if (steps == 0)
        snprintf(p->not_profiled, sizeof p->not_profiled, "the job never stepped (torch %s: no %s counted)",
                 torch->torch, strcmp(torch->mode, "optimizer") == 0 ? "optimizer step" : "DataLoader batch");
    else if (steps >= 2) /* the step after the last profiled one ends it: steps A..steps-1 fit */
        snprintf(p->not_profiled, sizeof p->not_profiled,
                 "the job ended after %ld steps, before step %ld where profiling starts: --profile-steps %ld:%ld "
                 "fits it",
                 steps, p->first, steps >= 4 ? 2L : 1L, steps - 1);
    else
        snprintf(p->not_profiled, sizeof p->not_profiled,
                 "the job ended after %ld step, before step %ld where profiling starts: a profile needs two steps "
                 "(the last one ends the profiled step)",
                 steps, p->first);
}
