/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The job as it runs: which processes of its tree are launchers (a shell,
 * torchrun, srun, uv run), trainers (one per rank) and their workers, and
 * which GPUs are the job's, by the evidence a container leaves when NVML
 * lists no process: device files held open, CUDA_VISIBLE_DEVICES /
 * NVIDIA_VISIBLE_DEVICES, memory that appeared when the job started.
 */
#ifndef GD_ANALYSIS_JOB_TREE_H
#define GD_ANALYSIS_JOB_TREE_H

#include "gpudoctor/job.h"
#include "gpudoctor/model.h"

#include <stdbool.h>
#include <stddef.h>

/* Is this process a launcher by what it runs (sh, bash, torchrun, accelerate,
 * deepspeed, srun, mpirun, uv, poetry, taskset, ...)? */
bool gd_job_is_launcher(const gd_job_proc *p);

/* Fills roles[0..j->proc_count) (GD_ROLE_*): the trainers are the topmost
 * processes that hold a GPU (NVML lists them, or they hold /dev/nvidiaN),
 * map the CUDA driver or are Python with torch loaded, launchers excepted;
 * without any, the topmost processes that are not launchers. Everything
 * below a trainer is its worker. Returns the number of trainers. */
size_t gd_job_roles(const gd_facts *f, gd_job_role *roles);

/* The role of the process pid (GD_ROLE_NONE when not followed). */
gd_job_role gd_job_role_of(const gd_facts *f, const gd_job_role *roles, int pid);

/* The role's name: "launcher", "trainer", "worker", "other". */
const char *gd_job_role_name(gd_job_role r);

/* Why a GPU is the job's, strongest first. */
typedef enum gd_link_rule {
    GD_LINK_NONE = 0,
    GD_LINK_NVML_PID, /* NVML lists a pid of the job on it */
    GD_LINK_DEVICE_FILE, /* a process of the job holds its /dev/nvidiaN open */
    GD_LINK_VISIBLE_ENV, /* the job's CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES names it */
    GD_LINK_MEMORY, /* its memory in use grew when the job started */
    GD_LINK_ONLY_GPU, /* the only GPU visible here, and the job loaded the CUDA driver */
    GD_LINK_OTHER_PIDS, /* NVML lists processes on it, none of the job's (host pids, a scenario's) */
} gd_link_rule;

/* Memory that appears on a GPU after the job's first sample, in MiB: a
 * CUDA context alone is 300-600 MiB, a model's weights more. */
#define GD_LINK_MEMORY_MIN_MIB 1024.0

/* Bytes of each GPU's sentence in gd_job_link's why. */
#define GD_LINK_WHY_LEN 320

/* Links the job to its GPUs: rule[g] for each of f->gpu_count GPUs, and
 * why[g] (a sentence naming the evidence, why_len bytes each) when why is
 * not NULL. Returns how many GPUs are linked. */
size_t gd_job_link(const gd_facts *f, gd_link_rule *rule, char *why, size_t why_len);

/* The rule's stable key for JSON ("nvml_pid", "device_file", ...). */
const char *gd_link_rule_key(gd_link_rule r);

/* Whether a CUDA_VISIBLE_DEVICES value names any of f's GPUs (an index or a
 * UUID of one): "" names none, and so hides every GPU from CUDA. */
bool gd_job_visible_names_a_gpu(const gd_facts *f, const char *cuda_visible);

/* What was tried when nothing linked the job to a GPU: one sentence. */
void gd_job_link_none(const gd_facts *f, char *buf, size_t len);

#endif
