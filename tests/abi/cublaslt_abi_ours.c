/* SPDX-License-Identifier: Apache-2.0 */
/* The cuBLASLt side of the ABI comparison as gpudoctor declares it. */
#include "gpudoctor/abi/cublaslt_api.h"

#define GD_ABI_LIST "cublaslt_abi_list.h"
#define GD_ABI_SIDE gd_abi_side_ours
#define GD_ABI_LABEL "cublaslt_api.h"
#include "abi_side.inc"

/* cublaslt_api.h's own names that cublasLt.h does not have. */
const char *const gd_abi_ignored[] = {"GD_CUBLASLT_API_HEADER_VERSION", NULL};
