/* Synthetic profiler traces for the trace tests: a training loop whose shape
 * each test sets (steps, DataLoader, kernels, copies, syncs). */
#ifndef GD_TRACE_SYNTH_H
#define GD_TRACE_SYNTH_H

#include <stdbool.h>
#include <stddef.h>

typedef struct synth {
    int steps; /* ProfilerStep#1..steps (the last is left out by HTA's rule) */
    double step_us;
    double loader_us; /* enumerate(DataLoader)#...__next__ at each step's start */
    bool loader_workers; /* _MultiProcessingDataLoaderIter */
    int kernels; /* per step, launched back to back after the loader */
    double kernel_us, launch_us;
    double copy_bytes; /* one HtoD copy per step, before the kernels */
    bool copy_pageable;
    double sync_us; /* a cudaDeviceSynchronize at the end of each step's launches */
    const char *gemm; /* the GEMM kernel's name; NULL: a bf16 tensor-core one */
} synth;

/* The trace as Kineto JSON (malloc'd). */
char *synth_trace(const synth *s);

#endif
