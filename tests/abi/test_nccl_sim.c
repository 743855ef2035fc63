/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NCCL loader's search order, and the simulated libnccl.so.2 driven
 * through it on the simulated libcuda: collectives over every rank take the
 * time the ring's slowest edge implies (nccl-tests' bus bandwidth, inverted),
 * small ones really reduce or gather the data (one element wrong under
 * faults.nccl_wrong_results), NCCL_P2P_DISABLE stages the ring through host
 * memory, and misuse fails as NCCL would refuse it.
 */
#include <dlfcn.h>
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

#include "loaders/cuda_loader.h"
#include "loaders/nccl_loader.h"
#include "sim_scenario_file.h"

#define RANKS 3
#define FLOATS ((size_t)1 << 16)

/* Three GPUs on PCIe; GPU 2 returns a wrong element. */
static const char scenario_json[] =
    "{ \"gpus\": [\n"
    "  { \"name\": \"NVIDIA A100-PCIE-40GB\", \"pci_bus_id\": \"00000000:1B:00.0\", \"memory_total_mib\": 8192,\n"
    "    \"bandwidth_gbps\": { \"h2d_pinned\": 24, \"d2h_pinned\": 25, \"h2d_pageable\": 10, \"d2d\": 1500 } },\n"
    "  { \"name\": \"NVIDIA A100-PCIE-40GB\", \"pci_bus_id\": \"00000000:2A:00.0\", \"memory_total_mib\": 8192,\n"
    "    \"bandwidth_gbps\": { \"h2d_pinned\": 20, \"d2h_pinned\": 21, \"h2d_pageable\": 10, \"d2d\": 1500 } },\n"
    "  { \"name\": \"NVIDIA A100-PCIE-40GB\", \"pci_bus_id\": \"00000000:3A:00.0\", \"memory_total_mib\": 8192,\n"
    "    \"bandwidth_gbps\": { \"h2d_pinned\": 24, \"d2h_pinned\": 25, \"h2d_pageable\": 10, \"d2d\": 1500 },\n"
    "    \"faults\": { \"nccl_wrong_results\": true } } ] }\n";

typedef double (*edge_fn)(int a, int b, int p2p_disabled);

struct fixture {
    sim_scenario_file sc;
    struct gd_cuda_api cu;
    struct gd_nccl_api nc;
    CUcontext ctx[RANKS];
    CUdevice dev[RANKS];
    edge_fn edge;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    char err[1024];
    if (sim_scenario_write(&f->sc, scenario_json) != 0 || sim_cuda_open(&f->cu, GD_SIM_CUDA_PATH, &f->sc) != 0)
        return -1;
    gd_nccl_search s = {.path = GD_SIM_NCCL_PATH};
    if (gd_nccl_load(&f->nc, &s, err, sizeof err) != 0 || f->cu.cuInit(0) != CUDA_SUCCESS) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    /* The rate of a ring edge, as the simulated driver gives it to the simulated NCCL. */
    *(void **)&f->edge = dlsym(f->cu.lib.handle, "gdsim_nccl_edge_gbps");
    for (int i = 0; i < RANKS; i++)
        if (f->cu.cuDeviceGet(&f->dev[i], i) != CUDA_SUCCESS ||
            f->cu.cuDevicePrimaryCtxRetain(&f->ctx[i], f->dev[i]) != CUDA_SUCCESS)
            return -1;
    *state = f;
    return f->edge ? 0 : -1;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    for (int i = 0; i < RANKS; i++)
        f->cu.cuDevicePrimaryCtxRelease(f->dev[i]);
    gd_nccl_unload(&f->nc);
    gd_cuda_unload(&f->cu);
    sim_scenario_remove(&f->sc);
    free(f);
    return 0;
}

