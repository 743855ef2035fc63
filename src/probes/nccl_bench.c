/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `bench nccl`. Method after nccl-tests (PERFORMANCE.md): one communicator
 * over every CUDA device (ncclCommInitAll; each rank on its device's primary
 * context and a stream of its own), each collective grouped across the
 * ranks (ncclGroupStart/End, as one thread driving several GPUs must),
 * `warmup` untimed then `iters` timed per size, timed by CUDA events on every
 * rank's stream (the slowest rank's time), algbw = bytes / time and busbw =
 * algbw x 2(n-1)/n (all-reduce) or (n-1)/n (all-gather). Before timing, one
 * all-reduce of known float32 values is read back from every GPU and
 * compared with the sum: wrong data is a failure, never a figure.
 */
#include "nccl_bench.h"

#include "cuda_device.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ITERS 20
#define DEFAULT_WARMUP 5
#define CHECK_FLOATS ((size_t)1 << 18) /* 1 MiB per rank */

typedef struct rank {
    CUdevice dev;
    CUcontext ctx;
    gd_probe_stream s;
    CUdeviceptr send, recv;
} rank;

typedef struct run {
    const struct gd_cuda_api *cu;
    const struct gd_nccl_api *nc;
    int n; /* this process's ranks (its GPUs) */
    int total, first; /* the communicator's ranks, and this process's first (one node: n and 0) */
    rank *r;
    ncclComm_t *comms;
    gd_nccl_bench *out;
    const volatile sig_atomic_t *stop; /* a stop signal: the collectives timed so far */
} run;

size_t gd_nccl_sweep_sizes(size_t lo, size_t hi, int ranks, size_t *out, size_t cap)
{
    if (ranks < 1 || lo == 0 || lo > hi)
        return 0;
    size_t unit = 4 * (size_t)ranks, n = 0;
    for (size_t b = lo; n < cap; b *= 2) {
        size_t v = b >= hi ? hi : b;
        v = v / unit * unit;
        if (v == 0)
            v = unit;
        if (n == 0 || out[n - 1] != v)
            out[n++] = v;
        if (b >= hi || b > SIZE_MAX / 2)
            break;
    }
    if (n == cap && out[n - 1] != hi / unit * unit && hi / unit)
        out[n - 1] = hi / unit * unit; /* the largest size always ends the sweep */
    return n;
}

/* The first failure of the run: "WHAT failed: WHY". */
static void fail(run *x, const char *what, const char *why)
{
    if (x->out->error[0])
        return;
    snprintf(x->out->error, sizeof x->out->error, "%s failed: %s", what, why);
    x->out->failed = true;
}

static bool cuda_ok(run *x, CUresult rc, const char *what)
{
    if (rc != CUDA_SUCCESS)
        fail(x, what, gd_cuda_result_name(rc));
    return rc == CUDA_SUCCESS;
}

static bool nccl_ok(run *x, ncclResult_t rc, const char *what)
{
    if (rc != ncclSuccess) {
        char why[160];
        snprintf(why, sizeof why, "%s (%s)", gd_nccl_result_name(rc), x->nc->ncclGetErrorString(rc));
        if (!x->out->error[0])
            x->out->remote = rc == ncclRemoteError;
        fail(x, what, why);
    }
    return rc == ncclSuccess;
}

static bool set_device(run *x, int i)
{
    return cuda_ok(x, x->cu->cuCtxSetCurrent(x->r[i].ctx), "cuCtxSetCurrent");
}

/* One collective on every rank, grouped. */
static bool collective(run *x, gd_nccl_coll c, CUdeviceptr const *send, CUdeviceptr const *recv, size_t count)
{
    if (!nccl_ok(x, x->nc->ncclGroupStart(), "ncclGroupStart"))
        return false;
    ncclResult_t rc = ncclSuccess;
    const char *what = c == GD_NCCL_ALL_REDUCE ? "ncclAllReduce" : "ncclAllGather";
    for (int i = 0; i < x->n && rc == ncclSuccess; i++) {
        const void *s = (const void *)(uintptr_t)send[i];
        void *r = (void *)(uintptr_t)recv[i];
        rc = c == GD_NCCL_ALL_REDUCE
                 ? x->nc->ncclAllReduce(s, r, count, ncclFloat32, ncclSum, x->comms[i], x->r[i].s.st)
                 : x->nc->ncclAllGather(s, r, count, ncclFloat32, x->comms[i], x->r[i].s.st);
    }
    ncclResult_t end = x->nc->ncclGroupEnd();
    return nccl_ok(x, rc, what) && nccl_ok(x, end, "ncclGroupEnd");
}

