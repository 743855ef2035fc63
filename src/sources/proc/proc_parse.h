/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parsers of a job's /proc entries: text in, fields out, no I/O, so a test
 * or a fuzz target feeds them directly. Readers: proc_tree.c (the tree's
 * processes), source_proc.c (threads and CPU).
 */
#ifndef GD_PROC_PARSE_H
#define GD_PROC_PARSE_H

#include "gpudoctor/job.h"

#include <stdbool.h>
#include <stddef.h>

/* A NUL-separated cmdline into p->prog and p->python: argv[0]'s base name,
 * or for a Python interpreter its script's base name or "-m" module. */
void gd_proc_parse_cmdline(const char *cmdline, size_t len, gd_job_proc *p);

/* A NUL-separated environment into p's rank and visible devices. */
void gd_proc_parse_environ(const char *env, size_t len, gd_job_proc *p);

/* One line of PID/maps into p->torch, p->cuda, p->torch_cuda and p->cudart. */
void gd_proc_parse_maps_line(const char *line, gd_job_proc *p);

/* An fd's link target ("/dev/nvidia0") into p's device minors and nvidia_ctl. */
void gd_proc_parse_fd_target(const char *target, gd_job_proc *p);

/* CPUs in a list like "0-3,8,10-11" (Cpus_allowed_list); 0 when malformed. */
int gd_proc_count_cpu_list(const char *s);

/* A thread's stat (NUL-terminated) into its state, CPU ticks (utime +
 * stime) and comm; false when unparsable. */
bool gd_proc_parse_thread_stat(const char *buf, char *state, double *cpu_ticks, char *comm, size_t commlen);

#endif
