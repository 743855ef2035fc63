/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where no CUDA toolkit is installed, nccl.h's #include <cuda_runtime.h>
 * finds this instead (tests/abi only): what nccl.h's declarations take from
 * the runtime's headers: cudaStream_t, declared as driver_types.h declares
 * it, and size_t, which the real cuda_runtime.h brings with <stddef.h>
 * (nccl.h itself includes only <limits.h>). Compiled against nccl.h on every
 * build where nccl.h is found (tests/abi/CMakeLists.txt), toolkit or not.
 */
#ifndef GD_TEST_CUDA_RUNTIME_STUB_H
#define GD_TEST_CUDA_RUNTIME_STUB_H
#include <stddef.h>
#define CUDART_VERSION 11000
typedef struct CUstream_st *cudaStream_t;
#endif
