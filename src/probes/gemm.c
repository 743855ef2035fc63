/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cuBLASLt GEMM of the benchmarks (gemm.h). Method after gpu-fryer:
 * one large square multiply through cuBLASLt's heuristic algorithm, with
 * a workspace (32 MiB, what cuBLAS asks for on Hopper); after gpu-burn, a
 * result check, but against the host's exact answer rather than the
 * previous iteration, so a GPU that is wrong from the start fails too.
 */
#include "gemm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORKSPACE_BYTES ((size_t)32 << 20)
#define FILL_CHUNK ((size_t)1 << 20) /* busy values: made once, copied over and over */
#define VERIFY_M 128
#define VERIFY_N 128
#define VERIFY_K 512

static size_t elem_bytes(gd_gemm_dtype t)
{
    return t == GD_GEMM_FP8 ? 1 : t == GD_GEMM_TF32 || t == GD_GEMM_FP32 ? 4 : 2;
}

static cudaDataType data_type(gd_gemm_dtype t)
{
    switch (t) {
    case GD_GEMM_BF16: return CUDA_R_16BF;
    case GD_GEMM_FP16: return CUDA_R_16F;
    case GD_GEMM_FP8: return CUDA_R_8F_E4M3;
    default: return CUDA_R_32F;
    }
}

/* The encoding of the small value v in {-2, -1, -0.5, 0, 0.5, 1, 2} (exact in every type). */
static void encode(gd_gemm_dtype t, float v, unsigned char *out)
{
    static const float vals[7] = {-2, -1, -0.5f, 0, 0.5f, 1, 2};
    static const uint16_t bf16[7] = {0xC000, 0xBF80, 0xBF00, 0, 0x3F00, 0x3F80, 0x4000};
    static const uint16_t fp16[7] = {0xC000, 0xBC00, 0xB800, 0, 0x3800, 0x3C00, 0x4000};
    static const uint8_t e4m3[7] = {0xC0, 0xB8, 0xB0, 0, 0x30, 0x38, 0x40};
    int i = 0;
    while (i < 6 && vals[i] != v)
        i++;
    switch (t) {
    case GD_GEMM_BF16: memcpy(out, &bf16[i], 2); break;
    case GD_GEMM_FP16: memcpy(out, &fp16[i], 2); break;
    case GD_GEMM_FP8: *out = e4m3[i]; break;
    default: memcpy(out, &v, 4); break;
    }
}

/* The verification inputs: integers in [-2, 2], no period shared by rows and columns. */
static float pattern_a(int i, int p)
{
    return (float)((i * 7 + p * 3) % 5 - 2);
}

static float pattern_b(int p, int j)
{
    return (float)((p * 5 + j * 11 + 1) % 5 - 2);
}

static int cu_fail(char *err, size_t errlen, const char *step, CUresult rc)
{
    snprintf(err, errlen, "%s failed: %s", step, gd_cuda_result_name(rc));
    return -1;
}

static int lt_fail(char *err, size_t errlen, const char *step, cublasStatus_t st)
{
    snprintf(err, errlen, "%s failed: %s", step, gd_cublas_status_name(st));
    return -1;
}

/* Fills a device buffer with host data made by fill(i, buf) for each element
 * index, a chunk at a time; falls back to a memset when copies fail (a
 * simulated machine without copy figures). */
static int fill_buffer(gd_gemm *g, CUdeviceptr dst, size_t elems, bool pattern, bool is_a, char *err, size_t errlen)
{
    size_t eb = elem_bytes(g->dtype), bytes = elems * eb;
    size_t chunk = bytes < FILL_CHUNK ? bytes : FILL_CHUNK;
    unsigned char *host = malloc(chunk);
    if (!host) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    static const float busy[6] = {-2, -1, -0.5f, 0.5f, 1, 2};
    uint32_t seed = is_a ? 12345u : 67890u;
    for (size_t off = 0; off < bytes; off += chunk) {
        size_t len = bytes - off < chunk ? bytes - off : chunk;
        /* Busy values: one chunk made once and repeated (the multipliers'
         * bits toggle all the same); the pattern: every element its own. */
        for (size_t e = 0; e < len / eb && (pattern || off == 0); e++) {
            size_t idx = off / eb + e;
            float v;
            if (pattern) { /* column-major K x M (A) and K x N (B): element (p, col) */
                int p = (int)(idx % (size_t)g->k), col = (int)(idx / (size_t)g->k);
                v = is_a ? pattern_a(col, p) : pattern_b(p, col);
            } else {
                seed = seed * 1664525u + 1013904223u;
                v = busy[(seed >> 16) % 6];
            }
            encode(g->dtype, v, host + e * eb);
        }
        CUresult rc = g->cu->cuMemcpyHtoD(dst + off, host, len);
        if (rc != CUDA_SUCCESS && !pattern) {
            rc = g->cu->cuMemsetD8(dst, 0x3c, bytes); /* 1.0 in fp16's high byte: still not zeros */
            free(host);
            return rc == CUDA_SUCCESS ? 0 : cu_fail(err, errlen, "cuMemsetD8", rc);
        }
        if (rc != CUDA_SUCCESS) {
            free(host);
            return cu_fail(err, errlen, "cuMemcpyHtoD", rc);
        }
    }
    free(host);
    return 0;
}

