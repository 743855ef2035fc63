/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated libnccl.so.2 across processes: child processes each play
 * one node (its own scenario: two GPUs, four InfiniBand NICs or none), join
 * one communicator through ncclGetUniqueId (child 0) and ncclCommInitRank
 * (every child, one call per GPU in a group), and run all-reduces over the
 * sockets between them. The sum is real, the time follows the slowest
 * node's network rate, a node that never joins or dies mid-run makes the
 * others fail instead of hang. The parent only starts and judges them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "loaders/cuda_loader.h"
#include "loaders/nccl_loader.h"
#include "sim_scenario_file.h"

#define GPUS 2 /* per node */
#define MAX_NODES 4
#define SMALL_FLOATS ((size_t)1 << 18) /* 1 MiB a rank: computed for real */
#define BIG_FLOATS ((size_t)1 << 28) /* 1 GiB a rank: virtual memory, timed only */
#define P2P_GBPS 300.0 /* each node's GPU pair */
#define PORT_GBITS 200.0 /* each NIC's one port */
#define NICS 4

enum mode {
    HEALTHY,
    QUARTER, /* one NIC at a quarter of the rate */
    NO_RDMA, /* no NIC: NCCL's socket transport */
    FAULT, /* GPU 1: faults.nccl_wrong_results */
    ABSENT, /* never joins */
    DIES, /* exits after the first all-reduce */
    MISMATCH, /* posts the large all-reduce with half the count */
    EXAMPLE_IB, /* examples/net-ib-h100x8-healthy.json: 8 x 400 Gb/s InfiniBand */
    EXAMPLE_ETH, /* examples/net-eth-cloud-vm.json: no RDMA device */
    IB_OFF, /* healthy NICs, NCCL_IB_DISABLE=1 */
    HCA_TWO, /* healthy NICs, NCCL_IB_HCA=mlx5_0,mlx5_1 */
};

/* What a child tells the parent. */
struct report {
    int bad_id_rc, init_rc, small_rc, big_rc, async;
    int wrong[GPUS];
    double big_ms;
    double edge_gbps; /* its GPU pair's slowest direction, as the simulated driver gives it */
    char log[256]; /* its NCCL_DEBUG_FILE, when logging */
    int exit_status; /* the parent's: how the child ended (under ASan, 0 means no leak) */
};

/* A node's scenario: hostname nodeK, two GPUs with fast P2P, NICs by mode. */
static void node_json(char *buf, size_t len, int idx, enum mode m)
{
    size_t n = (size_t)snprintf(buf, len, "{ \"host\": { \"hostname\": \"node%d\" }, \"gpus\": [\n", idx);
    for (int g = 0; g < GPUS; g++)
        n += (size_t)snprintf(buf + n, len - n,
                              "{ \"name\": \"NVIDIA H100 80GB HBM3\", \"pci_bus_id\": \"00000000:%02X:00.0\",\n"
                              "  \"memory_total_mib\": 8192, \"p2p\": { \"gbps\": %.0f },\n"
                              "  \"bandwidth_gbps\": { \"h2d_pinned\": 50, \"d2h_pinned\": 50, \"h2d_pageable\": 20, "
                              "\"d2h_pageable\": 20,\n"
                              "  \"d2d\": 2900 }%s }%s\n",
                              0x18 + 0x20 * g, P2P_GBPS,
                              m == FAULT && g == 1 ? ", \"faults\": { \"nccl_wrong_results\": true }" : "",
                              g + 1 < GPUS ? "," : "");
    n += (size_t)snprintf(buf + n, len - n, "], \"nics\": [");
    for (int k = 0; m != NO_RDMA && k < NICS; k++)
        n += (size_t)snprintf(buf + n, len - n,
                              "%s{ \"name\": \"mlx5_%d\", \"ports\": [ { \"port\": 1, \"state\": \"active\",\n"
                              "  \"rate_gbps\": %.0f, \"link_layer\": \"infiniband\" } ] }",
                              k ? "," : "", k, m == QUARTER && k == 0 ? PORT_GBITS / 4 : PORT_GBITS);
    snprintf(buf + n, len - n, "] }\n");
}

