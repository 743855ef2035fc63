/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `bench pcie`: copy bandwidth between host and device.
 *
 * Method (after NVIDIA's nvbandwidth and bandwidthTest): one device buffer,
 * one pinned host buffer (cuMemAllocHost) and one pageable one (malloc,
 * touched first so page faults stay out of the timing); a warm-up copy, then
 * `reps` copies, each timed by CUDA events on a stream, and the median
 * reported (nvbandwidth takes the median of 3). Each GPU is measured alone,
 * then all at once from one thread per GPU, in step through a barrier so
 * that every GPU copies in the same direction at the same time.
 */
#include "pcie_bandwidth.h"

#include "loaders/cuda_loader.h"
#include "core/pcie_util.h"
#include "cuda_device.h"
#include "step_barrier.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#define DEFAULT_BYTES ((size_t)256 << 20)
#define DEFAULT_REPS 5
#define MAX_REPS 64

typedef struct worker {
    const struct gd_cuda_api *api;
    int device;
    size_t bytes;
    int reps;
    gd_step_barrier *barrier; /* NULL when measured alone */
    const volatile sig_atomic_t *stop; /* gd_pcie_bench_opts' */
    double gbps[2][2]; /* [direction][memory] */
    char error[200];
} worker;

/* One figure: the median of `reps` timed copies, in GB/s; NAN on error. */
static double measure(worker *w, CUstream st, CUevent e0, CUevent e1, CUdeviceptr dev, void *host, int dir)
{
    const struct gd_cuda_api *a = w->api;
    float ms[MAX_REPS];
    int done = 0;
    for (int r = -1; r < w->reps; r++) { /* r == -1: warm-up */
        if (r >= 1 && w->stop && *w->stop)
            break; /* stopped: the copies timed so far */
        CUresult rc = a->cuEventRecord(e0, st);
        if (rc == CUDA_SUCCESS)
            rc = dir == GD_BW_H2D ? a->cuMemcpyHtoDAsync(dev, host, w->bytes, st)
                                  : a->cuMemcpyDtoHAsync(host, dev, w->bytes, st);
        if (rc == CUDA_SUCCESS)
            rc = a->cuEventRecord(e1, st);
        if (rc == CUDA_SUCCESS)
            rc = a->cuEventSynchronize(e1);
        float t = 0;
        if (rc == CUDA_SUCCESS)
            rc = a->cuEventElapsedTime(&t, e0, e1);
        if (rc != CUDA_SUCCESS) {
            snprintf(w->error, sizeof w->error, "%s copy failed: %s",
                     dir == GD_BW_H2D ? "host-to-device" : "device-to-host", gd_cuda_result_name(rc));
            return NAN;
        }
        if (r >= 0)
            ms[done++] = t;
    }
    double med = gd_probe_median_ms(ms, done);
    return med > 0 ? (double)w->bytes / (med / 1e3) / 1e9 : NAN;
}

static void *run_worker(void *arg)
{
    worker *w = arg;
    const struct gd_cuda_api *a = w->api;
    /* Copies that block in a sleep (the simulated driver's, a driver waiting
     * for DMA) wake up to 50 us late with Linux's default timer slack: 2 %
     * of a 100 MiB copy at 50 GB/s. 1 ns slack keeps the timing honest. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    for (int d = 0; d < 2; d++)
        w->gbps[d][0] = w->gbps[d][1] = NAN;
    CUdevice dev;
    CUcontext ctx = NULL;
    CUstream st = NULL;
    CUevent e0 = NULL, e1 = NULL;
    CUdeviceptr dbuf = 0;
    void *pinned = NULL, *pageable = NULL;
    CUresult rc = a->cuDeviceGet(&dev, w->device);
    const char *step = "cuDeviceGet";
    if (rc == CUDA_SUCCESS &&
        (step = "cuDevicePrimaryCtxRetain", rc = a->cuDevicePrimaryCtxRetain(&ctx, dev)) == CUDA_SUCCESS &&
        (step = "cuCtxSetCurrent", rc = a->cuCtxSetCurrent(ctx)) == CUDA_SUCCESS &&
        (step = "cuStreamCreate", rc = a->cuStreamCreate(&st, CU_STREAM_NON_BLOCKING)) == CUDA_SUCCESS &&
        (step = "cuEventCreate", rc = a->cuEventCreate(&e0, CU_EVENT_DEFAULT)) == CUDA_SUCCESS &&
        (rc = a->cuEventCreate(&e1, CU_EVENT_DEFAULT)) == CUDA_SUCCESS &&
        (step = "cuMemAlloc", rc = a->cuMemAlloc(&dbuf, w->bytes)) == CUDA_SUCCESS &&
        (step = "cuMemAllocHost", rc = a->cuMemAllocHost(&pinned, w->bytes)) == CUDA_SUCCESS) {
        pageable = malloc(w->bytes);
        if (pageable) /* fault the pages in now; untouched ones would map the zero page */
            memset(pageable, 0x5a, w->bytes);
        else
            snprintf(w->error, sizeof w->error, "out of host memory for a %zu-byte buffer", w->bytes);
    } else {
        snprintf(w->error, sizeof w->error, "%s failed: %s", step, gd_cuda_result_name(rc));
    }
    /* In step with the other GPUs, also when this one failed, so that no
     * thread waits forever at the barrier. */
    for (int d = 0; d < 2; d++) {
        for (int m = 0; m < 2; m++) {
            if (w->barrier)
                gd_step_barrier_wait(w->barrier);
            /* All at once, stopped: the figures left stay NAN (8 GPUs'
             * shared copies take seconds); alone, each takes one copy. */
            if (!w->error[0] && !(w->barrier && w->stop && *w->stop))
                w->gbps[d][m] = measure(w, st, e0, e1, dbuf, m == GD_BW_PINNED ? pinned : pageable, d);
        }
    }
    free(pageable);
    if (pinned)
        a->cuMemFreeHost(pinned);
    if (dbuf)
        a->cuMemFree(dbuf);
    if (e0)
        a->cuEventDestroy(e0);
    if (e1)
        a->cuEventDestroy(e1);
    if (st)
        a->cuStreamDestroy(st);
    if (ctx)
        a->cuDevicePrimaryCtxRelease(dev);
    return NULL;
}

