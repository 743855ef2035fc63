/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated libcublasLt.so.13 (docs/scenarios.md): the cuBLASLt calls of
 * `gpudoctor bench gemm` and `bench stress`, on the simulated libcuda.
 *
 * Conventions, which the benchmarks rely on:
 *  - Supported: A and B of one type (bf16, fp16, fp32, fp8 e4m3), C and D
 *    fp32, compute 32F (32F_FAST_TF32 for tf32), scale 32F, column-major;
 *    fp8 needs A transposed and B not (the "TN" layout, as on real GPUs).
 *    Anything else: CUBLAS_STATUS_NOT_SUPPORTED from the heuristic.
 *  - A matmul of M x N x K takes 2*M*N*K / (gemm_tflops x 1e12) seconds of
 *    real time on the current GPU (the figure of its type; absent:
 *    CUBLAS_STATUS_NOT_SUPPORTED). Streams are synchronous, as the simulated
 *    driver's are, so events around it time it.
 *  - When A, B and D have real memory in the simulated driver and the
 *    product is small (M*N*K up to 2^26), D is computed for real, so that a
 *    benchmark can check results; faults.gemm_wrong_results then changes one
 *    element of D.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpudoctor/abi/cublaslt_api.h"
#include "sim_private.h"

/* Every export, declared with the type of its cublaslt_api.h typedef. */
#define GD_CUBLASLT_SYMBOL(t, sym) SIM_API __typeof__(*(t)0) sym;
#include "gpudoctor/abi/cublaslt_symbols.h"
#undef GD_CUBLASLT_SYMBOL

#define MAGIC_HANDLE 0x6c746821u
#define MAGIC_DESC 0x6c746421u
#define MAGIC_LAYOUT 0x6c746c21u
#define MAGIC_PREF 0x6c747021u
#define HOST_COMPUTE_MAX ((uint64_t)1 << 26)

struct cublasLtContext {
    uint32_t magic;
};

/* Our descriptors live in the opaque structs' storage. */
struct desc {
    uint32_t magic;
    cublasComputeType_t compute;
    cudaDataType_t scale;
    int32_t transa, transb;
};
struct layout {
    uint32_t magic;
    cudaDataType type;
    uint64_t rows, cols;
    int64_t ld;
};
_Static_assert(sizeof(struct desc) <= sizeof(cublasLtMatmulDescOpaque_t), "desc fits");
_Static_assert(sizeof(struct layout) <= sizeof(cublasLtMatrixLayoutOpaque_t), "layout fits");

cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle)
{
    if (!lightHandle)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct cublasLtContext *h = calloc(1, sizeof *h);
    if (!h)
        return CUBLAS_STATUS_ALLOC_FAILED;
    h->magic = MAGIC_HANDLE;
    *lightHandle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle)
{
    if (!lightHandle || lightHandle->magic != MAGIC_HANDLE)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    lightHandle->magic = 0;
    free(lightHandle);
    return CUBLAS_STATUS_SUCCESS;
}

const char *cublasLtGetStatusName(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    default: return "CUBLAS_STATUS_UNKNOWN";
    }
}

size_t cublasLtGetVersion(void)
{
    return 130000; /* 13.0.0, as CUDA 13's libcublasLt answers */
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc, cublasComputeType_t computeType,
                                        cudaDataType_t scaleType)
{
    if (!matmulDesc)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulDescOpaque_t *o = calloc(1, sizeof *o);
    if (!o)
        return CUBLAS_STATUS_ALLOC_FAILED;
    struct desc *d = (struct desc *)o;
    *d = (struct desc){MAGIC_DESC, computeType, scaleType, CUBLAS_OP_N, CUBLAS_OP_N};
    *matmulDesc = o;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc)
{
    free(matmulDesc);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc, cublasLtMatmulDescAttributes_t attr,
                                              const void *buf, size_t sizeInBytes)
{
    struct desc *d = (struct desc *)matmulDesc;
    if (!d || d->magic != MAGIC_DESC || !buf || sizeInBytes != sizeof(int32_t))
        return CUBLAS_STATUS_INVALID_VALUE;
    int32_t v;
    memcpy(&v, buf, sizeof v);
    switch (attr) {
    case CUBLASLT_MATMUL_DESC_TRANSA: d->transa = v; break;
    case CUBLASLT_MATMUL_DESC_TRANSB: d->transb = v; break;
    case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: d->compute = (cublasComputeType_t)v; break;
    case CUBLASLT_MATMUL_DESC_SCALE_TYPE: d->scale = (cudaDataType_t)v; break;
    default: return CUBLAS_STATUS_INVALID_VALUE;
    }
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, cudaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld)
{
    if (!matLayout || ld < 0 || (uint64_t)ld < rows)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatrixLayoutOpaque_t *o = calloc(1, sizeof *o);
    if (!o)
        return CUBLAS_STATUS_ALLOC_FAILED;
    struct layout *l = (struct layout *)o;
    *l = (struct layout){MAGIC_LAYOUT, type, rows, cols, ld};
    *matLayout = o;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout)
{
    free(matLayout);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
    if (!pref)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulPreferenceOpaque_t *o = calloc(1, sizeof *o);
    if (!o)
        return CUBLAS_STATUS_ALLOC_FAILED;
    o->data[0] = MAGIC_PREF;
    *pref = o;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref)
{
    free(pref);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr, const void *buf,
                                                    size_t sizeInBytes)
{
    if (!pref || pref->data[0] != MAGIC_PREF || !buf || attr != CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES ||
        sizeInBytes != sizeof(uint64_t))
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(&pref->data[1], buf, sizeof(uint64_t));
    return CUBLAS_STATUS_SUCCESS;
}