static bool sync_all(run *x)
{
    for (int i = 0; i < x->n; i++)
        if (!set_device(x, i) || !cuda_ok(x, x->cu->cuStreamSynchronize(x->r[i].s.st), "cuStreamSynchronize"))
            return false;
    for (int i = 0; i < x->n; i++) {
        ncclResult_t async = ncclSuccess;
        if (!nccl_ok(x, x->nc->ncclCommGetAsyncError(x->comms[i], &async), "ncclCommGetAsyncError") ||
            !nccl_ok(x, async, "a collective (asynchronous error)"))
            return false;
    }
    return true;
}

/* Frees each rank's pair of buffers (0: none), its context current. */
static void free_buffers(run *x, const CUdeviceptr *send, const CUdeviceptr *recv)
{
    for (int i = 0; send && recv && i < x->n; i++) {
        if (send[i] || recv[i])
            x->cu->cuCtxSetCurrent(x->r[i].ctx);
        if (send[i])
            x->cu->cuMemFree(send[i]);
        if (recv[i])
            x->cu->cuMemFree(recv[i]);
    }
}

static float check_value(int r, size_t i)
{
    return (float)(r + 1) * (float)(i % 7 + 1);
}

/* One all-reduce of known values, read back from every rank. */
static void verify(run *x)
{
    gd_nccl_bench *o = x->out;
    size_t bytes = CHECK_FLOATS * sizeof(float);
    float *host = malloc(bytes);
    CUdeviceptr *send = calloc((size_t)x->n, sizeof *send), *recv = calloc((size_t)x->n, sizeof *recv);
    bool ok = host && send && recv;
    if (!ok)
        snprintf(o->detail, sizeof o->detail, "the check could not run: out of memory");
    for (int i = 0; ok && i < x->n; i++) {
        for (size_t k = 0; k < CHECK_FLOATS; k++)
            host[k] = check_value(x->first + i, k);
        ok = set_device(x, i) && cuda_ok(x, x->cu->cuMemAlloc(&send[i], bytes), "cuMemAlloc") &&
             cuda_ok(x, x->cu->cuMemAlloc(&recv[i], bytes), "cuMemAlloc") &&
             cuda_ok(x, x->cu->cuMemcpyHtoD(send[i], host, bytes), "cuMemcpyHtoD") &&
             cuda_ok(x, x->cu->cuMemsetD8(recv[i], 0, bytes), "cuMemsetD8");
    }
    ok = ok && collective(x, GD_NCCL_ALL_REDUCE, send, recv, CHECK_FLOATS) && sync_all(x);
    float sum_ranks = (float)x->total * (float)(x->total + 1) / 2.0f; /* 1 + 2 + ... + n */
    size_t wrong = 0;
    for (int i = 0; ok && i < x->n; i++) {
        ok = set_device(x, i) && cuda_ok(x, x->cu->cuMemcpyDtoH(host, recv[i], bytes), "cuMemcpyDtoH");
        for (size_t k = 0; ok && k < CHECK_FLOATS; k++) {
            float want = sum_ranks * (float)(k % 7 + 1);
            if (host[k] != want && wrong++ == 0)
                snprintf(o->detail, sizeof o->detail,
                         "all-reduce (sum) of known values: GPU rank %d element %zu is %g, expected %g", x->first + i,
                         k, (double)host[k], (double)want);
        }
    }
    if (ok) {
        o->verdict = wrong ? GD_VERIFY_WRONG : GD_VERIFY_OK;
        if (wrong)
            o->failed = true;
        else
            snprintf(o->detail, sizeof o->detail, "a %zu MiB all-reduce (sum) read back right on all %d GPUs%s",
                     bytes >> 20, x->n, x->total > x->n ? " of this node" : "");
    } else if (!o->detail[0]) {
        snprintf(o->detail, sizeof o->detail, "the check could not run: %.170s", o->error);
    }
    free_buffers(x, send, recv);
    free(send);
    free(recv);
    free(host);
}

