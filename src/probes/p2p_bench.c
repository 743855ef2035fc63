/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `bench p2p`. Method after nvbandwidth's device-to-device copy-engine
 * tests: for each ordered pair, peer access enabled both ways where
 * cuDeviceCanAccessPeer allows (else the driver stages the copy through
 * host memory, which is what the figure then shows), a warm-up, `reps`
 * timed copies of one buffer from src to dst on src's stream (CUDA events,
 * median), and for each unordered pair the same both ways at once from two
 * threads, the two rates summed. A copy of known words is read back first:
 * wrong bytes are a failure, never a figure.
 */
#include "p2p_bench.h"

#include "cuda_device.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BYTES ((size_t)256 << 20)
#define DEFAULT_REPS 5
#define MAX_REPS 64
#define CHECK_BYTES ((size_t)1 << 20)

typedef struct p2p_dev {
    CUdevice dev;
    CUcontext ctx;
    bool open;
    gd_probe_stream s;
    CUdeviceptr buf, check; /* `bytes` and CHECK_BYTES */
    char error[200];
} p2p_dev;

typedef struct p2p_run {
    const struct gd_cuda_api *a;
    p2p_dev *devs;
    size_t bytes;
    int reps;
    const volatile sig_atomic_t *stop; /* a stop signal: the copies timed so far */
} p2p_run;

/* GB/s of `reps` copies src -> dst on src's stream (median), the calling
 * thread's current context src's; NAN with why in err. */
static double timed_copy(const p2p_run *r, size_t src, size_t dst, char *err, size_t errlen)
{
    const struct gd_cuda_api *a = r->a;
    p2p_dev *s = &r->devs[src], *d = &r->devs[dst];
    float ms[MAX_REPS];
    int reps = r->reps;
    for (int k = -1; k < reps; k++) { /* k == -1: warm-up */
        float t = 0;
        CUresult rc;
        if ((rc = a->cuEventRecord(s->s.e0, s->s.st)) != CUDA_SUCCESS ||
            (rc = a->cuMemcpyPeerAsync(d->buf, d->ctx, s->buf, s->ctx, r->bytes, s->s.st)) != CUDA_SUCCESS ||
            (rc = a->cuEventRecord(s->s.e1, s->s.st)) != CUDA_SUCCESS ||
            (rc = a->cuEventSynchronize(s->s.e1)) != CUDA_SUCCESS ||
            (rc = a->cuEventElapsedTime(&t, s->s.e0, s->s.e1)) != CUDA_SUCCESS) {
            snprintf(err, errlen, "the copy failed: %s", gd_cuda_result_name(rc));
            return NAN;
        }
        if (k >= 0)
            ms[k] = t;
        if (k >= 0 && r->stop && *r->stop) {
            reps = k + 1; /* stopped: the median of those timed */
            break;
        }
    }
    double med = gd_probe_median_ms(ms, reps);
    return med > 0 ? (double)r->bytes / (med / 1e3) / 1e9 : NAN;
}

/* Copies CHECK_BYTES of known words src -> dst and reads them back. */
static gd_bench_verdict check_copy(const p2p_run *r, size_t src, size_t dst, char *detail, size_t len)
{
    const struct gd_cuda_api *a = r->a;
    p2p_dev *s = &r->devs[src], *d = &r->devs[dst];
    const size_t words = CHECK_BYTES / 4;
    uint32_t *host = malloc(CHECK_BYTES), *back = malloc(CHECK_BYTES);
    gd_bench_verdict v = GD_VERIFY_NOT_RUN;
    CUresult rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (host && back) {
        for (size_t i = 0; i < words; i++)
            host[i] = (uint32_t)((i + src * 7919 + dst) * 2654435761u);
        /* dst's buffer is cleared from its own context, then the copy runs from src's. */
        if ((rc = a->cuCtxSetCurrent(d->ctx)) == CUDA_SUCCESS &&
            (rc = a->cuMemsetD8(d->check, 0, CHECK_BYTES)) == CUDA_SUCCESS &&
            (rc = a->cuCtxSetCurrent(s->ctx)) == CUDA_SUCCESS &&
            (rc = a->cuMemcpyHtoD(s->check, host, CHECK_BYTES)) == CUDA_SUCCESS &&
            (rc = a->cuMemcpyPeerAsync(d->check, d->ctx, s->check, s->ctx, CHECK_BYTES, s->s.st)) == CUDA_SUCCESS &&
            (rc = a->cuStreamSynchronize(s->s.st)) == CUDA_SUCCESS &&
            (rc = a->cuCtxSetCurrent(d->ctx)) == CUDA_SUCCESS &&
            (rc = a->cuMemcpyDtoH(back, d->check, CHECK_BYTES)) == CUDA_SUCCESS)
            v = gd_probe_check_words(back, host, words, "arrived wrong", detail, len);
    }
    if (v == GD_VERIFY_NOT_RUN)
        snprintf(detail, len, "the check could not run: %s", gd_cuda_result_name(rc));
    a->cuCtxSetCurrent(s->ctx);
    free(host);
    free(back);
    return v;
}

