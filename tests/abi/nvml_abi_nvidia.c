/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML side of the ABI comparison as NVIDIA's nvml.h declares it. */
#include <nvml.h>

#ifndef GD_ABI_LIST
#define GD_ABI_LIST "nvml_abi_list.h"
#endif
#define GD_ABI_SIDE gd_abi_side_theirs
#define GD_ABI_LABEL "nvml.h"
#include "abi_side.inc"
