/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where no CUDA toolkit is installed, nccl.h's #include <cuda_runtime.h>
 * finds this instead (tests/abi only): the one runtime type nccl.h's
 * declarations use, declared as the runtime's driver_types.h declares it.
 */
#ifndef GD_TEST_CUDA_RUNTIME_STUB_H
#define GD_TEST_CUDA_RUNTIME_STUB_H
#define CUDART_VERSION 11000
typedef struct CUstream_st *cudaStream_t;
#endif