static void search_order(void **state)
{
    (void)state;
    char buf[GD_NCCL_MAX_CANDIDATES][512];
    gd_nccl_search only = {.path = "/opt/x/libnccl.so.2"};
    assert_int_equal(gd_nccl_candidates(&only, buf, GD_NCCL_MAX_CANDIDATES), 1);
    assert_string_equal(buf[0], "/opt/x/libnccl.so.2");
    const char *sites[] = {"/venv/lib/python3.11/site-packages", "", "/usr/lib/python3/dist-packages"};
    gd_nccl_search s = {.site_packages = sites, .site_count = 3, .toolkit = "/opt/cuda-12.4"};
    size_t n = gd_nccl_candidates(&s, buf, GD_NCCL_MAX_CANDIDATES);
    /* Each environment's wheel, then the loader's path, then the toolkits. */
    assert_string_equal(buf[0], "/venv/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2");
    assert_string_equal(buf[1], "/usr/lib/python3/dist-packages/nvidia/nccl/lib/libnccl.so.2");
    assert_string_equal(buf[2], "libnccl.so.2");
    assert_string_equal(buf[3], "/opt/cuda-12.4/lib64/libnccl.so.2");
    bool usr_local = false;
    for (size_t i = 4; i < n; i++)
        usr_local |= strcmp(buf[i], "/usr/local/cuda/lib64/libnccl.so.2") == 0;
    assert_true(usr_local);
    /* Nothing found: the message names what was tried. */
    struct gd_nccl_api api;
    char err[1024];
    gd_nccl_search none = {.path = "/nonexistent/libnccl.so.2"};
    assert_int_equal(gd_nccl_load(&api, &none, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "/nonexistent/libnccl.so.2"));
    assert_null(api.ncclAllReduce);
}

static void set_device(struct fixture *f, int i)
{
    assert_int_equal(f->cu.cuCtxSetCurrent(f->ctx[i]), CUDA_SUCCESS);
}

/* The ring's bus bandwidth as the simulated NCCL derives it. */
static double ring_busbw(struct fixture *f, int p2p_disabled)
{
    double slowest = INFINITY;
    for (int i = 0; i < RANKS; i++)
        slowest = fmin(slowest, f->edge(i, (i + 1) % RANKS, p2p_disabled));
    return 0.85 * slowest;
}

typedef struct bufs {
    CUdeviceptr send[RANKS], recv[RANKS];
} bufs;

static void alloc_bufs(struct fixture *f, bufs *b, size_t send_bytes, size_t recv_bytes)
{
    float *host = malloc(send_bytes);
    assert_non_null(host);
    for (int i = 0; i < RANKS; i++) {
        for (size_t k = 0; k < send_bytes / 4; k++)
            host[k] = (float)(i + 1) * (float)(k % 5 + 1);
        set_device(f, i);
        assert_int_equal(f->cu.cuMemAlloc(&b->send[i], send_bytes), CUDA_SUCCESS);
        assert_int_equal(f->cu.cuMemAlloc(&b->recv[i], recv_bytes), CUDA_SUCCESS);
        assert_int_equal(f->cu.cuMemcpyHtoD(b->send[i], host, send_bytes), CUDA_SUCCESS);
    }
    free(host);
}

static void free_bufs(struct fixture *f, bufs *b)
{
    for (int i = 0; i < RANKS; i++) {
        set_device(f, i);
        f->cu.cuMemFree(b->send[i]);
        f->cu.cuMemFree(b->recv[i]);
    }
}

