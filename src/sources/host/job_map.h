/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The job-mapping directory of dcgm-exporter's HPC mode, which a Slurm
 * prolog fills (scripts/slurm/gpudoctor-job-map): one file per GPU, named
 * by its index ("3") or by index and MIG GPU instance id ("3.5"), holding
 * the ids of the jobs that use it, one per line.
 */
#ifndef GD_SOURCES_HOST_JOB_MAP_H
#define GD_SOURCES_HOST_JOB_MAP_H

#include "gpudoctor/workload.h"

#include <stdbool.h>
#include <stddef.h>

/* A mapping file's name: "3" (gpu 3, *gi -1) or "3.5" (gpu 3, GPU instance
 * 5). False for any other name (dot files, editors' backups, "a", "3.x"). */
bool gd_job_map_name(const char *name, int *gpu, int *gi);

/* The job ids in a mapping file's text (one per line; blanks and '#'
 * comments skipped; an id is 1-31 of [A-Za-z0-9_.-], other lines are
 * ignored), at most GD_MAX_GPU_JOBS, no id twice, into j. Returns j->n. */
size_t gd_job_map_ids(const char *text, gd_gpu_jobs *j);

/* A mapping file a GPU needs: its index, and its MIG GPU instance id (-1:
 * the whole GPU, file "3"; else "3.5"). */
typedef struct gd_job_map_want {
    int gpu, gpu_instance;
} gd_job_map_want;

/* The mapping files of dir that want[0..nwant) name (read by name, never
 * by a scan: any number of other files may be there) with at least one job
 * id, into a malloc'd *out of *n entries (sorted by GPU, then instance;
 * NULL when none). 0; or -1 with the reason in err (dir unreadable; *out
 * NULL). Files absent, not regular, over 64 KiB or unreadable are skipped. */
int gd_job_map_read(const char *dir, const gd_job_map_want *want, size_t nwant, gd_gpu_jobs **out, size_t *n, char *err,
                    size_t errlen);

#endif
