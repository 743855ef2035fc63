/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The context of a run: where gpudoctor reads this machine's facts from and
 * which libraries it loads. The command line fills it (from options and the
 * environment: GPUDOCTOR_ROOT, GPUDOCTOR_SYS_ROOT, GPUDOCTOR_NVML_LIBRARY, GPUDOCTOR_CUDA_LIBRARY,
 * GPUDOCTOR_CUBLASLT_LIBRARY, GPUDOCTOR_NCCL_LIBRARY, CUDA_HOME,
 * GPUDOCTOR_SIM_DIR, GPUDOCTOR_SIM_TIMESCALE); the library reads no
 * environment variable of its own, so two sessions can differ and tests
 * point it at trees. A NULL context means the defaults.
 */
#ifndef GPUDOCTOR_CONTEXT_H
#define GPUDOCTOR_CONTEXT_H

typedef struct gd_ctx {
    const char *fs_root; /* prefix of the software-stack scans ("" or NULL: /) */
    /* Where this machine's host facts are read (a scenario names its own). */
    const char *sys_root; /* NULL: /sys */
    const char *proc_root; /* NULL: /proc */
    const char *kernel_log; /* a file of kernel log lines; NULL: this machine's own log */
    const char *nvml_library; /* NULL: libnvidia-ml.so.1 from the loader's path */
    const char *cuda_library; /* NULL: libcuda.so.1 */
    const char *cublaslt_library; /* NULL: searched (wheels, libcublasLt.so.13/.12/.11, the toolkit) */
    const char *nccl_library; /* NULL: searched (wheels, libnccl.so.2, the toolkit) */
    const char *cuda_home; /* a CUDA toolkit root to search ($CUDA_HOME), or NULL */
    const char *sim_dir; /* the simulated libraries; NULL: beside the executable */
    double sim_pace; /* --sim: scenario seconds per wall second; 0: as fast as the CPU allows */
    /* Diagnostics for a person (may be NULL). */
    void (*log)(void *ud, const char *msg);
    void *log_ud;
} gd_ctx;

/*
 * Where a session reads host facts, resolved once when it opens: the
 * context's roots on a machine, the scenario's host.sysfs / host.proc /
 * host.kernel_log under --sim, none for captures. Settings, not facts: they
 * are never part of gd_facts or of a recording. "" = not available.
 */
typedef struct gd_roots {
    char sys[512];
    char proc[512];
    char kernel_log[512]; /* "" = this machine's own log (or none for --sim/--from) */
} gd_roots;

#endif
