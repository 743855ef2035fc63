/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The subset of NVIDIA's cuBLASLt API that `gpudoctor bench gemm` and
 * `bench stress` use, declared exactly as NVIDIA's cublasLt.h,
 * cublas_api.h and library_types.h declare it (type names, enum tags,
 * values, struct layouts), so that the project builds without the CUDA
 * toolkit and loads libcublasLt.so with dlopen.
 *
 * tests/abi/ compiles these declarations next to NVIDIA's headers, where they
 * are installed, and checks every constant, type size, struct member and
 * function type. For that check, defining GD_CUBLASLT_API_TYPEDEFS_ONLY
 * before including this header (after cublasLt.h) leaves out the types and
 * declares only the function pointer typedefs, which then take NVIDIA's.
 */
#ifndef GPUDOCTOR_CUBLASLT_API_H
#define GPUDOCTOR_CUBLASLT_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GD_CUBLASLT_API_TYPEDEFS_ONLY

#define GD_CUBLASLT_API_HEADER_VERSION 13000 /* the cublasLt.h these declarations follow */

/* cublas_api.h */
typedef enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_ARCH_MISMATCH = 8,
    CUBLAS_STATUS_MAPPING_ERROR = 11,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
    CUBLAS_STATUS_INTERNAL_ERROR = 14,
    CUBLAS_STATUS_NOT_SUPPORTED = 15,
    CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;

/* The operations gpudoctor uses; cublas_api.h has conjugates too. */
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;

/* The compute types gpudoctor uses; cublas_api.h has more. */
typedef enum { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_FAST_TF32 = 77 } cublasComputeType_t;

/* library_types.h: the data types gpudoctor uses; the header has more. */
typedef enum cudaDataType_t { CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14, CUDA_R_8F_E4M3 = 28 } cudaDataType;
typedef enum cudaDataType_t cudaDataType_t;

/* driver_types.h: the runtime's name for a driver stream (CUstream). */
typedef struct CUstream_st *cudaStream_t;

/* cublasLt.h */
typedef struct cublasLtContext *cublasLtHandle_t;

typedef struct {
    uint64_t data[8];
} cublasLtMatrixLayoutOpaque_t;
typedef cublasLtMatrixLayoutOpaque_t *cublasLtMatrixLayout_t;

typedef struct {
    uint64_t data[8];
} cublasLtMatmulAlgo_t;

typedef struct {
    uint64_t data[32];
} cublasLtMatmulDescOpaque_t;
typedef cublasLtMatmulDescOpaque_t *cublasLtMatmulDesc_t;

typedef struct {
    uint64_t data[8];
} cublasLtMatmulPreferenceOpaque_t;
typedef cublasLtMatmulPreferenceOpaque_t *cublasLtMatmulPreference_t;

/* The attributes gpudoctor sets; cublasLt.h has more. */
typedef enum {
    CUBLASLT_MATMUL_DESC_COMPUTE_TYPE = 0,
    CUBLASLT_MATMUL_DESC_SCALE_TYPE = 1,
    CUBLASLT_MATMUL_DESC_TRANSA = 3, /* int32_t cublasOperation_t */
    CUBLASLT_MATMUL_DESC_TRANSB = 4
} cublasLtMatmulDescAttributes_t;

typedef enum {
    CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1 /* uint64_t */
} cublasLtMatmulPreferenceAttributes_t;

typedef struct {
    cublasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    cublasStatus_t state;
    float wavesCount;
    int reserved[4];
} cublasLtMatmulHeuristicResult_t;

#endif /* GD_CUBLASLT_API_TYPEDEFS_ONLY */

/* Function prototypes, as typedefs for the loader's table; each names the
 * symbol libcublasLt.so exports under the same name. */
typedef cublasStatus_t (*cublasLt_Create_fn)(cublasLtHandle_t *lightHandle);
typedef cublasStatus_t (*cublasLt_Destroy_fn)(cublasLtHandle_t lightHandle);
typedef const char *(*cublasLt_GetStatusName_fn)(cublasStatus_t status);
typedef size_t (*cublasLt_GetVersion_fn)(void);
typedef cublasStatus_t (*cublasLt_MatmulDescCreate_fn)(cublasLtMatmulDesc_t *matmulDesc,
                                                       cublasComputeType_t computeType, cudaDataType_t scaleType);
typedef cublasStatus_t (*cublasLt_MatmulDescDestroy_fn)(cublasLtMatmulDesc_t matmulDesc);
typedef cublasStatus_t (*cublasLt_MatmulDescSetAttribute_fn)(cublasLtMatmulDesc_t matmulDesc,
                                                             cublasLtMatmulDescAttributes_t attr, const void *buf,
                                                             size_t sizeInBytes);
typedef cublasStatus_t (*cublasLt_MatrixLayoutCreate_fn)(cublasLtMatrixLayout_t *matLayout, cudaDataType type,
                                                         uint64_t rows, uint64_t cols, int64_t ld);
typedef cublasStatus_t (*cublasLt_MatrixLayoutDestroy_fn)(cublasLtMatrixLayout_t matLayout);
typedef cublasStatus_t (*cublasLt_MatmulPreferenceCreate_fn)(cublasLtMatmulPreference_t *pref);
typedef cublasStatus_t (*cublasLt_MatmulPreferenceDestroy_fn)(cublasLtMatmulPreference_t pref);
typedef cublasStatus_t (*cublasLt_MatmulPreferenceSetAttribute_fn)(cublasLtMatmulPreference_t pref,
                                                                   cublasLtMatmulPreferenceAttributes_t attr,
                                                                   const void *buf, size_t sizeInBytes);
typedef cublasStatus_t (*cublasLt_MatmulAlgoGetHeuristic_fn)(
    cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc, cublasLtMatrixLayout_t Adesc,
    cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
    cublasLtMatmulPreference_t preference, int requestedAlgoCount,
    cublasLtMatmulHeuristicResult_t heuristicResultsArray[], int *returnAlgoCount);
typedef cublasStatus_t (*cublasLt_Matmul_fn)(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                                             const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
                                             const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
                                             const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                                             cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
                                             void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
