/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nccl.h's function types checked with the stand-ins of nccl_cuda_stub/ in
 * place of the toolkit's runtime headers: what a machine without a CUDA
 * toolkit compiles. Its own file, so that the toolkit directory given to
 * nccl_abi_fn.c's own compilation does not apply here.
 */
#include "nccl_abi_fn.c"