/* The node's network rate in GB/s as the simulated NCCL paces it. */
static double node_gbps(enum mode m)
{
    switch (m) {
    case NO_RDMA:
    case EXAMPLE_ETH:
    case IB_OFF: return 25.0 / 8; /* NCCL's socket transport */
    case HCA_TWO: return 2 * PORT_GBITS / 8;
    case QUARTER: return NICS * PORT_GBITS / 4 / 8; /* four ports at the slowest one's rate */
    case EXAMPLE_IB: return 8 * 400.0 / 8;
    default: return NICS * PORT_GBITS / 8;
    }
}

/* The node's scenario file: one of the examples (dir ""), or one written for it. */
static int node_scenario(sim_scenario_file *sc, int idx, enum mode m)
{
    static char json[8192];
    if (m == EXAMPLE_IB || m == EXAMPLE_ETH) {
        sc->dir[0] = '\0';
        snprintf(sc->path, sizeof sc->path, "%s/%s", GD_EXAMPLES_DIR,
                 m == EXAMPLE_IB ? "net-ib-h100x8-healthy.json" : "net-eth-cloud-vm.json");
        return 0;
    }
    node_json(json, sizeof json, idx, m);
    return sim_scenario_write(sc, json);
}

typedef struct node {
    struct gd_cuda_api cu;
    struct gd_nccl_api nc;
    CUcontext ctx[GPUS];
    CUdevice dev[GPUS];
    ncclComm_t comm[GPUS];
} node;

static int node_open(node *x, sim_scenario_file *sc)
{
    char err[1024];
    if (sim_cuda_open(&x->cu, GD_SIM_CUDA_PATH, sc) != 0)
        return -1;
    gd_nccl_search s = {.path = GD_SIM_NCCL_PATH};
    if (gd_nccl_load(&x->nc, &s, err, sizeof err) != 0 || x->cu.cuInit(0) != CUDA_SUCCESS)
        return -1;
    for (int g = 0; g < GPUS; g++)
        if (x->cu.cuDeviceGet(&x->dev[g], g) != CUDA_SUCCESS ||
            x->cu.cuDevicePrimaryCtxRetain(&x->ctx[g], x->dev[g]) != CUDA_SUCCESS)
            return -1;
    return 0;
}

/* One grouped all-reduce of count floats on every local rank (in place
 * where send == recv); its time on GPU 0's stream in *ms. */
static ncclResult_t all_reduce(node *x, CUdeviceptr *send, CUdeviceptr *recv, size_t count, double *ms)
{
    CUevent e0, e1;
    x->cu.cuCtxSetCurrent(x->ctx[0]);
    x->cu.cuEventCreate(&e0, 0);
    x->cu.cuEventCreate(&e1, 0);
    x->cu.cuEventRecord(e0, NULL);
    x->nc.ncclGroupStart();
    for (int g = 0; g < GPUS; g++) {
        x->cu.cuCtxSetCurrent(x->ctx[g]);
        x->nc.ncclAllReduce((const void *)(uintptr_t)send[g], (void *)(uintptr_t)recv[g], count, ncclFloat32, ncclSum,
                            x->comm[g], NULL);
    }
    ncclResult_t rc = x->nc.ncclGroupEnd();
    x->cu.cuCtxSetCurrent(x->ctx[0]);
    x->cu.cuEventRecord(e1, NULL);
    float f = 0;
    x->cu.cuEventElapsedTime(&f, e0, e1);
    *ms = f;
    x->cu.cuEventDestroy(e0);
    x->cu.cuEventDestroy(e1);
    return rc;
}

