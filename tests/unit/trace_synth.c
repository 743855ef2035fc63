/* SPDX-License-Identifier: Apache-2.0 */
/* Synthetic Kineto traces (trace_synth.h). */
#include "trace_synth.h"
#include "formats/trace/trace_read.h"
#include "checks/trace_checks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf;

__attribute__((format(printf, 2, 3))) static void add(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (k >= 0 && (size_t)k < b->cap - b->n) {
            b->n += (size_t)k;
            return;
        }
        b->cap = b->cap * 2 + (size_t)k + 256;
        b->p = realloc(b->p, b->cap);
    }
}

static void cpu(sbuf *b, const char *cat, const char *name, double ts, double dur, long corr)
{
    add(b,
        ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.0f,\"dur\":%.0f,"
        "\"args\":{\"correlation\":%ld,\"External id\":1}}",
        cat, name, ts, dur, corr);
}

static void gpu(sbuf *b, const char *cat, const char *name, double ts, double dur, long corr, double bytes)
{
    add(b,
        ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%.0f,\"dur\":%.0f,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%ld,\"bytes\":%.0f}}",
        cat, name, ts, dur, corr, bytes);
}

char *synth_trace(const synth *s)
{
    sbuf b = {malloc(4096), 0, 4096};
    add(&b, "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"computeMajor\":8}],"
            "\"distributedInfo\":{\"rank\":0,\"world_size\":1},\n\"traceEvents\":[\n"
            "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"python\"}}");
    long corr = 1;
    double gpu_free = 0;
    for (int i = 1; i <= s->steps; i++) {
        double t0 = (i - 1) * s->step_us;
        char step[32];
        snprintf(step, sizeof step, "ProfilerStep#%d", i);
        cpu(&b, "user_annotation", step, t0, s->step_us, -1);
        double t = t0;
        if (s->loader_us > 0) {
            cpu(&b, "user_annotation",
                s->loader_workers ? "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"
                                  : "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                t, s->loader_us, -1);
            t += s->loader_us;
        }
        if (s->copy_bytes > 0) {
            double copy_us = s->copy_bytes / 10e3; /* 10 GB/s */
            cpu(&b, "cuda_runtime", "cudaMemcpyAsync", t, s->copy_pageable ? copy_us + 10 : 5, corr);
            double g = t + 5 > gpu_free ? t + 5 : gpu_free;
            gpu(&b, "gpu_memcpy",
                s->copy_pageable ? "Memcpy HtoD (Pageable -> Device)" : "Memcpy HtoD (Pinned -> Device)", g, copy_us,
                corr++, s->copy_bytes);
            gpu_free = g + copy_us;
            t += s->copy_pageable ? copy_us + 10 : 5;
        }
        for (int k = 0; k < s->kernels; k++) {
            cpu(&b, "cuda_runtime", "cudaLaunchKernel", t, s->launch_us, corr);
            double g = t + s->launch_us + 1 > gpu_free ? t + s->launch_us + 1 : gpu_free;
            gpu(&b, "kernel",
                k % 2     ? "void at::native::elementwise_kernel"
                : s->gemm ? s->gemm
                          : "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn",
                g, s->kernel_us, corr++, 0);
            gpu_free = g + s->kernel_us;
            t += s->launch_us + 1;
        }
        for (int r = 0; r < s->reads; r++) {
            /* at::cuda::memcpy_and_sync: the copy waits behind the queued kernels. */
            double g = t + 6 > gpu_free ? t + 6 : gpu_free;
            double copy_end = g + 2, mc = s->read_in_sync ? 5 : copy_end - (t + 1);
            double sync_ts = t + 1 + mc + 1,
                   sync_dur = s->read_in_sync ? (copy_end > sync_ts ? copy_end - sync_ts : 0) + 3 : 3;
            double end = sync_ts + sync_dur + 1;
            cpu(&b, "cpu_op", s->read_via_cpu ? "aten::to" : "aten::item", t, end - t, -1);
            if (!s->read_via_cpu)
                cpu(&b, "cpu_op", "aten::_local_scalar_dense", t, end - t, -1);
            cpu(&b, "cuda_runtime", "cudaMemcpyAsync", t + 1, mc, corr);
            gpu(&b, "gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", g, 2, corr++, 4);
            cpu(&b, "cuda_runtime", "cudaStreamSynchronize", sync_ts, sync_dur, corr++);
            gpu_free = copy_end;
            t = end;
        }
        if (s->sync_us > 0) {
            double wait = gpu_free > t ? gpu_free - t : 0;
            cpu(&b, "cuda_runtime", "cudaDeviceSynchronize", t, wait + s->sync_us, corr++);
        }
    }
    add(&b, "\n],\"traceName\":\"synthetic\"}\n");
    return b.p;
}

analyzed *ta_analyze_opts(const void *data, size_t len, const gd_trace_opts *o)
{
    analyzed *a = calloc(1, sizeof *a);
    gd_trace_acc *acc = gd_trace_acc_new();
    a->rc = gd_trace_read_mem(data, len, acc, &a->meta, a->err, sizeof a->err);
    if (a->rc == 0) {
        if (gd_trace_analyze(acc, &a->meta, o, &a->r, a->err, sizeof a->err))
            a->rc = -2;
        else
            gd_trace_checks_run(&a->r, 1, &a->fs);
    }
    gd_trace_acc_free(acc);
    return a;
}

analyzed *ta_analyze(const char *json)
{
    gd_trace_opts o;
    gd_trace_opts_default(&o);
    return ta_analyze_opts(json, strlen(json), &o);
}

void ta_done(analyzed *a)
{
    gd_trace_result_free(&a->r);
    gd_findings_free(&a->fs);
    free(a);
}

const gd_finding *ta_finding(const analyzed *a, const char *id)
{
    for (size_t i = 0; i < a->fs.n; i++)
        if (strcmp(a->fs.v[i].id, id) == 0)
            return &a->fs.v[i];
    return NULL;
}

bool ta_has(const analyzed *a, const char *id)
{
    return ta_finding(a, id) != NULL;
}

synth synth_healthy(void)
{
    /* 5 steps of 10 ms: 200 kernels of 45 us launched 10 us apart keep the GPU busy. */
    return (synth){.steps = 6,
                   .step_us = 10000,
                   .loader_us = 50,
                   .loader_workers = true,
                   .kernels = 200,
                   .kernel_us = 45,
                   .launch_us = 9,
                   .copy_bytes = 1e6,
                   .copy_pageable = false};
}

analyzed *ta_run_synth(const synth *s)
{
    char *t = synth_trace(s);
    analyzed *a = ta_analyze(t);
    free(t);
    return a;
}
