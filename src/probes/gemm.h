/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One cuBLASLt matrix multiply on one device, set up once and run many
 * times: D (fp32) = A^T B with A and B of the benchmark's type, the "TN"
 * layout that every type (fp8 too) supports. The caller's thread has the
 * device's context current.
 */
#ifndef GD_PROBE_GEMM_H
#define GD_PROBE_GEMM_H

#include "loaders/cublaslt_loader.h"
#include "loaders/cuda_loader.h"
#include "gpudoctor/bench.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct gd_gemm {
    const struct gd_cuda_api *cu;
    const struct gd_cublaslt_api *lt;
    gd_gemm_dtype dtype;
    int m, n, k;
    cublasLtHandle_t handle;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, ld;
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulHeuristicResult_t algo;
    CUdeviceptr a, b, d, workspace;
    size_t workspace_bytes;
} gd_gemm;

/*
 * Allocates A, B and D, fills A and B (`pattern`: the small integers that
 * gd_gemm_verify checks; else values that keep the multipliers busy) and
 * asks cuBLASLt for an algorithm. 0, or -1 with why in err (the step and
 * its CUDA or cuBLAS status); *g is then torn down.
 */
int gd_gemm_setup(gd_gemm *g, const struct gd_cuda_api *cu, const struct gd_cublaslt_api *lt, gd_gemm_dtype dtype,
                  int m, int n, int k, bool pattern, char *err, size_t errlen);

/* Enqueues `count` multiplies on stream st: 0, or -1 with why. */
int gd_gemm_run(gd_gemm *g, CUstream st, int count, char *err, size_t errlen);

/*
 * The check that makes a wrong answer a failure: a small multiply of known
 * small integers (exact in every type and in fp32 accumulation), its whole
 * result copied back and compared with the host's. GD_VERIFY_OK,
 * GD_VERIFY_WRONG (detail names the first wrong element), or
 * GD_VERIFY_NOT_RUN when it could not run (detail says why).
 */
gd_bench_verdict gd_gemm_verify(const struct gd_cuda_api *cu, const struct gd_cublaslt_api *lt, gd_gemm_dtype dtype,
                                CUstream st, char *detail, size_t detaillen);

void gd_gemm_teardown(gd_gemm *g);

#endif
