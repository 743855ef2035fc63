/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Findings from profiler traces (gpudoctor trace). They judge the numbers of
 * analysis/trace, not the machine's facts, so they have their own table
 * beside the check registry (docs/checks.md, "Profiler traces").
 */
#ifndef GD_TRACE_CHECKS_H
#define GD_TRACE_CHECKS_H

#include "analysis/trace/trace.h"
#include "gpudoctor/findings.h"

typedef struct gd_trace_check {
    const char *id;
    const char *summary;
    /* Judges rank r (one of n, for checks across ranks). */
    void (*run)(const gd_trace_result *all, size_t n, size_t r, gd_findings *out);
} gd_trace_check;

extern const gd_trace_check gd_trace_checks[];
extern const size_t gd_trace_checks_count;

/* Thresholds (docs/checks.md gives their sources). */
#define GD_TRACE_IDLE_PCT 20.0 /* trace.gpu_idle */
#define GD_TRACE_DATALOADER_PCT 5.0 /* trace.dataloader: tb_plugin's rule R1 */
#define GD_TRACE_PAGEABLE_BYTES (1 << 20)
#define GD_TRACE_PAGEABLE_PCT 1.0
#define GD_TRACE_SYNC_PCT 5.0 /* trace.sync */
#define GD_TRACE_SMALL_SHARE 0.5 /* trace.small_kernels: half the launches */
#define GD_TRACE_SMALL_MIN 100
#define GD_TRACE_SMALL_IDLE_PCT 10.0
#define GD_TRACE_COMM_OVERLAP_PCT 50.0 /* trace.comm_overlap */
#define GD_TRACE_COMM_SHARE_PCT 10.0 /* tb_plugin's rule R4 */
#define GD_TRACE_STRAGGLER_RATIO 1.10 /* trace.straggler */
/* trace.straggler with two ranks: the slower one's step median at 1.2 times
 * the other's. Two ranks give no spread to judge by, so the bar is twice the
 * 10 % floor of the rule for three or more; the ranks of one data-parallel
 * job meet at every collective, so their step times stay within a few
 * percent of each other unless one of them holds the other back. */
#define GD_TRACE_STRAGGLER_PAIR_RATIO 1.20
/* trace.fp32_gemm: FP32 SIMT GEMMs at this share of the compute kernels'
 * time or more on sm_80+; TF32 tensor cores run them about 8x faster on an
 * A100 (156 vs 19.5 TFLOPS, NVIDIA's A100 datasheet), bf16 AMP faster still. */
#define GD_TRACE_FP32_GEMM_PCT 20.0
#define GD_TRACE_TF32_SPEEDUP 8.0
/* trace.item_sync: host reads of GPU values that block 5 % of the step, the
 * same bar as trace.sync's (the two count different time). */
#define GD_TRACE_ITEM_SYNC_PCT 5.0
/* trace.step_memcpy: H2D copies with no compute beside them at 2 % of the
 * step: a prefetch on a side stream hides them. */
#define GD_TRACE_STEP_MEMCPY_PCT 2.0
#define GD_TRACE_CRITICAL_IMPACT 15.0 /* docs/checks.md: the severity rule */
/* A rank's trace of fewer steps than this (with step markers) is too short
 * to judge the job by: a run's and a profile's first steps hold its warm-up
 * (the caching allocator's growth, cuDNN's autotuning, torch.compile's
 * compilation), and one step says nothing of the next. Its findings say so
 * and are warnings at most (docs/trace.md). */
#define GD_TRACE_MIN_STEPS 3
#define GD_TRACE_TOO_SHORT "too_short" /* the evidence key that says so */

/* Runs every trace check over the ranks, marks the gains that share time
 * and the findings of ranks too short to judge, then sorts the findings. */
void gd_trace_checks_run(const gd_trace_result *ranks, size_t n, gd_findings *out);

/*
 * Gains that come out of the same time of one rank (the GPU's idle time:
 * trace.gpu_idle, .dataloader, .sync, .item_sync, .small_kernels; or the time
 * it only communicates or copies: .comm_overlap, .step_memcpy,
 * .pageable_memcpy) overlap and do not add up: each such finding gets the
 * evidence GD_TRACE_GAIN_SHARED, the ids of the others, ", " apart.
 */
#define GD_TRACE_GAIN_SHARED "gain_shared_with"
void gd_trace_mark_shared_gains(gd_findings *fs);

/* Whether rank r's trace is too short to judge the job by (GD_TRACE_MIN_STEPS);
 * why into buf ("1 step: warm-up, compilation or a pause may fill it"). */
bool gd_trace_too_short(const gd_trace_result *r, char *why, size_t len);

#endif
