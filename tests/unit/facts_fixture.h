/* SPDX-License-Identifier: Apache-2.0 */
/* Builds literal facts for check tests: N GPUs, S samples, healthy defaults;
 * and the pieces several tests add to them (a job, NVLinks, a PCIe tree). */
#ifndef GD_FACTS_FIXTURE_H
#define GD_FACTS_FIXTURE_H

#include "gpudoctor/checks.h"
#include "gpudoctor/job.h"
#include "gpudoctor/model.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"

#include <stdbool.h>
#include <stdint.h>

/* A loaded, healthy H100-like node: util 98 %, 65 C, full clocks, 1 s apart. */
void fx_facts(gd_facts *f, size_t gpus, size_t samples);

/* fx_facts' n GPUs on PCIe Gen4 x16 whose driver denies peer access between
 * all of them: NCCL's ring is staged through the host (analysis/nccl_expect.h). */
void fx_facts_no_peer_access(gd_facts *f, size_t n);

/* Sets metric m of GPU g to v in samples [from, to). */
void fx_set(gd_facts *f, size_t g, gd_metric m, size_t from, size_t to, double v);

/* Marks metric m of GPU g unreadable (status st) in every sample. */
void fx_unset(gd_facts *f, size_t g, gd_metric m, gd_status st);

/* Runs one registered check by id into out (which it initialises). */
void fx_run(const gd_facts *f, const char *id, gd_findings *out);

/* The same, for a report read where `where` says (run, bench, ...). */
void fx_run_at(const gd_facts *f, const char *id, gd_where where, gd_findings *out);

/* Runs one registered check by id: its findings, for the caller to free. */
gd_findings fx_run_one(const gd_facts *f, const char *id);

/* Runs check id and counts its findings (any GPU). */
size_t fx_run_count(const gd_facts *f, const char *id);

/* Number of findings with this id (and GPU, or any GPU with -2). */
size_t fx_count(const gd_findings *fs, const char *id, int gpu);

/* Runs check id and fails the test if it gives a finding or a "not checked". */
void fx_assert_silent(const gd_facts *f, const char *id);

/* The one finding with this id: fails the test unless there is exactly one. */
const gd_finding *fx_only(const gd_findings *fs, const char *id);

/* True when check id said "not checked" for gpu with a reason holding why. */
bool fx_skipped(const gd_findings *fs, const char *id, int gpu, const char *why);

/* The job's environment read from /proc/4242/environ: vars are NAME=VALUE
 * strings, NULL-terminated (copied). */
void fx_env(gd_facts *f, const char *const *vars);

/* Adds a CUDA runtime to f's software stack (made on first use, scanned):
 * a toolkit, or a framework build (framework: "torch 2.7.0+cu128") of CUDA
 * `version` (1000 * major + 10 * minor; 0 for a CPU build). */
gd_cuda_runtime *fx_cuda_runtime(gd_facts *f, gd_runtime_kind kind, int version, const char *framework);

/* A job on GPU 0 (pid 4242 in its process list), sampled n times. */
void fx_job(gd_facts *f, size_t n, double job_cores, double host_busy);

/* n threads of the job: the main one (pid 4242, busy main_core) and one per
 * worker process (pids 5000.., busy worker_core each), measured 19 times. */
void fx_job_threads(gd_facts *f, double main_core, size_t nworkers, double worker_core);

/* A job of main_core plus nworkers at worker_core each, `cores` busy in all,
 * on `cpus` of `host_cpus`, beside GPU 0 that waits (20 % busy) or is fed. */
void fx_job_of(gd_facts *f, bool waits, double cores, double main_core, size_t nworkers, double worker_core, int cpus,
               int host_cpus);

/* A job of nprocs processes (pids 100..), 20 samples, beside GPUs that wait
 * (20 % busy) and whose NVML lists no process: a container. */
gd_job_facts *fx_container_job(gd_facts *f, size_t gpus, size_t nprocs);

/* Names a process of the job's tree: what it is and whether it runs torch. */
void fx_set_proc(gd_job_proc *p, const char *comm, const char *prog, bool python, bool torch);

/* A thread of pid: seen 20 times, runnable `running` of them, `core` busy,
 * `vcsw_ps` voluntary switches per second of its CPU time. */
void fx_add_thread(gd_job_facts *j, int pid, int tid, uint32_t running, double core, double vcsw_ps);

/* Every GPU with `links` active NVLinks, their error counters at zero. */
void fx_nvlinks(gd_facts *f, size_t links);

/* Gives GPU g `active` of `links` NVLinks to an NVSwitch, version v. */
void fx_nvswitch(gd_facts *f, size_t g, size_t links, size_t active, double v);

/* A PCIe path from literal bdfs (NULL-terminated), deepest first; the last
 * is the root port. numa < 0: the platform reports none. */
void fx_pcie_path(gd_pcie_gpu *g, const char *hb, int numa, const char *const *bdfs);

/* f->pcie for f's GPUs (bus 18+g): each GPU behind its own switch port, a
 * switch upstream port 0000:17:00.0 they share and the root port
 * 0000:16:01.0 (NUMA node 0), with AER counters at zero; a PCIe-only matrix. */
gd_pcie_facts *fx_pcie_switch_tree(gd_facts *f);

/* The whole of a file, NUL-terminated (the caller frees it); NULL when unreadable. */
char *fx_read_file(const char *path);

#endif
