/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `bench stress`: every GPU multiplies at once, without pause, while the
 * session samples clocks, temperature, power and event reasons on its own
 * clock; the checks then judge that window as they judge any other (the
 * thermal and power diagnosis under a known full load, DCGM's targeted
 * stress and power plugins). Each GPU's throughput is counted per sample
 * interval from the multiplies it completed, so the curves show a GPU
 * slowing as it heats. Results are checked before the load and again
 * after it, when the GPU is hottest (errors that come with heat).
 *
 * Under --sim's fast clock the simulated GPUs keep virtual time (sim_time.c)
 * and the session's scenario clock runs as fast as the CPU allows: the
 * workers go in step with it, each multiplying until its stream's time has
 * reached the sample's scenario time before that sample's throughput is
 * counted. The figures are then exact whatever the host's load, and a
 * 300-second window takes the CPU time of its multiplies' bookkeeping.
 */
#include "gemm_bench.h"

#include "cuda_device.h"
#include "gemm.h"
#include "step_barrier.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SIZE 8192
#define BATCH_S 0.02 /* a batch short enough to stop promptly; shorter for short intervals */
#define MAX_TICKS 100000 /* per GPU: a day at one sample a second */

/* The fast clock's lockstep: the stream time the workers multiply up to
 * (seconds since the load began), and each worker's answer. */
typedef struct stress_clock {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    double target;
} stress_clock;

typedef struct stress_worker {
    const gd_bench_rt *rt;
    stress_clock *clock; /* NULL: wall time, the workers run free */
    double reached; /* under clock->mu: stream seconds done */
    bool finished; /* under clock->mu: the worker multiplies no more */
    const gd_gemm_bench_opts *o;
    int device;
    gd_step_barrier *start;
    atomic_int *stop;
    pthread_mutex_t lock; /* guards done and done_at together */
    long done; /* multiplies completed */
    double done_at; /* when the last of them completed: stream seconds since the load began (CUDA events) */
    double flop; /* per multiply */
    gd_bench_verdict before, after;
    char detail[200];
    char error[240];
    bool failed;
} stress_worker;

