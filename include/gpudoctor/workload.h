/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which workload holds a GPU: the Slurm job ids a job-mapping directory
 * names for it (dcgm-exporter's hpc_job label; src/sources/host/job_map.c).
 */
#ifndef GPUDOCTOR_WORKLOAD_H
#define GPUDOCTOR_WORKLOAD_H

#include <stddef.h>

#define GD_MAX_GPU_JOBS 8 /* job ids kept per GPU (Slurm's shared GPUs, one line each) */

/* The job ids of one GPU, or of one of its MIG GPU instances. */
typedef struct gd_gpu_jobs {
    int gpu; /* the GPU's index */
    int gpu_instance; /* a MIG GPU instance id; -1: the whole GPU */
    size_t n;
    char id[GD_MAX_GPU_JOBS][32];
} gd_gpu_jobs;

#endif