/* Every rank sends (rank + 1) x (k % 5 + 1); the sum is nranks(nranks+1)/2 x that. */
static void small_all_reduce(node *x, int first_rank, int nranks, struct report *r)
{
    CUdeviceptr send[GPUS], recv[GPUS];
    size_t bytes = SMALL_FLOATS * 4;
    float *host = malloc(bytes);
    for (int g = 0; host && g < GPUS; g++) {
        for (size_t k = 0; k < SMALL_FLOATS; k++)
            host[k] = (float)(first_rank + g + 1) * (float)(k % 5 + 1);
        x->cu.cuCtxSetCurrent(x->ctx[g]);
        x->cu.cuMemAlloc(&send[g], bytes);
        x->cu.cuMemAlloc(&recv[g], bytes);
        x->cu.cuMemcpyHtoD(send[g], host, bytes);
    }
    if (!host)
        return;
    double ms;
    r->small_rc = all_reduce(x, send, recv, SMALL_FLOATS, &ms);
    float sum = (float)(nranks * (nranks + 1) / 2);
    for (int g = 0; g < GPUS; g++) {
        x->cu.cuCtxSetCurrent(x->ctx[g]);
        memset(host, 0, bytes);
        x->cu.cuMemcpyDtoH(host, recv[g], bytes);
        r->wrong[g] = 0;
        for (size_t k = 0; k < SMALL_FLOATS; k++)
            r->wrong[g] += host[k] != sum * (float)(k % 5 + 1);
        x->cu.cuMemFree(send[g]);
        x->cu.cuMemFree(recv[g]);
    }
    free(host);
}

static void big_all_reduce(node *x, enum mode m, struct report *r)
{
    CUdeviceptr buf[GPUS];
    for (int g = 0; g < GPUS; g++) {
        x->cu.cuCtxSetCurrent(x->ctx[g]);
        x->cu.cuMemAlloc(&buf[g], BIG_FLOATS * 4);
    }
    r->big_rc = all_reduce(x, buf, buf, m == MISMATCH ? BIG_FLOATS / 2 : BIG_FLOATS, &r->big_ms);
    for (int g = 0; g < GPUS; g++) {
        x->cu.cuCtxSetCurrent(x->ctx[g]);
        x->cu.cuMemFree(buf[g]);
    }
}

/* Exactly n bytes from fd, or -1. */
static int read_full(int fd, void *buf, size_t n)
{
    for (size_t got = 0; got < n;) {
        ssize_t k = read(fd, (char *)buf + got, n - got);
        if (k <= 0 && !(k < 0 && errno == EINTR))
            return -1;
        got += k > 0 ? (size_t)k : 0;
    }
    return 0;
}

