/* SPDX-License-Identifier: Apache-2.0 */
/* What every benchmark does with a CUDA device: find its GPU, and make its
 * primary context current on the calling thread. */
#ifndef GD_PROBE_CUDA_DEVICE_H
#define GD_PROBE_CUDA_DEVICE_H

#include "loaders/cuda_loader.h"
#include "gpudoctor/bench.h"
#include "gpudoctor/model.h"

#include <stddef.h>
#include <stdint.h>

/*
 * The GPU index (f->gpus[].index) of CUDA device `ordinal`, matched by PCI
 * bus id (CUDA orders devices fastest first unless CUDA_DEVICE_ORDER=
 * PCI_BUS_ID; NVML by bus id), or -1; bdf (16 bytes) gets the bus id or "".
 */
int gd_probe_map_device(const struct gd_cuda_api *a, const gd_facts *f, int ordinal, char *bdf);

/* Retains the device's primary context and makes it current: 0, or -1
 * with "STEP failed: CUDA_ERROR_..." in err. */
int gd_probe_ctx_open(const struct gd_cuda_api *a, int ordinal, CUdevice *dev, CUcontext *ctx, char *err,
                      size_t errlen);
void gd_probe_ctx_close(const struct gd_cuda_api *a, CUdevice dev, CUcontext ctx);

/* The median of n > 0 timings (sorts them). */
double gd_probe_median_ms(float *ms, int n);

/* Words read back against those written: GD_VERIFY_OK ("a N MiB copy read
 * back intact") or GD_VERIFY_WRONG with the count and the first wrong word
 * in detail ("... words <wrong>", e.g. "copied wrong"). */
gd_bench_verdict gd_probe_check_words(const uint32_t *back, const uint32_t *want, size_t words, const char *wrong,
                                      char *detail, size_t len);

/* A stream with two timing events on the current context. */
typedef struct gd_probe_stream {
    CUstream st;
    CUevent e0, e1;
} gd_probe_stream;

/* 0, or -1 with "stream or event creation failed: CUDA_ERROR_..." in err
 * (what was made is destroyed). */
int gd_probe_stream_open(const struct gd_cuda_api *a, gd_probe_stream *s, char *err, size_t errlen);
/* Destroys what s holds; safe on a zeroed or half-made one. */
void gd_probe_stream_close(const struct gd_cuda_api *a, gd_probe_stream *s);

#endif
