/* SPDX-License-Identifier: Apache-2.0 */
/* The benchmarks' shared start: see bench_runtime.h. */
#include "bench_runtime.h"

#include "cuda_device.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

void gd_bench_thread_timing(void)
{
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

static int make_rows(gd_bench_rt *rt, const gd_facts *f, gd_bench_facts *b, char *err, size_t errlen)
{
    if (b->gpu_count > 0)
        return 0;
    b->gpus = calloc((size_t)rt->count, sizeof *b->gpus);
    if (!b->gpus) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    b->gpu_count = (size_t)rt->count;
    for (int i = 0; i < rt->count; i++) {
        gd_bench_gpu *g = &b->gpus[i];
        g->cuda_device = i;
        g->gpu = gd_probe_map_device(&rt->cu, f, i, g->bdf);
        CUdevice dev;
        if (rt->cu.cuDeviceGet(&dev, i) == CUDA_SUCCESS)
            rt->cu.cuDeviceGetName(g->name, (int)sizeof g->name, dev);
        g->gemm_single_tflops = g->gemm_concurrent_tflops = g->stress_tflops = NAN;
        g->membw_copy_gbps = g->membw_kernel_gbps = NAN;
    }
    return 0;
}

int gd_bench_rt_open(gd_bench_rt *rt, const gd_bench_rt_opts *o, const gd_facts *f, gd_bench_facts *b, char *err,
                     size_t errlen)
{
    memset(rt, 0, sizeof *rt);
    if (gd_cuda_load(&rt->cu, o->cuda_library, err, errlen) != 0)
        return -1;
    if (o->sim_scenario) {
        if (!rt->cu.gdsim_scenario_set) {
            snprintf(err, errlen, "%s is not gpudoctor's simulated libcuda", rt->cu.lib.path);
            goto fail;
        }
        rt->cu.gdsim_scenario_set(o->sim_scenario);
    }
    CUresult r = rt->cu.cuInit(0);
    if (r == CUDA_SUCCESS)
        r = rt->cu.cuDeviceGetCount(&rt->count);
    if (r != CUDA_SUCCESS || rt->count <= 0) {
        snprintf(err, errlen, "CUDA: %s", r != CUDA_SUCCESS ? gd_cuda_result_name(r) : "no device");
        goto fail;
    }
    if (o->cublaslt) {
        char why[768];
        if (gd_cublaslt_load(&rt->lt, o->cublaslt, why, sizeof why) != 0) {
            snprintf(err, errlen,
                     "%s. GEMM benchmarks need cuBLASLt: install the CUDA toolkit or Debian's "
                     "libcublaslt11 (non-free), name a Python environment with NVIDIA's wheels (--python ENV, e.g. a "
                     "PyTorch venv), or set GPUDOCTOR_CUBLASLT_LIBRARY",
                     why);
            goto fail;
        }
        rt->have_lt = true;
        snprintf(b->cublaslt, sizeof b->cublaslt, "%s", rt->lt.lib.path);
        b->cublaslt_version = rt->lt.cublasLtGetVersion();
    }
    if (make_rows(rt, f, b, err, errlen) == 0)
        return 0;
fail:
    gd_bench_rt_close(rt);
    return -1;
}

void gd_bench_rt_close(gd_bench_rt *rt)
{
    if (rt->have_lt)
        gd_cublaslt_unload(&rt->lt);
    gd_cuda_unload(&rt->cu);
    memset(rt, 0, sizeof *rt);
}