/* A node's life (in the child): no cmocka here, the report says it all. */
static void node_main(int idx, int nodes, enum mode m, int (*id_pipe)[2], int result_fd)
{
    struct report r = {.bad_id_rc = -1, .init_rc = -1, .small_rc = -1, .big_rc = -1, .async = -1};
    sim_scenario_file sc;
    node x = {0};
    alarm(60); /* whatever happens, the child ends */
    if (node_scenario(&sc, idx, m) != 0 || node_open(&x, &sc) != 0)
        _exit(2);
    double (*edge)(int, int, int) = NULL;
    *(void **)&edge = dlsym(x.cu.lib.handle, "gdsim_nccl_edge_gbps");
    r.edge_gbps = edge ? fmin(edge(0, 1, 0), edge(1, 0, 0)) : 0;
    if (m == IB_OFF)
        setenv("NCCL_IB_DISABLE", "1", 1);
    if (m == HCA_TWO)
        setenv("NCCL_IB_HCA", "mlx5_0,mlx5_1", 1);
    if (getenv("NCCL_DEBUG"))
        snprintf(r.log, sizeof r.log, "%s/nccl.log", sc.dir), setenv("NCCL_DEBUG_FILE", r.log, 1);
    ncclUniqueId id = {{0}};
    r.bad_id_rc = x.nc.ncclCommInitRank(&x.comm[0], GPUS * nodes, id, 0); /* not an id the sim made */
    if (idx == 0) {
        if (x.nc.ncclGetUniqueId(&id) != ncclSuccess)
            _exit(3);
        for (int k = 1; k < nodes; k++)
            if (write(id_pipe[k][1], &id, sizeof id) != (ssize_t)sizeof id)
                _exit(3);
    } else if (read_full(id_pipe[idx][0], &id, sizeof id) != 0) {
        _exit(3);
    }
    if (m == ABSENT)
        pause(); /* the parent ends it */
    x.nc.ncclGroupStart();
    for (int g = 0; g < GPUS; g++) {
        x.cu.cuCtxSetCurrent(x.ctx[g]);
        x.nc.ncclCommInitRank(&x.comm[g], GPUS * nodes, id, idx * GPUS + g);
    }
    r.init_rc = x.nc.ncclGroupEnd();
    if (r.init_rc == ncclSuccess) {
        small_all_reduce(&x, idx * GPUS, GPUS * nodes, &r);
        if (m == DIES)
            _exit(0);
        big_all_reduce(&x, m, &r);
    }
    ncclResult_t async = ncclSuccess;
    x.nc.ncclCommGetAsyncError(x.comm[0], &async);
    r.async = async;
    for (int g = 0; g < GPUS; g++)
        x.nc.ncclCommDestroy(x.comm[g]);
    int bad = write(result_fd, &r, sizeof r) != (ssize_t)sizeof r;
    if (!r.log[0] && sc.dir[0])
        sim_scenario_remove(&sc);
    for (int g = 0; g < GPUS; g++)
        x.cu.cuDevicePrimaryCtxRelease(x.dev[g]);
    gd_nccl_unload(&x.nc);
    gd_cuda_unload(&x.cu);
    exit(bad); /* not _exit: LeakSanitizer checks the node's end under ASan */
}

/* Runs one node per mode in its own process; their reports, in node order
 * (init_rc -1: the node said nothing). Returns the seconds it took. */
static double run_nodes(int nodes, const enum mode *modes, struct report *out)
{
    int id_pipe[MAX_NODES][2], res_pipe[MAX_NODES][2];
    pid_t pid[MAX_NODES];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < nodes; i++)
        assert_int_equal(pipe(id_pipe[i]) | pipe(res_pipe[i]), 0);
    fflush(NULL); /* the children's exit must not write the parent's output again */
    for (int i = 0; i < nodes; i++) {
        pid[i] = fork();
        assert_true(pid[i] >= 0);
        if (pid[i] == 0)
            node_main(i, nodes, modes[i], id_pipe, res_pipe[i][1]);
    }
    for (int i = 0; i < nodes; i++) {
        close(id_pipe[i][0]);
        close(id_pipe[i][1]);
        close(res_pipe[i][1]);
    }
    alarm(90); /* bounded: a hang fails the test */
    for (int i = 0; i < nodes; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].init_rc = -1;
        if (modes[i] != ABSENT && read_full(res_pipe[i][0], &out[i], sizeof out[i]) != 0)
            out[i].init_rc = -1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (int i = 0; i < nodes; i++) {
        if (modes[i] == ABSENT)
            kill(pid[i], SIGKILL);
        int status = -1;
        waitpid(pid[i], &status, 0);
        out[i].exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        close(res_pipe[i][0]);
    }
    alarm(0);
    return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

/* The bus bandwidth the big all-reduce's time gives (nccl-tests' formula). */
static double busbw_of(const struct report *r, int nranks)
{
    double bytes = (double)BIG_FLOATS * 4;
    return bytes * 2.0 * (nranks - 1) / nranks / (r->big_ms / 1e3) / 1e9;
}

/* Every node joined, summed right and ran at 0.85 x the slowest of its
 * GPU pair and every node's network. */