/* The mean time of one collective over the timed iterations, seconds
 * (the slowest rank's events); NAN after a failure. */
static double timed(run *x, gd_nccl_coll c, CUdeviceptr const *send, CUdeviceptr const *recv, size_t count, int warmup,
                    int iters)
{
    for (int k = 0; k < warmup; k++)
        if (!collective(x, c, send, recv, count))
            return NAN;
    for (int i = 0; i < x->n; i++)
        if (!set_device(x, i) || !cuda_ok(x, x->cu->cuEventRecord(x->r[i].s.e0, x->r[i].s.st), "cuEventRecord"))
            return NAN;
    int done = 0;
    for (; done < iters && !(done > 0 && x->stop && *x->stop); done++)
        if (!collective(x, c, send, recv, count))
            return NAN;
    double worst = 0;
    for (int i = 0; i < x->n; i++) {
        float ms = 0;
        if (!set_device(x, i) || !cuda_ok(x, x->cu->cuEventRecord(x->r[i].s.e1, x->r[i].s.st), "cuEventRecord"))
            return NAN;
        if (!cuda_ok(x, x->cu->cuEventSynchronize(x->r[i].s.e1), "cuEventSynchronize") ||
            !cuda_ok(x, x->cu->cuEventElapsedTime(&ms, x->r[i].s.e0, x->r[i].s.e1), "cuEventElapsedTime"))
            return NAN;
        worst = fmax(worst, ms / 1e3);
    }
    if (!sync_all(x))
        return NAN;
    return worst / done;
}

static void sweep(run *x, const gd_nccl_bench_opts *o)
{
    gd_nccl_bench *out = x->out;
    size_t sizes[GD_NCCL_MAX_POINTS];
    size_t lo = o->min_bytes ? o->min_bytes : GD_NCCL_MIN_BYTES, hi = o->max_bytes ? o->max_bytes : GD_NCCL_MAX_BYTES;
    size_t ns = gd_nccl_sweep_sizes(lo, hi, x->total, sizes, GD_NCCL_MAX_POINTS);
    if (ns == 0)
        return;
    size_t top = sizes[ns - 1];
    CUdeviceptr send[GD_NCCL_MAX_RANKS] = {0}, recv[GD_NCCL_MAX_RANKS] = {0};
    bool ok = true;
    for (int i = 0; ok && i < x->n; i++)
        ok = set_device(x, i) && cuda_ok(x, x->cu->cuMemAlloc(&send[i], top), "cuMemAlloc (the send buffer)") &&
             cuda_ok(x, x->cu->cuMemAlloc(&recv[i], top), "cuMemAlloc (the receive buffer)");
    bool stopped = false; /* a stop signal: the sizes measured so far are the figures */
    for (int c = 0; ok && !stopped && c < GD_NCCL_COLLS; c++) {
        double factor = gd_nccl_busbw_factor((gd_nccl_coll)c, x->total);
        for (size_t k = 0; ok && k < ns; k++) {
            if ((stopped = o->stop && *o->stop))
                break;
            /* all-reduce: the buffer's elements; all-gather: each rank's share */
            size_t count = sizes[k] / 4 / (c == GD_NCCL_ALL_REDUCE ? 1 : (size_t)x->total);
            double s = timed(x, (gd_nccl_coll)c, send, recv, count, out->warmup, out->iters);
            if (!(s > 0)) {
                ok = false;
                break;
            }
            gd_nccl_point *p = &out->points[c][out->point_count[c]++];
            p->bytes = sizes[k];
            p->time_us = s * 1e6;
            p->algbw_gbps = gd_nccl_algbw_gbps(sizes[k], s);
            p->busbw_gbps = p->algbw_gbps * factor;
            if (isnan(out->peak_busbw_gbps[c]) || p->busbw_gbps > out->peak_busbw_gbps[c])
                out->peak_busbw_gbps[c] = p->busbw_gbps;
        }
    }
    free_buffers(x, send, recv);
}

/* The communicator: every GPU of the node (ncclCommInitAll), or this
 * process's GPUs as ranks first.. of a communicator across processes
 * (ncclCommInitRank per GPU, grouped: one thread drives them all). */
