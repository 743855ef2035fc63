/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cuBLASLt loader's search order, and the simulated libcublasLt.so.13
 * driven through it on the simulated libcuda: multiplies take the time the
 * scenario's gemm_tflops imply, small ones are computed (and one element
 * is wrong under faults.gemm_wrong_results), unsupported types are refused,
 * and the membw kernel copies at the d2d figure.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "loaders/cublaslt_loader.h"
#include "loaders/cuda_loader.h"
#include "sim_scenario_file.h"

/* GPU 0: 2 TFLOP/s bf16, 0.5 fp16, no fp8; GPU 1: wrong results. */
static const char scenario_json[] =
    "{ \"gpus\": [\n"
    "  { \"name\": \"NVIDIA H100 80GB HBM3\", \"pci_bus_id\": \"00000000:1B:00.0\", \"memory_total_mib\": 8192,\n"
    "    \"bandwidth_gbps\": { \"h2d_pinned\": 50, \"d2h_pinned\": 50, \"h2d_pageable\": 20, \"d2d\": 100 },\n"
    "    \"gemm_tflops\": { \"bf16\": 2.0, \"fp16\": 0.5, \"fp32\": 0.1 } },\n"
    "  { \"name\": \"NVIDIA H100 80GB HBM3\", \"pci_bus_id\": \"00000000:2A:00.0\", \"memory_total_mib\": 8192,\n"
    "    \"bandwidth_gbps\": { \"h2d_pinned\": 50, \"d2h_pinned\": 50, \"h2d_pageable\": 20, \"d2d\": 100 },\n"
    "    \"gemm_tflops\": { \"bf16\": 2.0 }, \"faults\": { \"gemm_wrong_results\": true } } ] }\n";

struct fixture {
    sim_scenario_file sc;
    struct gd_cuda_api cu;
    struct gd_cublaslt_api lt;
    CUcontext ctx;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    char err[1024];
    if (sim_scenario_write(&f->sc, scenario_json) != 0 || sim_cuda_open(&f->cu, GD_SIM_CUDA_PATH, &f->sc) != 0)
        return -1;
    gd_cublaslt_search s = {.path = GD_SIM_CUBLASLT_PATH};
    if (gd_cublaslt_load(&f->lt, &s, err, sizeof err) != 0 || f->cu.cuInit(0) != CUDA_SUCCESS) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    gd_cublaslt_unload(&f->lt);
    gd_cuda_unload(&f->cu);
    sim_scenario_remove(&f->sc);
    free(f);
    return 0;
}

static void use_device(struct fixture *f, int ordinal)
{
    CUdevice dev;
    assert_int_equal(f->cu.cuDeviceGet(&dev, ordinal), CUDA_SUCCESS);
    assert_int_equal(f->cu.cuDevicePrimaryCtxRetain(&f->ctx, dev), CUDA_SUCCESS);
    assert_int_equal(f->cu.cuCtxSetCurrent(f->ctx), CUDA_SUCCESS);
}

static void search_order(void **state)
{
    (void)state;
    char buf[GD_CUBLASLT_MAX_CANDIDATES][512];
    gd_cublaslt_search only = {.path = "/opt/x/libcublasLt.so.12"};
    assert_int_equal(gd_cublaslt_candidates(&only, buf, GD_CUBLASLT_MAX_CANDIDATES), 1);
    assert_string_equal(buf[0], "/opt/x/libcublasLt.so.12");
    const char *sites[] = {"/venv/lib/python3.11/site-packages"};
    gd_cublaslt_search s = {.site_packages = sites, .site_count = 1, .toolkit = "/opt/cuda-12.4"};
    size_t n = gd_cublaslt_candidates(&s, buf, GD_CUBLASLT_MAX_CANDIDATES);
    assert_true(n >= 12);
    /* The environment's wheels first, newest layout first; then the loader's path; then toolkits. */
    assert_string_equal(buf[0], "/venv/lib/python3.11/site-packages/nvidia/cu13/lib/libcublasLt.so.13");
    assert_string_equal(buf[3], "/venv/lib/python3.11/site-packages/nvidia/cublas/lib/libcublasLt.so.13");
    assert_string_equal(buf[6], "libcublasLt.so.13");
    assert_string_equal(buf[8], "libcublasLt.so.11");
    assert_string_equal(buf[9], "/opt/cuda-12.4/lib64/libcublasLt.so.13");
    bool usr_local = false;
    for (size_t i = 0; i < n; i++)
        usr_local |= strcmp(buf[i], "/usr/local/cuda/lib64/libcublasLt.so.12") == 0;
    assert_true(usr_local);
    /* Nothing found: the message names what was tried. */
    struct gd_cublaslt_api api;
    char err[1024];
    gd_cublaslt_search none = {.path = "/nonexistent/libcublasLt.so.13"};
    assert_int_equal(gd_cublaslt_load(&api, &none, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "/nonexistent/libcublasLt.so.13"));
    assert_null(api.cublasLtMatmul);
}

