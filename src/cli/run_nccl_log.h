/* SPDX-License-Identifier: Apache-2.0 */
/* `run --nccl-log` (docs/run.md): NCCL's INFO log of the job, written into a
 * private folder and read into the report (docs/nccl-log.md). */
#ifndef GD_CLI_RUN_NCCL_LOG_H
#define GD_CLI_RUN_NCCL_LOG_H

#include "gpudoctor/model.h"

#include <stdbool.h>

/* What NCCL is asked to log: its choices of network, transports and GPUDirect. */
#define GD_NCCL_LOG_SUBSYS "INIT,BOOTSTRAP,ENV,NET,P2P,SHM"
/* Larger logs are not read (the report says so). */
#define GD_NCCL_LOG_MAX_BYTES (64u << 20)

typedef struct gd_run_nccl_log {
    bool on;
    const char *keep_dir; /* --nccl-log-dir, or NULL: a temporary folder, removed at the end */
    char dir[4096];
    bool left_alone; /* the job's environment sets NCCL_DEBUG or NCCL_DEBUG_FILE: nothing set, nothing read */
    bool set_subsys; /* NCCL_DEBUG_SUBSYS was set by gpudoctor (the job's own is kept) */
    double first_seen_s; /* the sample's time when the folder first held a log: NCCL's start; NAN not yet */
} gd_run_nccl_log;

/* After a sample at t_s (seconds into the window): until NCCL's first log
 * file appears, looks into the private folder (one readdir of an empty
 * folder), so the report can place NCCL's start on the job's timeline. */
void gd_run_nccl_log_poll(gd_run_nccl_log *nl, double t_s);

/* Takes option c ('N' --nccl-log, 'L' --nccl-log-dir DIR): 0, or GD_EXIT_ERROR after a message. */
int gd_run_nccl_log_option(gd_run_nccl_log *nl, int c, const char *arg);

/* Before the command starts: the folder made, NCCL_DEBUG=INFO,
 * NCCL_DEBUG_FILE=DIR/nccl.%h.%p.log and NCCL_DEBUG_SUBSYS set for the
 * command to inherit, unless the environment already says where or how much
 * NCCL logs (then nothing is set and stderr says so). 0, or GD_EXIT_ERROR. */
int gd_run_nccl_log_prepare(gd_run_nccl_log *nl);

/* Right after the command started: gpudoctor's own environment back. */
void gd_run_nccl_log_started(gd_run_nccl_log *nl);

/* After the watch: every file NCCL wrote in the folder, read into f
 * (f->net->nccl), their count returned; what could not be read is said on stderr. */
int gd_run_nccl_log_read(gd_run_nccl_log *nl, gd_facts *f);

/* Removes a temporary folder. */
void gd_run_nccl_log_end(gd_run_nccl_log *nl);

#endif
