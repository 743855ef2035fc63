/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML side of the ABI comparison as NVIDIA's nvml.h declares it. */
#include <nvml.h>

#ifndef GD_ABI_LIST
#define GD_ABI_LIST "nvml_abi_list.h"
#endif
#define GD_ABI_SIDE gd_abi_side_theirs
#define GD_ABI_LABEL "nvml.h"
#include "abi_side.inc"

/* The event, GPM and NVLink error counter functions as nvml_api.h types them (its nvml_*_fn
 * typedefs, spelled here in nvml.h's types): a prototype that drifts from
 * NVIDIA's stops the build. */
#define GD_NVML_FN(sym, type) _Static_assert(_Generic(&sym, type : 1, default : 0), #sym " differs from nvml.h");
GD_NVML_FN(nvmlEventSetCreate, nvmlReturn_t (*)(nvmlEventSet_t *))
GD_NVML_FN(nvmlEventSetFree, nvmlReturn_t (*)(nvmlEventSet_t))
GD_NVML_FN(nvmlDeviceRegisterEvents, nvmlReturn_t (*)(nvmlDevice_t, unsigned long long, nvmlEventSet_t))
GD_NVML_FN(nvmlEventSetWait_v2, nvmlReturn_t (*)(nvmlEventSet_t, nvmlEventData_t *, unsigned int))
GD_NVML_FN(nvmlGpmQueryDeviceSupport, nvmlReturn_t (*)(nvmlDevice_t, nvmlGpmSupport_t *))
GD_NVML_FN(nvmlGpmSampleAlloc, nvmlReturn_t (*)(nvmlGpmSample_t *))
GD_NVML_FN(nvmlGpmSampleFree, nvmlReturn_t (*)(nvmlGpmSample_t))
GD_NVML_FN(nvmlGpmSampleGet, nvmlReturn_t (*)(nvmlDevice_t, nvmlGpmSample_t))
GD_NVML_FN(nvmlGpmMetricsGet, nvmlReturn_t (*)(nvmlGpmMetricsGet_t *))
GD_NVML_FN(nvmlDeviceGetMaxMigDeviceCount, nvmlReturn_t (*)(nvmlDevice_t, unsigned int *))
GD_NVML_FN(nvmlDeviceGetMigDeviceHandleByIndex, nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlDevice_t *))
GD_NVML_FN(nvmlDeviceGetGpuInstanceId, nvmlReturn_t (*)(nvmlDevice_t, unsigned int *))
GD_NVML_FN(nvmlDeviceGetNvLinkErrorCounter,
           nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlNvLinkErrorCounter_t, unsigned long long *))
GD_NVML_FN(nvmlDeviceGetNvLinkVersion, nvmlReturn_t (*)(nvmlDevice_t, unsigned int, unsigned int *))
GD_NVML_FN(nvmlDeviceGetP2PStatus,
           nvmlReturn_t (*)(nvmlDevice_t, nvmlDevice_t, nvmlGpuP2PCapsIndex_t, nvmlGpuP2PStatus_t *))
#if defined(GD_ABI_CUDA13) && GD_ABI_CUDA13
GD_NVML_FN(nvmlDeviceGetGpuFabricInfo, nvmlReturn_t (*)(nvmlDevice_t, nvmlGpuFabricInfo_t *))
#endif