/* A TN multiply of m x n x k: A (k x m) and B (k x n) of `type`, D fp32. */
typedef struct mm {
    cublasLtHandle_t h;
    cublasLtMatmulDesc_t d;
    cublasLtMatrixLayout_t la, lb, ld;
    cublasLtMatmulPreference_t p;
    cublasLtMatmulHeuristicResult_t algo;
    CUdeviceptr a, b, c;
} mm;

static cublasStatus_t mm_setup(struct fixture *f, mm *x, cudaDataType type, size_t es, uint64_t m, uint64_t n,
                               uint64_t k)
{
    const struct gd_cublaslt_api *lt = &f->lt;
    memset(x, 0, sizeof *x);
    int32_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    assert_int_equal(f->cu.cuMemAlloc(&x->a, k * m * es), CUDA_SUCCESS);
    assert_int_equal(f->cu.cuMemAlloc(&x->b, k * n * es), CUDA_SUCCESS);
    assert_int_equal(f->cu.cuMemAlloc(&x->c, m * n * 4), CUDA_SUCCESS);
    assert_int_equal(lt->cublasLtCreate(&x->h), CUBLAS_STATUS_SUCCESS);
    assert_int_equal(lt->cublasLtMatmulDescCreate(&x->d, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
    assert_int_equal(lt->cublasLtMatmulDescSetAttribute(x->d, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), 0);
    assert_int_equal(lt->cublasLtMatmulDescSetAttribute(x->d, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), 0);
    assert_int_equal(lt->cublasLtMatrixLayoutCreate(&x->la, type, k, m, (int64_t)k), 0);
    assert_int_equal(lt->cublasLtMatrixLayoutCreate(&x->lb, type, k, n, (int64_t)k), 0);
    assert_int_equal(lt->cublasLtMatrixLayoutCreate(&x->ld, CUDA_R_32F, m, n, (int64_t)m), 0);
    assert_int_equal(lt->cublasLtMatmulPreferenceCreate(&x->p), 0);
    int found = 0;
    return lt->cublasLtMatmulAlgoGetHeuristic(x->h, x->d, x->la, x->lb, x->ld, x->ld, x->p, 1, &x->algo, &found);
}

static cublasStatus_t mm_run(struct fixture *f, mm *x)
{
    const float one = 1, zero = 0;
    return f->lt.cublasLtMatmul(x->h, x->d, &one, (void *)(uintptr_t)x->a, x->la, (void *)(uintptr_t)x->b, x->lb, &zero,
                                (void *)(uintptr_t)x->c, x->ld, (void *)(uintptr_t)x->c, x->ld, &x->algo.algo, NULL, 0,
                                NULL);
}

static void mm_free(struct fixture *f, mm *x)
{
    f->lt.cublasLtMatmulPreferenceDestroy(x->p);
    f->lt.cublasLtMatrixLayoutDestroy(x->la);
    f->lt.cublasLtMatrixLayoutDestroy(x->lb);
    f->lt.cublasLtMatrixLayoutDestroy(x->ld);
    f->lt.cublasLtMatmulDescDestroy(x->d);
    f->lt.cublasLtDestroy(x->h);
    f->cu.cuMemFree(x->a);
    f->cu.cuMemFree(x->b);
    f->cu.cuMemFree(x->c);
}

/* Device time between two events around the work, as the benchmarks time it
 * (the simulated stream may start work at the previous work's end). */
typedef struct timer {
    CUevent e0, e1;
} timer;

static void timer_start(struct fixture *f, timer *t)
{
    assert_int_equal(f->cu.cuEventCreate(&t->e0, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    assert_int_equal(f->cu.cuEventCreate(&t->e1, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    assert_int_equal(f->cu.cuEventRecord(t->e0, NULL), CUDA_SUCCESS);
}

static double timer_ms(struct fixture *f, timer *t)
{
    float ms = 0;
    assert_int_equal(f->cu.cuEventRecord(t->e1, NULL), CUDA_SUCCESS);
    assert_int_equal(f->cu.cuEventSynchronize(t->e1), CUDA_SUCCESS);
    assert_int_equal(f->cu.cuEventElapsedTime(&ms, t->e0, t->e1), CUDA_SUCCESS);
    f->cu.cuEventDestroy(t->e0);
    f->cu.cuEventDestroy(t->e1);
    return ms;
}

static void multiplies_take_the_scenarios_time(void **state)
{
    struct fixture *f = *state;
    use_device(f, 0);
    assert_int_equal(f->lt.cublasLtGetVersion(), 130000);
    mm x;
    /* 4096^3 bf16 at 2 TFLOP/s: 68.7 ms (virtual buffers: not computed). */
    assert_int_equal(mm_setup(f, &x, CUDA_R_16BF, 2, 4096, 4096, 4096), CUBLAS_STATUS_SUCCESS);
    timer t;
    timer_start(f, &t);
    assert_int_equal(mm_run(f, &x), CUBLAS_STATUS_SUCCESS);
    double want = 2.0 * 4096.0 * 4096 * 4096 / 2e12 * 1e3, got = timer_ms(f, &t);
    if (fabs(got - want) > want * 1e-4) /* virtual GPU time: exact */
        fail_msg("bf16 multiply took %.2f ms, expected %.2f", got, want);
    mm_free(f, &x);
    /* No fp8 figure: no algorithm. */
    assert_int_equal(mm_setup(f, &x, CUDA_R_8F_E4M3, 1, 256, 256, 256), CUBLAS_STATUS_NOT_SUPPORTED);
    mm_free(f, &x);
    f->cu.cuDevicePrimaryCtxRelease(0);
}

/* fp16 ones and twos: D = k x (1 x 2) in every element. */
static void small_multiplies_are_computed(void **state)
{
    struct fixture *f = *state;
    for (int dev = 0; dev < 2; dev++) {
        use_device(f, dev);
        const uint64_t m = 32, n = 16, k = 64;
        mm x;
        cudaDataType t = dev == 0 ? CUDA_R_16F : CUDA_R_16BF;
        assert_int_equal(mm_setup(f, &x, t, 2, m, n, k), CUBLAS_STATUS_SUCCESS);
        uint16_t one = dev == 0 ? 0x3C00 : 0x3F80, two = dev == 0 ? 0x4000 : 0x4000;
        uint16_t ha[64 * 32], hb[64 * 16];
        for (size_t i = 0; i < k * m; i++)
            ha[i] = one;
        for (size_t i = 0; i < k * n; i++)
            hb[i] = two;
        assert_int_equal(f->cu.cuMemcpyHtoD(x.a, ha, sizeof ha), CUDA_SUCCESS);
        assert_int_equal(f->cu.cuMemcpyHtoD(x.b, hb, sizeof hb), CUDA_SUCCESS);
        assert_int_equal(mm_run(f, &x), CUBLAS_STATUS_SUCCESS);
        float d[32 * 16];
        assert_int_equal(f->cu.cuMemcpyDtoH(d, x.c, sizeof d), CUDA_SUCCESS);
        size_t wrong = 0;
        for (size_t i = 0; i < m * n; i++)
            wrong += fabsf(d[i] - 128.0f) > 1e-3f;
        assert_int_equal(wrong, dev == 1 ? 1 : 0); /* GPU 1: faults.gemm_wrong_results */
        mm_free(f, &x);
        CUdevice cd;
        f->cu.cuDeviceGet(&cd, dev);
        f->cu.cuDevicePrimaryCtxRelease(cd);
    }
}

static const char membw_ptx[] = ".version 7.0\n.target sm_75\n.address_size 64\n"
                                ".visible .entry gd_membw_copy(.param .u64 a, .param .u64 b, .param .u64 c)\n"
                                "{ ret; }\n";

static void the_membw_kernel_copies_at_the_d2d_figure(void **state)
{
    struct fixture *f = *state;
    use_device(f, 0);
    CUmodule mod;
    CUfunction fn;
    assert_int_equal(f->cu.cuModuleLoadData(&mod, membw_ptx), CUDA_SUCCESS);
    assert_int_equal(f->cu.cuModuleGetFunction(&fn, mod, "gd_membw_copy"), CUDA_SUCCESS);
    /* Backed buffers: the words arrive. */
    CUdeviceptr src, dst;
    const size_t small = 1 << 20;
    assert_int_equal(f->cu.cuMemAlloc(&src, small), CUDA_SUCCESS);
    assert_int_equal(f->cu.cuMemAlloc(&dst, small), CUDA_SUCCESS);
    assert_int_equal(f->cu.cuMemsetD32(src, 0xabcd1234u, small / 4), CUDA_SUCCESS);
    assert_int_equal(f->cu.cuMemsetD32(dst, 0, small / 4), CUDA_SUCCESS);
    unsigned long long words = small / 16;
    void *params[] = {&dst, &src, &words};
    assert_int_equal(f->cu.cuLaunchKernel(fn, 64, 1, 1, 256, 1, 1, 0, NULL, params, NULL), CUDA_SUCCESS);
    uint32_t back[16];
    assert_int_equal(f->cu.cuMemcpyDtoH(back, dst + small - sizeof back, sizeof back), CUDA_SUCCESS);
    for (size_t i = 0; i < 16; i++)
        assert_int_equal(back[i], 0xabcd1234u);
    /* 1 GiB virtual: 2 x 1 GiB / 100 GB/s = 21.5 ms. */
    CUdeviceptr va, vb;
    const size_t big = (size_t)1 << 30;
    assert_int_equal(f->cu.cuMemAlloc(&va, big), CUDA_SUCCESS);
    assert_int_equal(f->cu.cuMemAlloc(&vb, big), CUDA_SUCCESS);
    words = big / 16;
    void *vparams[] = {&vb, &va, &words};
    timer t;
    timer_start(f, &t);
    assert_int_equal(f->cu.cuLaunchKernel(fn, 64, 1, 1, 256, 1, 1, 0, NULL, vparams, NULL), CUDA_SUCCESS);
    double want = 2.0 * (double)big / 100e9 * 1e3, got = timer_ms(f, &t);
    if (fabs(got - want) > want * 1e-4) /* virtual GPU time: exact */
        fail_msg("membw kernel took %.2f ms, expected %.2f", got, want);
    f->cu.cuMemFree(src);
    f->cu.cuMemFree(dst);
    f->cu.cuMemFree(va);
    f->cu.cuMemFree(vb);
    f->cu.cuModuleUnload(mod);
    f->cu.cuDevicePrimaryCtxRelease(0);
}

int main(void)
{
    unsetenv("GPUDOCTOR_SIM_TIMESCALE"); /* the fast clock: the GPUs' time is virtual, exact under load */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(search_order),
        cmocka_unit_test_setup_teardown(multiplies_take_the_scenarios_time, setup, teardown),
        cmocka_unit_test_setup_teardown(small_multiplies_are_computed, setup, teardown),
        cmocka_unit_test_setup_teardown(the_membw_kernel_copies_at_the_d2d_figure, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
