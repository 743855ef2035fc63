/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Results of `gpudoctor bench gemm`, `bench membw` and `bench stress`
 * (docs/bench.md): per GPU, what was measured, whether the work was right,
 * and the datasheet figures it is judged against. `bench pcie` keeps its
 * own results in gpudoctor/pcie.h.
 */
#ifndef GPUDOCTOR_BENCH_H
#define GPUDOCTOR_BENCH_H

#include "gpudoctor/model.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum gd_gemm_dtype {
    GD_GEMM_BF16 = 0,
    GD_GEMM_FP16,
    GD_GEMM_TF32,
    GD_GEMM_FP32,
    GD_GEMM_FP8,
    GD_GEMM_DTYPES
} gd_gemm_dtype;

/* "bf16", ... ; parse: 0, or -1 for a name that is not one. */
const char *gd_gemm_dtype_name(gd_gemm_dtype t);
int gd_gemm_dtype_parse(const char *s, gd_gemm_dtype *out);

/* A row of data/gpu-peaks.tsv: dense datasheet peaks, NAN where unknown. */
typedef struct gd_gpu_peak {
    char label[48];
    double tflops[GD_GEMM_DTYPES];
    double membw_gbps;
    char source[16]; /* the file's source key */
} gd_gpu_peak;

/* The row whose match the NVML product name contains as whole words. */
bool gd_gpu_peak_find(const char *product_name, gd_gpu_peak *out);

/* Result of checking a GEMM's output (or a copy's) on the host. */
typedef enum gd_bench_verdict {
    GD_VERIFY_NOT_RUN = 0, /* not measured: see the error */
    GD_VERIFY_OK,
    GD_VERIFY_WRONG, /* the device returned wrong results: a failure */
} gd_bench_verdict;

/* One stress sample of one GPU: GEMM throughput over the interval. */
typedef struct gd_bench_tick {
    double t; /* session seconds at the interval's end */
    double tflops; /* NAN when no GEMM finished in the interval */
} gd_bench_tick;

typedef struct gd_bench_gpu {
    int gpu; /* GPU index (f->gpus[].index), -1 when the CUDA device is not matched */
    int cuda_device;
    char bdf[16];
    char name[96]; /* CUDA's device name */
    /* bench gemm, TFLOP/s (1e12 flop/s; a multiply-add counts 2); NAN when not measured. */
    double gemm_single_tflops; /* this GPU alone */
    double gemm_concurrent_tflops; /* all GPUs at once */
    gd_bench_verdict gemm_verdict;
    char gemm_detail[200]; /* the wrong element, or why it was not checked */
    char gemm_error[240]; /* "" or why it could not be measured */
    bool gemm_failed; /* the error is the GPU's failure (a multiply that failed to execute), not a limit */
    /* bench membw, GB/s counting bytes read plus bytes written; NAN when not measured. */
    double membw_copy_gbps; /* cuMemcpyDtoD on the copy engine */
    double membw_kernel_gbps; /* the read/write kernel (data/kernels/membw.ptx) */
    gd_bench_verdict membw_verdict;
    char membw_detail[200];
    char membw_error[240];
    bool membw_failed; /* the kernel did not load or run: a failure, never "not measured" */
    /* bench stress: GEMM throughput over the window, per sample interval. */
    double stress_tflops; /* mean over the window, NAN when none */
    size_t tick_count;
    gd_bench_tick *ticks;
} gd_bench_gpu;

/* bench nccl: the collectives measured, in this order. */
typedef enum gd_nccl_coll { GD_NCCL_ALL_REDUCE = 0, GD_NCCL_ALL_GATHER, GD_NCCL_COLLS } gd_nccl_coll;

#define GD_NCCL_MAX_RANKS 64
#define GD_NCCL_MAX_POINTS 16

/* One size of a sweep, as nccl-tests prints it. */
typedef struct gd_nccl_point {
    size_t bytes; /* all-reduce: the buffer; all-gather: what each rank receives (nccl-tests' size) */
    double time_us; /* per collective, the mean of the timed iterations */
    double algbw_gbps; /* bytes / time */
    double busbw_gbps; /* algbw x 2(n-1)/n (all-reduce) or (n-1)/n (all-gather) */
} gd_nccl_point;

