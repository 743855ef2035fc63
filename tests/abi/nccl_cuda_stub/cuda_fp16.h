/* SPDX-License-Identifier: Apache-2.0 */
/* Stands in for the toolkit's cuda_fp16.h where none is installed (tests/abi only): nccl.h uses no type of it. */
