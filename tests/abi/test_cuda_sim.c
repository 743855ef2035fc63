/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Behaviour test of the simulated libcuda.so.1, driven through the real
 * loader as gpudoctor drives it: devices from the scenario, memory limits,
 * data round trips, and copy and GEMM times that follow the scenario's
 * figures (the conventions are in sim/cuda/sim_cuda.h).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "loaders/cuda_loader.h"
#include "sim_scenario_file.h"

#define MIB ((size_t)1 << 20)

/* GPU 0 has every figure (no d2h_pageable: it falls back to h2d_pageable);
 * GPU 1 has none; GPU 2 not even a PCI bus id or memory size. Figures are small so that times are easy to measure. */
static const char scenario_json[] =
    "{ \"cuda_driver_version\": 12040,\n"
    "  \"gpus\": [\n"
    "    { \"name\": \"NVIDIA H100 80GB HBM3\", \"pci_bus_id\": \"00000000:1B:00.0\",\n"
    "      \"compute_capability\": [9, 0], \"memory_total_mib\": 1024,\n"
    "      \"clocks_max_mhz\": { \"sm\": 1980, \"mem\": 2619 },\n"
    "      \"processes\": [ { \"pid\": 4242, \"name\": \"python\", \"used_mib\": 512 } ],\n"
    "      \"bandwidth_gbps\": { \"h2d_pinned\": 2.0, \"d2h_pinned\": 4.0, \"h2d_pageable\": 1.0,\n"
    "                          \"d2d\": 8.0 },\n"
    "      \"gemm_tflops\": { \"bf16\": 1.0, \"fp32\": 0.25 } },\n"
    "    { \"name\": \"Bare GPU\", \"pci_bus_id\": \"00000000:29:00.0\", \"memory_total_mib\": 4096,\n"
    "      \"p2p\": { \"gbps\": 3.0 } },\n"
    "    { \"name\": \"No bus id\", \"p2p\": { \"supported\": false } }\n"
    "  ] }\n";

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry gemm_bf16(.param .u64 a)\n{ ret; }\n"
                          ".visible .entry gemm_fp32(.param .u64 a)\n{ ret; }\n"
                          ".visible .entry noop()\n{ ret; }\n";

