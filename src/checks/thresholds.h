/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every threshold the checks use, in one place, with where it comes from.
 * (What counts as "under load" is GD_LOADED_UTIL_PCT in analysis/window.h.)
 */
#ifndef GD_THRESHOLDS_H
#include "analysis/window_acc.h"
#define GD_THRESHOLDS_H

/* The thresholds a user may change (config file, [thresholds]: docs/checks.md,
 * "Changing thresholds"): data the checks read, set through
 * gd_threshold_set() (gpudoctor/checks.h) before the checks run. The
 * defaults are the values the comments below explain. */
typedef struct gd_tunables {
    double hot_from_c; /* thermal.hot.from_c, 80 */
    double hot_margin_c; /* thermal.hot.margin_c, 5 */
    double vram_full_pct; /* vram.near_full.pct, 95 */
} gd_tunables;
extern gd_tunables gd_tunable;

/* thermal.hot: docs/checks.md (>= 80 C, or within 5 C of the slowdown
 * threshold; for memory, of the memory max operating temperature). A
 * warning only within GD_HOT_MARGIN_C of the slowdown threshold or at the
 * board's max operating temperature; info below. */
#define GD_HOT_ABS_C (gd_tunable.hot_from_c)
#define GD_HOT_MARGIN_C (gd_tunable.hot_margin_c)
/* ...in at least this share of the valid samples, so one spike is not a finding. */
#define GD_HOT_MIN_SHARE 0.10
/* The memory's maximum operating temperature (software slowdown from there)
 * where the driver does not give it (current drivers give the limits
 * relative to T.Limit, which has no memory offset): 95 C in every
 * 'nvidia-smi -q' of an HBM board found (A100 40GB/80GB SXM4 and PCIe, H100
 * SXM; research/facts.md 6.2), and only boards with HBM report a memory
 * temperature (GDDR boards say N/A). Said as typical, never as read. */
#define GD_HBM_MEM_MAX_TYPICAL_C 95.0
/* ...shown only for a memory that came within this of it. */
#define GD_HBM_NEAR_C 10.0
/* A sensor within this of its limit during a thermal slowdown is the one
 * that drives it (samples are a second apart, limits whole degrees). */
#define GD_THERMAL_AT_LIMIT_C 2.0

/* Slowdown episodes. DCGM fails a diagnostic on any HW_SLOWDOWN, SW_THERMAL,
 * HW_THERMAL or HW_POWER_BRAKE sample under load (DcgmRecorder::CheckForClocksEvent);
 * SW_POWER_CAP is not a failure there. */
#define GD_THROTTLE_CRITICAL_SHARE 0.25 /* throttled share of loaded time, where no impact is known */
/* A cumulative violation counter catches slowdowns between polls. */
#define GD_COUNTER_MIN_SHARE 0.05
/* nvml.h: HW_SLOWDOWN "may be also reported during PState or clock change",
 * so brief blips are not a finding: at least this many seconds in all, as
 * runs of consecutive samples prove them (one sample proves 0 s), and this
 * share of the loaded time (of the window when idle). Time, not samples, so
 * --interval 100 and --interval 1000 judge alike. */
#define GD_HW_SLOWDOWN_MIN_S 3.0
#define GD_HW_SLOWDOWN_MIN_SHARE 0.05

/* The one severity rule (docs/checks.md): critical when the job loses at
 * least this share of its throughput now. */
#define GD_IMPACT_CRITICAL_PCT 15.0

/* health.sensors_failing: a GPU whose sensor calls answered, then stopped,
 * for less than this share of the samples is a finding (most of the window
 * could not be judged); above it, a "not checked" note. */
#define GD_SENSORS_MIN_ANSWERED_SHARE 0.5

/* power.limit_lowered: enforced limit below the default by more than this. */
#define GD_POWER_LIMIT_TOLERANCE_W 1.0
/* power.capped (info): at the power cap this share of the loaded time, with
 * the SM clock under this fraction of its maximum. */
#define GD_POWER_CAPPED_SHARE 0.50
#define GD_POWER_CAPPED_CLOCK_FRACTION 0.90

/* bench.gemm_low, bench.membw_low (docs/checks.md): below the best GPU of
 * the same product in the node by more than gpu-fryer's default tolerance
 * (10 %), or below the SKU floor: DCGM's target_perf_min_ratio (0.95) of
 * an expected figure. DCGM's expected figures are measured per SKU; ours is
 * a share of the dense datasheet peak (data/gpu-peaks.tsv), the same for
 * every board so that no SKU is tuned: 0.60, which puts the floor at 57 %,
 * where DCGM's own H100 memory-bandwidth minimum (1905 GB/s of 3350) sits. */
