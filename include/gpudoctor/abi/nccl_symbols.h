/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every NCCL symbol that gpudoctor's loader resolves, with the nccl_api.h
 * typedef of its function type: GD_NCCL_SYMBOL(typedef, symbol). An X-macro
 * list, included with GD_NCCL_SYMBOL defined, by
 *   - tests/abi/nccl_abi_fn.c: checks each type against nccl.h;
 *   - sim/nccl: declares each export with that type;
 *   - nccl_loader.c: the loader's table.
 */
GD_NCCL_SYMBOL(nccl_GetVersion_fn, ncclGetVersion)
GD_NCCL_SYMBOL(nccl_GetErrorString_fn, ncclGetErrorString)
GD_NCCL_SYMBOL(nccl_CommInitAll_fn, ncclCommInitAll)
GD_NCCL_SYMBOL(nccl_GetUniqueId_fn, ncclGetUniqueId)
GD_NCCL_SYMBOL(nccl_CommInitRank_fn, ncclCommInitRank)
GD_NCCL_SYMBOL(nccl_CommDestroy_fn, ncclCommDestroy)
GD_NCCL_SYMBOL(nccl_CommAbort_fn, ncclCommAbort)
GD_NCCL_SYMBOL(nccl_CommGetAsyncError_fn, ncclCommGetAsyncError)
GD_NCCL_SYMBOL(nccl_GroupStart_fn, ncclGroupStart)
GD_NCCL_SYMBOL(nccl_GroupEnd_fn, ncclGroupEnd)
GD_NCCL_SYMBOL(nccl_AllReduce_fn, ncclAllReduce)
GD_NCCL_SYMBOL(nccl_AllGather_fn, ncclAllGather)