struct fixture {
    sim_scenario_file sc;
    struct gd_cuda_api api;
    CUcontext ctx;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    if (sim_scenario_write(&f->sc, scenario_json) != 0)
        return -1;
    setenv("GPUDOCTOR_SIM_SCENARIO", f->sc.path, 1);
    char err[256];
    if (gd_cuda_load(&f->api, GD_SIM_CUDA_PATH, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    gd_cuda_unload(&f->api);
    sim_scenario_remove(&f->sc);
    free(f);
    return 0;
}

/* Milliseconds that `op` takes between two events. */
#define TIME_MS(api, ms, op)                                                                                           \
    do {                                                                                                               \
        CUevent e0_, e1_;                                                                                              \
        assert_int_equal((api)->cuEventCreate(&e0_, CU_EVENT_DEFAULT), 0);                                             \
        assert_int_equal((api)->cuEventCreate(&e1_, CU_EVENT_DEFAULT), 0);                                             \
        assert_int_equal((api)->cuEventRecord(e0_, NULL), 0);                                                          \
        op;                                                                                                            \
        assert_int_equal((api)->cuEventRecord(e1_, NULL), 0);                                                          \
        assert_int_equal((api)->cuEventSynchronize(e1_), 0);                                                           \
        assert_int_equal((api)->cuEventElapsedTime(&(ms), e0_, e1_), 0);                                               \
        assert_int_equal((api)->cuEventDestroy(e0_), 0);                                                               \
        assert_int_equal((api)->cuEventDestroy(e1_), 0);                                                               \
    } while (0)

/* Under the fast scenario clock (the default here) the simulated GPUs'
 * time is virtual: exact, whatever the machine's load. Paced (--paced),
 * copies and kernels are sleeps to a deadline: never shorter, and a loaded
 * machine may make them any longer, so only the lower bound is held. */
static bool paced;

static void assert_took(float ms, double expected_ms)
{
    if (paced ? ms < expected_ms * 0.99 : fabs(ms - expected_ms) > expected_ms * 1e-4)
        fail_msg("took %.3f ms, expected %.3f ms%s", (double)ms, expected_ms, paced ? " or more" : "");
}

static double copy_ms(size_t bytes, double gbps)
{
    return (double)bytes / (gbps * 1e9) * 1e3;
}

static void test_before_init(void **state)
{
    struct gd_cuda_api *api = &((struct fixture *)*state)->api;
    int n = -1, version = 0;
    assert_int_equal(api->cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
    /* cuDriverGetVersion works before cuInit, as on a real driver. */
    assert_int_equal(api->cuDriverGetVersion(&version), CUDA_SUCCESS);
    assert_int_equal(version, 12040);
    assert_int_equal(api->cuInit(1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(api->cuInit(0), CUDA_SUCCESS);
}

static void test_devices_follow_scenario(void **state)
{
    struct gd_cuda_api *api = &((struct fixture *)*state)->api;
    int n = 0, v = 0;
    char buf[128];
    size_t total = 0;
    CUdevice dev;
    assert_int_equal(api->cuDeviceGetCount(&n), 0);
    assert_int_equal(n, 3);
    assert_int_equal(api->cuDeviceGet(&dev, 3), CUDA_ERROR_INVALID_DEVICE);
    assert_int_equal(api->cuDeviceGet(&dev, 2), 0);
    assert_int_equal(api->cuDeviceGetPCIBusId(buf, sizeof buf, dev), CUDA_ERROR_NOT_SUPPORTED);
    assert_int_equal(api->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev), CUDA_ERROR_NOT_SUPPORTED);
    assert_int_equal(api->cuDeviceTotalMem(&total, dev), 0);
    assert_int_equal(total, 0);
    assert_int_equal(api->cuDeviceGet(&dev, 0), 0);
    assert_int_equal(api->cuDeviceGetName(buf, sizeof buf, dev), 0);
    assert_string_equal(buf, "NVIDIA H100 80GB HBM3");
    assert_int_equal(api->cuDeviceTotalMem(&total, dev), 0);
    assert_int_equal(total, 1024 * MIB);
    assert_int_equal(api->cuDeviceGetPCIBusId(buf, sizeof buf, dev), 0);
    assert_string_equal(buf, "0000:1B:00.0");
    assert_int_equal(api->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), 0);
    assert_int_equal(v, 9);
    assert_int_equal(api->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev), 0);
    assert_int_equal(v, 0x1b);
    assert_int_equal(api->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev), 0);
    assert_int_equal(v, 1980000);
    /* Not in the scenario: not supported, never a made-up number. */
    assert_int_equal(api->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev),
                     CUDA_ERROR_NOT_SUPPORTED);
}