static bool comm_init(run *x, const gd_nccl_comm_spec *spec)
{
    if (!spec || !spec->id) {
        int devs[GD_NCCL_MAX_RANKS];
        for (int i = 0; i < x->n; i++)
            devs[i] = i;
        return nccl_ok(x, x->nc->ncclCommInitAll(x->comms, x->n, devs), "ncclCommInitAll");
    }
    ncclUniqueId id;
    memcpy(id.internal, spec->id, sizeof id.internal);
    if (!nccl_ok(x, x->nc->ncclGroupStart(), "ncclGroupStart"))
        return false;
    ncclResult_t rc = ncclSuccess;
    for (int i = 0; i < x->n && rc == ncclSuccess; i++)
        if (set_device(x, i))
            rc = x->nc->ncclCommInitRank(&x->comms[i], x->total, id, x->first + i);
    ncclResult_t end = x->nc->ncclGroupEnd();
    return !x->out->failed && nccl_ok(x, rc, "ncclCommInitRank") && nccl_ok(x, end, "ncclGroupEnd (ncclCommInitRank)");
}

struct gd_nccl_session {
    gd_bench_rt rt;
    struct gd_nccl_api nc;
    rank r[GD_NCCL_MAX_RANKS];
    int n, opened;
    gd_nccl_bench head; /* what every measurement says of the session: the library, its version, the GPUs */
};

static void measure(run *x, const gd_nccl_bench_opts *o, const gd_nccl_comm_spec *spec)
{
    gd_nccl_bench *out = x->out;
    if (!comm_init(x, spec))
        return;
    verify(x);
    /* Across processes every rank runs the same collectives, or the others
     * wait for it: wrong data still runs the sweep (the figures are the
     * run's, and the report refuses them), an error does not. */
    if (out->verdict == GD_VERIFY_OK || (x->total > x->n && out->verdict == GD_VERIFY_WRONG))
        sweep(x, o);
    for (int i = 0; i < x->n; i++)
        if (x->comms[i])
            (out->failed ? x->nc->ncclCommAbort : x->nc->ncclCommDestroy)(x->comms[i]);
}

static void bench_init(gd_nccl_bench *out, const gd_nccl_bench_opts *o)
{
    *out = (gd_nccl_bench){.iters = o->iters > 0 ? o->iters : DEFAULT_ITERS,
                           .warmup = o->warmup > 0 ? o->warmup : DEFAULT_WARMUP};
    for (int c = 0; c < GD_NCCL_COLLS; c++)
        out->peak_busbw_gbps[c] = NAN;
    snprintf(out->env, sizeof out->env, "%s", o->env ? o->env : "");
}