/* One direction of a both-ways measurement, on its own thread. */
typedef struct bidi_half {
    const p2p_run *r;
    size_t src, dst;
    double gbps;
    char err[160];
} bidi_half;

static void *bidi_thread(void *p)
{
    bidi_half *h = p;
    gd_bench_thread_timing();
    h->gbps = NAN;
    if (h->r->a->cuCtxSetCurrent(h->r->devs[h->src].ctx) == CUDA_SUCCESS)
        h->gbps = timed_copy(h->r, h->src, h->dst, h->err, sizeof h->err);
    return NULL;
}

static double bidi(const p2p_run *r, size_t x, size_t y, char *err, size_t errlen)
{
    bidi_half h[2] = {{.r = r, .src = x, .dst = y}, {.r = r, .src = y, .dst = x}};
    pthread_t t;
    if (pthread_create(&t, NULL, bidi_thread, &h[1]) != 0) {
        snprintf(err, errlen, "no thread for the other direction");
        return NAN;
    }
    bidi_thread(&h[0]);
    pthread_join(t, NULL);
    r->a->cuCtxSetCurrent(r->devs[x].ctx);
    if (isnan(h[0].gbps) || isnan(h[1].gbps)) {
        snprintf(err, errlen, "%s", h[0].err[0] ? h[0].err : h[1].err);
        return NAN;
    }
    return h[0].gbps + h[1].gbps;
}

static void enable_peer(const struct gd_cuda_api *a, p2p_dev *from, p2p_dev *to)
{
    a->cuCtxSetCurrent(from->ctx);
    CUresult rc = a->cuCtxEnablePeerAccess(to->ctx, 0);
    (void)rc; /* ALREADY_ENABLED is fine; a refusal leaves the copy staged, which the figure shows */
}

static void open_devices(const p2p_run *r, const gd_bench_facts *b)
{
    const struct gd_cuda_api *a = r->a;
    for (size_t i = 0; i < b->gpu_count; i++) {
        p2p_dev *d = &r->devs[i];
        CUresult rc;
        if (gd_probe_ctx_open(a, b->gpus[i].cuda_device, &d->dev, &d->ctx, d->error, sizeof d->error) != 0)
            continue;
        d->open = true;
        if (gd_probe_stream_open(a, &d->s, d->error, sizeof d->error) != 0)
            continue;
        if ((rc = a->cuMemAlloc(&d->buf, r->bytes)) != CUDA_SUCCESS ||
            (rc = a->cuMemAlloc(&d->check, CHECK_BYTES)) != CUDA_SUCCESS)
            snprintf(d->error, sizeof d->error, "cuMemAlloc of %zu MiB failed: %s", r->bytes >> 20,
                     gd_cuda_result_name(rc));
    }
}

static void close_devices(const p2p_run *r, size_t n)
{
    const struct gd_cuda_api *a = r->a;
    for (size_t i = 0; i < n; i++) {
        p2p_dev *d = &r->devs[i];
        if (!d->open)
            continue;
        a->cuCtxSetCurrent(d->ctx);
        if (d->buf)
            a->cuMemFree(d->buf);
        if (d->check)
            a->cuMemFree(d->check);
        gd_probe_stream_close(a, &d->s);
        gd_probe_ctx_close(a, d->dev, d->ctx);
    }
}

