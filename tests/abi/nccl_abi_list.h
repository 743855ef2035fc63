/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What tests/abi compares between include/gpudoctor/abi/nccl_api.h and
 * NCCL's nccl.h: every constant, every type and struct member, and the
 * function type of every symbol that the loader resolves. Included several
 * times, with the GD_ABI_* macros defined each time.
 *
 * Left out on purpose: GD_NCCL_API_HEADER_VERSION (ours alone).
 */

/* Constants. */
GD_ABI_CONST(NCCL_UNIQUE_ID_BYTES)
GD_ABI_CONST(ncclSuccess)
GD_ABI_CONST(ncclUnhandledCudaError)
GD_ABI_CONST(ncclSystemError)
GD_ABI_CONST(ncclInternalError)
GD_ABI_CONST(ncclInvalidArgument)
GD_ABI_CONST(ncclInvalidUsage)
GD_ABI_CONST(ncclRemoteError)
GD_ABI_CONST(ncclInProgress)
GD_ABI_CONST(ncclNumResults)
GD_ABI_CONST(ncclSum)
GD_ABI_CONST(ncclInt8)
GD_ABI_CONST(ncclFloat32)

/* Types: size and alignment. */
GD_ABI_TYPE(cudaStream_t)
GD_ABI_TYPE(ncclComm_t)
GD_ABI_TYPE(ncclUniqueId)
GD_ABI_TYPE(ncclResult_t)
GD_ABI_TYPE(ncclRedOp_t)
GD_ABI_TYPE(ncclDataType_t)

/* Struct members: offset and size. */
GD_ABI_MEMBER(ncclUniqueId, internal)

/* Function types, checked at compile time against nccl.h's prototype of
 * each exported symbol (nccl_abi_fn.c). */
#define GD_NCCL_SYMBOL(t, sym) GD_ABI_FN(t, sym)
#include "gpudoctor/abi/nccl_symbols.h"
#undef GD_NCCL_SYMBOL
