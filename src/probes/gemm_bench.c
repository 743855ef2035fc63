/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `bench gemm`. Method after gpu-fryer (cuBLASLt, 8192-square multiplies,
 * each GPU's average over the run) and DCGM's targeted stress (a timed
 * run against a per-SKU target): a warm-up multiply, then batches of about
 * 50 ms timed by CUDA events until `seconds` have passed; TFLOP/s =
 * 2*M*N*K per multiply over the elapsed time. Each GPU alone, then all at
 * once (one thread each, started together through a barrier), so that a
 * shared power or cooling limit shows as the difference.
 */
#include "gemm_bench.h"

#include "cuda_device.h"
#include "gemm.h"
#include "step_barrier.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_SIZE 8192
#define DEFAULT_SECONDS 5.0
#define BATCH_MS 50.0

typedef struct gemm_worker {
    const gd_bench_rt *rt;
    const gd_gemm_bench_opts *o;
    int device;
    bool verify;
    gd_step_barrier *barrier; /* NULL when measured alone */
    double tflops;
    gd_bench_verdict verdict;
    char detail[200];
    char error[240];
    bool failed; /* a multiply failed to execute */
} gemm_worker;

static double host_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* TFLOP/s of g over about `seconds`, or NAN with why in err. The events
 * time the GPU; the host's clock only bounds the loop (4 x seconds + 1 s),
 * so that a device whose clock runs slower than the host's (the simulated
 * one keeps virtual time: a small multiply takes nanoseconds there and
 * milliseconds of host CPU) cannot hold it: the figure stays done / ms. */
static double timed_tflops(gd_gemm *g, const gd_probe_stream *s, double seconds, const volatile sig_atomic_t *stop,
                           char *err, size_t errlen)
{
    const struct gd_cuda_api *a = g->cu;
    CUstream st = s->st;
    CUevent e0 = s->e0, e1 = s->e1;
    float ms = 0;
    CUresult rc;
    /* Warm-up: the first multiply loads kernels; the second times one. */
    if (gd_gemm_run(g, st, 1, err, errlen) != 0)
        return NAN;
    double t0 = host_s();
    if ((rc = a->cuEventRecord(e0, st)) != CUDA_SUCCESS || gd_gemm_run(g, st, 1, err, errlen) != 0 ||
        (rc = a->cuEventRecord(e1, st)) != CUDA_SUCCESS || (rc = a->cuEventSynchronize(e1)) != CUDA_SUCCESS ||
        (rc = a->cuEventElapsedTime(&ms, e0, e1)) != CUDA_SUCCESS) {
        if (!err[0])
            snprintf(err, errlen, "timing failed: %s", gd_cuda_result_name(rc));
        return NAN;
    }
    /* About 50 ms a batch, by the GPU's time or the host's (with the
     * synchronisation) where that is longer. */
    double one_ms = fmax(ms, (host_s() - t0) * 1e3);
    int batch = one_ms > 0 ? (int)(BATCH_MS / one_ms) : 256;
    batch = batch < 1 ? 1 : batch > 256 ? 256 : batch;
    long done = 0;
    double give_up = host_s() + 4 * seconds + 1;
    if ((rc = a->cuEventRecord(e0, st)) != CUDA_SUCCESS) {
        snprintf(err, errlen, "cuEventRecord failed: %s", gd_cuda_result_name(rc));
        return NAN;
    }
    do {
        if (gd_gemm_run(g, st, batch, err, errlen) != 0)
            return NAN;
        done += batch;
        if ((rc = a->cuEventRecord(e1, st)) != CUDA_SUCCESS || (rc = a->cuEventSynchronize(e1)) != CUDA_SUCCESS ||
            (rc = a->cuEventElapsedTime(&ms, e0, e1)) != CUDA_SUCCESS) {
            snprintf(err, errlen, "timing failed: %s", gd_cuda_result_name(rc));
            return NAN;
        }
    } while (ms < seconds * 1e3 && host_s() < give_up && !(stop && *stop)); /* stopped: the batches so far */
    return ms > 0 ? gd_gemm_flop(g->m, g->n, g->k) * (double)done / (ms / 1e3) / 1e12 : NAN;
}

