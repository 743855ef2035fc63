/*
 * The context of a run: where gpudoctor reads this machine's facts from and
 * which libraries it loads. The command line fills it (from options and the
 * environment: GPUDOCTOR_ROOT, GPUDOCTOR_NVML_LIBRARY, GPUDOCTOR_CUDA_LIBRARY,
 * GPUDOCTOR_SIM_DIR, GPUDOCTOR_SIM_TIMESCALE); the library reads no
 * environment variable of its own, so two sessions can differ and tests
 * point it at trees. A NULL context means the defaults.
 */
#ifndef GPUDOCTOR_CONTEXT_H
#define GPUDOCTOR_CONTEXT_H

typedef struct gd_ctx {
    const char *fs_root; /* prefix of the software-stack scans ("" or NULL: /) */
    const char *nvml_library; /* NULL: libnvidia-ml.so.1 from the loader's path */
    const char *cuda_library; /* NULL: libcuda.so.1 */
    const char *sim_dir; /* the simulated libraries; NULL: beside the executable */
    double sim_pace; /* --sim: scenario seconds per wall second; 0: as fast as the CPU allows */
    /* Diagnostics for a person (may be NULL). */
    void (*log)(void *ud, const char *msg);
    void *log_ud;
} gd_ctx;

#endif
