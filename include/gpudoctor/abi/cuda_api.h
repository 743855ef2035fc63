/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The subset of NVIDIA's CUDA driver API that gpudoctor's benchmarks use,
 * declared exactly as NVIDIA's cuda.h declares it (type names, enum tags,
 * values), so that the project builds without the CUDA toolkit and loads
 * libcuda.so.1 with dlopen.
 *
 * cuda.h #defines most API names to versioned symbols (cuMemAlloc ->
 * cuMemAlloc_v2); the symbol that libcuda.so.1 exports, and that the loader
 * resolves, is named next to each typedef below. Every typedef takes the
 * signature of that exported symbol.
 *
 * tests/abi/ compiles these declarations next to NVIDIA's own header, where
 * it is installed, and checks every constant, type size and function type.
 * For that check, defining GD_CUDA_API_TYPEDEFS_ONLY before including this
 * header (after cuda.h) leaves out the types and declares only the function
 * pointer typedefs, which then take NVIDIA's types.
 */
#ifndef GPUDOCTOR_CUDA_API_H
#define GPUDOCTOR_CUDA_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GD_CUDA_API_TYPEDEFS_ONLY

#define GD_CUDA_API_HEADER_VERSION 13000 /* the cuda.h these declarations follow */

#if defined(__x86_64) || defined(__aarch64__) || defined(__LP64__) || defined(_WIN64)
typedef unsigned long long CUdeviceptr_v2;
#else
typedef unsigned int CUdeviceptr_v2;
#endif
typedef CUdeviceptr_v2 CUdeviceptr;
typedef int CUdevice_v1;
typedef CUdevice_v1 CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;

typedef enum cudaError_enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_PROFILER_DISABLED = 5,
    CUDA_ERROR_PROFILER_NOT_INITIALIZED = 6,
    CUDA_ERROR_PROFILER_ALREADY_STARTED = 7,
    CUDA_ERROR_PROFILER_ALREADY_STOPPED = 8,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36,
    CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_DEVICE_NOT_LICENSED = 102,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_CONTEXT_ALREADY_CURRENT = 202,
    CUDA_ERROR_MAP_FAILED = 205,
    CUDA_ERROR_UNMAP_FAILED = 206,
    CUDA_ERROR_ARRAY_IS_MAPPED = 207,
    CUDA_ERROR_ALREADY_MAPPED = 208,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_ALREADY_ACQUIRED = 210,
    CUDA_ERROR_NOT_MAPPED = 211,
    CUDA_ERROR_NOT_MAPPED_AS_ARRAY = 212,
    CUDA_ERROR_NOT_MAPPED_AS_POINTER = 213,
    CUDA_ERROR_ECC_UNCORRECTABLE = 214,
    CUDA_ERROR_UNSUPPORTED_LIMIT = 215,
    CUDA_ERROR_CONTEXT_ALREADY_IN_USE = 216,
    CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_INVALID_GRAPHICS_CONTEXT = 219,
    CUDA_ERROR_NVLINK_UNCORRECTABLE = 220,
    CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    CUDA_ERROR_JIT_COMPILATION_DISABLED = 223,
    CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY = 224,
    CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC = 225,
    CUDA_ERROR_CONTAINED = 226,
    CUDA_ERROR_INVALID_SOURCE = 300,
    CUDA_ERROR_FILE_NOT_FOUND = 301,
    CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND = 302,
    CUDA_ERROR_SHARED_OBJECT_INIT_FAILED = 303,
    CUDA_ERROR_OPERATING_SYSTEM = 304,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_ILLEGAL_STATE = 401,
    CUDA_ERROR_LOSSY_QUERY = 402,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_LAUNCH_TIMEOUT = 702,
    CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING = 703,
    CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
    CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705,
    CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE = 708,
    CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
    CUDA_ERROR_ASSERT = 710,
    CUDA_ERROR_TOO_MANY_PEERS = 711,
    CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
    CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
    CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
    CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
    CUDA_ERROR_MISALIGNED_ADDRESS = 716,
    CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
    CUDA_ERROR_INVALID_PC = 718,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
    CUDA_ERROR_TENSOR_MEMORY_LEAK = 721,
    CUDA_ERROR_NOT_PERMITTED = 800,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_SYSTEM_NOT_READY = 802,
    CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
    CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
    CUDA_ERROR_MPS_CONNECTION_FAILED = 805,
    CUDA_ERROR_MPS_RPC_FAILURE = 806,
    CUDA_ERROR_MPS_SERVER_NOT_READY = 807,
    CUDA_ERROR_MPS_MAX_CLIENTS_REACHED = 808,
    CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED = 809,
    CUDA_ERROR_MPS_CLIENT_TERMINATED = 810,
    CUDA_ERROR_CDP_NOT_SUPPORTED = 811,
    CUDA_ERROR_CDP_VERSION_MISMATCH = 812,
    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
    CUDA_ERROR_STREAM_CAPTURE_MERGE = 902,
    CUDA_ERROR_STREAM_CAPTURE_UNMATCHED = 903,
    CUDA_ERROR_STREAM_CAPTURE_UNJOINED = 904,
    CUDA_ERROR_STREAM_CAPTURE_ISOLATION = 905,
    CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906,
    CUDA_ERROR_CAPTURED_EVENT = 907,
    CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD = 908,
    CUDA_ERROR_TIMEOUT = 909,
    CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE = 910,
    CUDA_ERROR_EXTERNAL_DEVICE = 911,
    CUDA_ERROR_INVALID_CLUSTER_SIZE = 912,
    CUDA_ERROR_FUNCTION_NOT_LOADED = 913,
    CUDA_ERROR_INVALID_RESOURCE_TYPE = 914,
    CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION = 915,
    CUDA_ERROR_KEY_ROTATION = 916,
    CUDA_ERROR_UNKNOWN = 999
} CUresult;

