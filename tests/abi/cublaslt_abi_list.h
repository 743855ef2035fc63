/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What tests/abi compares between include/gpudoctor/abi/cublaslt_api.h and
 * NVIDIA's cublasLt.h (with cublas_api.h and library_types.h): every
 * constant, every type and struct member, and the function type of every
 * symbol that the loader resolves. Included several times, with the
 * GD_ABI_* macros defined each time.
 *
 * Left out on purpose: GD_CUBLASLT_API_HEADER_VERSION (ours alone).
 */

/* Enumerators. */
GD_ABI_CONST(CUBLAS_STATUS_SUCCESS)
GD_ABI_CONST(CUBLAS_STATUS_NOT_INITIALIZED)
GD_ABI_CONST(CUBLAS_STATUS_ALLOC_FAILED)
GD_ABI_CONST(CUBLAS_STATUS_INVALID_VALUE)
GD_ABI_CONST(CUBLAS_STATUS_ARCH_MISMATCH)
GD_ABI_CONST(CUBLAS_STATUS_MAPPING_ERROR)
GD_ABI_CONST(CUBLAS_STATUS_EXECUTION_FAILED)
GD_ABI_CONST(CUBLAS_STATUS_INTERNAL_ERROR)
GD_ABI_CONST(CUBLAS_STATUS_NOT_SUPPORTED)
GD_ABI_CONST(CUBLAS_STATUS_LICENSE_ERROR)
GD_ABI_CONST(CUBLAS_OP_N)
GD_ABI_CONST(CUBLAS_OP_T)
GD_ABI_CONST(CUBLAS_COMPUTE_32F)
GD_ABI_CONST(CUBLAS_COMPUTE_32F_FAST_TF32)
GD_ABI_CONST(CUDA_R_32F)
GD_ABI_CONST(CUDA_R_16F)
GD_ABI_CONST(CUDA_R_16BF)
GD_ABI_CONST(CUDA_R_8F_E4M3)
GD_ABI_CONST(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE)
GD_ABI_CONST(CUBLASLT_MATMUL_DESC_SCALE_TYPE)
GD_ABI_CONST(CUBLASLT_MATMUL_DESC_TRANSA)
GD_ABI_CONST(CUBLASLT_MATMUL_DESC_TRANSB)
GD_ABI_CONST(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES)

/* Types: size and alignment. */
GD_ABI_TYPE(cublasStatus_t)
GD_ABI_TYPE(cublasOperation_t)
GD_ABI_TYPE(cublasComputeType_t)
GD_ABI_TYPE(cudaDataType)
GD_ABI_TYPE(cudaDataType_t)
GD_ABI_TYPE(cudaStream_t)
GD_ABI_TYPE(cublasLtHandle_t)
GD_ABI_TYPE(cublasLtMatrixLayoutOpaque_t)
GD_ABI_TYPE(cublasLtMatrixLayout_t)
GD_ABI_TYPE(cublasLtMatmulAlgo_t)
GD_ABI_TYPE(cublasLtMatmulDescOpaque_t)
GD_ABI_TYPE(cublasLtMatmulDesc_t)
GD_ABI_TYPE(cublasLtMatmulPreferenceOpaque_t)
GD_ABI_TYPE(cublasLtMatmulPreference_t)
GD_ABI_TYPE(cublasLtMatmulDescAttributes_t)
GD_ABI_TYPE(cublasLtMatmulPreferenceAttributes_t)
GD_ABI_TYPE(cublasLtMatmulHeuristicResult_t)

/* Struct members: offset and size. */
GD_ABI_MEMBER(cublasLtMatrixLayoutOpaque_t, data)
GD_ABI_MEMBER(cublasLtMatmulAlgo_t, data)
GD_ABI_MEMBER(cublasLtMatmulDescOpaque_t, data)
GD_ABI_MEMBER(cublasLtMatmulPreferenceOpaque_t, data)
GD_ABI_MEMBER(cublasLtMatmulHeuristicResult_t, algo)
GD_ABI_MEMBER(cublasLtMatmulHeuristicResult_t, workspaceSize)
GD_ABI_MEMBER(cublasLtMatmulHeuristicResult_t, state)
GD_ABI_MEMBER(cublasLtMatmulHeuristicResult_t, wavesCount)
GD_ABI_MEMBER(cublasLtMatmulHeuristicResult_t, reserved)

/* Function types, checked at compile time against cublasLt.h's prototype
 * of each exported symbol (cublaslt_abi_fn.c). */
#define GD_CUBLASLT_SYMBOL(t, sym) GD_ABI_FN(t, sym)
#include "gpudoctor/abi/cublaslt_symbols.h"
#undef GD_CUBLASLT_SYMBOL