static void store(double dst[2][2], double src[2][2])
{
    memcpy(dst, src, sizeof(double[2][2]));
}

/* Did any GPU alone give any figure? */
static bool any_measured(const gd_pcie_bench *b)
{
    for (size_t i = 0; i < b->gpu_count; i++)
        for (int d = 0; d < 2; d++)
            for (int m = 0; m < 2; m++)
                if (!isnan(b->gpus[i].single_gbps[d][m]))
                    return true;
    return false;
}

/* "no GPU could be measured: cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY
 * (all 4 GPUs)", or one reason per GPU when they differ. */
static void nothing_measured(const gd_pcie_bench *b, char *err, size_t errlen)
{
    bool same = true;
    for (size_t i = 1; i < b->gpu_count; i++)
        same &= strcmp(b->gpus[i].error, b->gpus[0].error) == 0;
    if (same) {
        snprintf(err, errlen, "no GPU could be measured: %s (%s%zu GPU%s)",
                 b->gpus[0].error[0] ? b->gpus[0].error : "no copy gave a figure", b->gpu_count > 1 ? "all " : "",
                 b->gpu_count, b->gpu_count > 1 ? "s" : "");
        return;
    }
    size_t len = (size_t)snprintf(err, errlen, "no GPU could be measured:");
    for (size_t i = 0; i < b->gpu_count && len < errlen; i++) {
        const gd_pcie_bench_gpu *g = &b->gpus[i];
        len +=
            (size_t)snprintf(err + len, errlen - len, "%s %s %d: %s", i ? ";" : "", g->gpu >= 0 ? "GPU" : "CUDA device",
                             g->gpu >= 0 ? g->gpu : g->cuda_device, g->error[0] ? g->error : "no copy gave a figure");
    }
}