/* The attributes gpudoctor reads; cuda.h declares about 150. */
typedef enum CUdevice_attribute_enum {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = 9,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13, /* kHz */
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_INTEGRATED = 18,
    CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19,
    CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = 20,
    CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS = 31,
    CU_DEVICE_ATTRIBUTE_ECC_ENABLED = 32,
    CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
    CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
    CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36, /* kHz */
    CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37, /* bits */
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT = 40,
    CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
    CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
    CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD = 84
} CUdevice_attribute;

typedef enum CUctx_flags_enum {
    CU_CTX_SCHED_AUTO = 0x00,
    CU_CTX_SCHED_SPIN = 0x01,
    CU_CTX_SCHED_YIELD = 0x02,
    CU_CTX_SCHED_BLOCKING_SYNC = 0x04
} CUctx_flags;

typedef enum CUstream_flags_enum { CU_STREAM_DEFAULT = 0x0, CU_STREAM_NON_BLOCKING = 0x1 } CUstream_flags;

typedef enum CUevent_flags_enum {
    CU_EVENT_DEFAULT = 0x0,
    CU_EVENT_BLOCKING_SYNC = 0x1,
    CU_EVENT_DISABLE_TIMING = 0x2,
    CU_EVENT_INTERPROCESS = 0x4
} CUevent_flags;

/* The JIT options gpudoctor passes to cuModuleLoadDataEx; cuda.h has more. */
typedef enum CUjit_option_enum {
    CU_JIT_MAX_REGISTERS = 0,
    CU_JIT_THREADS_PER_BLOCK = 1,
    CU_JIT_WALL_TIME = 2,
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
    CU_JIT_OPTIMIZATION_LEVEL = 7,
    CU_JIT_TARGET_FROM_CUCONTEXT = 8,
    CU_JIT_TARGET = 9,
    CU_JIT_FALLBACK_STRATEGY = 10,
    CU_JIT_GENERATE_DEBUG_INFO = 11,
    CU_JIT_LOG_VERBOSE = 12,
    CU_JIT_GENERATE_LINE_INFO = 13,
    CU_JIT_CACHE_MODE = 14
} CUjit_option;

/* Flags of cuMemHostAlloc. */
#define CU_MEMHOSTALLOC_PORTABLE 0x01
#define CU_MEMHOSTALLOC_DEVICEMAP 0x02
#define CU_MEMHOSTALLOC_WRITECOMBINED 0x04

/* Markers of cuLaunchKernel's `extra` array. */
#define CU_LAUNCH_PARAM_END_AS_INT 0x00
#define CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT 0x01
#define CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT 0x02

#endif /* GD_CUDA_API_TYPEDEFS_ONLY */

/*
 * Function prototypes, as typedefs for the loader's table. The comment names
 * the symbol that libcuda.so.1 exports for each (newest first where the
 * loader accepts more than one).
 */
typedef CUresult (*cu_GetErrorString_fn)(CUresult error, const char **pStr);
typedef CUresult (*cu_GetErrorName_fn)(CUresult error, const char **pStr);
typedef CUresult (*cu_Init_fn)(unsigned int Flags);
typedef CUresult (*cu_DriverGetVersion_fn)(int *driverVersion);
typedef CUresult (*cu_DeviceGet_fn)(CUdevice *device, int ordinal);
typedef CUresult (*cu_DeviceGetCount_fn)(int *count);
typedef CUresult (*cu_DeviceGetName_fn)(char *name, int len, CUdevice dev);
typedef CUresult (*cu_DeviceGetAttribute_fn)(int *pi, CUdevice_attribute attrib, CUdevice dev);
/* cuDeviceTotalMem_v2 */
typedef CUresult (*cu_DeviceTotalMem_fn)(size_t *bytes, CUdevice dev);
typedef CUresult (*cu_DeviceGetPCIBusId_fn)(char *pciBusId, int len, CUdevice dev);

