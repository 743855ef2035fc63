/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a session's samples cost the driver, counted: a session on a
 * scenario under the simulated NVML, which counts every NVML call
 * (sim/nvml/sim_count.c, gdsim_nvml_calls). Shared by bench_nvml_calls
 * (make bench) and its budget test (tests/sim/test_nvml_calls.c).
 */
#ifndef GD_BENCH_NVML_CALLS_H
#define GD_BENCH_NVML_CALLS_H

#include "gpudoctor/model.h"

#include <stddef.h>

#define NVML_CALLS_MAX_FUNCTIONS 160

/* One function's calls. */
typedef struct nvml_fn_calls {
    char name[64];
    unsigned long long calls;
} nvml_fn_calls;

typedef struct nvml_calls {
    size_t gpus, samples;
    int rereads; /* health re-reads made between the first sample and the last */
    /* Calls made from the first sample to the last (the snapshot's and the
     * end's excluded), per function, most first. */
    size_t n;
    nvml_fn_calls fn[NVML_CALLS_MAX_FUNCTIONS];
    unsigned long long total, reread;
    double per_gpu_sample; /* a sample's calls per GPU: the health re-read left out */
    double reread_per_gpu; /* one health re-read's calls per GPU */
    double all_per_gpu_sample; /* every call, the re-reads included, per GPU per sample */
} nvml_calls;

/*
 * Runs a session on the scenario for duration_s at interval_s (scenario
 * seconds, the fast clock) with the simulated libraries of sim_dir, and
 * counts the NVML calls its samples made. The facts are left in *f when f
 * is not NULL (gd_facts_free them), else freed. 0, or -1 with a message.
 */
int nvml_calls_count(const char *sim_dir, const char *scenario, double duration_s, double interval_s, nvml_calls *out,
                     gd_facts *f, char *err, size_t errlen);

/* How many times function name was called (0 when never). */
unsigned long long nvml_calls_of(const nvml_calls *c, const char *name);

#endif