int gd_gemm_setup(gd_gemm *g, const struct gd_cuda_api *cu, const struct gd_cublaslt_api *lt, gd_gemm_dtype dtype,
                  int m, int n, int k, bool pattern, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    *g = (gd_gemm){.cu = cu, .lt = lt, .dtype = dtype, .m = m, .n = n, .k = k};
    size_t eb = elem_bytes(dtype);
    CUresult rc;
    cublasStatus_t st;
    int ret = -1;
    if ((rc = cu->cuMemAlloc(&g->a, (size_t)k * (size_t)m * eb)) != CUDA_SUCCESS ||
        (rc = cu->cuMemAlloc(&g->b, (size_t)k * (size_t)n * eb)) != CUDA_SUCCESS ||
        (rc = cu->cuMemAlloc(&g->d, (size_t)m * (size_t)n * sizeof(float))) != CUDA_SUCCESS) {
        cu_fail(err, errlen, "cuMemAlloc", rc);
        goto out;
    }
    g->workspace_bytes = WORKSPACE_BYTES;
    if (cu->cuMemAlloc(&g->workspace, g->workspace_bytes) != CUDA_SUCCESS) {
        g->workspace = 0; /* cuBLASLt runs without one, a little slower */
        g->workspace_bytes = 0;
    }
    if (fill_buffer(g, g->a, (size_t)k * (size_t)m, pattern, true, err, errlen) != 0 ||
        fill_buffer(g, g->b, (size_t)k * (size_t)n, pattern, false, err, errlen) != 0)
        goto out;
    cublasComputeType_t compute = dtype == GD_GEMM_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    int32_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    uint64_t ws = g->workspace_bytes;
    int found = 0;
    const char *step = "cublasLtCreate";
    if ((st = lt->cublasLtCreate(&g->handle)) != CUBLAS_STATUS_SUCCESS ||
        (step = "cublasLtMatmulDescCreate", st = lt->cublasLtMatmulDescCreate(&g->desc, compute, CUDA_R_32F)) !=
            CUBLAS_STATUS_SUCCESS ||
        (step = "cublasLtMatmulDescSetAttribute",
         st = lt->cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta)) !=
            CUBLAS_STATUS_SUCCESS ||
        (st = lt->cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb)) !=
            CUBLAS_STATUS_SUCCESS ||
        (step = "cublasLtMatrixLayoutCreate",
         st = lt->cublasLtMatrixLayoutCreate(&g->la, data_type(dtype), (uint64_t)k, (uint64_t)m, k)) !=
            CUBLAS_STATUS_SUCCESS ||
        (st = lt->cublasLtMatrixLayoutCreate(&g->lb, data_type(dtype), (uint64_t)k, (uint64_t)n, k)) !=
            CUBLAS_STATUS_SUCCESS ||
        (st = lt->cublasLtMatrixLayoutCreate(&g->ld, CUDA_R_32F, (uint64_t)m, (uint64_t)n, m)) !=
            CUBLAS_STATUS_SUCCESS ||
        (step = "cublasLtMatmulPreferenceCreate", st = lt->cublasLtMatmulPreferenceCreate(&g->pref)) !=
            CUBLAS_STATUS_SUCCESS ||
        (st = lt->cublasLtMatmulPreferenceSetAttribute(g->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                                       sizeof ws)) != CUBLAS_STATUS_SUCCESS ||
        (step = "cublasLtMatmulAlgoGetHeuristic",
         st = lt->cublasLtMatmulAlgoGetHeuristic(g->handle, g->desc, g->la, g->lb, g->ld, g->ld, g->pref, 1, &g->algo,
                                                 &found)) != CUBLAS_STATUS_SUCCESS) {
        lt_fail(err, errlen, step, st);
        goto out;
    }
    if (found < 1) {
        snprintf(err, errlen, "cuBLASLt has no %s algorithm for %dx%dx%d on this GPU", gd_gemm_dtype_name(dtype), m, n,
                 k);
        goto out;
    }
    ret = 0;