static void expect_paced(int nodes, const enum mode *modes, const struct report *r)
{
    double slowest = INFINITY;
    for (int i = 0; i < nodes; i++)
        slowest = fmin(slowest, fmin(r[i].edge_gbps, nodes > 1 ? node_gbps(modes[i]) : INFINITY));
    for (int i = 0; i < nodes; i++) {
        assert_int_equal(r[i].exit_status, 0);
        assert_int_equal(r[i].bad_id_rc, ncclInvalidArgument);
        assert_int_equal(r[i].init_rc, ncclSuccess);
        assert_int_equal(r[i].small_rc, ncclSuccess);
        assert_int_equal(r[i].big_rc, ncclSuccess);
        assert_int_equal(r[i].async, ncclSuccess);
        for (int g = 0; g < GPUS; g++)
            assert_int_equal(r[i].wrong[g], modes[i] == FAULT && g == 1 ? 1 : 0);
        double busbw = busbw_of(&r[i], nodes * GPUS);
        assert_true(fabs(busbw - 0.85 * slowest) < 1e-3 * busbw);
    }
}

static void four_healthy_nodes(void **state)
{
    (void)state;
    enum mode m[] = {HEALTHY, HEALTHY, HEALTHY, HEALTHY};
    struct report r[4];
    run_nodes(4, m, r);
    expect_paced(4, m, r); /* 0.85 x min(300, 4 x 200 / 8 = 100) */
}

/* One process with every rank: no network, the GPU pair's pace. */
static void one_node_alone(void **state)
{
    (void)state;
    enum mode m[] = {HEALTHY};
    struct report r[1];
    run_nodes(1, m, r);
    expect_paced(1, m, r);
}

static void quarter_rate_nic_slows_all(void **state)
{
    (void)state;
    enum mode m[] = {HEALTHY, HEALTHY, QUARTER, HEALTHY};
    struct report r[4];
    run_nodes(4, m, r);
    expect_paced(4, m, r); /* 0.85 x 4 x 50 / 8 on every node */
}

static void no_rdma_node_at_socket_rate(void **state)
{
    (void)state;
    enum mode m[] = {HEALTHY, NO_RDMA};
    struct report r[2];
    run_nodes(2, m, r);
    expect_paced(2, m, r); /* 0.85 x 25 Gb/s */
}

static void wrong_results_on_one_node(void **state)
{
    (void)state;
    enum mode m[] = {HEALTHY, FAULT};
    struct report r[2];
    run_nodes(2, m, r);
    expect_paced(2, m, r); /* node 1's GPU 1 alone has a wrong element */
}

static void absent_node_times_out(void **state)
{
    (void)state;
    enum mode m[] = {HEALTHY, HEALTHY, ABSENT};
    struct report r[3];
    setenv("GDSIM_NCCL_TIMEOUT_S", "2", 1);
    double s = run_nodes(3, m, r);
    unsetenv("GDSIM_NCCL_TIMEOUT_S");
    for (int i = 0; i < 2; i++) {
        assert_int_equal(r[i].exit_status, 0);
        assert_int_equal(r[i].init_rc, ncclSystemError);
        assert_int_equal(r[i].async, ncclSystemError);
    }
    assert_true(s >= 2.0 && s < 30.0);
}

static void node_dies_mid_run(void **state)
{
    (void)state;
    enum mode m[] = {HEALTHY, HEALTHY, DIES, HEALTHY};
    struct report r[4];
    run_nodes(4, m, r);
    for (int i = 0; i < 4; i++) {
        if (i == 2)
            continue;
        assert_int_equal(r[i].exit_status, 0);
        assert_int_equal(r[i].init_rc, ncclSuccess);
        assert_int_equal(r[i].small_rc, ncclSuccess);
        assert_int_equal(r[i].big_rc, ncclRemoteError);
        assert_int_equal(r[i].async, ncclRemoteError);
    }
}

