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
 *  - Across processes (one per node, each with its own scenario; the
 *    sockets and the join in sim_nccl_net.c): ncclCommInitRank uses the
 *    current context's device; in a group, a process's ranks of one id (a
 *    contiguous run) join at the outermost ncclGroupEnd. Every rank in one
 *    process: as ncclCommInitAll. Otherwise the bus bandwidth is 0.85 x the
 *    slowest of every process's local ring edge and every node's network
 *    rate (gdsim_nccl_node_gbps: usable ports x the slowest one's rate / 8,
 *    else the socket transport's 25 Gb/s); a step runs once every local rank
 *    posted it, with the other processes (its data around the ring where
 *    every process computes it, else a token), in time as above with n the
 *    communicator's ranks. A peer gone: ncclRemoteError; a wait past
 *    GDSIM_NCCL_TIMEOUT_S (60 s): ncclSystemError.
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
#include "sim_nccl_net.h"
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

enum op_kind { OP_ALL_REDUCE, OP_ALL_GATHER };

struct op {
    enum op_kind kind;
    const void *send;
    void *recv;
    size_t count; /* all-reduce: elements; all-gather: elements sent per rank */
    ncclDataType_t type;
};

/* The ranks of a communicator that this process holds: all of them
 * (ncclCommInitAll, or ncclCommInitRank with every rank here), or a
 * contiguous run first_rank.. of total, joined to the other processes' by
 * net (sim_nccl_net.c). */
struct clique {
    int nranks, live; /* local ranks */
    int first_rank, total;
    struct gdsim_net *net;
    ncclResult_t async; /* a failure of the ring, for ncclCommGetAsyncError */
    bool running; /* a thread runs its steps (across processes: without the lock) */
    int devices[MAX_RANKS];
    double busbw_gbps;
    struct op ops[MAX_QUEUE][MAX_RANKS]; /* ring buffer of steps */
    unsigned posted[MAX_RANKS]; /* steps each rank posted */
    unsigned done; /* steps run */
};

struct ncclComm {
    uint32_t magic;
    int rank; /* in its clique */
    struct clique *clique; /* NULL until its group ends, or when its init failed */
    ncclResult_t init_error;
};

/* A ncclCommInitRank inside a group, joined at the outermost ncclGroupEnd. */
struct pending_init {
    ncclComm_t comm;
    ncclUniqueId id;
    uint64_t nonce;
    int nranks, rank, device;
};

/* The process's cliques (NCCL's own state is process-wide too). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct clique *cliques[MAX_CLIQUES];
static _Thread_local int group_depth;
static _Thread_local bool group_failed;
static _Thread_local struct pending_init pending[MAX_RANKS];
static _Thread_local int pending_count;

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

/* The ring's slowest edge over devices in order, which sets every rank's
 * pace; +inf for one device. */
static double slowest_edge(const int *devices, int n, bool p2p_off)
{
    double slowest = INFINITY;
    for (int r = 0; n > 1 && r < n; r++)
        slowest = fmin(slowest, gdsim_nccl_edge_gbps(devices[r], devices[(r + 1) % n], p2p_off));
    return slowest;
}

/* Adds a clique to the process's: false when they are full. */
static bool add_clique(struct clique *c)
{
    pthread_mutex_lock(&lock);
    size_t slot = 0;
    while (slot < MAX_CLIQUES && cliques[slot])
        slot++;
    if (slot < MAX_CLIQUES)
        cliques[slot] = c;
    pthread_mutex_unlock(&lock);
    return slot < MAX_CLIQUES;
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
    c->total = ndev;
    bool off = p2p_disabled();
    c->busbw_gbps = GDSIM_NCCL_RING_EFFICIENCY * slowest_edge(c->devices, ndev, off);
    if (!(c->busbw_gbps > 0) || !add_clique(c)) {
        free(c);
        return ncclSystemError;
    }
    for (int r = 0; r < ndev; r++) {
        comm[r] = calloc(1, sizeof *comm[r]);
        if (comm[r])
            *comm[r] = (struct ncclComm){MAGIC_COMM, r, c, ncclSuccess};
    }
    for (int r = 0; r < ndev; r++)
        if (!comm[r]) {
            for (int k = 0; k < ndev; k++)
                if (comm[k])
                    ncclCommDestroy(comm[k]);
            return ncclSystemError;
        }
    gdsim_nccl_log_init((const void *const *)comm, ndev, c->devices, off, 0, ndev, 0);
    return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    if (!comm || comm->magic != MAGIC_COMM)
        return ncclInvalidArgument;
    struct clique *c = comm->clique;
    comm->magic = 0;
    free(comm);
    if (!c)
        return ncclSuccess;
    pthread_mutex_lock(&lock);
    if (--c->live == 0) {
        for (size_t i = 0; i < MAX_CLIQUES; i++)
            if (cliques[i] == c)
                cliques[i] = NULL;
        gdsim_net_close(c->net);
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
    pthread_mutex_lock(&lock);
    *asyncError = comm->clique ? comm->clique->async : comm->init_error;
    pthread_mutex_unlock(&lock);
    return ncclSuccess;
}

static size_t type_size(ncclDataType_t t)
{
    return t == ncclFloat32 ? 4 : 1;
}

/* Whether the fault is set on a device, asked with its primary context
 * current (the caller's is put back). */
static bool device_fault(int device, const char *name)
{
    CUcontext saved = NULL, ctx = NULL;
    CUdevice dev;
    bool on = false;
    cuCtxGetCurrent(&saved);
    if (cuDeviceGet(&dev, device) == CUDA_SUCCESS && cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS) {
        if (cuCtxSetCurrent(ctx) == CUDA_SUCCESS)
            on = gdsim_fault(name) != 0;
        cuDevicePrimaryCtxRelease(dev);
    }
    cuCtxSetCurrent(saved);
    return on;
}

/* Every local rank's buffers of a step as host memory; false when one is
 * virtual or the step too large to compute. */
static bool map_buffers(const struct clique *c, const struct op *step, size_t out_bytes, const void **in, void **out)
{
    size_t share = step[0].count * type_size(step[0].type);
    if (share > HOST_COMPUTE_MAX || share == 0)
        return false;
    for (int r = 0; r < c->nranks; r++) {
        in[r] = gdsim_device_memory((CUdeviceptr)(uintptr_t)step[r].send, share);
        out[r] = gdsim_device_memory((CUdeviceptr)(uintptr_t)step[r].recv, out_bytes);
        if (!in[r] || !out[r])
            return false;
    }
    return true;
}

/* acc += in, count elements of type t. */
static void reduce_into(void *acc, const void *in, size_t count, ncclDataType_t t)
{
    if (t == ncclFloat32)
        for (size_t i = 0; i < count; i++)
            ((float *)acc)[i] += ((const float *)in)[i];
    else
        for (size_t i = 0; i < count; i++)
            ((unsigned char *)acc)[i] = (unsigned char)(((unsigned char *)acc)[i] + ((const unsigned char *)in)[i]);
}

/* This process's part of a step: its ranks' sum, or their chunks in rank
 * order (calloc'd; NULL without memory). */
static void *local_part(const struct clique *c, const struct op *o0, const void *const *in)
{
    size_t share = o0->count * type_size(o0->type);
    unsigned char *part = calloc(1, o0->kind == OP_ALL_REDUCE ? share : share * (size_t)c->nranks);
    for (int r = 0; part && r < c->nranks; r++) {
        if (o0->kind == OP_ALL_GATHER)
            memcpy(part + (size_t)r * share, in[r], share);
        else
            reduce_into(part, in[r], o0->count, o0->type);
    }
    return part;
}

/* The result to every local rank, one element changed on a GPU with the
 * nccl_wrong_results fault. */
static void deliver(const struct clique *c, void *const *out, const void *result, size_t out_bytes)
{
    for (int r = 0; r < c->nranks; r++) {
        memcpy(out[r], result, out_bytes);
        if (device_fault(c->devices[r], "nccl_wrong_results"))
            ((unsigned char *)out[r])[out_bytes / 2] ^= 0x40;
    }
}

/* The data of one step on the host, when every buffer has real memory. */
static void compute(const struct clique *c, const struct op *step)
{
    const struct op *o0 = &step[0];
    size_t share = o0->count * type_size(o0->type);
    size_t out_bytes = o0->kind == OP_ALL_REDUCE ? share : share * (size_t)c->nranks;
    const void *in[MAX_RANKS];
    void *out[MAX_RANKS];
    if (!map_buffers(c, step, out_bytes, in, out))
        return;
    void *result = local_part(c, o0, in);
    if (result)
        deliver(c, out, result, out_bytes);
    free(result);
}

/* The step across processes at which a process whose GPU has the fault
 * nccl_process_exit dies: after the data check and a few of the sweep's,
 * so that the others are mid-run. */
#define EXIT_AT_STEP 4

/* Whether the fault is set on one of the clique's devices. */
static bool clique_fault(const struct clique *c, const char *name)
{
    for (int r = 0; r < c->nranks; r++)
        if (device_fault(c->devices[r], name))
            return true;
    return false;
}

/* One step with the other processes: every process's part around the ring
 * of sockets where all have the data, else only the step's description. */
static ncclResult_t run_across(struct clique *c, const struct op *step)
{
    if (c->done == EXIT_AT_STEP && clique_fault(c, "nccl_process_exit"))
        _Exit(137); /* as a node killed mid-run (the OOM killer, a reboot): no goodbye to the others */
    const struct op *o0 = &step[0];
    size_t share = o0->count * type_size(o0->type);
    size_t out_bytes = o0->kind == OP_ALL_REDUCE ? share : share * (size_t)c->total;
    const void *in[MAX_RANKS];
    void *out[MAX_RANKS];
    gdsim_net_step_desc d = {(uint32_t)o0->kind, (uint32_t)o0->type, o0->count, share, o0->kind == OP_ALL_GATHER};
    void *mine = map_buffers(c, step, out_bytes, in, out) ? local_part(c, o0, in) : NULL;
    void *all = mine ? malloc(gdsim_net_all_bytes(c->net, &d)) : NULL;
    bool with_data = false;
    /* The other processes may take a while: the process's other cliques go on meanwhile. */
    pthread_mutex_unlock(&lock);
    ncclResult_t rc = gdsim_net_step(c->net, &d, all ? mine : NULL, all, &with_data);
    pthread_mutex_lock(&lock);
    if (rc == ncclSuccess && with_data) {
        int self, nproc = gdsim_net_processes(c->net, &self);
        if (o0->kind == OP_ALL_REDUCE) { /* the processes' sums, added in rank order on every process */
            memset(mine, 0, share);
            for (int p = 0; p < nproc; p++)
                reduce_into(mine, (const unsigned char *)all + (size_t)p * share, o0->count, o0->type);
            deliver(c, out, mine, out_bytes);
        } else {
            deliver(c, out, all, out_bytes);
        }
    }
    if (rc == ncclRemoteError || rc == ncclSystemError)
        c->async = rc;
    free(mine);
    free(all);
    return rc;
}

/* Runs every step that all ranks have posted, unless another thread does
 * (it runs what is posted meanwhile too); the first failure. The caller
 * holds the lock. */
static ncclResult_t run_ready(struct clique *c)
{
    ncclResult_t result = ncclSuccess;
    if (c->running)
        return result;
    c->running = true;
    for (;;) {
        for (int r = 0; r < c->nranks; r++)
            if (c->posted[r] <= c->done) {
                c->running = false;
                return result;
            }
        struct op *step = c->ops[c->done % MAX_QUEUE];
        ncclResult_t rc = ncclSuccess;
        if (c->net)
            rc = run_across(c, step);
        else
            compute(c, step);
        int n = c->total;
        double bytes = (double)step[0].count * (double)type_size(step[0].type);
        double factor = step[0].kind == OP_ALL_REDUCE ? 2.0 * (n - 1) / n : (double)(n - 1); /* x B/n x n */
        if (n > 1 && rc == ncclSuccess)
            gdsim_device_busy(bytes * factor / (c->busbw_gbps * 1e9));
        if (result == ncclSuccess)
            result = rc;
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
    unsigned k = c ? c->posted[comm->rank] : 0;
    if (!c) {
        rc = comm->init_error != ncclSuccess ? comm->init_error : ncclInvalidUsage; /* not joined yet */
    } else if (c->async != ncclSuccess) {
        rc = c->async;
    } else if (k - c->done >= MAX_QUEUE) {
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
                rc = run_ready(c);
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

static ncclResult_t init_pending(void);

ncclResult_t ncclGroupEnd(void)
{
    if (group_depth == 0)
        return ncclInvalidUsage;
    if (--group_depth > 0)
        return ncclSuccess;
    ncclResult_t init = init_pending();
    bool partial = false;
    ncclResult_t run = ncclSuccess;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < MAX_CLIQUES; i++)
        if (cliques[i]) {
            ncclResult_t rc = run_ready(cliques[i]);
            if (run == ncclSuccess)
                run = rc;
            partial |= drop_partial(cliques[i]);
        }
    pthread_mutex_unlock(&lock);
    if (init != ncclSuccess)
        return init;
    if (run != ncclSuccess)
        return run;
    return group_failed || partial ? ncclInvalidUsage : ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId)
{
    return uniqueId ? gdsim_net_unique_id(uniqueId) : ncclInvalidArgument;
}

static int by_rank(const void *a, const void *b)
{
    const struct pending_init *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Joins the ranks p[0..n) this process holds of one id (contiguous, one
 * clique); each comm gets its clique, or the failure. */
static ncclResult_t join_ranks(struct pending_init *p, int n)
{
    qsort(p, (size_t)n, sizeof *p, by_rank);
    ncclResult_t rc = ncclSuccess;
    for (int i = 0; i < n; i++)
        if (p[i].nranks != p[0].nranks || p[i].rank != p[0].rank + i)
            rc = ncclInvalidUsage; /* one process's ranks of a communicator are a contiguous run */
    struct clique *c = rc == ncclSuccess ? calloc(1, sizeof *c) : NULL;
    if (rc == ncclSuccess && !c)
        rc = ncclSystemError;
    bool off = p2p_disabled();
    if (c) {
        *c = (struct clique){.nranks = n, .live = n, .first_rank = p[0].rank, .total = p[0].nranks};
        for (int i = 0; i < n; i++)
            c->devices[i] = p[i].device;
        gdsim_net_member me = {p[0].rank, n, p[0].nranks, slowest_edge(c->devices, n, off), p[0].device};
        rc = gdsim_net_join(&p[0].id, &me, &c->net, &c->busbw_gbps);
        if (rc == ncclSuccess && (!(c->busbw_gbps > 0) || !add_clique(c)))
            rc = ncclSystemError;
        if (rc != ncclSuccess) {
            gdsim_net_close(c->net);
            free(c);
            c = NULL;
        }
    }
    ncclComm_t comms[MAX_RANKS];
    for (int i = 0; i < n; i++) {
        comms[i] = p[i].comm;
        p[i].comm->rank = i;
        p[i].comm->clique = c;
        p[i].comm->init_error = rc;
    }
    if (c)
        gdsim_nccl_log_init((const void *const *)comms, n, c->devices, off, c->first_rank, c->total, p[0].nonce);
    return rc;
}

/* The group's ncclCommInitRank calls, joined id by id; the first failure. */
static ncclResult_t init_pending(void)
{
    ncclResult_t result = ncclSuccess;
    while (pending_count > 0) {
        /* This id's ranks to the front, the others after. */
        int n = 0;
        for (int i = 0; i < pending_count; i++)
            if (pending[i].nonce == pending[0].nonce) {
                struct pending_init t = pending[n];
                pending[n++] = pending[i];
                pending[i] = t;
            }
        ncclResult_t rc = join_ranks(pending, n);
        if (result == ncclSuccess)
            result = rc;
        memmove(pending, pending + n, sizeof *pending * (size_t)(pending_count - n));
        pending_count -= n;
    }
    return result;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    uint64_t nonce = 0;
    if (!comm || nranks < 1 || rank < 0 || rank >= nranks)
        return ncclInvalidArgument;
    ncclResult_t rc = gdsim_net_id_nonce(&commId, &nonce);
    if (rc != ncclSuccess)
        return rc;
    int dev = gdsim_current_device(); /* the device of the current context, as NCCL takes it */
    if (dev < 0)
        return ncclUnhandledCudaError;
    if (pending_count == MAX_RANKS)
        return ncclInvalidUsage;
    *comm = calloc(1, sizeof **comm);
    if (!*comm)
        return ncclSystemError;
    **comm = (struct ncclComm){MAGIC_COMM, 0, NULL, ncclSuccess};
    pending[pending_count++] = (struct pending_init){*comm, commId, nonce, nranks, rank, dev};
    return group_depth > 0 ? ncclSuccess : init_pending();
}
