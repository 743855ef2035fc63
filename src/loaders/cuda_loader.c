/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA driver API as a dl_table (../dl_table.h): one explicit const
 * table lists every entry of struct gd_cuda_api with the exported names to
 * try, newest first, and whether a load without it fails.
 */
#include "cuda_loader.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define SYM(member, required, ...)                                                                                     \
    {                                                                                                                  \
        offsetof(struct gd_cuda_api, member), required,                                                                \
        {                                                                                                              \
            __VA_ARGS__                                                                                                \
        }                                                                                                              \
    }
#define REQUIRED true
#define OPTIONAL false

/*
 * Versioned names follow cuda.h's #define table (cuMemAlloc -> cuMemAlloc_v2
 * ...). The unversioned fallbacks of cuDevicePrimaryCtxRelease and
 * cuEventElapsedTime have the same signature; those of the memory calls do
 * not (32-bit sizes), so they are never tried.
 */
static const gd_dl_sym gd_cuda_symbols[] = {
    SYM(cuGetErrorString, REQUIRED, "cuGetErrorString"),
    SYM(cuGetErrorName, REQUIRED, "cuGetErrorName"),
    SYM(gdsim_scenario_set, OPTIONAL, "gdsim_scenario_set"),
    SYM(gdsim_cuda_clock_set, OPTIONAL, "gdsim_cuda_clock_set"),
    SYM(gdsim_cuda_clock_follow, OPTIONAL, "gdsim_cuda_clock_follow"),
    SYM(cuInit, REQUIRED, "cuInit"),
    SYM(cuDriverGetVersion, REQUIRED, "cuDriverGetVersion"),
    SYM(cuDeviceGet, REQUIRED, "cuDeviceGet"),
    SYM(cuDeviceGetCount, REQUIRED, "cuDeviceGetCount"),
    SYM(cuDeviceGetName, REQUIRED, "cuDeviceGetName"),
    SYM(cuDeviceGetAttribute, REQUIRED, "cuDeviceGetAttribute"),
    SYM(cuDeviceTotalMem, REQUIRED, "cuDeviceTotalMem_v2"),
    SYM(cuDeviceGetPCIBusId, REQUIRED, "cuDeviceGetPCIBusId"),

    SYM(cuDevicePrimaryCtxRetain, REQUIRED, "cuDevicePrimaryCtxRetain"),
    SYM(cuDevicePrimaryCtxRelease, REQUIRED, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
    SYM(cuCtxCreate_v2, OPTIONAL, "cuCtxCreate_v2"),
    SYM(cuCtxDestroy, OPTIONAL, "cuCtxDestroy_v2"),
    SYM(cuCtxSetCurrent, REQUIRED, "cuCtxSetCurrent"),
    SYM(cuCtxGetCurrent, REQUIRED, "cuCtxGetCurrent"),
    SYM(cuCtxSynchronize, REQUIRED, "cuCtxSynchronize"),

    SYM(cuMemGetInfo, REQUIRED, "cuMemGetInfo_v2"),
    SYM(cuMemAlloc, REQUIRED, "cuMemAlloc_v2"),
    SYM(cuMemFree, REQUIRED, "cuMemFree_v2"),
    SYM(cuMemAllocHost, REQUIRED, "cuMemAllocHost_v2"),
    SYM(cuMemFreeHost, REQUIRED, "cuMemFreeHost"),
    SYM(cuMemHostAlloc, REQUIRED, "cuMemHostAlloc"),
    SYM(cuMemcpyHtoD, REQUIRED, "cuMemcpyHtoD_v2"),
    SYM(cuMemcpyDtoH, REQUIRED, "cuMemcpyDtoH_v2"),
    SYM(cuMemcpyDtoD, REQUIRED, "cuMemcpyDtoD_v2"),
    SYM(cuMemcpyHtoDAsync, REQUIRED, "cuMemcpyHtoDAsync_v2"),
    SYM(cuMemcpyDtoHAsync, REQUIRED, "cuMemcpyDtoHAsync_v2"),
    SYM(cuMemcpyDtoDAsync, REQUIRED, "cuMemcpyDtoDAsync_v2"),
    SYM(cuDeviceCanAccessPeer, OPTIONAL, "cuDeviceCanAccessPeer"),
    SYM(cuCtxEnablePeerAccess, OPTIONAL, "cuCtxEnablePeerAccess"),
    SYM(cuCtxDisablePeerAccess, OPTIONAL, "cuCtxDisablePeerAccess"),
    SYM(cuMemcpyPeerAsync, OPTIONAL, "cuMemcpyPeerAsync"),
    SYM(cuMemsetD8, REQUIRED, "cuMemsetD8_v2"),
    SYM(cuMemsetD32, REQUIRED, "cuMemsetD32_v2"),
    SYM(cuMemsetD8Async, OPTIONAL, "cuMemsetD8Async"),

    SYM(cuStreamCreate, REQUIRED, "cuStreamCreate"),
    SYM(cuStreamDestroy, REQUIRED, "cuStreamDestroy_v2"),
    SYM(cuStreamSynchronize, REQUIRED, "cuStreamSynchronize"),
    SYM(cuEventCreate, REQUIRED, "cuEventCreate"),
    SYM(cuEventRecord, REQUIRED, "cuEventRecord"),
    SYM(cuEventSynchronize, REQUIRED, "cuEventSynchronize"),
    SYM(cuEventElapsedTime, REQUIRED, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
    SYM(cuEventDestroy, REQUIRED, "cuEventDestroy_v2"),

    SYM(cuModuleLoadData, REQUIRED, "cuModuleLoadData"),
    SYM(cuModuleLoadDataEx, OPTIONAL, "cuModuleLoadDataEx"),
    SYM(cuModuleGetFunction, REQUIRED, "cuModuleGetFunction"),
    SYM(cuModuleUnload, REQUIRED, "cuModuleUnload"),
    SYM(cuLaunchKernel, REQUIRED, "cuLaunchKernel"),
};

#undef SYM
#undef REQUIRED
#undef OPTIONAL

static const gd_dl_table gd_cuda_table = {"the CUDA driver library", gd_cuda_symbols,
                                          sizeof gd_cuda_symbols / sizeof gd_cuda_symbols[0]};

int gd_cuda_load(struct gd_cuda_api *api, const char *path_or_null, char *err, size_t errlen)
{
    if (!api) {
        if (err && errlen)
            snprintf(err, errlen, "gd_cuda_load: no table given");
        return -EINVAL;
    }
    memset(api, 0, sizeof *api);
    const char *lib = gd_dl_choose_path(path_or_null, GD_CUDA_LIBRARY_DEFAULT);
    return gd_dl_open(&api->lib, &gd_cuda_table, &lib, 1, api, NULL, err, errlen);
}

void gd_cuda_unload(struct gd_cuda_api *api)
{
    if (!api)
        return;
    gd_dl_close(&api->lib);
    memset(api, 0, sizeof *api);
}
