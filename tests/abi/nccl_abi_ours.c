/* SPDX-License-Identifier: Apache-2.0 */
/* The NCCL side of the ABI comparison as gpudoctor declares it. */
#include "gpudoctor/abi/nccl_api.h"

#define GD_ABI_LIST "nccl_abi_list.h"
#define GD_ABI_SIDE gd_abi_side_ours
#define GD_ABI_LABEL "nccl_api.h"
#include "abi_side.inc"

/* nccl_api.h's own names that nccl.h does not have. */
const char *const gd_abi_ignored[] = {"GD_NCCL_API_HEADER_VERSION", NULL};
