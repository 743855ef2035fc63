/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Loads the CUDA driver library (libcuda.so.1, or the simulated one) with
 * dlopen and fills a table of function pointers typed like the driver API.
 */
#ifndef GPUDOCTOR_CUDA_LOADER_H
#define GPUDOCTOR_CUDA_LOADER_H

#include <stddef.h>

#include "gpudoctor/abi/cuda_api.h"
#include "gpudoctor/abi/cuda_result_names.h"
#include "dl_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The environment variable that names the library to load in place of
 * libcuda.so.1 (gpudoctor --sim sets it to the simulated library). */
#define GD_CUDA_LIBRARY_ENV "GPUDOCTOR_CUDA_LIBRARY"
/* The default: the driver's versioned soname, never the unversioned
 * libcuda.so, which on toolkit machines is a link stub. */
#define GD_CUDA_LIBRARY_DEFAULT "libcuda.so.1"

/*
 * Members are named after the API names of cuda.h; the comment in
 * cuda_api.h next to each typedef says which exported symbols fill it.
 * Members marked optional may be NULL after a successful load.
 */
struct gd_cuda_api {
    gd_dl_lib lib; /* dlopen handle (NULL when not loaded) and the path that opened */

    cu_GetErrorString_fn cuGetErrorString;
    cu_GetErrorName_fn cuGetErrorName;
    void (*gdsim_scenario_set)(const char *path); /* optional: gpudoctor's simulated libcuda only */
    void (*gdsim_cuda_clock_set)(double t); /* optional: the same; the scenario time of bench stress */
    void (*gdsim_cuda_clock_follow)(double t); /* optional: the same, time staying virtual (fast clock) */
    cu_Init_fn cuInit;
    cu_DriverGetVersion_fn cuDriverGetVersion;
    cu_DeviceGet_fn cuDeviceGet;
    cu_DeviceGetCount_fn cuDeviceGetCount;
    cu_DeviceGetName_fn cuDeviceGetName;
    cu_DeviceGetAttribute_fn cuDeviceGetAttribute;
    cu_DeviceTotalMem_fn cuDeviceTotalMem;
    cu_DeviceGetPCIBusId_fn cuDeviceGetPCIBusId;

    cu_DevicePrimaryCtxRetain_fn cuDevicePrimaryCtxRetain;
    cu_DevicePrimaryCtxRelease_fn cuDevicePrimaryCtxRelease;
    cu_CtxCreate_v2_fn cuCtxCreate_v2; /* optional */
    cu_CtxDestroy_fn cuCtxDestroy; /* optional */
    cu_CtxSetCurrent_fn cuCtxSetCurrent;
    cu_CtxGetCurrent_fn cuCtxGetCurrent;
    cu_CtxSynchronize_fn cuCtxSynchronize;

    cu_MemGetInfo_fn cuMemGetInfo;
    cu_MemAlloc_fn cuMemAlloc;
    cu_MemFree_fn cuMemFree;
    cu_MemAllocHost_fn cuMemAllocHost;
    cu_MemFreeHost_fn cuMemFreeHost;
    cu_MemHostAlloc_fn cuMemHostAlloc;
    cu_MemcpyHtoD_fn cuMemcpyHtoD;
    cu_MemcpyDtoH_fn cuMemcpyDtoH;
    cu_MemcpyDtoD_fn cuMemcpyDtoD;
    cu_MemcpyHtoDAsync_fn cuMemcpyHtoDAsync;
    cu_MemcpyDtoHAsync_fn cuMemcpyDtoHAsync;
    cu_MemcpyDtoDAsync_fn cuMemcpyDtoDAsync;
    cu_DeviceCanAccessPeer_fn cuDeviceCanAccessPeer; /* optional: bench p2p */
    cu_CtxEnablePeerAccess_fn cuCtxEnablePeerAccess; /* optional */
    cu_CtxDisablePeerAccess_fn cuCtxDisablePeerAccess; /* optional */
    cu_MemcpyPeerAsync_fn cuMemcpyPeerAsync; /* optional */
    cu_MemsetD8_fn cuMemsetD8;
    cu_MemsetD32_fn cuMemsetD32;
    cu_MemsetD8Async_fn cuMemsetD8Async; /* optional */

    cu_StreamCreate_fn cuStreamCreate;
    cu_StreamDestroy_fn cuStreamDestroy;
    cu_StreamSynchronize_fn cuStreamSynchronize;
    cu_EventCreate_fn cuEventCreate;
    cu_EventRecord_fn cuEventRecord;
    cu_EventSynchronize_fn cuEventSynchronize;
    cu_EventElapsedTime_fn cuEventElapsedTime;
    cu_EventDestroy_fn cuEventDestroy;

    cu_ModuleLoadData_fn cuModuleLoadData;
    cu_ModuleLoadDataEx_fn cuModuleLoadDataEx; /* optional */
    cu_ModuleGetFunction_fn cuModuleGetFunction;
    cu_ModuleUnload_fn cuModuleUnload;
    cu_LaunchKernel_fn cuLaunchKernel;
};

/*
 * Opens the driver library and resolves every entry of *api. The library is
 * path_or_null when given, else $GPUDOCTOR_CUDA_LIBRARY when set and
 * non-empty, else libcuda.so.1. Does not call cuInit.
 *
 * Returns 0 on success. On error returns gd_dl_open's negative errno value,
 * leaves *api unloaded (lib.handle NULL, every pointer NULL) and writes a
 * message into err (when err is non-NULL): -EINVAL for a NULL api, -ENOENT
 * when dlopen fails (the path and dlerror's text), -ENOSYS when a required
 * symbol is missing (naming it and the library).
 */
int gd_cuda_load(struct gd_cuda_api *api, const char *path_or_null, char *err, size_t errlen);

/* Closes the library and clears *api; safe on a cleared or unloaded table. */
void gd_cuda_unload(struct gd_cuda_api *api);

/* The enumerator name of a CUresult ("CUDA_ERROR_OUT_OF_MEMORY"), or
 * "CUDA_ERROR_<unrecognised>" for a value cuda_api.h does not declare.
 * Works without the library, so errors of a failed load can be named too. */
const char *gd_cuda_result_name(CUresult result);

#ifdef __cplusplus
}
#endif
#endif