static void *run_worker(void *arg)
{
    stress_worker *w = arg;
    const struct gd_cuda_api *a = &w->rt->cu;
    gd_bench_thread_timing();
    CUdevice dev;
    CUcontext ctx = NULL;
    CUstream st = NULL;
    gd_gemm g = {0};
    int size = w->o->size > 0 ? w->o->size : DEFAULT_SIZE;
    w->flop = gd_gemm_flop(size, size, size);
    if (gd_probe_ctx_open(a, w->device, &dev, &ctx, w->error, sizeof w->error) == 0) {
        CUresult rc = a->cuStreamCreate(&st, CU_STREAM_NON_BLOCKING);
        if (rc != CUDA_SUCCESS)
            snprintf(w->error, sizeof w->error, "cuStreamCreate failed: %s", gd_cuda_result_name(rc));
    }
    if (!w->error[0])
        w->before = gd_gemm_verify(a, &w->rt->lt, w->o->dtype, st, w->detail, sizeof w->detail);
    if (!w->error[0])
        gd_gemm_setup(&g, a, &w->rt->lt, w->o->dtype, size, size, size, false, w->error, sizeof w->error);
    int batch = 1;
    if (!w->error[0]) { /* one multiply, timed by events (device time), sizes the batches */
        CUevent e0 = NULL, e1 = NULL;
        float ms = 0;
        if (a->cuEventCreate(&e0, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
            a->cuEventCreate(&e1, CU_EVENT_DEFAULT) == CUDA_SUCCESS && a->cuEventRecord(e0, st) == CUDA_SUCCESS &&
            gd_gemm_run(&g, st, 1, w->error, sizeof w->error) == 0 && a->cuEventRecord(e1, st) == CUDA_SUCCESS &&
            a->cuEventSynchronize(e1) == CUDA_SUCCESS && a->cuEventElapsedTime(&ms, e0, e1) == CUDA_SUCCESS) {
            double want = w->o->batch_s > 0 && (w->o->batch_s < BATCH_S || w->clock) ? w->o->batch_s : BATCH_S;
            int most = w->clock ? 4096 : 64; /* virtual time: no wall time to stop in */
            batch = ms > 0 ? (int)(want / (ms / 1e3)) : 64;
            batch = batch < 1 ? 1 : batch > most ? most : batch;
        }
        if (e0)
            a->cuEventDestroy(e0);
        if (e1)
            a->cuEventDestroy(e1);
        w->failed = w->error[0] != 0;
    }
    gd_step_barrier_wait(w->start); /* the session opens when every GPU is ready */
    /* Completions are timed on the GPU's own clock (events): the host's
     * clock would count its own scheduling delays as the GPU's. */
    CUevent began = NULL, done = NULL;
    CUresult rc = CUDA_SUCCESS;
    if (!w->error[0] && ((rc = a->cuEventCreate(&began, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
                         (rc = a->cuEventCreate(&done, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
                         (rc = a->cuEventRecord(began, st)) != CUDA_SUCCESS)) {
        snprintf(w->error, sizeof w->error, "event creation failed: %s", gd_cuda_result_name(rc));
        w->failed = true;
    }
    double target = INFINITY; /* wall time: multiply until stopped */
    while (!w->error[0] && !atomic_load(w->stop)) {
        if (w->clock) { /* until the next sample's scenario time */
            pthread_mutex_lock(&w->clock->mu);
            w->reached = w->done_at;
            pthread_cond_broadcast(&w->clock->cv);
            while (!atomic_load(w->stop) && w->clock->target <= w->reached)
                pthread_cond_wait(&w->clock->cv, &w->clock->mu);
            target = w->clock->target;
            pthread_mutex_unlock(&w->clock->mu);
            if (atomic_load(w->stop))
                break;
        }
        if (w->done_at >= target)
            continue;
        float ms = 0;
        if (gd_gemm_run(&g, st, batch, w->error, sizeof w->error) != 0 ||
            (rc = a->cuEventRecord(done, st)) != CUDA_SUCCESS || (rc = a->cuEventSynchronize(done)) != CUDA_SUCCESS ||
            (rc = a->cuEventElapsedTime(&ms, began, done)) != CUDA_SUCCESS) {
            if (!w->error[0])
                snprintf(w->error, sizeof w->error, "synchronising failed: %s", gd_cuda_result_name(rc));
            w->failed = true;
            break;
        }
        pthread_mutex_lock(&w->lock);
        w->done += batch;
        w->done_at = ms / 1e3;
        pthread_mutex_unlock(&w->lock);
    }
    if (w->clock) {
        pthread_mutex_lock(&w->clock->mu);
        w->finished = true;
        pthread_cond_broadcast(&w->clock->cv);
        pthread_mutex_unlock(&w->clock->mu);
    }
    if (began)
        a->cuEventDestroy(began);
    if (done)
        a->cuEventDestroy(done);
    gd_gemm_teardown(&g);
    if (!w->error[0]) {
        char after[200];
        w->after = gd_gemm_verify(a, &w->rt->lt, w->o->dtype, st, after, sizeof after);
        if (w->after == GD_VERIFY_WRONG || w->before != GD_VERIFY_WRONG)
            snprintf(w->detail, sizeof w->detail, "after the load: %.180s", after);
    }
    if (st)
        a->cuStreamDestroy(st);
    gd_probe_ctx_close(a, dev, ctx);
    return NULL;
}

/* Multiplies done and when the last finished, read together. */
static long progress(stress_worker *w, double *at)
{
    pthread_mutex_lock(&w->lock);
    long d = w->done;
    *at = w->done_at;
    pthread_mutex_unlock(&w->lock);
    return d;
}

/* Lockstep: every worker multiplies up to stream time `target`; returns
 * once each has reached it or stopped. */
static void step_to(stress_clock *c, stress_worker *w, int n, double target)
{
    pthread_mutex_lock(&c->mu);
    c->target = target;
    pthread_cond_broadcast(&c->cv);
    for (int i = 0; i < n; i++)
        while (!w[i].finished && w[i].reached < target)
            pthread_cond_wait(&c->cv, &c->mu);
    pthread_mutex_unlock(&c->mu);
}

static void add_tick(gd_bench_gpu *g, double t, double tflops)
{
    if (g->tick_count >= MAX_TICKS)
        return;
    if ((g->tick_count & (g->tick_count - 1)) == 0) { /* 0, 1, 2, 4, ...: double */
        size_t cap = g->tick_count ? g->tick_count * 2 : 1;
        gd_bench_tick *n = realloc(g->ticks, cap * sizeof *n);
        if (!n)
            return;
        g->ticks = n;
    }
    g->ticks[g->tick_count++] = (gd_bench_tick){t, tflops};
}

int gd_stress_run(const gd_gemm_bench_opts *o, const gd_session_opts *so, const gd_facts *f, gd_facts *window,
                  char *err, size_t errlen)
{
    memset(window, 0, sizeof *window);
    gd_bench_facts *b = calloc(1, sizeof *b);
    gd_bench_rt rt;
    if (!b) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (gd_bench_rt_open(&rt, &o->rt, f, b, err, errlen) != 0) {
        gd_bench_facts_free(b);
        return -1;
    }
    /* The simulated GPUs follow the window's clock: scenario time 0 until
     * the first sample. In wall time (paced, or a real machine), or in step
     * with the fast scenario clock, their own time staying virtual. */
    bool lockstep = o->lockstep && rt.cu.gdsim_cuda_clock_follow;
    void (*clock_set)(double) = lockstep ? rt.cu.gdsim_cuda_clock_follow : rt.cu.gdsim_cuda_clock_set;
    if (clock_set)
        clock_set(0);
    stress_clock clk = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    b->stress = true;
    b->dtype = o->dtype;
    b->size = o->size > 0 ? o->size : DEFAULT_SIZE;
    b->stress_seconds = so->duration_s;
    int n = rt.count, rc = -1;
    atomic_int stop = 0;
    stress_worker *w = calloc((size_t)n, sizeof *w);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    bool *started = calloc((size_t)n, sizeof *started);
    gd_step_barrier start = GD_STEP_BARRIER_INIT(n + 1);
    if (!w || !th || !started) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        w[i] = (stress_worker){
            .rt = &rt, .clock = lockstep ? &clk : NULL, .o = o, .device = i, .start = &start, .stop = &stop};
        pthread_mutex_init(&w[i].lock, NULL);
        started[i] = pthread_create(&th[i], NULL, run_worker, &w[i]) == 0;
        if (!started[i]) {
            w[i].finished = true; /* no lockstep waits for it */
            gd_step_barrier_leave(&start);
        }
    }
    gd_step_barrier_wait(&start);
    gd_session *s = gd_session_open(so, window, err, errlen);
    if (s) {
        /* Throughput between completions, not between samples: the
         * multiplies finished in an interval over the time they took. */
        double *first_at = calloc((size_t)n, sizeof *first_at), *at = calloc((size_t)n, sizeof *at);
        long *first = calloc((size_t)n, sizeof *first), *prev = calloc((size_t)n, sizeof *prev);
        if (!first_at || !at || !first || !prev) {
            snprintf(err, errlen, "out of memory");
        } else {
            for (int i = 0; i < n; i++) {
                first[i] = prev[i] = progress(&w[i], &first_at[i]);
                at[i] = first_at[i];
            }
        }
        int step = -1;
        double t0 = NAN;
        while (first && prev && at && first_at && (step = gd_session_step(s, err, errlen)) > 0) {
            double st = window->series.n ? gd_series_t(&window->series, window->series.n - 1) : 0;
            if (isnan(t0))
                t0 = st;
            if (lockstep) /* the interval that ends at this sample, multiplied */
                step_to(&clk, w, n, st - t0);
            if (clock_set) /* the simulated GPUs follow the window's clock */
                clock_set(st);
            for (int i = 0; i < n; i++) {
                double t;
                long d = progress(&w[i], &t);
                add_tick(&b->gpus[i], st,
                         d > prev[i] && t > at[i] ? w[i].flop * (double)(d - prev[i]) / (t - at[i]) / 1e12 : NAN);
                if (d > prev[i]) {
                    prev[i] = d;
                    at[i] = t;
                }
            }
            if (o->progress)
                o->progress(o->progress_ud, window, b, st - (isnan(t0) ? st : t0));
        }
        atomic_store(&stop, 1);
        for (int i = 0; first && at && i < n; i++)
            b->gpus[i].stress_tflops = prev[i] > first[i] && at[i] > first_at[i]
                                           ? w[i].flop * (double)(prev[i] - first[i]) / (at[i] - first_at[i]) / 1e12
                                           : NAN;
        free(first_at);
        free(at);
        free(first);
        free(prev);
        char cerr[256] = "";
        if (gd_session_close(s, cerr, sizeof cerr) != 0 && step >= 0)
            snprintf(err, errlen, "%s", cerr);
        else if (step >= 0)
            rc = 0;
    }
    atomic_store(&stop, 1);
    pthread_mutex_lock(&clk.mu); /* a worker waiting for the next sample wakes and stops */
    pthread_cond_broadcast(&clk.cv);
    pthread_mutex_unlock(&clk.mu);
    for (int i = 0; i < n; i++) {
        if (!started[i] || pthread_join(th[i], NULL) != 0)
            continue;
        gd_bench_gpu *g = &b->gpus[i];
        g->gemm_verdict = w[i].before == GD_VERIFY_WRONG || w[i].after == GD_VERIFY_WRONG ? GD_VERIFY_WRONG
                          : w[i].after == GD_VERIFY_OK                                    ? GD_VERIFY_OK
                                                                                          : w[i].before;
        snprintf(g->gemm_detail, sizeof g->gemm_detail, "%s", w[i].detail);
        snprintf(g->gemm_error, sizeof g->gemm_error, "%s", w[i].error);
        g->gemm_failed = w[i].failed;
        pthread_mutex_destroy(&w[i].lock);
    }
done:
    free(w);
    free(th);
    free(started);
    gd_bench_rt_close(&rt);
    if (rc == 0) {
        gd_bench_facts_free(window->bench);
        window->bench = b;
    } else {
        gd_bench_facts_free(b);
    }
    return rc;
}
