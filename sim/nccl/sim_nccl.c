/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated libnccl.so.2 (docs/scenarios.md): the NCCL calls of
 * `gpudoctor bench nccl`, on the simulated libcuda.
 *
 * Conventions, which the benchmark relies on:
 *  - ncclCommInitAll makes one communicator per listed device, a ring in
 *    list order. Its bus bandwidth is 0.85 x the slowest ring edge, each
 *    edge at the scenario's rate for the pair (gdsim_nccl_edge_gbps: peer to
 *    peer where the pair allows it, else staged through host memory, as
 *    NCCL's SHM transport does). NCCL_P2P_DISABLE=1 or NCCL_P2P_LEVEL=LOC in
 *    the environment at init stages every edge through the host, as they make
 *    the real NCCL do. A ring without a rate fails the init (ncclSystemError).
 *  - Collectives (ncclAllReduce with ncclSum, ncclAllGather; float32 or
 *    int8) queue per communicator; once every rank of the clique has posted
 *    one, outside a group or at the outermost ncclGroupEnd, it runs: an
 *    all-reduce of B bytes takes B x 2(n-1)/n / busbw seconds of the calling
 *    thread's stream time, an all-gather of B bytes received per rank
 *    B x (n-1)/n / busbw (nccl-tests' bus bandwidth, inverted), through
 *    gdsim_device_busy (virtual under the fast clock, a paced sleep
 *    otherwise). A group that ends with a collective some ranks did not post
 *    fails with ncclInvalidUsage (the real NCCL would hang).
 *  - With NCCL_DEBUG=INFO, ncclCommInitAll writes the INFO lines the real
 *    NCCL writes for its choices (sim_nccl_log.c).
 *  - When every rank's buffers have real memory in the simulated driver and
 *    a rank's share is small (up to HOST_COMPUTE_MAX bytes), the data is
 *    really reduced or gathered, so that the benchmark's check is real;
 *    faults.nccl_wrong_results then changes one element of that GPU's result.
 */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpudoctor/abi/nccl_api.h"
#include "sim_nccl_log.h"
#include "sim_private.h"

/* The simulated driver's API, which this library calls as NCCL calls the
 * CUDA runtime's. */
#define GD_CUDA_SYMBOL(t, sym) __typeof__(*(t)0) sym;
#include "gpudoctor/abi/cuda_symbols.h"
#undef GD_CUDA_SYMBOL

/* Every export, declared with the type of its nccl_api.h typedef. */
#define GD_NCCL_SYMBOL(t, sym) SIM_API __typeof__(*(t)0) sym;
#include "gpudoctor/abi/nccl_symbols.h"
#undef GD_NCCL_SYMBOL

#define MAGIC_COMM 0x6e63636cu
#define MAX_RANKS 64
#define MAX_QUEUE 64
#define MAX_CLIQUES 16
#define HOST_COMPUTE_MAX ((size_t)8 << 20)
#define RING_EFFICIENCY 0.85

enum op_kind { OP_ALL_REDUCE, OP_ALL_GATHER };

struct op {
    enum op_kind kind;
    const void *send;
    void *recv;
    size_t count; /* all-reduce: elements; all-gather: elements sent per rank */
    ncclDataType_t type;
};

struct clique {
    int nranks, live;
    int devices[MAX_RANKS];
    double busbw_gbps;
    struct op ops[MAX_QUEUE][MAX_RANKS]; /* ring buffer of steps */
    unsigned posted[MAX_RANKS]; /* steps each rank posted */
    unsigned done; /* steps run */
};

struct ncclComm {
    uint32_t magic;
    int rank;
    struct clique *clique;
};

/* The process's cliques (NCCL's own state is process-wide too). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct clique *cliques[MAX_CLIQUES];
static _Thread_local int group_depth;
static _Thread_local bool group_failed;

ncclResult_t ncclGetVersion(int *version)
{
    if (!version)
        return ncclInvalidArgument;
    *version = 22203; /* NCCL 2.22.3, the nccl.h of nccl_api.h */
    return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t result)
{
    switch (result) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error";
    case ncclSystemError: return "unhandled system error";
    case ncclInternalError: return "internal error";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
    }
}