#define GD_BENCH_PEER_RATIO 0.90
#define GD_BENCH_TARGET_RATIO 0.95
#define GD_BENCH_EXPECTED_RATIO 0.60

/* bench.nccl_low (docs/checks.md): the peak all-reduce bus bandwidth under
 * this share of what the ring's slowest edge allows at a healthy node's
 * efficiency (src/analysis/nccl_expect.h). nccl-tests' own figures on
 * healthy NVLink and PCIe nodes sit at 0.8-0.9 of the path's rate; a
 * misconfigured transport (P2P disabled, staged through the host) falls
 * to a fifth or less: 0.60 leaves the noise of a loaded node out, 0.25
 * (critical) is a transport other than the topology's. */
#define GD_NCCL_LOW_RATIO 0.60
#define GD_NCCL_CRITICAL_RATIO 0.25

/* clocks.low: loaded, no event reason, SM clock under this fraction of max,
 * in at least this share of the loaded samples. */
#define GD_CLOCK_LOW_FRACTION GD_WINDOW_CLOCK_LOW_FRACTION /* 0.80: the window's stream applies it (analysis/window_acc.h) */
#define GD_CLOCK_LOW_MIN_SHARE 0.20
/* clocks.locked: application-clock limit with the clock under this fraction. */
#define GD_CLOCK_LOCKED_FRACTION 0.95

/* Peers: gpu-fryer flags a GPU 10 % below the best one of its node. */
#define GD_PEER_CLOCK_GAP 0.10
#define GD_PEER_TEMP_GAP_C 10.0

/* PCIe, topology, NVLink (checks/pcie*.c, topology.c, nvlink.c). */
/* pcie.link_downgraded: below the maximum in at least this share of the
 * loaded samples (idle GPUs lower gen and width on purpose: nvidia-smi
 * --help-query-gpu, research/facts.md 2.2); critical when the link then
 * carries at most this fraction of what it should. */
#define GD_PCIE_DOWNGRADED_MIN_SHARE 0.50
#define GD_PCIE_DOWNGRADED_CRITICAL_FRACTION 0.50
/* pcie.replays: DCGM's health watch (DcgmHealthWatch.cpp, research/
 * anchors-diag.md 1.2): expected replays per minute = ceil(BER x line rate
 * x 60 x lanes) with BER 1e-12: 8/min Gen3 x16, 16 Gen4, 31 Gen5 (half
 * that at x8). A window shorter than a minute must also hold more than one
 * minute's allowance (one replay in a 1 s window is not a rate of 60/min). */
#define GD_PCIE_REPLAY_BER 1e-12
/* nvlink.errors (per link, over the window): critical for any recovery (the
 * link dropped and retrained: its traffic stalled) or CRC errors (flit and
 * data) at DCGM's rate, 100 per second (DcgmGPUHardwareLimits.h; DCGM
 * judges other NVLink errors from 1); a warning for any CRC error below
 * that rate, or this many replays; fewer replays alone are info (the link
 * corrected itself by resending). */
#define GD_NVLINK_CRC_PER_S_CRITICAL 100.0
#define GD_NVLINK_REPLAYS_WARN 10
/* pcie.aer_errors: correctable errors since boot at or above DCGM pcie
 * plugin's aer_threshold (480, "32/minute x 15 minutes", Pcie.cpp). */
#define GD_PCIE_AER_COR_MAX 480
/* pcie.bandwidth_low: pinned copies under this fraction of the link's
 * theoretical rate. Healthy links reach 76-84 % (research/facts.md 2.3:
 * CUDA Best Practices Gen3 ~12 of 15.75 GB/s, nvbandwidth A100 Gen4 ~25 of
 * 31.5, H100 Gen5 D2H ~53 of 63); facts.md calls < 70 % suspicious and
 * < 50 % a wrong link, NUMA-remote buffer or IOMMU redirection. The healthy
 * share itself (GD_PCIE_BW_HEALTHY_RATIO, 0.80) is a fact of PCIe links:
 * include/gpudoctor/pcie.h, where the bench report reads it too. */
#define GD_PCIE_BW_LOW_RATIO 0.60
#define GD_PCIE_BW_CRITICAL_RATIO 0.40
/* topology.numa_mismatch: the job's resident pages on the GPU's node
 * under this share count as remote memory. */
#define GD_NUMA_LOCAL_PAGES_MIN_SHARE 0.50