/* Elapsed ms of one grouped collective on every rank (events on rank 0). */
static float grouped(struct fixture *f, ncclComm_t *comms, bufs *b, bool gather, size_t count)
{
    CUevent e0, e1;
    set_device(f, 0);
    assert_int_equal(f->cu.cuEventCreate(&e0, 0), CUDA_SUCCESS);
    assert_int_equal(f->cu.cuEventCreate(&e1, 0), CUDA_SUCCESS);
    assert_int_equal(f->cu.cuEventRecord(e0, NULL), CUDA_SUCCESS);
    assert_int_equal(f->nc.ncclGroupStart(), ncclSuccess);
    for (int i = 0; i < RANKS; i++) {
        const void *s = (const void *)(uintptr_t)b->send[i];
        void *r = (void *)(uintptr_t)b->recv[i];
        ncclResult_t rc = gather ? f->nc.ncclAllGather(s, r, count, ncclFloat32, comms[i], NULL)
                                 : f->nc.ncclAllReduce(s, r, count, ncclFloat32, ncclSum, comms[i], NULL);
        assert_int_equal(rc, ncclSuccess);
    }
    assert_int_equal(f->nc.ncclGroupEnd(), ncclSuccess);
    set_device(f, 0);
    assert_int_equal(f->cu.cuEventRecord(e1, NULL), CUDA_SUCCESS);
    float ms = 0;
    assert_int_equal(f->cu.cuEventElapsedTime(&ms, e0, e1), CUDA_SUCCESS);
    f->cu.cuEventDestroy(e0);
    f->cu.cuEventDestroy(e1);
    return ms;
}

static void init_all(struct fixture *f, ncclComm_t *comms)
{
    int version = 0;
    assert_int_equal(f->nc.ncclGetVersion(&version), ncclSuccess);
    assert_int_equal(version, 22203);
    assert_int_equal(f->nc.ncclCommInitAll(comms, RANKS, NULL), ncclSuccess);
}

static void destroy_all(struct fixture *f, ncclComm_t *comms)
{
    for (int i = 0; i < RANKS; i++)
        assert_int_equal(f->nc.ncclCommDestroy(comms[i]), ncclSuccess);
}

static void all_reduce(void **state)
{
    struct fixture *f = *state;
    ncclComm_t comms[RANKS];
    init_all(f, comms);
    bufs b;
    size_t bytes = FLOATS * 4;
    alloc_bufs(f, &b, bytes, bytes);
    float ms = grouped(f, comms, &b, false, FLOATS);
    /* bytes x 2(n-1)/n at the ring's bus bandwidth. */
    double want_ms = (double)bytes * 2.0 * (RANKS - 1) / RANKS / (ring_busbw(f, 0) * 1e9) * 1e3;
    assert_true(want_ms > 0);
    assert_true(fabs(ms - want_ms) < 1e-3 * want_ms);
    float *host = malloc(bytes);
    assert_non_null(host);
    for (int i = 0; i < RANKS; i++) {
        set_device(f, i);
        assert_int_equal(f->cu.cuMemcpyDtoH(host, b.recv[i], bytes), CUDA_SUCCESS);
        size_t wrong = 0;
        for (size_t k = 0; k < FLOATS; k++)
            wrong += host[k] != 6.0f * (float)(k % 5 + 1); /* (1 + 2 + 3) x the element's factor */
        assert_int_equal(wrong, i == 2 ? 1 : 0); /* GPU 2: faults.nccl_wrong_results */
        ncclResult_t async = ncclInternalError;
        assert_int_equal(f->nc.ncclCommGetAsyncError(comms[i], &async), ncclSuccess);
        assert_int_equal(async, ncclSuccess);
    }
    free(host);
    free_bufs(f, &b);
    destroy_all(f, comms);
}

static void all_gather(void **state)
{
    struct fixture *f = *state;
    ncclComm_t comms[RANKS];
    init_all(f, comms);
    bufs b;
    size_t share = FLOATS * 4;
    alloc_bufs(f, &b, share, share * RANKS);
    float ms = grouped(f, comms, &b, true, FLOATS);
    /* nccl-tests' size is what each rank receives: x (n-1)/n. */
    double want_ms = (double)(share * RANKS) * (RANKS - 1) / RANKS / (ring_busbw(f, 0) * 1e9) * 1e3;
    assert_true(fabs(ms - want_ms) < 1e-3 * want_ms);
    float *host = malloc(share * RANKS);
    assert_non_null(host);
    set_device(f, 1);
    assert_int_equal(f->cu.cuMemcpyDtoH(host, b.recv[1], share * RANKS), CUDA_SUCCESS);
    for (int r = 0; r < RANKS; r++)
        for (size_t k = 0; k < FLOATS; k += 997)
            assert_true(host[(size_t)r * FLOATS + k] == (float)(r + 1) * (float)(k % 5 + 1));
    free(host);
    free_bufs(f, &b);
    destroy_all(f, comms);
}

