/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `run --profile` (docs/run.md): what the job's start-up hook said about each
 * Python process, and the profiler traces it wrote, analyzed as `trace`
 * analyzes them. Filled by formats/trace/profile_read.c, judged with the
 * machine's findings by checks/joined.c, shown by report/profile_report.c.
 */
#ifndef GD_ANALYSIS_PROFILE_H
#define GD_ANALYSIS_PROFILE_H

#include "analysis/trace/trace.h"

#include <stdbool.h>
#include <stddef.h>

#define GD_PROFILE_MAX_PROCS 64
#define GD_PROFILE_MAX_STEPS 64

/* One profiled step as the hook timed it: wall-clock start (Unix seconds). */
typedef struct gd_profile_step {
    long number;
    double start_unix, dur_s;
} gd_profile_step;

/* One Python process of the job that ran the hook (its hook-PID.status). */
typedef struct gd_profile_proc {
    long pid;
    int rank; /* RANK of torchrun, -1 without */
    int world_size; /* -1 without */
    char torch[32]; /* torch.__version__, "" when the process never imported torch */
    bool tensorflow; /* it imported TensorFlow */
    char mode[16]; /* "optimizer" (the global optimizer step hook), "batch" (DataLoader batches), "" */
    char step_asked[16]; /* GPUDOCTOR_PROFILE_STEP: "auto", "optimizer", "batch"; "" from an older hook */
    /* What counts an optimizer step: "register_optimizer_step_post_hook" (torch 2.x), "_optimizer_step_code"
     * (torch 1.13, its profiler's entry), "" */
    char optimizer_hook[40];
    long steps; /* steps it counted */
    char trace[256]; /* its trace file's name in the folder, "" when none */
    char error[256]; /* what went wrong in the hook, "" */
    /* Why the hook stopped and left the job alone (the job's own profiler, a failure of its own), "" */
    char stepped_aside[320];
    double step_s_unprofiled, step_s_profiled; /* medians; NAN when not measured */
    size_t unprofiled_steps;
    double export_s; /* the time to write the trace (the job waits once); NAN */
    size_t nsteps;
    gd_profile_step steps_wall[GD_PROFILE_MAX_STEPS];
    int result; /* index of its trace's result in gd_profile.ranks, -1 */
} gd_profile_proc;

typedef struct gd_profile {
    long first, last; /* the steps asked for (--profile-steps A:B) */
    const char *dir; /* the traces' folder */
    bool kept; /* --profile-dir: the folder stays */
    bool no_site; /* the command is Python with -S: no hook was put on its path */
    size_t nprocs;
    gd_profile_proc procs[GD_PROFILE_MAX_PROCS];
    gd_trace_result *ranks; /* one per trace read, by rank; owned */
    size_t nranks;
    char unread[512]; /* a trace that could not be read and why, "" */
    /* Why nothing was profiled, "" when something was: no Python ran the hook,
     * torch never imported, TensorFlow, no step counted, the hook's error. */
    char not_profiled[800];
    double overhead_pct; /* the profiled steps' median against the others', NAN */
    double t0_unix; /* the wall-clock time of the session's second 0 */
} gd_profile;

/* Frees what p owns (the trace results). */
void gd_profile_free(gd_profile *p);

/* The process whose trace is result r, or NULL. */
const gd_profile_proc *gd_profile_proc_of(const gd_profile *p, size_t r);

/*
 * The sentence of p->not_profiled from what the processes said (pure; the
 * reader calls it after reading): empty when a trace was written.
 */
void gd_profile_explain(gd_profile *p);

#endif
