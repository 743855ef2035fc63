/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a process of the job's tree is, from its /proc entry: the program
 * it runs (cmdline), whether it loaded PyTorch or the CUDA driver (maps),
 * the NVIDIA device files it holds open (fd), its rank and visible GPUs
 * (environ); and the GPUs' device minors (driver/nvidia/gpus). The parsers
 * take text, so a test or a fuzz target feeds them directly.
 */
#ifndef GD_BACKENDS_PROC_TREE_H
#define GD_BACKENDS_PROC_TREE_H

#include "gpudoctor/job.h"

#include <stddef.h>

/* A NUL-separated cmdline into p->prog and p->python: argv[0]'s base name,
 * or for a Python interpreter its script's base name or "-m" module. */
void gd_proc_parse_cmdline(const char *cmdline, size_t len, gd_job_proc *p);

/* A NUL-separated environment into p's rank and visible devices. */
void gd_proc_parse_environ(const char *env, size_t len, gd_job_proc *p);

/* One line of PID/maps into p->torch and p->cuda. */
void gd_proc_parse_maps_line(const char *line, gd_job_proc *p);

/* An fd's link target ("/dev/nvidia0") into p's device minors and nvidia_ctl. */
void gd_proc_parse_fd_target(const char *target, gd_job_proc *p);

/* Reads ROOT/PID's cmdline, environ (when env), maps (when maps) and fds
 * into p; a part that cannot be read leaves p's fields as they were. */
void gd_proc_identify(const char *root, gd_job_proc *p, bool env, bool maps);

/* Reads ROOT/PID/maps into p->torch and p->cuda (until both show). */
void gd_proc_read_maps(const char *root, gd_job_proc *p);

/* The device minor of each GPU (by bus id "00000000:18:00.0") from
 * ROOT/driver/nvidia/gpus/BUS/information ("Device Minor: N"); -1 unknown. */
int gd_proc_gpu_minor(const char *root, const char *pci_bus_id);

#endif
