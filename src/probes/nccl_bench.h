/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `gpudoctor bench nccl`: all-reduce and all-gather bus bandwidth over every
 * GPU of the node through NCCL (libnccl.so.2), one rank per GPU in this
 * process, after nccl-tests: a sweep of sizes, warm-up, timed iterations,
 * and one all-reduce of known values read back first.
 */
#ifndef GD_NCCL_BENCH_H
#define GD_NCCL_BENCH_H

#include <signal.h>
#include "loaders/nccl_loader.h"
#include "bench_runtime.h"
#include "gpudoctor/bench.h"

typedef struct gd_nccl_bench_opts {
    gd_bench_rt_opts rt; /* the driver (cuBLASLt unused) */
    const gd_nccl_search *nccl;
    size_t min_bytes, max_bytes; /* the sweep, doubling; 0: 8 MiB .. 1 GiB */
    int iters; /* timed collectives per size; 0: 20 */
    int warmup; /* untimed first; 0: 5 */
    const char *env; /* the NCCL_* settings in force, recorded as evidence (may be NULL) */
    /* Set by a stop signal: the sizes measured are kept, the sweep ends.
     * NULL: none. */
    const volatile sig_atomic_t *stop;
} gd_nccl_bench_opts;

/* The default sweep. */
#define GD_NCCL_MIN_BYTES ((size_t)8 << 20)
#define GD_NCCL_MAX_BYTES ((size_t)1 << 30)

/* The sizes of a sweep from lo to hi, doubling (hi always the last), each
 * a multiple of 4 x ranks bytes (whole float32 elements per rank); returns
 * how many (at most cap, 0 when lo > hi or ranks < 1). */
size_t gd_nccl_sweep_sizes(size_t lo, size_t hi, int ranks, size_t *out, size_t cap);

/*
 * Runs into b->nccl (created). 0: measured, or nothing to measure (fewer
 * than two CUDA devices: b->nccl->skipped says so), or a failure during the
 * run (b->nccl->failed, ->error); -1 with a message when nothing could run
 * (no driver, no NCCL library: what was tried and how to get one).
 */
int gd_nccl_bench_run(const gd_nccl_bench_opts *o, const gd_facts *f, gd_bench_facts *b, char *err, size_t errlen);

/*
 * The same measurement on a communicator across processes (bench nccl
 * --nodes): a session holds the driver, NCCL and every GPU of the node
 * open, and measures on communicators made from a unique id that one
 * process made and the others received (ncclCommInitRank, this process's
 * GPUs as consecutive ranks).
 */
#define GD_NCCL_ID_BYTES 128 /* NCCL_UNIQUE_ID_BYTES */

typedef struct gd_nccl_session gd_nccl_session;

typedef struct gd_nccl_comm_spec {
    int nranks; /* in the communicator */
    int first_rank; /* this process's first; its GPUs follow */
    const unsigned char *id; /* GD_NCCL_ID_BYTES; NULL: this node alone (ncclCommInitAll) */
} gd_nccl_comm_spec;

/* Opens the driver, NCCL and every GPU (b->nccl made: the library, its
 * version, the GPUs). 0 with *out, or 0 with *out NULL where the node has
 * fewer than min_gpus CUDA devices (b->nccl->skipped says so: NCCL is not
 * looked for), or -1 with a message. */
int gd_nccl_session_open(const gd_nccl_bench_opts *o, const gd_facts *f, gd_bench_facts *b, int min_gpus,
                         gd_nccl_session **out, char *err, size_t errlen);
int gd_nccl_session_gpus(const gd_nccl_session *s);
/* ncclGetUniqueId: this process is the communicator's root. */
int gd_nccl_session_unique_id(gd_nccl_session *s, unsigned char id[GD_NCCL_ID_BYTES], char *err, size_t errlen);
/* The check and the sweep on the communicator of spec, into out (the
 * session's library, version and GPUs with them). Across processes no stop signal ends
 * the sweep early: the other ranks would wait for this one. */
void gd_nccl_session_measure(gd_nccl_session *s, const gd_nccl_bench_opts *o, const gd_nccl_comm_spec *spec,
                             gd_nccl_bench *out);
void gd_nccl_session_close(gd_nccl_session *s);

#endif