static void *run_worker(void *arg)
{
    gemm_worker *w = arg;
    const struct gd_cuda_api *a = &w->rt->cu;
    gd_bench_thread_timing();
    w->tflops = NAN;
    CUdevice dev;
    CUcontext ctx = NULL;
    gd_probe_stream s = {0};
    gd_gemm g = {0};
    int size = w->o->size > 0 ? w->o->size : DEFAULT_SIZE;
    if (gd_probe_ctx_open(a, w->device, &dev, &ctx, w->error, sizeof w->error) == 0)
        gd_probe_stream_open(a, &s, w->error, sizeof w->error);
    if (!w->error[0] && w->verify)
        w->verdict = gd_gemm_verify(a, &w->rt->lt, w->o->dtype, s.st, w->detail, sizeof w->detail);
    if (!w->error[0])
        gd_gemm_setup(&g, a, &w->rt->lt, w->o->dtype, size, size, size, false, w->error, sizeof w->error);
    /* In step with the other GPUs, also when this one failed. */
    if (w->barrier)
        gd_step_barrier_wait(w->barrier);
    if (!w->error[0]) {
        w->tflops = timed_tflops(&g, &s, w->o->seconds > 0 ? w->o->seconds : DEFAULT_SECONDS, w->o->stop, w->error,
                                 sizeof w->error);
        w->failed = isnan(w->tflops); /* set up, then failed while running */
    }
    gd_gemm_teardown(&g);
    gd_probe_stream_close(a, &s);
    gd_probe_ctx_close(a, dev, ctx);
    return NULL;
}

int gd_gemm_bench_run(const gd_gemm_bench_opts *o, const gd_facts *f, gd_bench_facts *b, char *err, size_t errlen)
{
    gd_bench_rt rt;
    if (gd_bench_rt_open(&rt, &o->rt, f, b, err, errlen) != 0)
        return -1;
    b->gemm = true;
    b->dtype = o->dtype;
    b->size = o->size > 0 ? o->size : DEFAULT_SIZE;
    b->seconds = o->seconds > 0 ? o->seconds : DEFAULT_SECONDS;
    int n = rt.count, rc = -1;
    gemm_worker *w = calloc((size_t)n, sizeof *w);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    if (!w || !th) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    bool any = false;
    for (int i = 0; i < n; i++) {
        w[i] = (gemm_worker){.rt = &rt, .o = o, .device = i, .verify = true};
        if (o->stop && *o->stop) { /* stopped before this GPU: not measured, and said so */
            w[i].tflops = NAN;
            snprintf(w[i].error, sizeof w[i].error, "the benchmark was stopped before it");
        } else
            run_worker(&w[i]);
        gd_bench_gpu *g = &b->gpus[i];
        g->gemm_single_tflops = w[i].tflops;
        g->gemm_verdict = w[i].verdict;
        snprintf(g->gemm_detail, sizeof g->gemm_detail, "%s", w[i].detail);
        snprintf(g->gemm_error, sizeof g->gemm_error, "%s", w[i].error);
        g->gemm_failed = w[i].failed;
        any |= !isnan(w[i].tflops) || w[i].verdict == GD_VERIFY_WRONG;
    }
    if (!any) {
        snprintf(err, errlen, "no GPU could be measured: %s", b->gpus[0].gemm_error);
        goto done;
    }
    if (o->concurrent && n > 1 && !(o->stop && *o->stop)) {
        gd_step_barrier bar = GD_STEP_BARRIER_INIT(n);
        bool *started = calloc((size_t)n, sizeof *started);
        for (int i = 0; started && i < n; i++) {
            w[i] = (gemm_worker){.rt = &rt, .o = o, .device = i, .barrier = &bar};
            started[i] = pthread_create(&th[i], NULL, run_worker, &w[i]) == 0;
            if (!started[i])
                gd_step_barrier_leave(&bar);
        }
        for (int i = 0; started && i < n; i++)
            if (started[i] && pthread_join(th[i], NULL) == 0)
                b->gpus[i].gemm_concurrent_tflops = w[i].tflops;
        free(started);
    }
    rc = 0;
done:
    free(w);
    free(th);
    gd_bench_rt_close(&rt);
    return rc;
}
