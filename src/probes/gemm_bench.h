/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `gpudoctor bench gemm`: cuBLASLt matrix-multiply throughput of each GPU
 * alone, then of all at once, each after a check of its results; and the
 * sustained load of `bench stress`.
 */
#ifndef GD_GEMM_BENCH_H
#define GD_GEMM_BENCH_H

#include "bench_runtime.h"
#include "gpudoctor/bench.h"
#include "gpudoctor/session.h"

#include <signal.h>

typedef struct gd_gemm_bench_opts {
    gd_bench_rt_opts rt;
    gd_gemm_dtype dtype;
    int size; /* M = N = K; 0: 8192 */
    double seconds; /* per measurement; 0: 5 */
    bool concurrent; /* also all GPUs at once (when more than one) */
    double batch_s; /* stress: seconds of work between progress counts; 0: 0.02 */
    /* stress: under the simulator's fast clock, the GPUs' virtual time kept
     * in step with the session's scenario clock (stress.c) */
    bool lockstep;
    /* stress: called after each sample with the window so far, the figures
     * so far (ticks) and the scenario seconds since the first sample */
    void (*progress)(void *ud, const gd_facts *window, const gd_bench_facts *b, double t);
    void *progress_ud;
    /* bench gemm: set by a stop signal; the GPU in progress then ends its
     * measurement after its batch, the others are not measured (said in
     * their gemm_error), nor all at once. NULL: none. */
    const volatile sig_atomic_t *stop;
} gd_gemm_bench_opts;

/*
 * Measures every CUDA device into b (rows matched to f's GPUs). A GPU that
 * fails keeps NAN and says why in gemm_error. 0, or -1 with a message when
 * nothing could run at all (no driver, no cuBLASLt, no device measured).
 */
int gd_gemm_bench_run(const gd_gemm_bench_opts *o, const gd_facts *f, gd_bench_facts *b, char *err, size_t errlen);

/*
 * `bench stress`: GEMMs on every GPU at once for the session's window while
 * the session samples (session_opts: its duration and interval); the
 * facts of the window go to *window with b attached to it (window->bench).
 * Results are checked before and after the load. 0, or -1 with a message.
 */
int gd_stress_run(const gd_gemm_bench_opts *o, const gd_session_opts *session_opts, const gd_facts *f, gd_facts *window,
                  char *err, size_t errlen);

#endif