/* NCCL_P2P_DISABLE=1 or NCCL_P2P_LEVEL=LOC: NCCL uses no peer-to-peer path. */
static bool p2p_disabled(void)
{
    const char *d = getenv("NCCL_P2P_DISABLE"), *l = getenv("NCCL_P2P_LEVEL");
    return (d && atoi(d) != 0) || (l && strcasecmp(l, "LOC") == 0);
}

ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist)
{
    int count = 0;
    if (!comm || ndev < 1 || ndev > MAX_RANKS)
        return ncclInvalidArgument;
    if (cuDeviceGetCount(&count) != CUDA_SUCCESS)
        return ncclUnhandledCudaError;
    struct clique *c = calloc(1, sizeof *c);
    if (!c)
        return ncclSystemError;
    c->nranks = c->live = ndev;
    for (int r = 0; r < ndev; r++) {
        c->devices[r] = devlist ? devlist[r] : r;
        if (c->devices[r] < 0 || c->devices[r] >= count) {
            free(c);
            return ncclInvalidArgument;
        }
    }
    /* The ring's slowest edge sets every rank's pace. */
    bool off = p2p_disabled();
    double slowest = INFINITY;
    for (int r = 0; ndev > 1 && r < ndev; r++)
        slowest = fmin(slowest, gdsim_nccl_edge_gbps(c->devices[r], c->devices[(r + 1) % ndev], off));
    c->busbw_gbps = ndev > 1 ? RING_EFFICIENCY * slowest : INFINITY;
    if (!(c->busbw_gbps > 0)) {
        free(c);
        return ncclSystemError;
    }
    pthread_mutex_lock(&lock);
    size_t slot = 0;
    while (slot < MAX_CLIQUES && cliques[slot])
        slot++;
    if (slot < MAX_CLIQUES)
        cliques[slot] = c;
    pthread_mutex_unlock(&lock);
    if (slot == MAX_CLIQUES) {
        free(c);
        return ncclSystemError;
    }
    for (int r = 0; r < ndev; r++) {
        comm[r] = calloc(1, sizeof *comm[r]);
        if (comm[r])
            *comm[r] = (struct ncclComm){MAGIC_COMM, r, c};
    }
    for (int r = 0; r < ndev; r++)
        if (!comm[r]) {
            for (int k = 0; k < ndev; k++)
                if (comm[k])
                    ncclCommDestroy(comm[k]);
            return ncclSystemError;
        }
    gdsim_nccl_log_init((const void *const *)comm, ndev, c->devices, off);
    return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    if (!comm || comm->magic != MAGIC_COMM)
        return ncclInvalidArgument;
    struct clique *c = comm->clique;
    comm->magic = 0;
    free(comm);
    pthread_mutex_lock(&lock);
    if (--c->live == 0) {
        for (size_t i = 0; i < MAX_CLIQUES; i++)
            if (cliques[i] == c)
                cliques[i] = NULL;
        free(c);
    }
    pthread_mutex_unlock(&lock);
    return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm)
{
    return ncclCommDestroy(comm);
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
    if (!comm || comm->magic != MAGIC_COMM || !asyncError)
        return ncclInvalidArgument;
    *asyncError = ncclSuccess;
    return ncclSuccess;
}

static size_t type_size(ncclDataType_t t)
{
    return t == ncclFloat32 ? 4 : 1;
}

/* Whether the fault is set on a device, asked with its primary context
 * current (the caller's is put back). */
static bool device_fault(int device)
{
    CUcontext saved = NULL, ctx = NULL;
    CUdevice dev;
    bool on = false;
    cuCtxGetCurrent(&saved);
    if (cuDeviceGet(&dev, device) == CUDA_SUCCESS && cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS) {
        if (cuCtxSetCurrent(ctx) == CUDA_SUCCESS)
            on = gdsim_fault("nccl_wrong_results") != 0;
        cuDevicePrimaryCtxRelease(dev);
    }
    cuCtxSetCurrent(saved);
    return on;
}

