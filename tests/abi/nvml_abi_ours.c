/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML side of the ABI comparison as gpudoctor declares it. */
#include "gpudoctor/abi/nvml_api.h"

#ifndef GD_ABI_LIST
#define GD_ABI_LIST "nvml_abi_list.h"
#endif
#define GD_ABI_SIDE gd_abi_side_ours
#define GD_ABI_LABEL "nvml_api.h"
#include "abi_side.inc"

/* nvml_api.h's own names that nvml.h does not have (besides "newer" lines). */
const char *const gd_abi_ignored[] = {NULL};
