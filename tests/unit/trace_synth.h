/* SPDX-License-Identifier: Apache-2.0 */
/* Synthetic profiler traces for the trace tests: a training loop whose shape
 * each test sets (steps, DataLoader, kernels, copies, syncs). */
#ifndef GD_TRACE_SYNTH_H
#define GD_TRACE_SYNTH_H

#include "analysis/trace/trace.h"
#include "gpudoctor/findings.h"

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
    int reads; /* host reads of a GPU scalar after each step's launches (loss.item()) */
    bool read_in_sync; /* the read waits in cudaStreamSynchronize (else in its cudaMemcpyAsync) */
    bool read_via_cpu; /* .cpu() (aten::to), not aten::item */
} synth;

/* The trace as Kineto JSON (malloc'd). */
char *synth_trace(const synth *s);

/* A healthy loop: the GPU busy, nothing to find. */
synth synth_healthy(void);

/* A trace read, analyzed and judged as one rank. */
typedef struct analyzed {
    int rc; /* the reader's; the analysis' failing makes it -2 */
    char err[256];
    gd_trace_meta meta;
    gd_trace_result r;
    gd_findings fs;
} analyzed;

analyzed *ta_analyze_opts(const void *data, size_t len, const gd_trace_opts *o);
analyzed *ta_analyze(const char *json); /* default options */
void ta_done(analyzed *a);
bool ta_has(const analyzed *a, const char *id);
/* synth_trace, analyzed (rc 0 when it went through). */
analyzed *ta_run_synth(const synth *s);
/* The finding with this id, or NULL. */
const gd_finding *ta_finding(const analyzed *a, const char *id);

#endif