/* The examples' nodes: eight 400 Gb/s ports against a cloud VM without RDMA. */
static void example_nodes(void **state)
{
    (void)state;
    enum mode ib[] = {EXAMPLE_IB, EXAMPLE_IB}, mixed[] = {EXAMPLE_IB, EXAMPLE_ETH};
    struct report r[2];
    run_nodes(2, ib, r);
    expect_paced(2, ib, r); /* the GPU pair's NVLink or the network's 400 GB/s, the slower */
    assert_true(r[0].edge_gbps > 0);
    run_nodes(2, mixed, r);
    expect_paced(2, mixed, r); /* the socket transport's 25 Gb/s */
}

/* The ports NCCL's environment leaves a node, as its INFO log lists them. */
static void environment_selects_ports(void **state)
{
    (void)state;
    enum mode off[] = {HEALTHY, IB_OFF}, two[] = {HCA_TWO, HEALTHY};
    struct report r[2];
    run_nodes(2, off, r);
    expect_paced(2, off, r); /* NCCL_IB_DISABLE=1: the socket transport */
    run_nodes(2, two, r);
    expect_paced(2, two, r); /* two ports of four: 2 x 200 / 8 */
}

/* A node that posts another collective: every node refuses it, and the ring goes on. */
static void mismatch_refused_everywhere(void **state)
{
    (void)state;
    enum mode m[] = {HEALTHY, MISMATCH, HEALTHY};
    struct report r[3];
    run_nodes(3, m, r);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(r[i].exit_status, 0);
        assert_int_equal(r[i].small_rc, ncclSuccess);
        assert_int_equal(r[i].wrong[0] + r[i].wrong[1], 0);
        assert_int_equal(r[i].big_rc, ncclInvalidUsage);
        assert_int_equal(r[i].async, ncclSuccess);
    }
}

/* With NCCL_DEBUG=INFO each node says its network and its ranks' Init COMPLETE. */
static void info_log_per_node(void **state)
{
    (void)state;
    enum mode m[] = {HEALTHY, NO_RDMA};
    struct report r[2];
    setenv("NCCL_DEBUG", "INFO", 1);
    run_nodes(2, m, r);
    unsetenv("NCCL_DEBUG");
    for (int i = 0; i < 2; i++) {
        assert_int_equal(r[i].init_rc, ncclSuccess);
        FILE *f = fopen(r[i].log, "r");
        assert_non_null(f);
        static char text[65536];
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
        assert_non_null(
            strstr(text, i == 0 ? "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB" : "NCCL INFO NET/Socket : Using"));
        char want[64];
        for (int g = 0; g < GPUS; g++) {
            snprintf(want, sizeof want, "rank %d nranks %d cudaDev %d", i * GPUS + g, 2 * GPUS, g);
            assert_non_null(strstr(text, want));
        }
        assert_non_null(strstr(text, "Init COMPLETE"));
        /* The version line: rank 0's process only, as NCCL writes it. */
        assert_true((strstr(text, "NCCL version ") != NULL) == (i == 0));
        char *slash = strrchr(r[i].log, '/');
        unlink(r[i].log);
        *slash = '\0';
        sim_scenario_file sc;
        snprintf(sc.dir, sizeof sc.dir, "%s", r[i].log);
        snprintf(sc.path, sizeof sc.path, "%s/scenario.json", sc.dir);
        sim_scenario_remove(&sc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_node_alone),
        cmocka_unit_test(four_healthy_nodes),
        cmocka_unit_test(quarter_rate_nic_slows_all),
        cmocka_unit_test(no_rdma_node_at_socket_rate),
        cmocka_unit_test(wrong_results_on_one_node),
        cmocka_unit_test(absent_node_times_out),
        cmocka_unit_test(node_dies_mid_run),
        cmocka_unit_test(example_nodes),
        cmocka_unit_test(environment_selects_ports),
        cmocka_unit_test(mismatch_refused_everywhere),
        cmocka_unit_test(info_log_per_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
