/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internals of the simulated libcuda.so.1 (docs/scenarios.md).
 *
 * The CUDA driver API has no context argument, so the simulated driver keeps
 * one process-wide state, as the real one does: a single struct, guarded by
 * a mutex, defined in sim_state.c. The current context is per thread.
 * Nothing but the CUDA API symbols is exported (-fvisibility=hidden).
 *
 * Conventions of the simulation, which gpudoctor's benchmarks rely on:
 *  - Devices are the scenario's GPUs ($GPUDOCTOR_SIM_SCENARIO); cuInit
 *    fails with CUDA_ERROR_NO_DEVICE when it is unset or unreadable (the
 *    reason goes to stderr).
 *  - Streams are synchronous: every call completes before it returns.
 *  - A copy takes bytes / (bandwidth_gbps x 1e9) seconds of the GPU's time,
 *    whatever GPUDOCTOR_SIM_TIMESCALE's pace: events (cuEventElapsedTime)
 *    measure it. Under the fast scenario clock (GPUDOCTOR_SIM_TIMESCALE
 *    unset or empty at cuInit) that time is virtual: the stream's clock
 *    moves on and the call returns at once, so benchmarks come out exact
 *    and quick on any machine. Paced, and once gdsim_cuda_clock_set has
 *    been called, it is real time, a clock_nanosleep to the computed end
 *    (sim_time.c). Figures: h2d_pinned
 *    / d2h_pinned when the host side lies in memory from cuMemAllocHost or
 *    cuMemHostAlloc, else h2d_pageable / d2h_pageable (d2h_pageable falls
 *    back to h2d_pageable), d2d between device buffers. A missing figure
 *    makes the copy fail with CUDA_ERROR_NOT_SUPPORTED.
 *  - Device buffers up to SIM_MAX_BACKED_BYTES get real host memory (so
 *    data round-trips); larger ones are virtual (size tracked, no data).
 *    Allocations past the GPU's memory (memory_total_mib less the scenario
 *    processes' used_mib) fail with CUDA_ERROR_OUT_OF_MEMORY.
 *  - A kernel whose name contains "gemm" takes 2*M*N*K / (TFLOPS x 1e12)
 *    seconds, where kernelParams[0..2] point to int M, N, K, and TFLOPS is
 *    the gemm_tflops figure of the type the name contains ("fp8", "fp16",
 *    "tf32", "fp32", else bf16; missing: CUDA_ERROR_NOT_SUPPORTED).
 *  - A kernel whose name contains "membw" copies kernelParams[2] (unsigned
 *    long long) 16-byte words from the device address *kernelParams[1] to
 *    *kernelParams[0] and takes 2 x 16 x words / (d2d x 1e9) seconds, the
 *    bytes read and written at bandwidth_gbps.d2d. Device-to-device copies
 *    count the same way: 2 x bytes / (d2d x 1e9).
 *    Other kernels take no time.
 *  - Once gdsim_cuda_clock_set or gdsim_cuda_clock_follow (the same under
 *    the fast clock, time staying virtual) has given the scenario time
 *    (bench stress does, after each sample), a multiply on a GPU whose timeline point at
 *    that time has a slowdown reason (sw_power_cap, hw_slowdown,
 *    sw_thermal_slowdown, hw_thermal_slowdown, hw_power_brake) runs at
 *    sm_clock_mhz / clocks_max_mhz.sm of its figure: a throttled GPU
 *    multiplies slower, as on hardware. Otherwise the figure holds.
 *  - faults.kernel_load makes cuModuleLoadData(Ex) fail with
 *    CUDA_ERROR_INVALID_PTX on that GPU.
 *  - Device attributes that the scenario does not give return
 *    CUDA_ERROR_NOT_SUPPORTED.
 */
#ifndef GPUDOCTOR_SIM_CUDA_H
#define GPUDOCTOR_SIM_CUDA_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "gpudoctor/abi/cuda_api.h"
#include "scenario.h"
#include "sim_private.h"

/* Every export, declared with the type of its cuda_api.h typedef: a
 * definition with another signature does not compile. */
#define GD_CUDA_SYMBOL(t, sym) SIM_API __typeof__(*(t)0) sym;
#include "gpudoctor/abi/cuda_symbols.h"
#undef GD_CUDA_SYMBOL

#define SIM_MAX_BACKED_BYTES ((size_t)64 << 20) /* real memory per device buffer */
#define SIM_MAX_BACKED_TOTAL ((size_t)512 << 20) /* real memory over all buffers */

/* Handles carry a magic number so that stale or foreign ones are refused. */
#define SIM_MAGIC_CTX 0x63747821u
#define SIM_MAGIC_STREAM 0x73747221u
#define SIM_MAGIC_EVENT 0x65767421u
#define SIM_MAGIC_MODULE 0x6d6f6421u
#define SIM_MAGIC_FUNC 0x66756e21u

struct CUctx_st {
    uint32_t magic;
    int device;
    bool primary;
};

struct sim_device {
    const gd_scenario_gpu *gpu;
    size_t total_bytes; /* memory_total_mib */
    size_t foreign_bytes; /* used by the scenario's processes */
    size_t used_bytes; /* by this process's allocations */
    CUdeviceptr next_addr; /* bump allocator of device addresses */
    struct CUctx_st primary;
    int primary_refs;
};

struct sim_alloc {
    CUdeviceptr base;
    size_t size;
    void *backing; /* NULL for virtual buffers */
    int device;
};

struct sim_host_block {
    void *ptr;
    size_t size;
};

struct sim_cuda {
    pthread_mutex_t lock;
    bool loaded; /* scenario load attempted */
    bool initialized; /* cuInit succeeded */
    CUresult init_result; /* what cuInit answers */
    gd_scenario *scenario;
    char scenario_path[4096]; /* gdsim_scenario_set, else $GPUDOCTOR_SIM_SCENARIO */
    int device_count;
    struct sim_device *devices;
    struct sim_alloc *allocs;
    size_t n_allocs, cap_allocs;
    size_t backed_total;
    struct sim_host_block *pinned;
    size_t n_pinned, cap_pinned;
    bool *peer_enabled; /* [from * device_count + to]: cuCtxEnablePeerAccess from `from`'s context; NULL: none yet */
    bool clock_set; /* gdsim_cuda_clock_set was called: multiplies follow the timeline */
    double clock_t; /* scenario seconds */
};

/* sim_state.c */
extern struct sim_cuda sim_cuda_state;
void sim_lock(void);
void sim_unlock(void);
/* The device of the calling thread's current context; fails with
 * NOT_INITIALIZED before cuInit, INVALID_CONTEXT without a context. */
CUresult sim_current_device(int *device);
/* Grows *items (of *cap elements of size elem) to hold one more. */
bool sim_grow(void **items, size_t *cap, size_t count, size_t elem);

/* sim_time.c */
/* Virtual or real time (above), from GPUDOCTOR_SIM_TIMESCALE: at cuInit. */
void sim_time_init(void);
/* Real time from now on (gdsim_cuda_clock_set). */
void sim_time_real(void);
struct timespec sim_now(void);
/* Now on the calling thread's stream: the end of its last work when the
 * host comes back within a moment of it (see sim_time.c), else now. */
struct timespec sim_stream_now(void);
/* Sleeps until start + seconds (absolute CLOCK_MONOTONIC deadline); that
 * end becomes the end of the thread's stream. Under virtual time, only the
 * stream's clock moves. */
void sim_sleep_until(struct timespec start, double seconds);
double sim_elapsed_ms(struct timespec from, struct timespec to);

#endif
