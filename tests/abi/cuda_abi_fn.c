/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Compile-time check of every function typedef of cuda_api.h against the
 * prototype that NVIDIA's cuda.h gives the exported symbol. A mismatch stops
 * the build with the symbol's name.
 *
 * __CUDA_API_VERSION_INTERNAL makes cuda.h declare the older exported
 * symbols too (cuCtxCreate_v2, cuEventElapsedTime, ...), as NVIDIA's own
 * build of libcuda sees them. With GD_CUDA_API_TYPEDEFS_ONLY our header then
 * declares only its typedefs, in terms of NVIDIA's types.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>

#define GD_CUDA_API_TYPEDEFS_ONLY
#include "gpudoctor/abi/cuda_api.h"

#define GD_ABI_CONST(c)
#define GD_ABI_EXPR(e)
#define GD_ABI_TYPE(t)
#define GD_ABI_MEMBER(t, m)
#define GD_ABI_FN(t, sym)                                                                                              \
    _Static_assert(_Generic(&sym, t : 1, default : 0), #sym " does not have the type " #t " in cuda.h");
#include "cuda_abi_list.h"

/* Keeps the translation unit non-empty for the compiler's sake. */
int gd_abi_cuda_fn_checked(void);
int gd_abi_cuda_fn_checked(void)
{
    return 1;
}
