/* SPDX-License-Identifier: Apache-2.0 */
/* What the input.* checks share: the job's GPUs and how much they wait, the
 * job's host side over the window, the evidence every input finding carries. */
#ifndef GD_CHECKS_INPUT_JOB_H
#define GD_CHECKS_INPUT_JOB_H

#include "analysis/job_timeline.h"
#include "analysis/job_tree.h"
#include "checks_internal.h"
#include "gpudoctor/job.h"

typedef struct gpu_wait {
    size_t gpus; /* the job's GPUs judged */
    double low_share; /* their mean share of samples below GD_LOADED_UTIL_PCT */
    double busy_pct; /* their mean utilisation */
    bool by_pid; /* found by the job's pids in NVML's list (else every GPU in use) */
    size_t linked; /* GPUs linked to the job (job_tree.h), readable or not */
    gd_link_rule rule; /* the rule that linked the first of them */
    char why[320]; /* ... in a sentence ("GPU 0: the job holds /dev/nvidia0 open ...") */
} gpu_wait;

typedef struct host_side {
    size_t n; /* samples with the job alive */
    double cores; /* the job's mean cores over those samples, NaN unknown */
    double host_busy, psi_io, iowait; /* the host's means while the job was alive, NaN unknown */
    double running; /* mean threads of the job in state R (running or waiting for a CPU) */
    size_t cores_n, host_n, psi_n, iowait_n, with_d;
} host_side;

/* How much the job's GPUs (gd_job_gpus) wait. */
gpu_wait gd_input_gpu_wait(const gd_facts *f);

/* The job's side over the samples it was alive in, and the host's
 * (f->host_series) over the same time. */
host_side gd_input_host_side(const gd_facts *f, const gd_job_facts *j);

/* The job's facts, or NULL after adding "not checked" for check id. */
const gd_job_facts *gd_input_job_of(const gd_facts *f, const char *id, gd_findings *out);

/* False after adding "not checked" for check id when no GPU of the job was
 * linked (or none of them had a readable utilisation): never a silent pass. */
bool gd_input_gpus_known(const gd_facts *f, const char *id, const gpu_wait *w, gd_findings *out);

/* Roles of the job's processes (job_tree.h), calloc'ed; NULL when out of memory. */
gd_job_role *gd_input_roles(const gd_facts *f);

/* "the trainer (pid 101, python3, rank 0)" and the like, into buf. */
void gd_input_name_proc(const gd_facts *f, const gd_job_role *roles, int pid, char *buf, size_t len);

/* A thread at a full core most of its intervals, or runnable nearly always
 * at half a core or more (CPU-bound while other work shares its core). */
bool gd_input_thread_saturated(const gd_job_thread *t);

/* Do the job's GPUs wait (below GD_LOADED_UTIL_PCT most of the window)? */
bool gd_input_gpu_waits(const gpu_wait *w);

/* The evidence every input finding starts from (pid, GPUs, cores, host). */
json_t *gd_input_evidence(const gd_facts *f, const gpu_wait *w, const host_side *h);

#endif