int gd_nccl_session_open(const gd_nccl_bench_opts *o, const gd_facts *f, gd_bench_facts *b, int min_gpus,
                         gd_nccl_session **out, char *err, size_t errlen)
{
    *out = NULL;
    gd_nccl_session *s = calloc(1, sizeof *s);
    if (!b->nccl && !(b->nccl = calloc(1, sizeof *b->nccl))) {
        free(s);
        s = NULL;
    }
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    gd_nccl_bench *nb = b->nccl;
    bench_init(nb, o);
    gd_bench_rt_opts ro = o->rt;
    ro.cublaslt = NULL;
    if (gd_bench_rt_open(&s->rt, &ro, f, b, err, errlen) != 0) {
        free(s);
        return -1;
    }
    s->n = nb->ranks = s->rt.count > GD_NCCL_MAX_RANKS ? GD_NCCL_MAX_RANKS : s->rt.count;
    for (int i = 0; i < nb->ranks; i++)
        nb->gpus[i] = (size_t)i < b->gpu_count ? b->gpus[i].gpu : -1;
    if (s->n < min_gpus) { /* said before NCCL is looked for */
        snprintf(nb->skipped, sizeof nb->skipped, "%d CUDA device%s: %s", s->n, s->n == 1 ? "" : "s",
                 min_gpus > 1 ? "NCCL's collectives need two GPUs or more, nothing to measure"
                              : "no GPU for NCCL to use");
        gd_bench_rt_close(&s->rt);
        free(s);
        return 0;
    }
    char why[1024];
    if (gd_nccl_load(&s->nc, o->nccl, why, sizeof why) != 0) {
        snprintf(err, errlen,
                 "%s. bench nccl needs NCCL: name a Python environment with NVIDIA's nvidia-nccl wheel (--python "
                 "ENV, e.g. a PyTorch venv), install Debian's libnccl2 (contrib) or NVIDIA's, or set "
                 "GPUDOCTOR_NCCL_LIBRARY",
                 why);
        gd_bench_rt_close(&s->rt);
        free(s);
        return -1;
    }
    snprintf(nb->library, sizeof nb->library, "%s", s->nc.lib.path);
    if (s->nc.ncclGetVersion(&nb->version) != ncclSuccess)
        nb->version = 0;
    s->head = *nb;
    gd_bench_thread_timing();
    for (; s->opened < s->n; s->opened++) {
        rank *r = &s->r[s->opened];
        if (gd_probe_ctx_open(&s->rt.cu, s->opened, &r->dev, &r->ctx, why, sizeof why) != 0)
            break;
        if (gd_probe_stream_open(&s->rt.cu, &r->s, why, sizeof why) != 0) {
            gd_probe_ctx_close(&s->rt.cu, r->dev, r->ctx);
            break;
        }
    }
    if (s->opened < s->n) {
        snprintf(err, errlen, "opening the CUDA device failed: %s", why);
        gd_nccl_session_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

int gd_nccl_session_gpus(const gd_nccl_session *s)
{
    return s->n;
}

int gd_nccl_session_unique_id(gd_nccl_session *s, unsigned char id[GD_NCCL_ID_BYTES], char *err, size_t errlen)
{
    ncclUniqueId u;
    ncclResult_t rc = s->nc.ncclGetUniqueId(&u);
    if (rc != ncclSuccess) {
        snprintf(err, errlen, "ncclGetUniqueId failed: %s (%s)", gd_nccl_result_name(rc), s->nc.ncclGetErrorString(rc));
        return -1;
    }
    memcpy(id, u.internal, GD_NCCL_ID_BYTES);
    return 0;
}

void gd_nccl_session_measure(gd_nccl_session *s, const gd_nccl_bench_opts *o, const gd_nccl_comm_spec *spec,
                             gd_nccl_bench *out)
{
    bench_init(out, o);
    memcpy(out->library, s->head.library, sizeof out->library);
    out->version = s->head.version;
    out->ranks = s->n;
    memcpy(out->gpus, s->head.gpus, sizeof out->gpus);
    bool across = spec && spec->id;
    out->nranks_total = across ? spec->nranks : 0;
    ncclComm_t comms[GD_NCCL_MAX_RANKS];
    memset(comms, 0, sizeof comms);
    run x = {.cu = &s->rt.cu,
             .nc = &s->nc,
             .n = s->n,
             .total = across ? spec->nranks : s->n,
             .first = across ? spec->first_rank : 0,
             .r = s->r,
             .comms = comms,
             .out = out,
             .stop = across ? NULL : o->stop}; /* across processes a stop would leave the others waiting */
    gd_nccl_bench_opts oo = *o;
    if (across)
        oo.stop = NULL;
    measure(&x, &oo, spec);
}

void gd_nccl_session_close(gd_nccl_session *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->opened; i++) {
        s->rt.cu.cuCtxSetCurrent(s->r[i].ctx);
        gd_probe_stream_close(&s->rt.cu, &s->r[i].s);
        gd_probe_ctx_close(&s->rt.cu, s->r[i].dev, s->r[i].ctx);
    }
    gd_nccl_unload(&s->nc);
    gd_bench_rt_close(&s->rt);
    free(s);
}

int gd_nccl_bench_run(const gd_nccl_bench_opts *o, const gd_facts *f, gd_bench_facts *b, char *err, size_t errlen)
{
    gd_nccl_session *s;
    if (gd_nccl_session_open(o, f, b, 2, &s, err, errlen) != 0) {
        if (!b->nccl || strncmp(err, "opening the CUDA device", 23) != 0)
            return -1;
        b->nccl->failed = true; /* a device that would not open is a failure of the run */
        snprintf(b->nccl->error, sizeof b->nccl->error, "%.239s", err);
        return 0;
    }
    if (!s)
        return 0; /* fewer than two GPUs: b->nccl->skipped says so */
    gd_nccl_session_measure(s, o, NULL, b->nccl);
    gd_nccl_session_close(s);
    return 0;
}