/* vram.near_full: docs/checks.md (>= 95 % of total under load), in at
 * least this share of the loaded samples, as thermal.hot. Info alone (the
 * caching allocators of PyTorch, TensorFlow and JAX hold memory on purpose);
 * a warning with evidence of pressure. From 99 % the title says "full". */
#define GD_VRAM_FULL_FRACTION (gd_tunable.vram_full_pct / 100.0)
#define GD_VRAM_FULL_CRITICAL_FRACTION 0.99
#define GD_VRAM_FULL_MIN_SHARE 0.10
/* vram.growing: a Theil-Sen line over at least this many samples, rising in
 * every quarter of the window, fitting the samples (R^2), by at least 256 MiB
 * and 1 % of the GPU (less is allocator noise: PyTorch rounds blocks up to
 * 2 MiB and grows its pool in 20 MiB segments). Critical when full within 10 min. */
#define GD_VRAM_GROW_MIN_SAMPLES 8
#define GD_VRAM_GROW_MIN_R2 0.6
#define GD_VRAM_GROW_MIN_RISE_MIB 256.0
#define GD_VRAM_GROW_MIN_RISE_SHARE 0.01
#define GD_VRAM_GROW_CRITICAL_S 600.0
/* vram.foreign_process: memory in use with no process listed, beyond a CUDA
 * context's ~300-600 MiB (pytorch/pytorch#86509), means NVML cannot see who holds it. */
#define GD_VRAM_UNLISTED_MIB 1024.0

/* health.row_remap: DCGM common/DcgmGPUHardwareLimits.h (research/
 * anchors-diag.md 1.1): retired pages (SBE + DBE) fail at 63
 * (DCGM_LIMIT_MAX_RETIRED_PAGES), the health watch's soft limit warns from
 * 15; uncorrectable remapped rows fail at 512
 * (DCGM_LIMIT_MAX_ROW_REMAP_UNCORRECTABLE). Pending remaps and remap
 * failures fail at any count. */
#define GD_RETIRED_PAGES_WARN 15
#define GD_RETIRED_PAGES_FAIL 63
#define GD_REMAP_UNC_ROWS_FAIL 512

/* gpu.underutilized: a process holds at least GD_UNDERUSED_MIN_MIB on the GPU
 * (more than a CUDA context's ~300-600 MiB: pytorch/pytorch#86509, so it has
 * loaded a model) while utilisation stays below GD_LOADED_UTIL_PCT (the same
 * line that "under load" draws) in at least GD_UNDERUSED_MIN_SHARE of the
 * valid samples: most of the window, so a pause for evaluation or a
 * checkpoint is not a finding. At least GD_UNDERUSED_MIN_SAMPLES samples and
 * GD_UNDERUSED_MIN_S seconds, so a snapshot judges nothing. A GPU in use
 * 5-35 % of the time trains at a third of its speed or less. */
#define GD_UNDERUSED_MIN_MIB 1024.0
#define GD_UNDERUSED_MIN_SHARE 0.60
#define GD_UNDERUSED_MIN_SAMPLES 5
#define GD_UNDERUSED_MIN_S 5.0
/* job.no_gpu: a job `run` started has used no GPU when its whole life of at
 * least GD_JOB_NO_GPU_MIN_LIFE_S went by without one (a command that ends at
 * once is not a training job), or, still running at the window's end, after
 * GD_JOB_NO_GPU_MIN_WATCH_S: a script may load and tokenize its data for a
 * while before it moves the model to the GPU. */
#define GD_JOB_NO_GPU_MIN_LIFE_S 5.0
#define GD_JOB_NO_GPU_MIN_WATCH_S 60.0

/* input.*: the job's GPUs wait when their low-utilisation share (below
 * GD_LOADED_UTIL_PCT) is GD_UNDERUSED_MIN_SHARE or more, as gpu.underutilized.
 * The host side is judged over at least GD_INPUT_MIN_SAMPLES job samples.
 * input.single_thread: one thread at GD_THREAD_SATURATED_CORE of a core
 * (include/gpudoctor/job.h) in GD_INPUT_SATURATED_SHARE of its intervals:
 * Python's GIL or a loader in the main process (num_workers=0) runs at one
 * core and no faster. input.starved: the tree busy on GD_STARVED_MIN_CORES
 * cores or more (more than one saturated thread: decoding and augmentation
 * in workers that cannot keep up), or the host's CPUs GD_STARVED_HOST_BUSY
 * busy while the job itself keeps GD_STARVED_JOB_MIN_CORES busy (a busy host
 * with an idle job is other tenants, not the job's pipeline). input.io_wait: a thread of the job in disk wait (state D) in
 * GD_IOWAIT_D_SHARE of the samples, or IO pressure (some avg10) at
 * GD_IOWAIT_PSI_PCT with host iowait at GD_IOWAIT_HOST_SHARE: a healthy
 * reader from the page cache or fast storage is seldom seen in D. */
