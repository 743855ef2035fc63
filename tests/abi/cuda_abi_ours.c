/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA side of the ABI comparison as gpudoctor declares it. */
#include "gpudoctor/abi/cuda_api.h"

#define GD_ABI_LIST "cuda_abi_list.h"
#define GD_ABI_SIDE gd_abi_side_ours
#define GD_ABI_LABEL "cuda_api.h"
#include "abi_side.inc"

/* cuda_api.h's own names that cuda.h does not have. */
const char *const gd_abi_ignored[] = {"GD_CUDA_API_HEADER_VERSION", NULL};
