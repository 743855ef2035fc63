/* SPDX-License-Identifier: Apache-2.0 */
/* The cuBLASLt side of the ABI comparison as NVIDIA's cublasLt.h declares it. */
#include <cublasLt.h>

#define GD_ABI_LIST "cublaslt_abi_list.h"
#define GD_ABI_SIDE gd_abi_side_theirs
#define GD_ABI_LABEL "cublasLt.h"
#include "abi_side.inc"
