/* SPDX-License-Identifier: Apache-2.0 */
/* CUDA devices for the benchmarks: see cuda_device.h. */
#include "cuda_device.h"

#include "core/pcie_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_float(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

double gd_probe_median_ms(float *ms, int n)
{
    qsort(ms, (size_t)n, sizeof ms[0], cmp_float);
    return n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2.0;
}

gd_bench_verdict gd_probe_check_words(const uint32_t *back, const uint32_t *want, size_t words, const char *wrong,
                                      char *detail, size_t len)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < words; i++)
        if (back[i] != want[i] && bad++ == 0)
            first = i;
    if (bad)
        snprintf(detail, len, "%zu of %zu words %s (first at byte %zu: 0x%08x, expected 0x%08x)", bad, words, wrong,
                 first * 4, back[first], want[first]);
    else
        snprintf(detail, len, "a %zu MiB copy read back intact", words * 4 >> 20);
    return bad ? GD_VERIFY_WRONG : GD_VERIFY_OK;
}

int gd_probe_map_device(const struct gd_cuda_api *a, const gd_facts *f, int ordinal, char *bdf)
{
    CUdevice dev;
    char id[32] = "";
    bdf[0] = '\0';
    if (a->cuDeviceGet(&dev, ordinal) != CUDA_SUCCESS || a->cuDeviceGetPCIBusId(id, sizeof id, dev) != CUDA_SUCCESS ||
        gd_pcie_norm_bdf(id, bdf, 16) != 0)
        return -1;
    for (size_t g = 0; g < f->gpu_count; g++) {
        char b[16];
        if (gd_pcie_norm_bdf(f->gpus[g].pci_bus_id, b, sizeof b) == 0 && strcmp(b, bdf) == 0)
            return f->gpus[g].index;
    }
    return -1;
}

int gd_probe_ctx_open(const struct gd_cuda_api *a, int ordinal, CUdevice *dev, CUcontext *ctx, char *err, size_t errlen)
{
    *ctx = NULL;
    const char *step = "cuDeviceGet";
    CUresult rc = a->cuDeviceGet(dev, ordinal);
    if (rc == CUDA_SUCCESS &&
        (step = "cuDevicePrimaryCtxRetain", rc = a->cuDevicePrimaryCtxRetain(ctx, *dev)) == CUDA_SUCCESS) {
        step = "cuCtxSetCurrent";
        rc = a->cuCtxSetCurrent(*ctx);
        if (rc != CUDA_SUCCESS) {
            a->cuDevicePrimaryCtxRelease(*dev);
            *ctx = NULL;
        }
    } else {
        *ctx = NULL;
    }
    if (rc != CUDA_SUCCESS) {
        snprintf(err, errlen, "%s failed: %s", step, gd_cuda_result_name(rc));
        return -1;
    }
    return 0;
}

void gd_probe_ctx_close(const struct gd_cuda_api *a, CUdevice dev, CUcontext ctx)
{
    if (ctx)
        a->cuDevicePrimaryCtxRelease(dev);
}

int gd_probe_stream_open(const struct gd_cuda_api *a, gd_probe_stream *s, char *err, size_t errlen)
{
    *s = (gd_probe_stream){0};
    CUresult rc;
    if ((rc = a->cuStreamCreate(&s->st, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS ||
        (rc = a->cuEventCreate(&s->e0, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
        (rc = a->cuEventCreate(&s->e1, CU_EVENT_DEFAULT)) != CUDA_SUCCESS) {
        snprintf(err, errlen, "stream or event creation failed: %s", gd_cuda_result_name(rc));
        gd_probe_stream_close(a, s);
        return -1;
    }
    return 0;
}

void gd_probe_stream_close(const struct gd_cuda_api *a, gd_probe_stream *s)
{
    if (s->e0)
        a->cuEventDestroy(s->e0);
    if (s->e1)
        a->cuEventDestroy(s->e1);
    if (s->st)
        a->cuStreamDestroy(s->st);
    *s = (gd_probe_stream){0};
}