/* The gemm_tflops key of a supported combination, or NULL. */
static const char *dtype_of(const struct desc *d, const struct layout *a, const struct layout *b,
                            const struct layout *c, const struct layout *dd)
{
    if (a->type != b->type || c->type != CUDA_R_32F || dd->type != CUDA_R_32F || d->scale != CUDA_R_32F)
        return NULL;
    if (d->compute == CUBLAS_COMPUTE_32F_FAST_TF32)
        return a->type == CUDA_R_32F ? "tf32" : NULL;
    if (d->compute != CUBLAS_COMPUTE_32F)
        return NULL;
    switch (a->type) {
    case CUDA_R_16BF: return "bf16";
    case CUDA_R_16F: return "fp16";
    case CUDA_R_32F: return "fp32";
    case CUDA_R_8F_E4M3: return d->transa == CUBLAS_OP_T && d->transb == CUBLAS_OP_N ? "fp8" : NULL;
    }
    return NULL;
}

/* M, N, K of op(A) op(B), or false when the shapes do not fit together. */
static bool shape(const struct desc *d, const struct layout *a, const struct layout *b, const struct layout *dd,
                  uint64_t *m, uint64_t *n, uint64_t *k)
{
    uint64_t am = d->transa == CUBLAS_OP_T ? a->cols : a->rows, ak = d->transa == CUBLAS_OP_T ? a->rows : a->cols;
    uint64_t bk = d->transb == CUBLAS_OP_T ? b->cols : b->rows, bn = d->transb == CUBLAS_OP_T ? b->rows : b->cols;
    *m = am;
    *n = bn;
    *k = ak;
    return ak == bk && dd->rows == am && dd->cols == bn;
}

static bool valid(const void *p, uint32_t magic)
{
    return p && *(const uint32_t *)p == magic;
}

/* What both the heuristic and the multiply check: valid descriptors, shapes
 * that fit, a supported combination with a figure. Fills M, N, K and the
 * current GPU's TFLOP/s for it. */
static cublasStatus_t plan(const void *desc, const void *A, const void *B, const void *C, const void *D, uint64_t *m,
                           uint64_t *n, uint64_t *k, double *tflops)
{
    if (!valid(desc, MAGIC_DESC) || !valid(A, MAGIC_LAYOUT) || !valid(B, MAGIC_LAYOUT) || !valid(C, MAGIC_LAYOUT) ||
        !valid(D, MAGIC_LAYOUT))
        return CUBLAS_STATUS_INVALID_VALUE;
    const struct desc *d = desc;
    const struct layout *a = A, *b = B, *c = C, *dd = D;
    if (!shape(d, a, b, dd, m, n, k))
        return CUBLAS_STATUS_INVALID_VALUE;
    const char *dtype = dtype_of(d, a, b, c, dd);
    *tflops = dtype ? gdsim_gemm_tflops(dtype) : 0;
    return *tflops > 0 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                                              cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                              cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                              cublasLtMatmulPreference_t preference, int requestedAlgoCount,
                                              cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
                                              int *returnAlgoCount)
{
    if (!lightHandle || lightHandle->magic != MAGIC_HANDLE)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!preference || requestedAlgoCount < 1 || !heuristicResultsArray || !returnAlgoCount)
        return CUBLAS_STATUS_INVALID_VALUE;
    *returnAlgoCount = 0;
    uint64_t m, n, k;
    double tflops;
    cublasStatus_t st = plan(operationDesc, Adesc, Bdesc, Cdesc, Ddesc, &m, &n, &k, &tflops);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    memset(&heuristicResultsArray[0], 0, sizeof heuristicResultsArray[0]);
    heuristicResultsArray[0].state = CUBLAS_STATUS_SUCCESS;
    heuristicResultsArray[0].wavesCount = 1.0f;
    *returnAlgoCount = 1;
    return CUBLAS_STATUS_SUCCESS;
}