/* NCCL_P2P_DISABLE=1 at init: every edge through host memory. */
static void p2p_disabled(void **state)
{
    struct fixture *f = *state;
    ncclComm_t comms[RANKS];
    setenv("NCCL_P2P_DISABLE", "1", 1);
    init_all(f, comms);
    unsetenv("NCCL_P2P_DISABLE");
    bufs b;
    size_t bytes = FLOATS * 4;
    alloc_bufs(f, &b, bytes, bytes);
    float ms = grouped(f, comms, &b, false, FLOATS);
    double staged = ring_busbw(f, 1), direct = ring_busbw(f, 0);
    assert_true(staged > 0 && staged < direct);
    double want_ms = (double)bytes * 2.0 * (RANKS - 1) / RANKS / (staged * 1e9) * 1e3;
    assert_true(fabs(ms - want_ms) < 1e-3 * want_ms);
    free_bufs(f, &b);
    destroy_all(f, comms);
}

static void misuse(void **state)
{
    struct fixture *f = *state;
    ncclComm_t comms[RANKS];
    init_all(f, comms);
    bufs b;
    alloc_bufs(f, &b, 4096, 4096 * RANKS);
    const void *s = (const void *)(uintptr_t)b.send[0];
    void *r = (void *)(uintptr_t)b.recv[0];
    /* Two ranks of three: the real NCCL would hang; the simulated one refuses. */
    assert_int_equal(f->nc.ncclGroupStart(), ncclSuccess);
    assert_int_equal(f->nc.ncclAllReduce(s, r, 16, ncclFloat32, ncclSum, comms[0], NULL), ncclSuccess);
    assert_int_equal(f->nc.ncclAllReduce(s, r, 16, ncclFloat32, ncclSum, comms[1], NULL), ncclSuccess);
    assert_int_equal(f->nc.ncclGroupEnd(), ncclInvalidUsage);
    /* Ranks that disagree on the count. */
    assert_int_equal(f->nc.ncclGroupStart(), ncclSuccess);
    assert_int_equal(f->nc.ncclAllReduce(s, r, 16, ncclFloat32, ncclSum, comms[0], NULL), ncclSuccess);
    assert_int_equal(f->nc.ncclAllReduce(s, r, 32, ncclFloat32, ncclSum, comms[1], NULL), ncclInvalidUsage);
    assert_int_equal(f->nc.ncclGroupEnd(), ncclInvalidUsage);
    /* A type the simulation does not reduce, and an end without a start. */
    assert_int_equal(f->nc.ncclAllReduce(s, r, 16, (ncclDataType_t)8, ncclSum, comms[0], NULL), ncclInvalidArgument);
    assert_int_equal(f->nc.ncclGroupEnd(), ncclInvalidUsage);
    assert_string_equal(f->nc.ncclGetErrorString(ncclInvalidUsage), "invalid usage");
    /* A device the machine does not have. */
    ncclComm_t one;
    int bad = 7;
    assert_int_equal(f->nc.ncclCommInitAll(&one, 1, &bad), ncclInvalidArgument);
    free_bufs(f, &b);
    for (int i = 0; i < RANKS; i++)
        assert_int_equal(f->nc.ncclCommAbort(comms[i]), ncclSuccess);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(search_order),
        cmocka_unit_test_setup_teardown(all_reduce, setup, teardown),
        cmocka_unit_test_setup_teardown(all_gather, setup, teardown),
        cmocka_unit_test_setup_teardown(p2p_disabled, setup, teardown),
        cmocka_unit_test_setup_teardown(misuse, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
