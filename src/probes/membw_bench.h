/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `gpudoctor bench membw`: device memory bandwidth of each GPU, by a
 * device-to-device copy on the copy engine and by a read/write kernel
 * (data/kernels/membw.ptx), each checked for the right bytes.
 */
#ifndef GD_MEMBW_BENCH_H
#define GD_MEMBW_BENCH_H

#include "bench_runtime.h"
#include "gpudoctor/bench.h"

#include <signal.h>

typedef struct gd_membw_bench_opts {
    gd_bench_rt_opts rt;
    size_t bytes; /* per copy; 0: 1 GiB (8 GiB under --sim, see membw_bench.c) */
    int reps; /* timed copies per figure, median reported; 0: 10 */
    /* Set by a stop signal: what was measured is kept, what was not is said
     * ("the benchmark was stopped before it"). NULL: none. */
    const volatile sig_atomic_t *stop;
} gd_membw_bench_opts;

/* Measures every CUDA device into b. 0, or -1 with a message when nothing
 * could run at all. */
int gd_membw_bench_run(const gd_membw_bench_opts *o, const gd_facts *f, gd_bench_facts *b, char *err, size_t errlen);

#endif
