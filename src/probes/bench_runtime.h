/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What `bench gemm`, `bench membw` and `bench stress` share: the CUDA driver
 * (and cuBLASLt) loaded, initialised, and one result row per CUDA device in
 * the bench facts, matched to the GPUs by PCI bus id.
 */
#ifndef GD_BENCH_RUNTIME_H
#define GD_BENCH_RUNTIME_H

#include "loaders/cublaslt_loader.h"
#include "loaders/cuda_loader.h"
#include "gpudoctor/bench.h"

#include <stdbool.h>

typedef struct gd_bench_rt {
    struct gd_cuda_api cu;
    struct gd_cublaslt_api lt;
    bool have_lt;
    int count; /* CUDA devices */
} gd_bench_rt;

typedef struct gd_bench_rt_opts {
    const char *cuda_library; /* NULL: the context's choice or libcuda.so.1 */
    const char *sim_scenario; /* the simulated libcuda's scenario (--sim), or NULL */
    const gd_cublaslt_search *cublaslt; /* NULL: cuBLASLt not needed */
} gd_bench_rt_opts;

/* 0, or -1 with a message (no driver, no device, no cuBLASLt: what was
 * tried and how to get one). Rows of b are made when b has none. */
int gd_bench_rt_open(gd_bench_rt *rt, const gd_bench_rt_opts *o, const gd_facts *f, gd_bench_facts *b, char *err,
                     size_t errlen);
void gd_bench_rt_close(gd_bench_rt *rt);

/* Per-thread timer slack of 1 ns: GEMMs and copies that block in a sleep
 * (the simulated driver's, a driver waiting) wake up on time. */
void gd_bench_thread_timing(void);

#endif