static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? NAN : ldexpf((float)(m | 0x400), e - 25);
    return h & 0x8000 ? -v : v;
}

static float e4m3_to_float(uint8_t x)
{
    int e = (x >> 3) & 0xf, m = x & 7;
    float v = e == 15 && m == 7 ? NAN : e == 0 ? ldexpf((float)m, -9) : ldexpf((float)(m | 8), e - 10);
    return x & 0x80 ? -v : v;
}

static float element(const void *base, cudaDataType type, uint64_t i)
{
    switch (type) {
    case CUDA_R_16BF: {
        uint32_t bits = (uint32_t)((const uint16_t *)base)[i] << 16;
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    case CUDA_R_16F: return half_to_float(((const uint16_t *)base)[i]);
    case CUDA_R_8F_E4M3: return e4m3_to_float(((const uint8_t *)base)[i]);
    case CUDA_R_32F: return ((const float *)base)[i];
    }
    return NAN;
}

static size_t type_bytes(cudaDataType t)
{
    return t == CUDA_R_32F ? 4 : t == CUDA_R_8F_E4M3 ? 1 : 2;
}

/* D = alpha op(A) op(B) (+ beta C, C being D), on the host. */
static void host_gemm(const struct desc *d, const struct layout *la, const void *A, const struct layout *lb,
                      const void *B, float alpha, float beta, float *D, int64_t ldd, uint64_t m, uint64_t n, uint64_t k)
{
    for (uint64_t j = 0; j < n; j++)
        for (uint64_t i = 0; i < m; i++) {
            double acc = 0;
            for (uint64_t p = 0; p < k; p++) {
                uint64_t ai = d->transa == CUBLAS_OP_T ? p + i * (uint64_t)la->ld : i + p * (uint64_t)la->ld;
                uint64_t bi = d->transb == CUBLAS_OP_T ? j + p * (uint64_t)lb->ld : p + j * (uint64_t)lb->ld;
                acc += (double)element(A, la->type, ai) * (double)element(B, lb->type, bi);
            }
            float *out = &D[i + j * (uint64_t)ldd];
            *out = (float)(alpha * acc + (beta != 0 ? beta * *out : 0));
        }
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void *alpha,
                              const void *A, cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc,
                              const void *beta, const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                              cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo, void *workspace,
                              size_t workspaceSizeInBytes, cudaStream_t stream)
{
    (void)algo;
    (void)workspace;
    (void)workspaceSizeInBytes;
    (void)stream;
    if (!lightHandle || lightHandle->magic != MAGIC_HANDLE)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!alpha || !beta || !A || !B || !C || !D)
        return CUBLAS_STATUS_INVALID_VALUE;
    uint64_t m, n, k;
    double tflops;
    cublasStatus_t st = plan(computeDesc, Adesc, Bdesc, Cdesc, Ddesc, &m, &n, &k, &tflops);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    const struct desc *d = (const struct desc *)computeDesc;
    const struct layout *la = (const void *)Adesc, *lb = (const void *)Bdesc, *ld = (const void *)Ddesc;
    if (m && n && k && m * n * k <= HOST_COMPUTE_MAX) {
        size_t abytes = (size_t)(la->ld * (int64_t)la->cols) * type_bytes(la->type);
        size_t bbytes = (size_t)(lb->ld * (int64_t)lb->cols) * type_bytes(lb->type);
        size_t dbytes = (size_t)(ld->ld * (int64_t)ld->cols) * sizeof(float);
        const void *ha = gdsim_device_memory((CUdeviceptr)(uintptr_t)A, abytes);
        const void *hb = gdsim_device_memory((CUdeviceptr)(uintptr_t)B, bbytes);
        float *hd = gdsim_device_memory((CUdeviceptr)(uintptr_t)D, dbytes);
        if (ha && hb && hd) {
            float fa, fb;
            memcpy(&fa, alpha, sizeof fa);
            memcpy(&fb, beta, sizeof fb);
            host_gemm(d, la, ha, lb, hb, fa, fb, hd, ld->ld, m, n, k);
            if (gdsim_fault("gemm_wrong_results"))
                hd[(m / 2) + (n / 2) * (uint64_t)ld->ld] += 1.0f;
        }
    }
    gdsim_device_busy(2.0 * (double)m * (double)n * (double)k / (tflops * 1e12));
    return CUBLAS_STATUS_SUCCESS;
}