int gd_pcie_bench_run(const gd_pcie_bench_opts *o, const gd_facts *f, gd_pcie_bench *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct gd_cuda_api api;
    if (gd_cuda_load(&api, o->cuda_library, err, errlen) != 0)
        return -1;
    int count = 0, rc = -1;
    if (o->sim_scenario) {
        if (!api.gdsim_scenario_set) {
            snprintf(err, errlen, "%s is not gpudoctor's simulated libcuda", api.lib.path);
            goto done;
        }
        api.gdsim_scenario_set(o->sim_scenario);
    }
    CUresult r = api.cuInit(0);
    if (r == CUDA_SUCCESS)
        r = api.cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS || count <= 0) {
        snprintf(err, errlen, "CUDA: %s", r != CUDA_SUCCESS ? gd_cuda_result_name(r) : "no device");
        goto done;
    }
    out->bytes = o->bytes ? o->bytes : DEFAULT_BYTES;
    out->reps = o->reps > 0 && o->reps <= MAX_REPS ? o->reps : DEFAULT_REPS;
    out->gpus = calloc((size_t)count, sizeof *out->gpus);
    worker *w = calloc((size_t)count, sizeof *w);
    pthread_t *th = calloc((size_t)count, sizeof *th);
    if (!out->gpus || !w || !th) {
        free(w);
        free(th);
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    out->gpu_count = (size_t)count;
    for (int i = 0; i < count; i++) {
        out->gpus[i].cuda_device = i;
        out->gpus[i].gpu = gd_probe_map_device(&api, f, i, out->gpus[i].bdf);
        w[i] = (worker){.api = &api, .device = i, .bytes = out->bytes, .reps = out->reps, .stop = o->stop};
        if (o->stop && *o->stop) { /* stopped before this GPU: not measured, and said so */
            for (int d = 0; d < 2; d++)
                w[i].gbps[d][0] = w[i].gbps[d][1] = NAN;
            snprintf(w[i].error, sizeof w[i].error, "the benchmark was stopped before it");
        } else
            run_worker(&w[i]);
        store(out->gpus[i].single_gbps, w[i].gbps);
        gd_pcie_copy(out->gpus[i].error, sizeof out->gpus[i].error, w[i].error);
        for (int d = 0; d < 2; d++)
            out->gpus[i].concurrent_gbps[d][0] = out->gpus[i].concurrent_gbps[d][1] = NAN;
    }
    if (!any_measured(out)) { /* a benchmark that measured nothing did not run */
        nothing_measured(out, err, errlen);
        free(w);
        free(th);
        free(out->gpus);
        out->gpus = NULL;
        out->gpu_count = 0;
        goto done;
    }
    gd_step_barrier bar = GD_STEP_BARRIER_INIT(count);
    if (o->concurrent && count > 1 && !(o->stop && *o->stop)) {
        int started = 0;
        for (int i = 0; i < count; i++) {
            w[i] = (worker){
                .api = &api, .device = i, .bytes = out->bytes, .reps = out->reps, .barrier = &bar, .stop = o->stop};
            if (pthread_create(&th[i], NULL, run_worker, &w[i]) == 0)
                started++;
            else {
                w[i].barrier = NULL; /* not started: keeps NAN concurrent figures */
                gd_step_barrier_leave(&bar);
            }
        }
        for (int i = 0, k = 0; i < count && k < started; i++) {
            if (w[i].barrier && pthread_join(th[i], NULL) == 0) {
                k++;
                store(out->gpus[i].concurrent_gbps, w[i].gbps);
            }
        }
    }
    free(w);
    free(th);
    rc = 0;
done:
    gd_cuda_unload(&api);
    return rc;
}
