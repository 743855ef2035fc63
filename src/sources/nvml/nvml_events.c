/* SPDX-License-Identifier: Apache-2.0 */
/* Faults as they happen (nvml_events.h). */
#include "nvml_events.h"
#include "nvml_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NVCALL(s, fn, ...) ((s)->api.fn ? (s)->api.fn(__VA_ARGS__) : NVML_ERROR_FUNCTION_NOT_FOUND)

/* At most this many events are taken per sample: a storm cannot stall the sampler. */
#define MAX_EVENTS_PER_SAMPLE 64

static void add(gd_facts *f, double t, int gpu, gd_event_kind kind, long long value, const char *what)
{
    gd_event e = {.t = t, .gpu = gpu, .kind = (int)kind, .value = value};
    snprintf(e.what, sizeof e.what, "%s", what ? what : "");
    (void)gd_event_add(&f->events, &e); /* out of memory: the event is lost, the session goes on */
}

static void gpm_open(gd_nvml_watch *w, gd_nvml_session *s)
{
    for (size_t g = 0; g < w->gpus; g++) {
        nvmlGpmSupport_t sup = {.version = NVML_GPM_SUPPORT_VERSION};
        if (!s->devices[g] || NVCALL(s, GpmQueryDeviceSupport, s->devices[g], &sup) != NVML_SUCCESS ||
            !sup.isSupportedDevice || !s->api.GpmSampleAlloc || !s->api.GpmMetricsGet || !s->api.GpmSampleGet)
            continue;
        if (s->api.GpmSampleAlloc(&w->gpm[0][g]) != NVML_SUCCESS ||
            s->api.GpmSampleAlloc(&w->gpm[1][g]) != NVML_SUCCESS) {
            if (w->gpm[0][g] && s->api.GpmSampleFree)
                s->api.GpmSampleFree(w->gpm[0][g]);
            w->gpm[0][g] = NULL;
            w->gpm[1][g] = NULL;
        }
    }
}

