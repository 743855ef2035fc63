/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated libcuda's private exports, for the simulated cuBLASLt
 * beside it (sim/cublaslt) and nothing else: gpudoctor never calls them.
 * Each answers for the calling thread's current context.
 */
#ifndef GPUDOCTOR_SIM_PRIVATE_H
#define GPUDOCTOR_SIM_PRIVATE_H

#include <stddef.h>

#include "gpudoctor/abi/cuda_api.h"

#define SIM_API __attribute__((visibility("default")))

/* The host memory behind [ptr, ptr + bytes) of a device buffer; NULL when
 * the buffer is virtual or unknown. */
SIM_API void *gdsim_device_memory(CUdeviceptr ptr, size_t bytes);
/* The ordinal of the current context's device, -1 without one (NCCL's
 * ncclCommInitRank takes its device from the current context). */
SIM_API int gdsim_current_device(void);
/* Whether the scenario gives the current GPU the named fault
 * ("kernel_load", "gemm_wrong_results", "nccl_wrong_results"); 0 without a
 * context. */
SIM_API int gdsim_fault(const char *name);
/* The current GPU's bandwidth_gbps.d2d, 0 when absent. */
SIM_API double gdsim_memory_gbps(void);
/* The current GPU's gemm_tflops figure for "bf16", "fp16", "tf32", "fp32"
 * or "fp8", slowed by a throttled clock once the clock is set (sim_cuda.h);
 * 0 when absent or without a context. */
SIM_API double gdsim_gemm_tflops(const char *dtype);

/* The per-direction rate, GB/s, at which NCCL's transport moves data from
 * device a to device b (ordinals): peer to peer where the pair allows it
 * and p2p_disabled is 0, else staged through host memory (half the slower of
 * a's pinned device-to-host and b's host-to-device rate). 0 when unknown. For
 * the simulated NCCL (sim/nccl). */
SIM_API double gdsim_nccl_edge_gbps(int a, int b, int p2p_disabled);

/* The scenario the simulated driver plays (loaded once, kept until the
 * library is unloaded), or NULL: for the simulated NCCL's INFO log, which
 * tells its choices from the scenario's NICs and GPUs. */
struct gd_scenario;
SIM_API const struct gd_scenario *gdsim_scenario(void);

/* The scenario time of the session that drives the benchmark (bench stress),
 * for the clock-following multiplies of gdsim_gemm_tflops (sim_cuda.h);
 * from the first call on, copies and kernels take real time. An
 * export of the simulated libcuda that gpudoctor calls, like
 * gdsim_scenario_set, not a private one. */
SIM_API void gdsim_cuda_clock_set(double t);

/* The same without the change to real time: under the fast clock the
 * caller keeps each stream's virtual time in step with the scenario's
 * (bench stress under --sim, src/probes/stress.c). */
SIM_API void gdsim_cuda_clock_follow(double t);

/* Occupies the calling thread's stream for `seconds` of the GPU's time
 * (virtual or real, sim_time.c), queued after its previous work; returns
 * when that work is done. */
SIM_API void gdsim_device_busy(double seconds);

#endif
