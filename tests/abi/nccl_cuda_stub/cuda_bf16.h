/* Stands in for the toolkit's cuda_bf16.h where none is installed (tests/abi only): nccl.h uses no type of it. */
