/* SPDX-License-Identifier: Apache-2.0 */
/* The job beside its GPUs, second by second: which GPUs are the job's, and
 * a timeline of GPU busy, the job's CPU and the host's CPU in buckets. */
#ifndef GD_ANALYSIS_JOB_TIMELINE_H
#define GD_ANALYSIS_JOB_TIMELINE_H

#include "gpudoctor/job.h"
#include "gpudoctor/model.h"

#include <stdbool.h>
#include <stddef.h>

/* Marks in mine[g] the job's GPUs, linked by job_tree.h's rules (NVML's
 * process list, device files, visible devices, memory, the only GPU, the
 * GPUs NVML lists other pids on). Returns how many are marked; *by_pid: some
 * by NVML's list of the job's pids. */
size_t gd_job_gpus(const gd_facts *f, bool *mine, bool *by_pid);

/* One bucket of the timeline. NaN: nothing readable in it. */
typedef struct gd_job_second {
    double t0_s; /* start, seconds from the window's first sample */
    double gpu_busy_pct; /* mean utilisation of the job's GPUs */
    double job_cores; /* the job's CPU time per second (1.0 = one core) */
    double top_thread_core; /* the busiest thread's share of one core */
    double host_busy_pct; /* the host's CPUs, busy share in percent */
    double runnable; /* threads of the job in state R, mean */
    double disk_wait; /* threads of the job in state D, mean */
} gd_job_second;

/* Fills out[0..max) with buckets of bucket_s seconds covering the window;
 * returns how many (0 without a job sampled). */
size_t gd_job_timeline(const gd_facts *f, double bucket_s, gd_job_second *out, size_t max);

/* The window's span in seconds: the GPUs' series, or the job's samples. */
double gd_job_timeline_span(const gd_facts *f);

#endif
