/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Inside the NVML backend: the reader that every call of nvml_backend.c
 * (the snapshot) and nvml_sample.c (the samples) goes through.
 */
#ifndef GD_NVML_READ_H
#define GD_NVML_READ_H

#include "nvml_backend.h"

/* Calls an optional function; a missing one answers FUNCTION_NOT_FOUND. */
#define NVCALL(s, fn, ...) ((s)->api.fn ? (s)->api.fn(__VA_ARGS__) : NVML_ERROR_FUNCTION_NOT_FOUND)

/* Where a reading goes: the GPU it belongs to and the window time. */
typedef struct gd_nvml_reader {
    gd_nvml_session *s;
    gd_gpu *gpu;
    double t_s;
    const char *proc_root; /* where process names and owners are read; "" = nowhere */
    /* What the GPU cannot answer (the samples); NULL: every getter is asked
     * (the snapshot, the health re-read). */
    gd_nvml_memo *memo;
    nvmlReturn_t remembered; /* NVASK's answer of a getter not asked */
} gd_nvml_reader;

/* A "cannot" holds this many samples at least (and GD_HEALTH_REREAD_S):
 * 50 samples are the 5 s of the health cadence at 100 ms. */
#define GD_NVML_CANNOT_SAMPLES 50

/* Whether the sampler asks getter fn(arg) now: not when the GPU answered it
 * "cannot" (NOT_SUPPORTED, DEPRECATED, FUNCTION_NOT_FOUND,
 * ARGUMENT_VERSION_MISMATCH) less than GD_HEALTH_REREAD_S ago, or than
 * GD_NVML_CANNOT_SAMPLES samples at longer intervals; *rc is then
 * that answer again. A transient error (UNKNOWN, GPU_IS_LOST, NO_PERMISSION)
 * is never remembered: the next sample asks again. */
bool gd_nvml_ask(gd_nvml_reader *r, gd_nvml_fn fn, int arg, nvmlReturn_t *rc);
/* What getter fn(arg) answered, remembered when it is a "cannot"; returns rc. */
nvmlReturn_t gd_nvml_answered(gd_nvml_reader *r, gd_nvml_fn fn, int arg, nvmlReturn_t rc);

/* NVCALL through the reader's memory: the optional function `fn` of the API
 * table is called (with the arguments after arg) unless the GPU cannot
 * answer it (gd_nvml_ask); arg tells its readings apart (a clock type). */
#define NVASK(r, fn, arg, ...)                                                                                         \
    (gd_nvml_ask((r), (gd_nvml_fn)(r)->s->api.fn, (arg), &(r)->remembered)                                             \
         ? gd_nvml_answered((r), (gd_nvml_fn)(r)->s->api.fn, (arg), NVCALL((r)->s, fn, __VA_ARGS__))                   \
         : (r)->remembered)

/* The one place that turns a return code into a value (and notices loss):
 * NOT_SUPPORTED and DEPRECATED (a call the driver retired) are data. */
gd_value gd_nvml_take(gd_nvml_reader *r, const char *call, nvmlReturn_t rc, double v);

/* True when a successor's answer means "ask the older call": the function
 * is missing, or this board or driver does not do it. */
static inline bool gd_nvml_try_older(nvmlReturn_t rc)
{
    return rc == NVML_ERROR_FUNCTION_NOT_FOUND || rc == NVML_ERROR_NOT_SUPPORTED ||
           rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}

/* A field value as a double (its own type). */
double gd_nvml_field_number(const nvmlFieldValue_t *fv);

/* The GPU temperature: nvmlDeviceGetTemperatureV (CUDA 13's successor), else
 * nvmlDeviceGetTemperature (NVML_ERROR_DEPRECATED from CUDA 14 drivers). */
gd_value gd_nvml_read_temp(gd_nvml_reader *r, nvmlDevice_t d);

/* NVML's return code as a value's status. */
gd_status gd_nvml_status(nvmlReturn_t rc);

/* An unsigned getter's answer times scale (through the reader's memory). */
gd_value gd_nvml_read_uint(gd_nvml_reader *r, const char *call, nvml_DeviceGetUInt_fn fn, nvmlDevice_t d, double scale);

/* A clock getter's answer (MHz) for one clock type (through the reader's memory). */
gd_value gd_nvml_read_clock(gd_nvml_reader *r, const char *call, nvml_DeviceGetClockInfo_fn fn, nvmlDevice_t d,
                            nvmlClockType_t type);

/* nvml_processes.c: the GPU's compute processes into g->processes. */
void gd_nvml_read_processes(gd_nvml_reader *r, nvmlDevice_t d, gd_gpu *g);

#endif