out:
    if (ret != 0)
        gd_gemm_teardown(g);
    return ret;
}

int gd_gemm_run(gd_gemm *g, CUstream st, int count, char *err, size_t errlen)
{
    const float alpha = 1.0f, beta = 0.0f;
    for (int i = 0; i < count; i++) {
        cublasStatus_t s = g->lt->cublasLtMatmul(
            g->handle, g->desc, &alpha, (const void *)(uintptr_t)g->a, g->la, (const void *)(uintptr_t)g->b, g->lb,
            &beta, (const void *)(uintptr_t)g->d, g->ld, (void *)(uintptr_t)g->d, g->ld, &g->algo.algo,
            (void *)(uintptr_t)g->workspace, g->workspace_bytes, st);
        if (s != CUBLAS_STATUS_SUCCESS)
            return lt_fail(err, errlen, "cublasLtMatmul", s);
    }
    return 0;
}

gd_bench_verdict gd_gemm_verify(const struct gd_cuda_api *cu, const struct gd_cublaslt_api *lt, gd_gemm_dtype dtype,
                                CUstream st, char *detail, size_t detaillen)
{
    gd_gemm g;
    char err[200];
    if (gd_gemm_setup(&g, cu, lt, dtype, VERIFY_M, VERIFY_N, VERIFY_K, true, err, sizeof err) != 0) {
        snprintf(detail, detaillen, "the check could not run: %s", err);
        return GD_VERIFY_NOT_RUN;
    }
    float *d = malloc((size_t)VERIFY_M * VERIFY_N * sizeof *d);
    gd_bench_verdict v = GD_VERIFY_NOT_RUN;
    CUresult rc;
    if (!d) {
        snprintf(detail, detaillen, "the check could not run: out of host memory");
    } else if (gd_gemm_run(&g, st, 1, err, sizeof err) != 0) {
        snprintf(detail, detaillen, "the check's multiply failed: %s", err);
    } else if ((rc = cu->cuStreamSynchronize(st)) != CUDA_SUCCESS ||
               (rc = cu->cuMemcpyDtoH(d, g.d, (size_t)VERIFY_M * VERIFY_N * sizeof *d)) != CUDA_SUCCESS) {
        snprintf(detail, detaillen, "the check's result could not be read: %s", gd_cuda_result_name(rc));
    } else {
        v = GD_VERIFY_OK;
        size_t wrong = 0;
        for (int j = 0; j < VERIFY_N; j++)
            for (int i = 0; i < VERIFY_M; i++) {
                double want = 0;
                for (int p = 0; p < VERIFY_K; p++)
                    want += (double)pattern_a(i, p) * (double)pattern_b(p, j);
                double got = d[i + (size_t)j * VERIFY_M];
                if (!(fabs(got - want) <= 1e-3)) {
                    if (wrong++ == 0)
                        snprintf(detail, detaillen, "D[%d][%d] = %g, expected %g", i, j, got, want);
                    v = GD_VERIFY_WRONG;
                }
            }
        if (wrong) {
            size_t len = strlen(detail);
            snprintf(detail + len, detaillen - len, " (%zu of %d elements of a %dx%dx%d %s multiply wrong)", wrong,
                     VERIFY_M * VERIFY_N, VERIFY_M, VERIFY_N, VERIFY_K, gd_gemm_dtype_name(dtype));
        } else {
            snprintf(detail, detaillen, "a %dx%dx%d %s multiply matched the host's exact result", VERIFY_M, VERIFY_N,
                     VERIFY_K, gd_gemm_dtype_name(dtype));
        }
    }
    free(d);
    gd_gemm_teardown(&g);
    return v;
}

void gd_gemm_teardown(gd_gemm *g)
{
    if (!g->cu)
        return;
    if (g->pref)
        g->lt->cublasLtMatmulPreferenceDestroy(g->pref);
    if (g->la)
        g->lt->cublasLtMatrixLayoutDestroy(g->la);
    if (g->lb)
        g->lt->cublasLtMatrixLayoutDestroy(g->lb);
    if (g->ld)
        g->lt->cublasLtMatrixLayoutDestroy(g->ld);
    if (g->desc)
        g->lt->cublasLtMatmulDescDestroy(g->desc);
    if (g->handle)
        g->lt->cublasLtDestroy(g->handle);
    CUdeviceptr bufs[] = {g->a, g->b, g->d, g->workspace};
    for (size_t i = 0; i < 4; i++)
        if (bufs[i])
            g->cu->cuMemFree(bufs[i]);
    memset(g, 0, sizeof *g);
}