typedef CUresult (*cu_DevicePrimaryCtxRetain_fn)(CUcontext *pctx, CUdevice dev);
/* cuDevicePrimaryCtxRelease_v2, cuDevicePrimaryCtxRelease */
typedef CUresult (*cu_DevicePrimaryCtxRelease_fn)(CUdevice dev);
/* cuCtxCreate_v2: cuda.h 13 maps cuCtxCreate to cuCtxCreate_v4, which takes
 * a CUctxCreateParams; drivers keep exporting the three-argument _v2. */
typedef CUresult (*cu_CtxCreate_v2_fn)(CUcontext *pctx, unsigned int flags, CUdevice dev);
/* cuCtxDestroy_v2 */
typedef CUresult (*cu_CtxDestroy_fn)(CUcontext ctx);
typedef CUresult (*cu_CtxSetCurrent_fn)(CUcontext ctx);
typedef CUresult (*cu_CtxGetCurrent_fn)(CUcontext *pctx);
typedef CUresult (*cu_CtxSynchronize_fn)(void);

/* cuMemGetInfo_v2 */
typedef CUresult (*cu_MemGetInfo_fn)(size_t *free, size_t *total);
/* cuMemAlloc_v2 */
typedef CUresult (*cu_MemAlloc_fn)(CUdeviceptr *dptr, size_t bytesize);
/* cuMemFree_v2 */
typedef CUresult (*cu_MemFree_fn)(CUdeviceptr dptr);
/* cuMemAllocHost_v2 */
typedef CUresult (*cu_MemAllocHost_fn)(void **pp, size_t bytesize);
typedef CUresult (*cu_MemFreeHost_fn)(void *p);
typedef CUresult (*cu_MemHostAlloc_fn)(void **pp, size_t bytesize, unsigned int Flags);
/* cuMemcpyHtoD_v2, cuMemcpyDtoH_v2, cuMemcpyDtoD_v2 */
typedef CUresult (*cu_MemcpyHtoD_fn)(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);
typedef CUresult (*cu_MemcpyDtoH_fn)(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);
typedef CUresult (*cu_MemcpyDtoD_fn)(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount);
/* cuMemcpyHtoDAsync_v2, cuMemcpyDtoHAsync_v2, cuMemcpyDtoDAsync_v2 */
typedef CUresult (*cu_MemcpyHtoDAsync_fn)(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                                          CUstream hStream);
typedef CUresult (*cu_MemcpyDtoHAsync_fn)(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream);
typedef CUresult (*cu_MemcpyDtoDAsync_fn)(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                          CUstream hStream);
/* Peer access between two devices' contexts (bench p2p). */
typedef CUresult (*cu_DeviceCanAccessPeer_fn)(int *canAccessPeer, CUdevice dev, CUdevice peerDev);
typedef CUresult (*cu_CtxEnablePeerAccess_fn)(CUcontext peerContext, unsigned int Flags);
typedef CUresult (*cu_CtxDisablePeerAccess_fn)(CUcontext peerContext);
typedef CUresult (*cu_MemcpyPeerAsync_fn)(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                                          CUcontext srcContext, size_t ByteCount, CUstream hStream);
/* cuMemsetD8_v2, cuMemsetD32_v2 */
typedef CUresult (*cu_MemsetD8_fn)(CUdeviceptr dstDevice, unsigned char uc, size_t N);
typedef CUresult (*cu_MemsetD32_fn)(CUdeviceptr dstDevice, unsigned int ui, size_t N);
typedef CUresult (*cu_MemsetD8Async_fn)(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream);

typedef CUresult (*cu_StreamCreate_fn)(CUstream *phStream, unsigned int Flags);
/* cuStreamDestroy_v2 */
typedef CUresult (*cu_StreamDestroy_fn)(CUstream hStream);
typedef CUresult (*cu_StreamSynchronize_fn)(CUstream hStream);

typedef CUresult (*cu_EventCreate_fn)(CUevent *phEvent, unsigned int Flags);
typedef CUresult (*cu_EventRecord_fn)(CUevent hEvent, CUstream hStream);
typedef CUresult (*cu_EventSynchronize_fn)(CUevent hEvent);
/* cuEventElapsedTime_v2 (CUDA 13), cuEventElapsedTime */
typedef CUresult (*cu_EventElapsedTime_fn)(float *pMilliseconds, CUevent hStart, CUevent hEnd);
/* cuEventDestroy_v2 */
typedef CUresult (*cu_EventDestroy_fn)(CUevent hEvent);

typedef CUresult (*cu_ModuleLoadData_fn)(CUmodule *module, const void *image);
typedef CUresult (*cu_ModuleLoadDataEx_fn)(CUmodule *module, const void *image, unsigned int numOptions,
                                           CUjit_option *options, void **optionValues);
typedef CUresult (*cu_ModuleGetFunction_fn)(CUfunction *hfunc, CUmodule hmod, const char *name);
typedef CUresult (*cu_ModuleUnload_fn)(CUmodule hmod);
typedef CUresult (*cu_LaunchKernel_fn)(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                       unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                       unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                       void **kernelParams, void **extra);

#ifdef __cplusplus
}
#endif
#endif
