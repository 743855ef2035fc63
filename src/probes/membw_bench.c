/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `bench membw`. Method after nvbandwidth's device_local_copy and STREAM's
 * copy: two device buffers, `reps` timed copies of one into the other (CUDA
 * events, median reported), counting bytes read plus bytes written, as
 * memory bandwidth is quoted on datasheets. Once on the copy engine
 * (cuMemcpyDtoDAsync) and once by the grid-stride kernel of
 * data/kernels/membw.ptx, which the driver compiles (cuModuleLoadDataEx,
 * its error log kept). Before timing, each way copies a small buffer of
 * known words that is read back and compared: a kernel that does not load,
 * or copies the wrong bytes, is a failure, never a figure (gpu-burn's
 * known bug).
 */
#include "membw_bench.h"
#include "core/strf.h"

#include "cuda_device.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char gd_ptx_membw[];

#define DEFAULT_BYTES ((size_t)1 << 30)
#define DEFAULT_REPS 10
#define MAX_REPS 64
#define CHECK_BYTES ((size_t)4 << 20)
#define BLOCK 256

typedef struct membw_dev {
    const struct gd_cuda_api *a;
    gd_probe_stream s;
    CUfunction fn; /* NULL when the kernel did not load */
    unsigned grid;
    const volatile sig_atomic_t *stop; /* a stop signal: the copies timed so far */
} membw_dev;

static CUresult copy_kernel(membw_dev *d, CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    unsigned long long words = bytes / 16;
    void *params[] = {&dst, &src, &words};
    return d->a->cuLaunchKernel(d->fn, d->grid, 1, 1, BLOCK, 1, 1, 0, d->s.st, params, NULL);
}

static CUresult copy_engine(membw_dev *d, CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    return d->a->cuMemcpyDtoDAsync(dst, src, bytes, d->s.st);
}

typedef CUresult (*copy_fn)(membw_dev *, CUdeviceptr, CUdeviceptr, size_t);

/* GB/s (read + write) of `reps` copies, median; NAN with why in err. */
static double timed_gbps(membw_dev *d, copy_fn copy, CUdeviceptr dst, CUdeviceptr src, size_t bytes, int reps,
                         char *err, size_t errlen)
{
    float ms[MAX_REPS];
    const struct gd_cuda_api *a = d->a;
    for (int r = -1; r < reps; r++) { /* r == -1: warm-up */
        float t = 0;
        CUresult rc;
        if ((rc = a->cuEventRecord(d->s.e0, d->s.st)) != CUDA_SUCCESS ||
            (rc = copy(d, dst, src, bytes)) != CUDA_SUCCESS ||
            (rc = a->cuEventRecord(d->s.e1, d->s.st)) != CUDA_SUCCESS ||
            (rc = a->cuEventSynchronize(d->s.e1)) != CUDA_SUCCESS ||
            (rc = a->cuEventElapsedTime(&t, d->s.e0, d->s.e1)) != CUDA_SUCCESS) {
            snprintf(err, errlen, "the copy failed: %s", gd_cuda_result_name(rc));
            return NAN;
        }
        if (r >= 0)
            ms[r] = t;
        if (r >= 0 && d->stop && *d->stop) {
            reps = r + 1; /* stopped: the median of those timed */
            break;
        }
    }
    double med = gd_probe_median_ms(ms, reps);
    return med > 0 ? 2.0 * (double)bytes / (med / 1e3) / 1e9 : NAN;
}

/* Copies CHECK_BYTES of known words and reads them back. */
static gd_bench_verdict check_copy(membw_dev *d, copy_fn copy, char *detail, size_t len)
{
    const struct gd_cuda_api *a = d->a;
    CUdeviceptr src = 0, dst = 0;
    uint32_t *host = malloc(CHECK_BYTES), *back = malloc(CHECK_BYTES);
    gd_bench_verdict v = GD_VERIFY_NOT_RUN;
    CUresult rc = CUDA_ERROR_OUT_OF_MEMORY;
    const size_t words = CHECK_BYTES / 4;
    if (host && back) {
        for (size_t i = 0; i < words; i++)
            host[i] = (uint32_t)(i * 2654435761u) ^ 0x5a5a5a5au;
        if ((rc = a->cuMemAlloc(&src, CHECK_BYTES)) == CUDA_SUCCESS &&
            (rc = a->cuMemAlloc(&dst, CHECK_BYTES)) == CUDA_SUCCESS &&
            (rc = a->cuMemcpyHtoD(src, host, CHECK_BYTES)) == CUDA_SUCCESS &&
            (rc = a->cuMemsetD8(dst, 0, CHECK_BYTES)) == CUDA_SUCCESS &&
            (rc = copy(d, dst, src, CHECK_BYTES)) == CUDA_SUCCESS &&
            (rc = a->cuStreamSynchronize(d->s.st)) == CUDA_SUCCESS &&
            (rc = a->cuMemcpyDtoH(back, dst, CHECK_BYTES)) == CUDA_SUCCESS)
            v = gd_probe_check_words(back, host, words, "copied wrong", detail, len);
    }
    if (v == GD_VERIFY_NOT_RUN)
        snprintf(detail, len, "the check could not run: %s", gd_cuda_result_name(rc));
    if (src)
        a->cuMemFree(src);
    if (dst)
        a->cuMemFree(dst);
    free(host);
    free(back);
    return v;
}