/* bench nccl: node-wide, one rank per GPU in one process (ncclCommInitAll). */
typedef struct gd_nccl_bench {
    char library[512]; /* the libnccl.so.2 loaded, "" when none */
    int version; /* ncclGetVersion, 0 unknown */
    int ranks; /* CUDA devices in the communicator (bench nccl --nodes: this node's) */
    int nranks_total; /* bench nccl --nodes: the communicator's ranks on every node; 0 on one node */
    int gpus[GD_NCCL_MAX_RANKS]; /* each rank's GPU index (f->gpus[].index), -1 unmatched */
    int iters, warmup; /* per size */
    size_t point_count[GD_NCCL_COLLS];
    gd_nccl_point points[GD_NCCL_COLLS][GD_NCCL_MAX_POINTS];
    double peak_busbw_gbps[GD_NCCL_COLLS]; /* the best size's, NAN when none */
    gd_bench_verdict verdict; /* of one all-reduce of known values, read back */
    char detail[200]; /* the wrong element, or what was checked */
    char error[240]; /* "" or why it could not be measured */
    bool failed; /* NCCL or CUDA failed during the run, or wrong data: a failure, never a figure */
    bool remote; /* the first failure was NCCL's ncclRemoteError: another process of the run went away */
    char skipped[160]; /* "" or why nothing was measured (fewer than two GPUs) */
    char env[256]; /* the NCCL_* settings that shape the transport, "NCCL_P2P_DISABLE=1 ..."; "" none */
} gd_nccl_bench;

/* bus bandwidth of a collective of `bytes` (see gd_nccl_point) taking
 * `seconds` on n ranks, GB/s (nccl-tests' PERFORMANCE.md); NAN when it
 * cannot be said. */
double gd_nccl_algbw_gbps(size_t bytes, double seconds);
double gd_nccl_busbw_factor(gd_nccl_coll c, int n);
const char *gd_nccl_coll_name(gd_nccl_coll c); /* "all_reduce", "all_gather" */
/* bench p2p: one ordered pair of CUDA devices, copies from src to dst. */
typedef struct gd_p2p_pair {
    size_t src, dst; /* rows of gd_bench_facts.gpus */
    int can_access; /* cuDeviceCanAccessPeer(src, dst): 1 yes, 0 no, -1 not asked */
    bool peer_enabled; /* the copies ran with peer access on (else staged through host memory) */
    double uni_gbps; /* src -> dst alone, GB/s (1e9 B/s), median; NAN not measured */
    double bidi_gbps; /* src <-> dst at once, both directions summed; NAN, or not the src < dst entry */
    gd_bench_verdict verdict; /* a copy read back */
    char detail[160];
    char error[200]; /* "" or why it was not measured */
} gd_p2p_pair;

typedef struct gd_bench_facts {
    bool gemm, membw, stress, p2p; /* which ran */
    size_t p2p_bytes; /* per copy */
    int p2p_reps;
    size_t p2p_pair_count; /* gpu_count * (gpu_count - 1), src-major */
    gd_p2p_pair *p2p_pairs;
    gd_gemm_dtype dtype;
    int size; /* M = N = K */
    double seconds; /* per GEMM measurement */
    size_t membw_bytes; /* per copy */
    int membw_reps;
    double stress_seconds; /* the window asked for */
    char cublaslt[512]; /* the library that was loaded, "" when none */
    size_t cublaslt_version; /* cublasLtGetVersion, 0 unknown */
    size_t gpu_count;
    gd_bench_gpu *gpus;
    gd_nccl_bench *nccl; /* bench nccl, NULL when it did not run */
    struct gd_nccl_nodes *nodes; /* bench nccl --nodes (bench_nodes.h), rank 0's; NULL when it did not run */
} gd_bench_facts;

/* The f->gpus index of a bench row's GPU, or -1 when it is not matched. */
long gd_bench_facts_gpu(const gd_facts *f, const gd_bench_gpu *g);
/* Its NVML product name, else CUDA's name for the device. */
const char *gd_bench_product(const gd_facts *f, const gd_bench_gpu *g);

/* The bench facts of f, created (zeroed) when there are none; NULL: no memory. */
gd_bench_facts *gd_bench_facts_get(gd_facts *f);
void gd_bench_facts_free(gd_bench_facts *b);

/* What a GPU's memory delivers: the better of the copy engine and the kernel (NAN: neither). */
static inline double gd_bench_membw_best(const gd_bench_gpu *g)
{
    double a = g->membw_copy_gbps, b = g->membw_kernel_gbps;
    return a != a ? b : b != b ? a : a > b ? a : b; /* x != x: NAN, without <math.h> */
}

/* Flop of one M x N x K GEMM. */
static inline double gd_gemm_flop(double m, double n, double k)
{
    return 2.0 * m * n * k;
}

#endif