/* The data of one step on the host, when every buffer has real memory. */
static void compute(const struct clique *c, const struct op *step)
{
    const struct op *o0 = &step[0];
    size_t es = type_size(o0->type), share = o0->count * es;
    size_t out_bytes = o0->kind == OP_ALL_REDUCE ? share : share * (size_t)c->nranks;
    if (share > HOST_COMPUTE_MAX || share == 0)
        return;
    const void *in[MAX_RANKS];
    void *out[MAX_RANKS];
    for (int r = 0; r < c->nranks; r++) {
        in[r] = gdsim_device_memory((CUdeviceptr)(uintptr_t)step[r].send, share);
        out[r] = gdsim_device_memory((CUdeviceptr)(uintptr_t)step[r].recv, out_bytes);
        if (!in[r] || !out[r])
            return;
    }
    unsigned char *result = calloc(1, out_bytes);
    if (!result)
        return;
    if (o0->kind == OP_ALL_GATHER) {
        for (int r = 0; r < c->nranks; r++)
            memcpy(result + (size_t)r * share, in[r], share);
    } else if (o0->type == ncclFloat32) {
        float *sum = (float *)result;
        for (int r = 0; r < c->nranks; r++)
            for (size_t i = 0; i < o0->count; i++)
                sum[i] += ((const float *)in[r])[i];
    } else {
        for (int r = 0; r < c->nranks; r++)
            for (size_t i = 0; i < o0->count; i++)
                result[i] = (unsigned char)(result[i] + ((const unsigned char *)in[r])[i]);
    }
    for (int r = 0; r < c->nranks; r++) {
        memcpy(out[r], result, out_bytes);
        if (device_fault(c->devices[r]))
            ((unsigned char *)out[r])[out_bytes / 2] ^= 0x40;
    }
    free(result);
}

/* Runs every step that all ranks have posted. */
static void run_ready(struct clique *c)
{
    for (;;) {
        for (int r = 0; r < c->nranks; r++)
            if (c->posted[r] <= c->done)
                return;
        struct op *step = c->ops[c->done % MAX_QUEUE];
        compute(c, step);
        int n = c->nranks;
        double bytes = (double)step[0].count * (double)type_size(step[0].type);
        double factor = step[0].kind == OP_ALL_REDUCE ? 2.0 * (n - 1) / n : (double)(n - 1); /* x B/n x n */
        if (n > 1)
            gdsim_device_busy(bytes * factor / (c->busbw_gbps * 1e9));
        c->done++;
    }
}

/* Steps some ranks posted and others did not, dropped; true if any. */
static bool drop_partial(struct clique *c)
{
    bool any = false;
    for (int r = 0; r < c->nranks; r++)
        if (c->posted[r] > c->done) {
            any = true;
            c->posted[r] = c->done;
        }
    return any;
}

static ncclResult_t post(ncclComm_t comm, struct op o)
{
    if (!comm || comm->magic != MAGIC_COMM)
        return ncclInvalidArgument;
    if ((o.type != ncclFloat32 && o.type != ncclInt8) || (o.count && (!o.send || !o.recv)))
        return ncclInvalidArgument;
    struct clique *c = comm->clique;
    ncclResult_t rc = ncclSuccess;
    pthread_mutex_lock(&lock);
    unsigned k = c->posted[comm->rank];
    if (k - c->done >= MAX_QUEUE) {
        rc = ncclInvalidUsage;
    } else {
        const struct op *first = &c->ops[k % MAX_QUEUE][0];
        bool others = false;
        for (int r = 0; r < c->nranks; r++)
            others |= r != comm->rank && c->posted[r] > k;
        if (others && (first->kind != o.kind || first->count != o.count || first->type != o.type))
            rc = ncclInvalidUsage; /* the ranks disagree on the collective */
        else {
            c->ops[k % MAX_QUEUE][comm->rank] = o;
            c->posted[comm->rank]++;
            if (group_depth == 0)
                run_ready(c);
        }
    }
    pthread_mutex_unlock(&lock);
    if (rc != ncclSuccess && group_depth > 0)
        group_failed = true;
    return rc;
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream)
{
    (void)stream;
    if (op != ncclSum)
        return ncclInvalidArgument;
    return post(comm, (struct op){OP_ALL_REDUCE, sendbuff, recvbuff, count, datatype});
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream)
{
    (void)stream;
    return post(comm, (struct op){OP_ALL_GATHER, sendbuff, recvbuff, sendcount, datatype});
}

ncclResult_t ncclGroupStart(void)
{
    if (group_depth++ == 0)
        group_failed = false;
    return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
    if (group_depth == 0)
        return ncclInvalidUsage;
    if (--group_depth > 0)
        return ncclSuccess;
    bool partial = false;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < MAX_CLIQUES; i++)
        if (cliques[i]) {
            run_ready(cliques[i]);
            partial |= drop_partial(cliques[i]);
        }
    pthread_mutex_unlock(&lock);
    return group_failed || partial ? ncclInvalidUsage : ncclSuccess;
}

/* Multi-process communicators: not simulated yet (the run across nodes
 * is being built); the calls exist so that the loader's table resolves. */
ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId)
{
    return uniqueId ? ncclInvalidUsage : ncclInvalidArgument;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    (void)commId;
    return comm && nranks > 0 && rank >= 0 && rank < nranks ? ncclInvalidUsage : ncclInvalidArgument;
}
