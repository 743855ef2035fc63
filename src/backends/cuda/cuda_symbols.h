/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every CUDA driver API symbol that gpudoctor's loader may resolve, with the
 * cuda_api.h typedef of its function type: GD_CUDA_SYMBOL(typedef, symbol).
 * An X-macro list, included with GD_CUDA_SYMBOL defined, by
 *   - tests/abi/cuda_abi_fn.c: checks each type against NVIDIA's cuda.h;
 *   - sim/cuda: declares each export with that type, so a simulated
 *     function with a wrong signature does not compile;
 *   - tests/abi/test_cuda_loader.c: checks the simulated libcuda exports all.
 * Keep it in step with the table in cuda_loader.c.
 */
GD_CUDA_SYMBOL(cu_GetErrorString_fn, cuGetErrorString)
GD_CUDA_SYMBOL(cu_GetErrorName_fn, cuGetErrorName)
GD_CUDA_SYMBOL(cu_Init_fn, cuInit)
GD_CUDA_SYMBOL(cu_DriverGetVersion_fn, cuDriverGetVersion)
GD_CUDA_SYMBOL(cu_DeviceGet_fn, cuDeviceGet)
GD_CUDA_SYMBOL(cu_DeviceGetCount_fn, cuDeviceGetCount)
GD_CUDA_SYMBOL(cu_DeviceGetName_fn, cuDeviceGetName)
GD_CUDA_SYMBOL(cu_DeviceGetAttribute_fn, cuDeviceGetAttribute)
GD_CUDA_SYMBOL(cu_DeviceTotalMem_fn, cuDeviceTotalMem_v2)
GD_CUDA_SYMBOL(cu_DeviceGetPCIBusId_fn, cuDeviceGetPCIBusId)
GD_CUDA_SYMBOL(cu_DevicePrimaryCtxRetain_fn, cuDevicePrimaryCtxRetain)
GD_CUDA_SYMBOL(cu_DevicePrimaryCtxRelease_fn, cuDevicePrimaryCtxRelease_v2)
GD_CUDA_SYMBOL(cu_DevicePrimaryCtxRelease_fn, cuDevicePrimaryCtxRelease)
GD_CUDA_SYMBOL(cu_CtxCreate_v2_fn, cuCtxCreate_v2)
GD_CUDA_SYMBOL(cu_CtxDestroy_fn, cuCtxDestroy_v2)
GD_CUDA_SYMBOL(cu_CtxSetCurrent_fn, cuCtxSetCurrent)
GD_CUDA_SYMBOL(cu_CtxGetCurrent_fn, cuCtxGetCurrent)
GD_CUDA_SYMBOL(cu_CtxSynchronize_fn, cuCtxSynchronize)
GD_CUDA_SYMBOL(cu_MemGetInfo_fn, cuMemGetInfo_v2)
GD_CUDA_SYMBOL(cu_MemAlloc_fn, cuMemAlloc_v2)
GD_CUDA_SYMBOL(cu_MemFree_fn, cuMemFree_v2)
GD_CUDA_SYMBOL(cu_MemAllocHost_fn, cuMemAllocHost_v2)
GD_CUDA_SYMBOL(cu_MemFreeHost_fn, cuMemFreeHost)
GD_CUDA_SYMBOL(cu_MemHostAlloc_fn, cuMemHostAlloc)
GD_CUDA_SYMBOL(cu_MemcpyHtoD_fn, cuMemcpyHtoD_v2)
GD_CUDA_SYMBOL(cu_MemcpyDtoH_fn, cuMemcpyDtoH_v2)
GD_CUDA_SYMBOL(cu_MemcpyDtoD_fn, cuMemcpyDtoD_v2)
GD_CUDA_SYMBOL(cu_MemcpyHtoDAsync_fn, cuMemcpyHtoDAsync_v2)
GD_CUDA_SYMBOL(cu_MemcpyDtoHAsync_fn, cuMemcpyDtoHAsync_v2)
GD_CUDA_SYMBOL(cu_MemcpyDtoDAsync_fn, cuMemcpyDtoDAsync_v2)
GD_CUDA_SYMBOL(cu_MemsetD8_fn, cuMemsetD8_v2)
GD_CUDA_SYMBOL(cu_MemsetD32_fn, cuMemsetD32_v2)
GD_CUDA_SYMBOL(cu_MemsetD8Async_fn, cuMemsetD8Async)
GD_CUDA_SYMBOL(cu_StreamCreate_fn, cuStreamCreate)
GD_CUDA_SYMBOL(cu_StreamDestroy_fn, cuStreamDestroy_v2)
GD_CUDA_SYMBOL(cu_StreamSynchronize_fn, cuStreamSynchronize)
GD_CUDA_SYMBOL(cu_EventCreate_fn, cuEventCreate)
GD_CUDA_SYMBOL(cu_EventRecord_fn, cuEventRecord)
GD_CUDA_SYMBOL(cu_EventSynchronize_fn, cuEventSynchronize)
GD_CUDA_SYMBOL(cu_EventElapsedTime_fn, cuEventElapsedTime_v2)
GD_CUDA_SYMBOL(cu_EventElapsedTime_fn, cuEventElapsedTime)
GD_CUDA_SYMBOL(cu_EventDestroy_fn, cuEventDestroy_v2)
GD_CUDA_SYMBOL(cu_ModuleLoadData_fn, cuModuleLoadData)
GD_CUDA_SYMBOL(cu_ModuleLoadDataEx_fn, cuModuleLoadDataEx)
GD_CUDA_SYMBOL(cu_ModuleGetFunction_fn, cuModuleGetFunction)
GD_CUDA_SYMBOL(cu_ModuleUnload_fn, cuModuleUnload)
GD_CUDA_SYMBOL(cu_LaunchKernel_fn, cuLaunchKernel)
