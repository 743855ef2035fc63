/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Profiler traces (docs/trace.md): the events a trace reader hands over, the
 * compact state they are kept in while a trace streams by, and the numbers
 * computed from it at the end (Holistic Trace Analysis' temporal and idle
 * time breakdowns, steps, DataLoader, kernels, launches, copies, syncs).
 *
 * The state holds a few words per GPU operation and runtime call, never the
 * trace's text: memory follows the number of GPU operations, not the size of
 * the file.
 */
#ifndef GD_TRACE_H
#define GD_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The event categories of Kineto (2021 and 2022+ names) and the legacy format. */
typedef enum gd_tcat {
    GD_TCAT_NONE = 0, /* no "cat" (the legacy bare-array format) */
    GD_TCAT_KERNEL, /* kernel, Kernel */
    GD_TCAT_MEMCPY, /* gpu_memcpy, Memcpy */
    GD_TCAT_MEMSET, /* gpu_memset, Memset */
    GD_TCAT_RUNTIME, /* cuda_runtime, Runtime, *_runtime */
    GD_TCAT_DRIVER, /* cuda_driver */
    GD_TCAT_CPU_OP, /* cpu_op, Operator */
    GD_TCAT_USER_ANNOTATION,
    GD_TCAT_GPU_USER_ANNOTATION,
    GD_TCAT_PYTHON, /* python_function */
    GD_TCAT_CUDA_SYNC,
    GD_TCAT_TRACE, /* the profiler's own span: dropped, as HTA does */
    GD_TCAT_OTHER,
} gd_tcat;

/* One trace event as the reader saw it. Strings point into the reader's
 * buffer and live until the call returns. Times are in nanoseconds. */
typedef struct gd_trace_event {
    char ph; /* 'X', 'i', 'M', 's', 'f', ...; 0 when missing */
    gd_tcat cat;
    bool has_cat, has_ts, has_dur;
    bool fractional; /* ts or dur had a fraction (ns-resolution traces) */
    const char *name;
    size_t name_len;
    int64_t ts_ns, dur_ns;
    int64_t stream; /* args.stream as a number, else -1 (HTA) */
    int64_t correlation; /* args.correlation, else -1 */
    int64_t bytes; /* args.bytes, else -1 */
    int64_t pid, tid; /* numbers, else -1 ("stream 7", "CPU functions") */
    const char *arg_name; /* args.name when a string (metadata events name processes and threads) */
    size_t arg_name_len;
} gd_trace_event;

/* What a reader tells about the file besides its events. */
typedef struct gd_trace_meta {
    int rank; /* distributedInfo.rank, else -1 */
    int world_size; /* else -1 */
    int compute_major; /* deviceProperties[0].computeMajor, else -1 */
    bool legacy; /* a bare array (torch without Kineto) */
    bool truncated; /* the input ended inside the event list */
    uint64_t bytes; /* JSON bytes read */
    uint64_t events; /* events seen */
    uint64_t skipped; /* events left out: not objects, odd fields */
    char note[256]; /* why the input ended early, when it did */
} gd_trace_meta;

/* Kernel classes, as HTA's name rules give them. */
typedef enum gd_kclass { GD_K_COMPUTE = 0, GD_K_MEMORY, GD_K_COMM, GD_K_OTHER, GD_K_NCLASS } gd_kclass;

gd_kclass gd_trace_kernel_class(const char *name);

typedef struct gd_trace_acc gd_trace_acc;

/* Options of the analysis. */
typedef struct gd_trace_opts {
    bool include_last_step; /* HTA's include_last_profiler_step (default false) */
    long step_first, step_last; /* --steps A:B (ProfilerStep numbers), -1 = all */
    int64_t kernel_wait_us; /* HTA's consecutive_kernel_delay: 30 */
} gd_trace_opts;

void gd_trace_opts_default(gd_trace_opts *o);

/* A fresh accumulator, or NULL when out of memory. */
gd_trace_acc *gd_trace_acc_new(void);
/* Takes one event; returns 0, or -1 when out of memory. */
int gd_trace_acc_add(gd_trace_acc *a, const gd_trace_event *e);
void gd_trace_acc_free(gd_trace_acc *a);
/* Bytes the accumulator holds (for the benchmark's account of memory). */
size_t gd_trace_acc_bytes(const gd_trace_acc *a);
/* Caps what a keeps at max_bytes (0: no cap): from the first event that
 * finds it holding half of it (its tables grow by doubling) on, events are
 * counted (gd_trace_result.dropped) and left out, so the analysis covers
 * the trace up to there. */
void gd_trace_acc_cap(gd_trace_acc *a, size_t max_bytes);

/* ------------------------------------------------------------------ */
/* The numbers of one rank. Times in microseconds. */

#define GD_TRACE_TOP 10
#define GD_TRACE_MAX_STREAMS 64
#define GD_TRACE_MAX_STEPS 4096

typedef struct gd_trace_stream {
    int64_t stream;
    double idle_us, host_wait_us, kernel_wait_us, other_us;
    size_t events;
} gd_trace_stream;

typedef struct gd_trace_kernel {
    char name[160];
    gd_kclass cls;
    double total_us, share_pct; /* share of its class */
    size_t count;
} gd_trace_kernel;

typedef struct gd_trace_step {
    long number; /* N of ProfilerStep#N */
    int64_t lo_ns, hi_ns; /* the host span, in the trace's own resolution */
    double ts_us, dur_us;
    double compute_us, non_compute_us, idle_us, dataloader_us; /* within the step's host span */
    size_t syncs;
    size_t reads; /* host reads of device memory (.item(), .cpu()) */
    double read_blocked_us, copy_exposed_us;
} gd_trace_step;