/* Loads the kernel; on failure says why, with the JIT's log. */
static CUresult load_kernel(const struct gd_cuda_api *a, CUmodule *mod, CUfunction *fn, char *err, size_t errlen)
{
    char log[1024] = "";
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, (void *)(uintptr_t)sizeof log};
    CUresult rc = a->cuModuleLoadDataEx ? a->cuModuleLoadDataEx(mod, gd_ptx_membw, 2, opts, vals)
                                        : a->cuModuleLoadData(mod, gd_ptx_membw);
    if (rc == CUDA_SUCCESS && (rc = a->cuModuleGetFunction(fn, *mod, "gd_membw_copy")) != CUDA_SUCCESS) {
        a->cuModuleUnload(*mod);
        *mod = NULL;
    }
    if (rc != CUDA_SUCCESS) {
        *mod = NULL;
        log[sizeof log - 1] = '\0';
        for (char *p = log; *p; p++)
            if (*p == '\n')
                *p = ' ';
        gd_strf(err, errlen, "the read/write kernel did not load: %s%s%s", gd_cuda_result_name(rc), log[0] ? ": " : "",
                log); /* the JIT log, cut to what fits */
    }
    return rc;
}

static void measure_device(const gd_bench_rt *rt, const gd_membw_bench_opts *o, size_t bytes, int reps, gd_bench_gpu *g)
{
    const struct gd_cuda_api *a = &rt->cu;
    gd_bench_thread_timing();
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod = NULL;
    membw_dev d = {.a = a, .grid = 1024, .stop = o->stop};
    CUdeviceptr src = 0, dst = 0;
    CUresult rc;
    if (gd_probe_ctx_open(a, g->cuda_device, &dev, &ctx, g->membw_error, sizeof g->membw_error) != 0)
        return;
    int sms = 0;
    if (a->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) == CUDA_SUCCESS && sms > 0)
        d.grid = (unsigned)sms * 8; /* enough resident warps to cover memory latency */
    if (gd_probe_stream_open(a, &d.s, g->membw_error, sizeof g->membw_error) != 0)
        goto out;
    char why[240] = "";
    gd_bench_verdict ce = check_copy(&d, copy_engine, g->membw_detail, sizeof g->membw_detail);
    gd_bench_verdict kv = GD_VERIFY_NOT_RUN;
    char kdetail[200] = "";
    if (load_kernel(a, &mod, &d.fn, why, sizeof why) == CUDA_SUCCESS)
        kv = check_copy(&d, copy_kernel, kdetail, sizeof kdetail);
    else
        g->membw_failed = true;
    /* The verdict is the worse of the two ways; the detail, the wrong one's. */
    g->membw_verdict = ce == GD_VERIFY_WRONG || kv == GD_VERIFY_WRONG ? GD_VERIFY_WRONG
                       : ce == GD_VERIFY_OK && kv == GD_VERIFY_OK     ? GD_VERIFY_OK
                                                                      : GD_VERIFY_NOT_RUN;
    if (ce != GD_VERIFY_WRONG && kv != GD_VERIFY_NOT_RUN && kv != GD_VERIFY_OK)
        snprintf(g->membw_detail, sizeof g->membw_detail, "kernel: %.180s", kdetail);
    if ((rc = a->cuMemAlloc(&src, bytes)) != CUDA_SUCCESS || (rc = a->cuMemAlloc(&dst, bytes)) != CUDA_SUCCESS) {
        snprintf(g->membw_error, sizeof g->membw_error, "cuMemAlloc of 2 x %zu MiB failed: %s", bytes >> 20,
                 gd_cuda_result_name(rc));
        goto out;
    }
    char err[240] = "";
    g->membw_copy_gbps = timed_gbps(&d, copy_engine, dst, src, bytes, reps, err, sizeof err);
    if (d.fn) {
        g->membw_kernel_gbps = timed_gbps(&d, copy_kernel, dst, src, bytes, reps, err, sizeof err);
        if (isnan(g->membw_kernel_gbps))
            g->membw_failed = true; /* loaded, then failed to run */
    }
    if (why[0])
        snprintf(g->membw_error, sizeof g->membw_error, "%s", why);
    else if (err[0])
        snprintf(g->membw_error, sizeof g->membw_error, "%s", err);
out:
    if (src)
        a->cuMemFree(src);
    if (dst)
        a->cuMemFree(dst);
    if (mod)
        a->cuModuleUnload(mod);
    gd_probe_stream_close(a, &d.s);
    gd_probe_ctx_close(a, dev, ctx);
}

int gd_membw_bench_run(const gd_membw_bench_opts *o, const gd_facts *f, gd_bench_facts *b, char *err, size_t errlen)
{
    gd_bench_rt rt;
    if (gd_bench_rt_open(&rt, &o->rt, f, b, err, errlen) != 0)
        return -1;
    b->membw = true;
    b->membw_bytes = o->bytes ? o->bytes : DEFAULT_BYTES;
    b->membw_reps = o->reps > 0 && o->reps <= MAX_REPS ? o->reps : DEFAULT_REPS;
    bool any = false;
    for (size_t i = 0; i < b->gpu_count; i++) {
        gd_bench_gpu *g = &b->gpus[i];
        if (o->stop && *o->stop) { /* stopped before this GPU: not measured, and said so */
            g->membw_copy_gbps = g->membw_kernel_gbps = NAN;
            snprintf(g->membw_error, sizeof g->membw_error, "the benchmark was stopped before it");
            continue;
        }
        measure_device(&rt, o, b->membw_bytes, b->membw_reps, g);
        any |= !isnan(g->membw_copy_gbps) || !isnan(g->membw_kernel_gbps) || g->membw_failed ||
               g->membw_verdict == GD_VERIFY_WRONG;
    }
    gd_bench_rt_close(&rt);
    if (!any) {
        snprintf(err, errlen, "no GPU could be measured: %s", b->gpus[0].membw_error);
        return -1;
    }
    return 0;
}
