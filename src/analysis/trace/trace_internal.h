/* SPDX-License-Identifier: Apache-2.0 */
/* The accumulator's records, shared by trace_acc.c and trace_analyze.c. */
#ifndef GD_TRACE_INTERNAL_H
#define GD_TRACE_INTERNAL_H

#include "analysis/trace/trace.h"

/* Runtime calls, by what the analyses need of them. */
enum {
    GD_RT_OTHER = 0,
    GD_RT_LAUNCH, /* cudaLaunchKernel, cudaLaunchKernelExC, runFunction: HTA's launch set */
    GD_RT_MEMCPY_ASYNC, /* cudaMemcpyAsync (HTA counts it with include_memory_events) */
    GD_RT_MEMSET_ASYNC,
    GD_RT_LAUNCH_OTHER, /* cuLaunchKernel, hipLaunchKernel, ...: not in HTA's launch statistics */
    GD_RT_SYNC, /* blocks the host until the device catches up */
};

/* A GPU operation (a row with a stream, HTA's definition). Times in ns (the trace's own resolution). */
typedef struct gd_tgpu {
    int64_t ts, dur;
    int64_t corr;
    int64_t bytes;
    int32_t stream;
    uint32_t name;
    uint8_t cat;
} gd_tgpu;

/* A host row that can be a GPU operation's partner (a correlation), or a sync. */
typedef struct gd_trt {
    int64_t ts, dur;
    int64_t corr;
    uint32_t name; /* interned for syncs only, else UINT32_MAX */
    int32_t tid; /* -1 when not a number */
    uint8_t kind;
} gd_trt;

typedef struct gd_tspan {
    int64_t ts, dur;
    long number; /* ProfilerStep number, -1 for other spans */
    bool gpu_side; /* a gpu_user_annotation copy */
} gd_tspan;

/* A process or thread name from a metadata event (TensorFlow's devices and streams). */
typedef struct gd_tproc {
    int64_t pid, tid; /* tid -1: the process's own name */
    uint32_t name;
} gd_tproc;

/* An X event without a Kineto category, kept until the process names say
 * whether it ran on a GPU (TensorFlow traces name devices only in metadata). */
typedef struct gd_tpend {
    int64_t ts, dur;
    int64_t bytes;
    int64_t pid, tid;
    uint32_t name;
} gd_tpend;

#define GD_VEC(T)                                                                                                      \
    struct {                                                                                                           \
        T *v;                                                                                                          \
        size_t n, cap;                                                                                                 \
    }

struct gd_trace_acc {
    GD_VEC(gd_tgpu) gpu;
    GD_VEC(gd_trt) rt;
    GD_VEC(gd_tspan) steps;
    GD_VEC(gd_tspan) loader;
    GD_VEC(gd_tspan) items; /* aten::item, aten::_local_scalar_dense */
    GD_VEC(gd_tproc) procs;
    GD_VEC(gd_tpend) pending;
    /* Interned names: offsets into the arena, and an open-addressing table. */
    GD_VEC(char) arena;
    GD_VEC(uint32_t) name_off;
    uint32_t *slots;
    size_t nslots;
    bool loader_multiprocess;
    size_t max_bytes; /* 0: no cap (gd_trace_acc_cap) */
    uint64_t dropped; /* events left out once the cap was reached */
};

const char *gd_trace_name(const gd_trace_acc *a, uint32_t id);
/* The id of a name, interned on first sight; UINT32_MAX when out of memory. */
uint32_t gd_trace_intern(gd_trace_acc *a, const char *name, size_t len);
/* Pushes onto a GD_VEC; 0, or -1 when out of memory. */
int gd_trace_grow(void **v, size_t *cap, size_t need, size_t size);
#define GD_PUSH(vec, item)                                                                                             \
    (gd_trace_grow((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof *(vec).v) ? -1 : ((vec).v[(vec).n++] = (item), 0))

/*
 * TensorFlow traces (trace_tf.c): turns the pending events of the GPU's
 * stream processes into GPU operations and its step line into steps, once
 * the whole trace is read. Returns the format found ("tf_timeline",
 * "tf_profile") or NULL when the trace is not TensorFlow's; -1 in *oom when
 * out of memory.
 */
const char *gd_trace_tf_resolve(gd_trace_acc *a, int *gpu, size_t *other_gpu_events, int *oom);

/* A kept GPU operation, with its launch (trace_analyze.c, trace_stalls.c). Times in ns. */
typedef struct gd_tkept {
    int64_t ts, dur;
    int64_t rt_ts, rt_dur; /* rt_ts INT64_MIN: no host partner */
    int64_t bytes;
    int32_t stream, rt_tid;
    uint32_t name;
    uint8_t cat, rt_kind, cls;
} gd_tkept;

/* Nanoseconds to the microseconds of the results. */
static inline double gd_trace_us(int64_t ns)
{
    return (double)ns / 1000.0;
}

typedef struct gd_tiv { /* ns */
    int64_t lo, hi;
} gd_tiv;

#endif
