/* SPDX-License-Identifier: Apache-2.0 */
/* The NCCL side of the ABI comparison as NCCL's nccl.h declares it. */
#include <nccl.h>

#define GD_ABI_LIST "nccl_abi_list.h"
#define GD_ABI_SIDE gd_abi_side_theirs
#define GD_ABI_LABEL "nccl.h"
#include "abi_side.inc"
