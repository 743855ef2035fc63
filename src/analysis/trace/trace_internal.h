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

/* A GPU operation (a row with a stream, HTA's definition). Times in us. */
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
    uint8_t kind;
} gd_trt;

typedef struct gd_tspan {
    int64_t ts, dur;
    long number; /* ProfilerStep number, -1 for other spans */
    bool gpu_side; /* a gpu_user_annotation copy */
} gd_tspan;

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
    /* Interned names: offsets into the arena, and an open-addressing table. */
    GD_VEC(char) arena;
    GD_VEC(uint32_t) name_off;
    uint32_t *slots;
    size_t nslots;
    bool loader_multiprocess;
};

const char *gd_trace_name(const gd_trace_acc *a, uint32_t id);

#endif