int gd_nvml_watch_open(gd_nvml_watch *w, gd_nvml_session *s, gd_facts *f)
{
    memset(w, 0, sizeof *w);
    w->gpus = f->gpu_count < s->count ? f->gpu_count : s->count;
    w->gpm[0] = calloc(w->gpus + 1, sizeof *w->gpm[0]);
    w->gpm[1] = calloc(w->gpus + 1, sizeof *w->gpm[1]);
    w->gpm_have = calloc(w->gpus + 1, sizeof *w->gpm_have);
    if (!w->gpm[0] || !w->gpm[1] || !w->gpm_have) {
        gd_nvml_watch_close(w, s);
        return -1;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    f->events.start_unix = (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
    f->events.reread_s = GD_HEALTH_REREAD_S;
    f->events.counter_reads = 1; /* the snapshot's */
    w->next_reread_s = GD_HEALTH_REREAD_S;
    if (NVCALL(s, EventSetCreate, &w->set) != NVML_SUCCESS)
        w->set = NULL;
    for (size_t g = 0; w->set && g < w->gpus; g++)
        if (s->devices[g] && !f->gpus[g].lost &&
            NVCALL(s, DeviceRegisterEvents, s->devices[g], nvmlEventTypeXidCriticalError, w->set) == NVML_SUCCESS)
            f->events.xid_watched = true;
    gpm_open(w, s);
    return 0;
}

static int gpu_of(const gd_nvml_session *s, size_t gpus, nvmlDevice_t d)
{
    for (size_t g = 0; g < gpus; g++)
        if (s->devices[g] == d)
            return (int)g;
    return -1;
}

static void poll_xids(gd_nvml_watch *w, gd_nvml_session *s, gd_facts *f, double t)
{
    for (int k = 0; w->set && k < MAX_EVENTS_PER_SAMPLE; k++) {
        nvmlEventData_t d;
        memset(&d, 0, sizeof d);
        if (NVCALL(s, EventSetWait_v2, w->set, &d, 0) != NVML_SUCCESS)
            break;
        if (d.eventType & nvmlEventTypeXidCriticalError)
            add(f, t, gpu_of(s, w->gpus, d.device), GD_EV_XID, (long long)d.eventData, "nvml");
    }
}

/* One counter compared with its previous reading: its rise is an event. */
static void rise(gd_facts *f, double t, int g, const char *name, gd_value before, gd_value now)
{
    if (gd_ok(before) && gd_ok(now) && now.v > before.v)
        add(f, t, g, GD_EV_COUNTER, (long long)(now.v - before.v), name);
    else if (!gd_ok(before) && gd_ok(now) && now.v > 0 && strcmp(name, "remap_pending") == 0)
        add(f, t, g, GD_EV_COUNTER, 1, name);
}

/* The rises of one NVLink's error counters: events named
 * "nvlink_<counter>:<link>" (gd_nvlink_event_parse reads them back). */
static void nvlink_rises(gd_facts *f, double t, int g, const gd_nvlink *before, const gd_nvlink *now)
{
    const gd_value *b[] = {&before->replay_errors, &before->recovery_errors, &before->crc_flit_errors,
                           &before->crc_data_errors};
    const gd_value *n[] = {&now->replay_errors, &now->recovery_errors, &now->crc_flit_errors, &now->crc_data_errors};
    for (size_t k = 0; k < sizeof b / sizeof b[0]; k++) {
        char name[64];
        snprintf(name, sizeof name, "nvlink_%s:%u", gd_nvlink_counter_names[k], now->link);
        rise(f, t, g, name, *b[k], *n[k]);
    }
}

static void reread(gd_nvml_watch *w, gd_nvml_session *s, gd_facts *f, double t)
{
    w->last_read_s = t;
    f->events.counter_reads++;
    for (size_t g = 0; g < w->gpus; g++) {
        gd_gpu *gpu = &f->gpus[g];
        if (gpu->lost) {
            /* A lost GPU asked again: one that answers is back. The sampler's
             * temperature call (nvmlDeviceGetTemperatureV, the deprecated
             * nvmlDeviceGetTemperature where it is missing); no GPU in the
             * reader, so an answer still lost changes nothing. */
            gd_nvml_reader r = {.s = s, .t_s = t};
            if (s->devices[g] && gd_ok(gd_nvml_read_temp(&r, s->devices[g]))) {
                gpu->lost = false;
                add(f, t, (int)g, GD_EV_GPU_BACK, 0, "nvmlDeviceGetTemperatureV");
            }
            continue;
        }
        gd_gpu now = *gpu;
        gd_nvml_reread_memory_health(s, g, &now, t);
        if (now.lost)
            continue; /* the sampler notices it */
        rise(f, t, (int)g, "ecc_volatile_uncorrected", gpu->ecc_volatile_uncorrected, now.ecc_volatile_uncorrected);
        rise(f, t, (int)g, "ecc_aggregate_uncorrected", gpu->ecc_aggregate_uncorrected, now.ecc_aggregate_uncorrected);
        rise(f, t, (int)g, "retired_pages_sbe", gpu->retired_pages_sbe, now.retired_pages_sbe);
        rise(f, t, (int)g, "retired_pages_dbe", gpu->retired_pages_dbe, now.retired_pages_dbe);
        rise(f, t, (int)g, "remap_unc_rows", gpu->remap_unc_rows, now.remap_unc_rows);
        rise(f, t, (int)g, "remap_corr_rows", gpu->remap_corr_rows, now.remap_corr_rows);
        rise(f, t, (int)g, "remap_pending", gpu->remap_pending, now.remap_pending);
        rise(f, t, (int)g, "remap_failure", gpu->remap_failure, now.remap_failure);
        gpu->ecc_volatile_uncorrected = now.ecc_volatile_uncorrected;
        gpu->ecc_aggregate_uncorrected = now.ecc_aggregate_uncorrected;
        gpu->retired_pages_sbe = now.retired_pages_sbe;
        gpu->retired_pages_dbe = now.retired_pages_dbe;
        gpu->retired_pages_pending = now.retired_pages_pending;
        gpu->remap_corr_rows = now.remap_corr_rows;
        gpu->remap_unc_rows = now.remap_unc_rows;
        gpu->remap_pending = now.remap_pending;
        gpu->remap_failure = now.remap_failure;
        for (size_t l = 0; l < gpu->nvlink_count; l++) {
            nvlink_rises(f, t, (int)g, &gpu->nvlink[l], &now.nvlink[l]);
            gpu->nvlink[l].replay_errors = now.nvlink[l].replay_errors;
            gpu->nvlink[l].recovery_errors = now.nvlink[l].recovery_errors;
            gpu->nvlink[l].crc_flit_errors = now.nvlink[l].crc_flit_errors;
            gpu->nvlink[l].crc_data_errors = now.nvlink[l].crc_data_errors;
        }
    }
}

/* Every GPU that still answers failed the sample's core readings with an
 * error (not "not supported"): the driver stopped answering. */
static void driver_state(gd_nvml_watch *w, gd_facts *f, size_t i, double t)
{
    size_t asked = 0, failed = 0;
    int code = 0;
    for (size_t g = 0; g < w->gpus; g++) {
        if (f->gpus[g].lost)
            continue;
        asked++;
        gd_value temp = gd_series_at(&f->series, i, g, GD_M_TEMP_C);
        gd_value power = gd_series_at(&f->series, i, g, GD_M_POWER_W);
        if (temp.status == GD_ST_ERROR && power.status == GD_ST_ERROR) {
            failed++;
            code = temp.raw;
        }
    }
    bool down = asked > 0 && failed == asked;
    if (down && !w->driver_down)
        add(f, t, -1, GD_EV_DRIVER_LOST, code, "nvmlDeviceGetTemperature");
    else if (!down && w->driver_down && asked > 0)
        add(f, t, -1, GD_EV_DRIVER_BACK, 0, "");
    w->driver_down = down;
}

static void gpm_sample(gd_nvml_watch *w, gd_nvml_session *s, gd_facts *f, size_t i)
{
    static const struct {
        unsigned id;
        gd_metric m;
    } want[] = {
        {NVML_GPM_METRIC_GRAPHICS_UTIL, GD_M_GR_ENGINE_ACTIVE_PCT},
        {NVML_GPM_METRIC_ANY_TENSOR_UTIL, GD_M_TENSOR_ACTIVE_PCT},
        {NVML_GPM_METRIC_DRAM_BW_UTIL, GD_M_DRAM_ACTIVE_PCT},
    };
    enum { N = sizeof want / sizeof want[0] };
    for (size_t g = 0; g < w->gpus && g < f->series.gpus; g++) {
        if (!w->gpm[0][g] || f->gpus[g].lost)
            continue; /* the sampler said why */
        gd_value *row = gd_series_slot(&f->series, i, g);
        for (size_t k = 0; k < N; k++)
            row[want[k].m] = gd_missing(GD_ST_UNREAD); /* the first sample has no pair yet */
        if (s->api.GpmSampleGet(s->devices[g], w->gpm[1][g]) != NVML_SUCCESS) {
            w->gpm_have[g] = false;
            continue;
        }
        if (w->gpm_have[g]) {
            nvmlGpmMetricsGet_t *mg = calloc(1, sizeof *mg); /* 4 KB: not on the sampler's stack */
            if (mg) {
                mg->version = NVML_GPM_METRICS_GET_VERSION;
                mg->numMetrics = N;
                mg->sample1 = w->gpm[0][g];
                mg->sample2 = w->gpm[1][g];
                for (size_t k = 0; k < N; k++)
                    mg->metrics[k].metricId = want[k].id;
                if (s->api.GpmMetricsGet(mg) == NVML_SUCCESS)
                    for (size_t k = 0; k < N; k++)
                        row[want[k].m] = mg->metrics[k].nvmlReturn == NVML_SUCCESS ? gd_val(mg->metrics[k].value)
                                                                                   : gd_missing(GD_ST_NOT_SUPPORTED);
                free(mg);
            }
        }
        /* The current sample becomes the previous one. */
        nvmlGpmSample_t prev = w->gpm[0][g];
        w->gpm[0][g] = w->gpm[1][g];
        w->gpm[1][g] = prev;
        w->gpm_have[g] = true;
    }
}

void gd_nvml_watch_sample(gd_nvml_watch *w, gd_nvml_session *s, gd_facts *f, size_t i, double t)
{
    for (size_t g = 0; g < w->gpus; g++) /* the sampler marks a GPU lost at its first failing call */
        if (f->gpus[g].lost && f->gpus[g].lost_at_s == t)
            add(f, t, (int)g, GD_EV_GPU_LOST, f->gpus[g].lost_code, f->gpus[g].lost_call);
    poll_xids(w, s, f, t);
    driver_state(w, f, i, t);
    if (t + 1e-9 >= w->next_reread_s) {
        reread(w, s, f, t);
        while (w->next_reread_s <= t + 1e-9) /* on the cadence's own beat: 5, 10, 15 s... */
            w->next_reread_s += GD_HEALTH_REREAD_S;
    }
    gpm_sample(w, s, f, i);
}

void gd_nvml_watch_finish(gd_nvml_watch *w, gd_nvml_session *s, gd_facts *f, double t)
{
    if (t > w->last_read_s + 1e-9) /* a snapshot (one sample at 0) or a re-read at the last sample: nothing new */
        reread(w, s, f, t);
}

void gd_nvml_watch_close(gd_nvml_watch *w, gd_nvml_session *s)
{
    if (w->set && s->api.EventSetFree)
        s->api.EventSetFree(w->set);
    for (int k = 0; k < 2; k++) {
        for (size_t g = 0; w->gpm[k] && g < w->gpus; g++)
            if (w->gpm[k][g] && s->api.GpmSampleFree)
                s->api.GpmSampleFree(w->gpm[k][g]);
        free(w->gpm[k]);
    }
    free(w->gpm_have);
    memset(w, 0, sizeof *w);
}