static void measure_pair(const p2p_run *r, gd_p2p_pair *p)
{
    const struct gd_cuda_api *a = r->a;
    p2p_dev *s = &r->devs[p->src], *d = &r->devs[p->dst];
    p->uni_gbps = p->bidi_gbps = NAN;
    p->can_access = -1;
    const char *why = s->error[0] ? s->error : d->error;
    if (why[0]) {
        snprintf(p->error, sizeof p->error, "%s", why);
        return;
    }
    int can = 0;
    if (a->cuDeviceCanAccessPeer(&can, s->dev, d->dev) == CUDA_SUCCESS)
        p->can_access = can != 0;
    /* Each peer is given access from both sides, so that either copy engine may carry the traffic. */
    if (can) {
        enable_peer(a, s, d);
        enable_peer(a, d, s);
        int back = 0;
        p->peer_enabled = a->cuDeviceCanAccessPeer(&back, d->dev, s->dev) == CUDA_SUCCESS && back;
    }
    a->cuCtxSetCurrent(s->ctx);
    p->verdict = check_copy(r, p->src, p->dst, p->detail, sizeof p->detail);
    char err[160] = "";
    p->uni_gbps = timed_copy(r, p->src, p->dst, err, sizeof err);
    if (p->src < p->dst && !isnan(p->uni_gbps))
        p->bidi_gbps = bidi(r, p->src, p->dst, err, sizeof err);
    if (err[0])
        snprintf(p->error, sizeof p->error, "%s", err);
}

int gd_p2p_bench_run(const gd_p2p_bench_opts *o, const gd_facts *f, gd_bench_facts *b, char *err, size_t errlen)
{
    gd_bench_rt rt;
    if (gd_bench_rt_open(&rt, &o->rt, f, b, err, errlen) != 0)
        return -1;
    size_t n = b->gpu_count;
    if (n < 2) {
        gd_bench_rt_close(&rt);
        snprintf(err, errlen, "GPU-to-GPU copies need two GPUs; this machine has %zu CUDA device%s", n,
                 n == 1 ? "" : "s");
        return -1;
    }
    if (!rt.cu.cuDeviceCanAccessPeer || !rt.cu.cuCtxEnablePeerAccess || !rt.cu.cuMemcpyPeerAsync) {
        snprintf(err, errlen, "%s has no peer-copy functions (cuMemcpyPeerAsync)", rt.cu.lib.path);
        gd_bench_rt_close(&rt);
        return -1;
    }
    b->p2p = true;
    b->p2p_bytes = o->bytes ? o->bytes : DEFAULT_BYTES;
    b->p2p_reps = o->reps > 0 && o->reps <= MAX_REPS ? o->reps : DEFAULT_REPS;
    free(b->p2p_pairs);
    b->p2p_pair_count = 0;
    b->p2p_pairs = calloc(n * (n - 1), sizeof *b->p2p_pairs);
    p2p_run r = {
        .a = &rt.cu, .devs = calloc(n, sizeof(p2p_dev)), .bytes = b->p2p_bytes, .reps = b->p2p_reps, .stop = o->stop};
    if (!b->p2p_pairs || !r.devs) {
        free(r.devs);
        gd_bench_rt_close(&rt);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    gd_bench_thread_timing();
    open_devices(&r, b);
    bool any = false;
    for (size_t s = 0; s < n; s++)
        for (size_t d = 0; d < n; d++) {
            if (s == d)
                continue;
            gd_p2p_pair *p = &b->p2p_pairs[b->p2p_pair_count++];
            p->src = s;
            p->dst = d;
            if (o->stop && *o->stop) { /* stopped before this pair: not measured, and said so */
                p->can_access = -1;
                p->uni_gbps = p->bidi_gbps = NAN;
                snprintf(p->error, sizeof p->error, "the benchmark was stopped before it");
                continue;
            }
            measure_pair(&r, p);
            any |= !isnan(p->uni_gbps) || p->verdict == GD_VERIFY_WRONG;
        }
    close_devices(&r, n);
    free(r.devs);
    gd_bench_rt_close(&rt);
    if (!any) {
        snprintf(err, errlen, "no pair could be measured: %s", b->p2p_pairs[0].error);
        return -1;
    }
    return 0;
}