#define GD_INPUT_MIN_SAMPLES 5
#define GD_INPUT_SATURATED_SHARE 0.60
/* ... or runnable (state R) in GD_INPUT_RUNNABLE_SHARE of the samples at
 * GD_INPUT_RUNNABLE_MIN_CORE of a core or more: CPU-bound while other work
 * shares its core (a loaded host), which the CPU time alone would miss. */
#define GD_INPUT_RUNNABLE_SHARE 0.90
#define GD_INPUT_RUNNABLE_MIN_CORE 0.50
#define GD_STARVED_MIN_CORES 2.0
#define GD_STARVED_HOST_BUSY 0.85
#define GD_STARVED_JOB_MIN_CORES 0.5
/* input.gil_contention: GD_GIL_MIN_THREADS threads or more of one process
 * each runnable (R) in GD_GIL_THREAD_RUNNABLE of the samples and sleeping
 * voluntarily GD_GIL_VCSW_PS times per second of their own CPU time or more
 * (TID/status voluntary_ctxt_switches; per CPU second, so a loaded host that
 * gives them little CPU changes nothing): threads that take turns on
 * Python's GIL wait for it on a condition variable at every hand-over (every
 * 5 ms of holding it by default: about 200 per CPU second),
 * while threads held off the CPU by other work switch involuntarily only;
 * and the process keeps at most GD_GIL_MAX_CORES cores busy on average: one
 * core, and the sampling's blur. */
#define GD_GIL_MIN_THREADS 2
#define GD_GIL_THREAD_RUNNABLE 0.15
#define GD_GIL_VCSW_PS 50.0
#define GD_GIL_MAX_CORES 1.15
/* input.cpu_starved: a thread of the job runnable in GD_INPUT_RUNNABLE_SHARE
 * of the samples (it always wants a CPU) yet given under
 * GD_INPUT_RUNNABLE_MIN_CORE of a core: the CPUs it may use are held by other
 * work. The host's load is named as the cause at GD_STARVED_HOST_BUSY. */
/* input.swapping: swap in + out at GD_SWAP_MIN_PAGES_PS pages/s or more
 * (100 pages of 4 KiB: 400 KiB/s, beyond the trickle of an idle desktop's
 * swap) in GD_SWAP_MIN_SHARE of the job's samples. */
#define GD_SWAP_MIN_PAGES_PS 100.0
#define GD_SWAP_MIN_SHARE 0.20
#define GD_IOWAIT_D_SHARE 0.30
#define GD_IOWAIT_PSI_PCT 20.0
#define GD_IOWAIT_HOST_SHARE 0.10
/* input.few_workers: the job's worker processes each wanting
 * GD_FEW_WORKERS_BUSY_CORE of a core or more, in CPU time or in samples
 * runnable (a worker that keeps up sleeps between batches), while the GPUs
 * wait and the job leaves GD_FEW_WORKERS_IDLE_CPUS of its allowed CPUs
 * unused (most of one: room for another worker, the main process mostly
 * waiting for batches): one more worker per unused CPU, rounded.
 * input.affinity_narrow: affinity below the host's CPUs, as many active
 * threads (GD_AFFINITY_ACTIVE_CORE of a core, or runnable half the time) as
 * CPUs allowed, two at least (one thread is input.single_thread's case), and in GD_AFFINITY_FULL_SAMPLES of the samples the job busy on
 * GD_AFFINITY_FULL_SHARE of them or GD_AFFINITY_QUEUE_THREADS more threads
 * runnable than CPUs allowed (a run queue: the threads wait for a CPU).
 * input.workers_respawned: GD_RESPAWN_MIN_ROUNDS rounds of children ending and
 * new ones starting (one round is the end of the job's last epoch). */
#define GD_FEW_WORKERS_BUSY_CORE 0.75
#define GD_FEW_WORKERS_IDLE_CPUS 0.75
#define GD_AFFINITY_FULL_SHARE 0.80
#define GD_AFFINITY_QUEUE_THREADS 1.0
#define GD_AFFINITY_ACTIVE_CORE 0.25
#define GD_AFFINITY_FULL_SAMPLES 0.50
#define GD_RESPAWN_MIN_ROUNDS 2

#endif
