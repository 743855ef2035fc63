/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA side of the ABI comparison as NVIDIA's cuda.h declares it. */
#include <cuda.h>

#define GD_ABI_LIST "cuda_abi_list.h"
#define GD_ABI_SIDE gd_abi_side_theirs
#define GD_ABI_LABEL "cuda.h"
#include "abi_side.inc"