/* Copies by direction and host memory. */
typedef enum gd_copy_kind {
    GD_COPY_H2D_PAGEABLE = 0,
    GD_COPY_H2D_PINNED,
    GD_COPY_D2H_PAGEABLE,
    GD_COPY_D2H_PINNED,
    GD_COPY_D2D,
    GD_COPY_OTHER,
    GD_COPY_NKINDS
} gd_copy_kind;

const char *gd_copy_kind_name(gd_copy_kind k);

typedef struct gd_trace_copies {
    size_t count;
    double time_us, bytes;
    double gbps; /* bytes / time, NAN when no time */
} gd_trace_copies;

typedef struct gd_trace_result {
    int rank;
    const char *file; /* the trace file it was read from (set by the caller, NULL when unknown) */
    int compute_major;
    bool legacy, truncated;
    uint64_t events, skipped, bytes;
    uint64_t dropped; /* events left out at the memory cap (gd_trace_acc_cap) */
    size_t memory_cap_mib; /* that cap, 0 without one */
    char note[256];

    /* Steps: all ProfilerStep# seen, and the ones analyzed. */
    size_t steps_in_trace, nsteps;
    bool last_step_dropped;
    gd_trace_step *steps; /* nsteps, by time (at most GD_TRACE_MAX_STEPS kept) */
    double step_median_us, step_p90_us, step_max_us;
    long step_slowest; /* its number, -1 without steps */
    double step_total_us; /* sum of analyzed step durations */
    /* The GPU's idle time within the analyzed steps' host spans and its share
     * of their time: the time a fix could win back. NAN without steps or GPU. */
    double step_idle_us, step_idle_pct;
    long step_first_in_trace, step_last_in_trace; /* the lowest and highest ProfilerStep#N seen, -1 without */

    /* HTA temporal breakdown: over the span of the GPU events kept. */
    bool has_gpu;
    size_t gpu_events;
    size_t gpu_linked; /* of them, tied to a host launch through args.correlation */
    double span_us, idle_us, compute_us, non_compute_us;
    double idle_pct, compute_pct, non_compute_pct;

    /* HTA idle time breakdown per stream. */
    size_t nstreams;
    gd_trace_stream streams[GD_TRACE_MAX_STREAMS];

    /* DataLoader (enumerate(DataLoader)#...__next__) within the steps. */
    size_t dataloader_events;
    double dataloader_us, dataloader_pct; /* NAN without steps */
    bool dataloader_multiprocess; /* _MultiProcessingDataLoaderIter seen */

    /* Kernels: per class totals and the top names of each. */
    double class_us[GD_K_NCLASS];
    size_t class_count[GD_K_NCLASS];
    size_t ntop[GD_K_NCLASS];
    gd_trace_kernel top[GD_K_NCLASS][GD_TRACE_TOP];

    /* Launches (HTA's launch statistics, 50 us runtime and 100 us delay cut-offs). */
    size_t launches, short_kernels, runtime_outliers, delay_outliers;
    double launch_cpu_median_us, launch_delay_median_us, kernel_median_us;

    /* Copies. */
    gd_trace_copies copies[GD_COPY_NKINDS];
    double pageable_in_step_us; /* pageable copy time that falls inside the steps */

    /* Synchronizations: blocking runtime calls (device, stream, event sync,
     * synchronous cudaMemcpy) and the time the host spent in them. */
    size_t syncs;
    double sync_us, sync_pct; /* share of step time; NAN without steps */
    double sync_per_step;
    char sync_top[64]; /* the call that blocked longest in all */

    /* Communication / computation overlap (HTA), NAN without comm kernels. */
    double comm_overlap_pct;

    /* Host reads of device memory inside the steps (.item(), .cpu()): DtoH
     * copies and the host time blocked in their copy call and the sync right
     * after it on the same thread. */
    size_t reads, reads_item; /* reads_item: inside aten::item / aten::_local_scalar_dense */
    size_t item_calls; /* aten::item / aten::_local_scalar_dense host calls within the steps */
    double item_us, item_pct; /* the host's time inside those calls (outer aten::item), share of step time */
    double read_blocked_us, read_blocked_pct; /* share of step time; NAN without steps */
    double read_sync_us; /* the part of sync_us that follows a read (not counted again by trace.sync) */
    double read_bytes_median;

    /* Host-to-device copies inside the steps that no compute kernel overlaps
     * (pageable ones apart: trace.pageable_memcpy's). */
    size_t step_copies, step_copies_waited; /* waited: the launch returned after the copy ended */
    double step_copy_us, step_copy_exposed_us, step_copy_exposed_pct;
    double step_copy_bytes;

    /* Where the events came from: "kineto", "legacy", "tf_timeline" (TF1
     * Timeline), "tf_profile" (TensorBoard profile plugin's trace.json). */
    const char *format;
    int tf_gpu; /* the TensorFlow GPU analyzed (the lowest N of /device:GPU:N), -1 */
    size_t tf_other_gpu_events; /* events of other GPUs, left out */
} gd_trace_result;

/*
 * Computes the numbers from everything the accumulator took. The result's
 * arrays are owned by it (gd_trace_result_free). Returns 0, or -1 when out
 * of memory (a message in err).
 */
int gd_trace_analyze(gd_trace_acc *a, const gd_trace_meta *meta, const gd_trace_opts *o, gd_trace_result *r, char *err,
                     size_t errlen);
void gd_trace_result_free(gd_trace_result *r);

#endif
