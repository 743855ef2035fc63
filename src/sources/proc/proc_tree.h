/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a process of the job's tree is, from its /proc entry: the program
 * it runs (cmdline), whether it loaded PyTorch or the CUDA driver (maps),
 * the NVIDIA device files it holds open (fd), its rank and visible GPUs
 * (environ); and the GPUs' device minors (driver/nvidia/gpus). What is
 * read is parsed by proc_parse.c.
 */
#ifndef GD_SOURCES_PROC_PROC_TREE_H
#define GD_SOURCES_PROC_PROC_TREE_H

#include "gpudoctor/job.h"
#include "proc_parse.h"

#include <stddef.h>

/* The parts of a process gd_proc_identify reads. */
enum {
    GD_PROC_CMDLINE = 1,
    GD_PROC_ENVIRON = 2,
    GD_PROC_MAPS = 4,
    GD_PROC_FDS = 8, /* the device files it holds: held at any time, they stay in p */
};

/* Reads the parts of ROOT/PID named in `parts` into p; a part that cannot be
 * read leaves p's fields as they were. */
void gd_proc_identify(const char *root, gd_job_proc *p, unsigned parts);

/* Reads ROOT/PID/maps into p->torch and p->cuda (until both show). */
void gd_proc_read_maps(const char *root, gd_job_proc *p);

/* The device minor of each GPU (by bus id "00000000:18:00.0") from
 * ROOT/driver/nvidia/gpus/BUS/information ("Device Minor: N"); -1 unknown. */
int gd_proc_gpu_minor(const char *root, const char *pci_bus_id);

#endif
