/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The subset of NVIDIA's NCCL API that `gpudoctor bench nccl` uses, declared
 * exactly as NCCL's nccl.h declares it (type names, enum values, struct
 * layouts), so that the project builds without NCCL and loads libnccl.so.2
 * with dlopen.
 *
 * tests/abi/ compiles these declarations next to nccl.h, where it is
 * installed (Debian's libnccl-dev, contrib; scripts/install-deps.sh unpacks
 * it into build/deps/nccl), and checks every constant, type size, struct
 * member and function type. For that check, defining
 * GD_NCCL_API_TYPEDEFS_ONLY before including this header (after nccl.h)
 * leaves out the types and declares only the function pointer typedefs,
 * which then take NCCL's.
 */
#ifndef GPUDOCTOR_NCCL_API_H
#define GPUDOCTOR_NCCL_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GD_NCCL_API_TYPEDEFS_ONLY

#define GD_NCCL_API_HEADER_VERSION 22203 /* the nccl.h these declarations follow (NCCL_VERSION_CODE) */

/* driver_types.h: the runtime's name for a driver stream (CUstream). */
typedef struct CUstream_st *cudaStream_t;

/* Opaque handle to a communicator. */
typedef struct ncclComm *ncclComm_t;

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
    char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef enum {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6,
    ncclInProgress = 7,
    ncclNumResults = 8
} ncclResult_t;

/* The reduction gpudoctor uses; nccl.h has more (ncclProd, ncclMax, ...). */
typedef enum { ncclSum = 0 } ncclRedOp_t;

/* The data types gpudoctor uses; nccl.h has more. */
typedef enum { ncclInt8 = 0, ncclFloat32 = 7 } ncclDataType_t;

#endif /* GD_NCCL_API_TYPEDEFS_ONLY */

/* Function prototypes, as typedefs for the loader's table; each names the
 * symbol libnccl.so.2 exports under the same name. */
typedef ncclResult_t (*nccl_GetVersion_fn)(int *version);
typedef const char *(*nccl_GetErrorString_fn)(ncclResult_t result);
typedef ncclResult_t (*nccl_CommInitAll_fn)(ncclComm_t *comm, int ndev, const int *devlist);
typedef ncclResult_t (*nccl_GetUniqueId_fn)(ncclUniqueId *uniqueId);
typedef ncclResult_t (*nccl_CommInitRank_fn)(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank);
typedef ncclResult_t (*nccl_CommDestroy_fn)(ncclComm_t comm);
typedef ncclResult_t (*nccl_CommAbort_fn)(ncclComm_t comm);
typedef ncclResult_t (*nccl_CommGetAsyncError_fn)(ncclComm_t comm, ncclResult_t *asyncError);
typedef ncclResult_t (*nccl_GroupStart_fn)(void);
typedef ncclResult_t (*nccl_GroupEnd_fn)(void);
typedef ncclResult_t (*nccl_AllReduce_fn)(const void *sendbuff, void *recvbuff, size_t count,
                                          ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                          cudaStream_t stream);
typedef ncclResult_t (*nccl_AllGather_fn)(const void *sendbuff, void *recvbuff, size_t sendcount,
                                          ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
