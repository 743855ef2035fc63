/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where this process stands in a multi-node run, from what the launcher
 * put in its environment: torchrun / Kubernetes (RANK, WORLD_SIZE,
 * LOCAL_RANK, MASTER_ADDR, MASTER_PORT) or Slurm (SLURM_PROCID,
 * SLURM_NTASKS, SLURM_LOCALID, the first host of SLURM_STEP_NODELIST unless
 * the job script exports MASTER_ADDR).
 * Pure: the environment comes through a lookup the caller gives.
 */
#ifndef GD_ANALYSIS_LAUNCH_ENV_H
#define GD_ANALYSIS_LAUNCH_ENV_H

#include <stdbool.h>
#include <stddef.h>

#define GD_LAUNCH_DEFAULT_PORT 29517 /* gpudoctor's own, not torchrun's 29500: both may run at once */

typedef struct gd_launch {
    int rank, world, local_rank; /* local_rank -1 when not said */
    char master_addr[256];
    int master_port;
    char launcher[16]; /* "torchrun", "slurm" */
} gd_launch;

/* Reads the launch from get(name, ud) (NULL: unset). 0, or -1 with why in
 * err: no launcher's variables, a rank outside 0..world-1, a port out of
 * range, no master address. */
int gd_launch_from_env(const char *(*get)(const char *name, void *ud), void *ud, gd_launch *out, char *err,
                       size_t errlen);

/* The first host of a Slurm host list ("gpu[07-09,12],cpu1" -> "gpu07",
 * zero padding kept). False for an empty or malformed list. */
bool gd_slurm_first_host(const char *list, char *out, size_t len);

#endif
