/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every cuBLASLt symbol that gpudoctor's loader resolves, with the
 * cublaslt_api.h typedef of its function type: GD_CUBLASLT_SYMBOL(typedef,
 * symbol). An X-macro list, included with GD_CUBLASLT_SYMBOL defined, by
 *   - tests/abi/cublaslt_abi_fn.c: checks each type against cublasLt.h;
 *   - sim/cublaslt: declares each export with that type;
 *   - cublaslt_loader.c: the loader's table.
 */
GD_CUBLASLT_SYMBOL(cublasLt_Create_fn, cublasLtCreate)
GD_CUBLASLT_SYMBOL(cublasLt_Destroy_fn, cublasLtDestroy)
GD_CUBLASLT_SYMBOL(cublasLt_GetStatusName_fn, cublasLtGetStatusName)
GD_CUBLASLT_SYMBOL(cublasLt_GetVersion_fn, cublasLtGetVersion)
GD_CUBLASLT_SYMBOL(cublasLt_MatmulDescCreate_fn, cublasLtMatmulDescCreate)
GD_CUBLASLT_SYMBOL(cublasLt_MatmulDescDestroy_fn, cublasLtMatmulDescDestroy)
GD_CUBLASLT_SYMBOL(cublasLt_MatmulDescSetAttribute_fn, cublasLtMatmulDescSetAttribute)
GD_CUBLASLT_SYMBOL(cublasLt_MatrixLayoutCreate_fn, cublasLtMatrixLayoutCreate)
GD_CUBLASLT_SYMBOL(cublasLt_MatrixLayoutDestroy_fn, cublasLtMatrixLayoutDestroy)
GD_CUBLASLT_SYMBOL(cublasLt_MatmulPreferenceCreate_fn, cublasLtMatmulPreferenceCreate)
GD_CUBLASLT_SYMBOL(cublasLt_MatmulPreferenceDestroy_fn, cublasLtMatmulPreferenceDestroy)
GD_CUBLASLT_SYMBOL(cublasLt_MatmulPreferenceSetAttribute_fn, cublasLtMatmulPreferenceSetAttribute)
GD_CUBLASLT_SYMBOL(cublasLt_MatmulAlgoGetHeuristic_fn, cublasLtMatmulAlgoGetHeuristic)
GD_CUBLASLT_SYMBOL(cublasLt_Matmul_fn, cublasLtMatmul)