static void test_memory_needs_context_and_respects_total(void **state)
{
    struct fixture *f = *state;
    struct gd_cuda_api *api = &f->api;
    CUdeviceptr small, big, refused;
    size_t free_b, total;
    assert_int_equal(api->cuCtxSetCurrent(NULL), 0);
    assert_int_equal(api->cuMemAlloc(&small, MIB), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(api->cuDevicePrimaryCtxRetain(&f->ctx, 0), 0);
    assert_int_equal(api->cuCtxSetCurrent(f->ctx), 0);
    /* 1024 MiB total, 512 MiB held by the scenario's other process. */
    assert_int_equal(api->cuMemGetInfo(&free_b, &total), 0);
    assert_int_equal(total, 1024 * MIB);
    assert_int_equal(free_b, 512 * MIB);
    assert_int_equal(api->cuMemAlloc(&refused, 600 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
    assert_int_equal(api->cuMemAlloc(&big, 256 * MIB), 0); /* virtual: no backing */
    assert_int_equal(api->cuMemAlloc(&small, MIB), 0);
    assert_int_equal(api->cuMemGetInfo(&free_b, &total), 0);
    assert_int_equal(free_b, 255 * MIB);
    assert_int_equal(api->cuMemFree(big), 0);
    assert_int_equal(api->cuMemFree(big), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(api->cuMemFree(small), 0);
}

static void test_data_round_trip(void **state)
{
    struct gd_cuda_api *api = &((struct fixture *)*state)->api;
    enum { N = 4096 };
    unsigned char in[N], out[N];
    CUdeviceptr a, b;
    for (int i = 0; i < N; i++)
        in[i] = (unsigned char)(i * 7);
    assert_int_equal(api->cuMemAlloc(&a, N), 0);
    assert_int_equal(api->cuMemAlloc(&b, N), 0);
    assert_int_equal(api->cuMemcpyHtoD(a, in, N), 0);
    assert_int_equal(api->cuMemcpyDtoD(b, a, N), 0);
    assert_int_equal(api->cuMemcpyDtoH(out, b, N), 0);
    assert_memory_equal(in, out, N);
    assert_int_equal(api->cuMemsetD32(b, 0x01020304u, N / 4), 0);
    assert_int_equal(api->cuMemcpyDtoHAsync(out, b, N, NULL), 0);
    unsigned int word;
    memcpy(&word, out + 8, sizeof word);
    assert_int_equal(word, 0x01020304u);
    /* Out of bounds of the allocation. */
    assert_int_equal(api->cuMemcpyHtoD(a + 1, in, N), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(api->cuMemFree(a), 0);
    assert_int_equal(api->cuMemFree(b), 0);
}

static void test_copy_times_follow_bandwidth(void **state)
{
    struct gd_cuda_api *api = &((struct fixture *)*state)->api;
    const size_t bytes = 8 * MIB;
    void *pinned = NULL, *pageable = malloc(bytes);
    CUdeviceptr d, d2, virt;
    float ms;
    assert_non_null(pageable);
    memset(pageable, 0, bytes);
    assert_int_equal(api->cuMemAllocHost(&pinned, bytes), 0);
    assert_int_equal(api->cuMemAlloc(&d, bytes), 0);
    assert_int_equal(api->cuMemAlloc(&d2, bytes), 0);
    assert_int_equal(api->cuMemAlloc(&virt, 128 * MIB), 0);

    TIME_MS(api, ms, assert_int_equal(api->cuMemcpyHtoD(d, pinned, bytes), 0));
    assert_took(ms, copy_ms(bytes, 2.0));
    TIME_MS(api, ms, assert_int_equal(api->cuMemcpyDtoHAsync(pinned, d, bytes, NULL), 0));
    assert_took(ms, copy_ms(bytes, 4.0));
    TIME_MS(api, ms, assert_int_equal(api->cuMemcpyHtoDAsync(d, pageable, bytes, NULL), 0));
    assert_took(ms, copy_ms(bytes, 1.0));
    /* No d2h_pageable figure: h2d_pageable's. */
    TIME_MS(api, ms, assert_int_equal(api->cuMemcpyDtoH(pageable, d, bytes), 0));
    assert_took(ms, copy_ms(bytes, 1.0));
    TIME_MS(api, ms, assert_int_equal(api->cuMemcpyDtoD(d2, d, bytes), 0));
    assert_took(ms, copy_ms(2 * bytes, 8.0));
    /* A virtual buffer takes the time without the data. */
    TIME_MS(api, ms, assert_int_equal(api->cuMemcpyDtoDAsync(virt, d, bytes, NULL), 0));
    assert_took(ms, copy_ms(2 * bytes, 8.0));

    assert_int_equal(api->cuMemFree(virt), 0);
    assert_int_equal(api->cuMemFree(d2), 0);
    assert_int_equal(api->cuMemFree(d), 0);
    assert_int_equal(api->cuMemFreeHost(pinned), 0);
    free(pageable);
}

/* Peer access and peer copies: at the pair's rate with access on, staged
 * through host memory (half the host rate) with it off or unsupported. */
static void test_peer_copies(void **state)
{
    struct fixture *f = *state;
    struct gd_cuda_api *api = &f->api;
    enum { N = 4096 };
    const size_t bytes = 8 * MIB;
    int can = -1;
    CUcontext c1, c2;
    assert_int_equal(api->cuDeviceCanAccessPeer(&can, 0, 1), 0);
    assert_int_equal(can, 1);
    assert_int_equal(api->cuDeviceCanAccessPeer(&can, 2, 0), 0);
    assert_int_equal(can, 0);
    assert_int_equal(api->cuDeviceCanAccessPeer(&can, 0, 0), 0);
    assert_int_equal(can, 0);
    assert_int_equal(api->cuDeviceCanAccessPeer(&can, 0, 3), CUDA_ERROR_INVALID_DEVICE);
    assert_int_equal(api->cuDeviceCanAccessPeer(NULL, 0, 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(api->cuDevicePrimaryCtxRetain(&f->ctx, 0), 0);
    assert_int_equal(api->cuDevicePrimaryCtxRetain(&c1, 1), 0);
    assert_int_equal(api->cuDevicePrimaryCtxRetain(&c2, 2), 0);

    CUdeviceptr d1, d1s, d0, d0s, back;
    unsigned char in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (unsigned char)(i * 13 + 1);
    assert_int_equal(api->cuCtxSetCurrent(c1), 0);
    assert_int_equal(api->cuMemAlloc(&d1, bytes), 0);
    assert_int_equal(api->cuMemAlloc(&d1s, N), 0);
    assert_int_equal(api->cuCtxSetCurrent(f->ctx), 0);
    assert_int_equal(api->cuMemAlloc(&d0, bytes), 0);
    assert_int_equal(api->cuMemAlloc(&d0s, N), 0);
    assert_int_equal(api->cuMemAlloc(&back, N), 0);

    assert_int_equal(api->cuCtxEnablePeerAccess(c1, 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(api->cuCtxEnablePeerAccess(c1, 0), 0);
    assert_int_equal(api->cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
    assert_int_equal(api->cuCtxEnablePeerAccess(c2, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
    assert_int_equal(api->cuCtxEnablePeerAccess(f->ctx, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED); /* itself */

    /* The data arrives and comes back; a buffer named with the wrong context is refused. */
    assert_int_equal(api->cuMemcpyHtoD(d0s, in, N), 0);
    assert_int_equal(api->cuMemcpyPeerAsync(d1s, c1, d0s, f->ctx, N, NULL), 0);
    assert_int_equal(api->cuMemcpyPeerAsync(d1s, f->ctx, d0s, f->ctx, N, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(api->cuMemcpyPeerAsync(back, f->ctx, d1s, c1, N, NULL), 0);
    assert_int_equal(api->cuMemcpyDtoH(out, back, N), 0);
    assert_memory_equal(in, out, N);

    float ms;
    TIME_MS(api, ms, assert_int_equal(api->cuMemcpyPeerAsync(d1, c1, d0, f->ctx, bytes, NULL), 0));
    assert_took(ms, copy_ms(bytes, 3.0)); /* the Bare GPU's p2p.gbps */
    assert_int_equal(api->cuCtxDisablePeerAccess(c1), 0);
    assert_int_equal(api->cuCtxDisablePeerAccess(c1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    /* Off: staged at half of GPU 0's d2h_pinned (the Bare GPU has no h2d figure). */
    TIME_MS(api, ms, assert_int_equal(api->cuMemcpyPeerAsync(d1, c1, d0, f->ctx, bytes, NULL), 0));
    assert_took(ms, copy_ms(bytes, 2.0));
    /* Back on, from GPU 1's side: either side's access carries the copy. */
    assert_int_equal(api->cuCtxSetCurrent(c1), 0);
    assert_int_equal(api->cuCtxEnablePeerAccess(f->ctx, 0), 0);
    TIME_MS(api, ms, assert_int_equal(api->cuMemcpyPeerAsync(d0, f->ctx, d1, c1, bytes, NULL), 0));
    assert_took(ms, copy_ms(bytes, 3.0));
    assert_int_equal(api->cuCtxDisablePeerAccess(f->ctx), 0);
    assert_int_equal(api->cuCtxSetCurrent(f->ctx), 0);

    assert_int_equal(api->cuMemFree(d0), 0);
    assert_int_equal(api->cuMemFree(d0s), 0);
    assert_int_equal(api->cuMemFree(back), 0);
    assert_int_equal(api->cuCtxSetCurrent(c1), 0);
    assert_int_equal(api->cuMemFree(d1), 0);
    assert_int_equal(api->cuMemFree(d1s), 0);
    assert_int_equal(api->cuDevicePrimaryCtxRelease(1), 0);
    assert_int_equal(api->cuDevicePrimaryCtxRelease(2), 0);
    assert_int_equal(api->cuCtxSetCurrent(f->ctx), 0);
}

static void test_missing_figure_is_not_supported(void **state)
{
    struct gd_cuda_api *api = &((struct fixture *)*state)->api;
    CUcontext ctx, prev;
    CUdeviceptr d;
    char host[64] = {0};
    assert_int_equal(api->cuCtxGetCurrent(&prev), 0);
    assert_non_null(api->cuCtxCreate_v2);
    assert_int_equal(api->cuCtxCreate_v2(&ctx, 0, 1), 0); /* GPU 1: no figures */
    assert_int_equal(api->cuMemAlloc(&d, sizeof host), 0);
    assert_int_equal(api->cuMemcpyHtoD(d, host, sizeof host), CUDA_ERROR_NOT_SUPPORTED);
    assert_int_equal(api->cuMemFree(d), 0);
    assert_int_equal(api->cuCtxDestroy(ctx), 0);
    assert_int_equal(api->cuCtxSetCurrent(prev), 0);
}

static void test_gemm_time_follows_tflops(void **state)
{
    struct gd_cuda_api *api = &((struct fixture *)*state)->api;
    CUmodule mod, bad;
    CUfunction bf16, fp32, noop, missing;
    CUstream stream;
    int m = 1024, n = 1024, k = 1024;
    void *params[] = {&m, &n, &k};
    float ms;
    double flops = 2.0 * m * n * k;
    assert_int_equal(api->cuModuleLoadData(&bad, "not ptx"), CUDA_ERROR_INVALID_IMAGE);
    assert_int_equal(api->cuModuleLoadDataEx(&mod, ptx, 0, NULL, NULL), 0);
    assert_int_equal(api->cuModuleGetFunction(&bf16, mod, "gemm_bf16"), 0);
    assert_int_equal(api->cuModuleGetFunction(&fp32, mod, "gemm_fp32"), 0);
    assert_int_equal(api->cuModuleGetFunction(&noop, mod, "noop"), 0);
    assert_int_equal(api->cuModuleGetFunction(&missing, mod, "gemm"), CUDA_ERROR_NOT_FOUND);
    assert_int_equal(api->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), 0);

    TIME_MS(api, ms, assert_int_equal(api->cuLaunchKernel(bf16, 8, 8, 1, 256, 1, 1, 0, stream, params, NULL), 0));
    assert_took(ms, flops / 1.0e12 * 1e3);
    TIME_MS(api, ms, assert_int_equal(api->cuLaunchKernel(fp32, 8, 8, 1, 256, 1, 1, 0, stream, params, NULL), 0));
    assert_took(ms, flops / 0.25e12 * 1e3);
    assert_int_equal(api->cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), 0);
    assert_int_equal(api->cuLaunchKernel(bf16, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(api->cuStreamSynchronize(stream), 0);
    assert_int_equal(api->cuCtxSynchronize(), 0);
    assert_int_equal(api->cuStreamDestroy(stream), 0);
    assert_int_equal(api->cuModuleUnload(mod), 0);
}

/* Under the fast clock a multiply of nearly ten minutes on the GPU's clock
 * (events) returns at once on the host's: virtual time never sleeps. */
static void test_virtual_time_does_not_wait(void **state)
{
    struct gd_cuda_api *api = &((struct fixture *)*state)->api;
    CUmodule mod;
    CUfunction bf16;
    int m = 65536, n = 65536, k = 65536;
    void *params[] = {&m, &n, &k};
    float ms;
    struct timespec t0, t1;
    assert_int_equal(api->cuModuleLoadData(&mod, ptx), 0);
    assert_int_equal(api->cuModuleGetFunction(&bf16, mod, "gemm_bf16"), 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    TIME_MS(api, ms, assert_int_equal(api->cuLaunchKernel(bf16, 8, 8, 1, 256, 1, 1, 0, NULL, params, NULL), 0));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_took(ms, 2.0 * m * n * (double)k / 1.0e12 * 1e3);
    double host_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (host_s > 60)
        fail_msg("a virtual multiply kept the host %.1f s", host_s);
    assert_int_equal(api->cuModuleUnload(mod), 0);
}

static void test_events_and_error_strings(void **state)
{
    struct gd_cuda_api *api = &((struct fixture *)*state)->api;
    CUevent a, b;
    float ms;
    const char *s = NULL;
    assert_int_equal(api->cuEventCreate(&a, CU_EVENT_DEFAULT), 0);
    assert_int_equal(api->cuEventCreate(&b, CU_EVENT_DISABLE_TIMING), 0);
    assert_int_equal(api->cuEventElapsedTime(&ms, a, a), CUDA_ERROR_INVALID_HANDLE); /* never recorded */
    assert_int_equal(api->cuEventRecord(a, NULL), 0);
    assert_int_equal(api->cuEventRecord(b, NULL), 0);
    assert_int_equal(api->cuEventElapsedTime(&ms, a, b), CUDA_ERROR_INVALID_HANDLE); /* no timing */
    assert_int_equal(api->cuEventDestroy(a), 0);
    assert_int_equal(api->cuEventDestroy(b), 0);
    assert_int_equal(api->cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s), 0);
    assert_string_equal(s, "out of memory");
    assert_int_equal(api->cuGetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(api->cuDevicePrimaryCtxRelease(0), 0);
}

/* Paced, a copy sleeps: the host's clock sees at least the copy's time. */
static void test_paced_copy_takes_real_time(void **state)
{
    struct fixture *f = *state;
    struct gd_cuda_api *api = &f->api;
    const size_t bytes = 8 * MIB;
    CUdeviceptr d, d2;
    struct timespec t0, t1;
    assert_int_equal(api->cuInit(0), 0);
    assert_int_equal(api->cuDevicePrimaryCtxRetain(&f->ctx, 0), 0);
    assert_int_equal(api->cuCtxSetCurrent(f->ctx), 0);
    assert_int_equal(api->cuMemAlloc(&d, bytes), 0);
    assert_int_equal(api->cuMemAlloc(&d2, bytes), 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(api->cuMemcpyDtoD(d2, d, bytes), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double host_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    if (host_ms < copy_ms(2 * bytes, 8.0) * 0.99)
        fail_msg("the copy returned after %.3f ms, before its %.3f ms", host_ms, copy_ms(2 * bytes, 8.0));
    assert_int_equal(api->cuMemFree(d2), 0);
    assert_int_equal(api->cuMemFree(d), 0);
}

int main(int argc, char **argv)
{
    /* Without an argument: the fast scenario clock, virtual GPU time. With
     * --paced: GPUDOCTOR_SIM_TIMESCALE set, real time. */
    paced = argc > 1 && strcmp(argv[1], "--paced") == 0;
    if (paced)
        setenv("GPUDOCTOR_SIM_TIMESCALE", "1", 1);
    else
        unsetenv("GPUDOCTOR_SIM_TIMESCALE");
    if (paced) {
        const struct CMUnitTest paced_tests[] = {
            cmocka_unit_test(test_paced_copy_takes_real_time),
            cmocka_unit_test(test_copy_times_follow_bandwidth),
            cmocka_unit_test(test_gemm_time_follows_tflops),
        };
        return cmocka_run_group_tests_name("cuda_sim_paced", paced_tests, setup, teardown);
    }
    /* In order: the simulated driver's state lives as long as the process. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_before_init),
        cmocka_unit_test(test_devices_follow_scenario),
        cmocka_unit_test(test_memory_needs_context_and_respects_total),
        cmocka_unit_test(test_data_round_trip),
        cmocka_unit_test(test_copy_times_follow_bandwidth),
        cmocka_unit_test(test_missing_figure_is_not_supported),
        cmocka_unit_test(test_peer_copies),
        cmocka_unit_test(test_gemm_time_follows_tflops),
        cmocka_unit_test(test_virtual_time_does_not_wait),
        cmocka_unit_test(test_events_and_error_strings),
    };
    return cmocka_run_group_tests_name("cuda_sim", tests, setup, teardown);
}
