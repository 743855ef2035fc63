/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Faults as they happen, beside the sampler: Xid events through NVML's event
 * API (nvmlEventSetCreate, nvmlDeviceRegisterEvents for
 * nvmlEventTypeXidCriticalError, nvmlEventSetWait_v2 without waiting; no
 * root needed), the ECC, retired-page, row-remapping and NVLink error
 * counters re-read every GD_HEALTH_REREAD_S and at the window's end, GPUs that stop or start answering, a driver
 * that stops answering, and GPM's profiling metrics on Hopper and newer.
 * Each becomes an event of f->events at its session time.
 */
#ifndef GD_NVML_EVENTS_H
#define GD_NVML_EVENTS_H

#include "nvml_backend.h"

typedef struct gd_nvml_watch {
    nvmlEventSet_t set; /* NULL: no Xid events */
    double next_reread_s;
    double last_read_s; /* when the counters were last read: 0, the snapshot */
    bool driver_down;
    size_t gpus;
    nvmlGpmSample_t *gpm[2]; /* per GPU: the previous and the current sample (NULL: no GPM) */
    bool *gpm_have; /* the previous sample is taken */
} gd_nvml_watch;

/* Registers every GPU for Xid events and prepares GPM. 0, or -1 (no memory). */
int gd_nvml_watch_open(gd_nvml_watch *w, gd_nvml_session *s, gd_facts *f);
/* After gd_nvml_sample filled sample i (at session time t): events, the
 * slow re-reads, GPM metrics into the sample's row. */
void gd_nvml_watch_sample(gd_nvml_watch *w, gd_nvml_session *s, gd_facts *f, size_t i, double t);
/* The window's end (its last sample at session time t): the counters are
 * re-read once more unless they were at t, so that their growth in the
 * window's last seconds is seen. */
void gd_nvml_watch_finish(gd_nvml_watch *w, gd_nvml_session *s, gd_facts *f, double t);
void gd_nvml_watch_close(gd_nvml_watch *w, gd_nvml_session *s);

#endif
