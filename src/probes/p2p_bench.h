/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `gpudoctor bench p2p`: the GPU-to-GPU copy bandwidth matrix, one way and
 * both ways at once, on the copy engines (cuMemcpyPeerAsync) with peer
 * access on where the driver allows it; each pair's copy read back.
 */
#ifndef GD_P2P_BENCH_H
#define GD_P2P_BENCH_H

#include "bench_runtime.h"
#include "gpudoctor/bench.h"

#include <signal.h>

typedef struct gd_p2p_bench_opts {
    gd_bench_rt_opts rt;
    size_t bytes; /* per copy; 0: 256 MiB */
    int reps; /* timed copies per figure, median reported; 0: 5 */
    /* Set by a stop signal: what was measured is kept, what was not is said
     * ("the benchmark was stopped before it"). NULL: none. */
    const volatile sig_atomic_t *stop;
} gd_p2p_bench_opts;

/* Measures every ordered pair of CUDA devices into b. 0, or -1 with a
 * message (fewer than two devices, no driver). */
int gd_p2p_bench_run(const gd_p2p_bench_opts *o, const gd_facts *f, gd_bench_facts *b, char *err, size_t errlen);

#endif
