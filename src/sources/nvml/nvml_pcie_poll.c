/* SPDX-License-Identifier: Apache-2.0 */
/*
 * PCIe throughput where the driver has no byte counters, off the sampling
 * path (nvml_pcie_poll.h). nvmlDeviceGetPcieThroughput samples for 20 ms per
 * call (NVML's documentation), TX and RX one call each: made inside a
 * sample, it held the GPUs read after it 40 ms behind those read before
 * (below a 45 ms interval, more than the interval). Each GPU is read at most
 * once a second: on a machine by a thread of its own, the samples taking its
 * latest answer; on a simulated machine, whose clock is the session's own
 * (a thread would read it at whatever scenario time it found), one GPU per
 * sample after the sample's other readings, so the run stays deterministic.
 */
#include "nvml_pcie_poll.h"

#include "nvml_read.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define EVERY_S 1.0 /* per GPU: two calls of 20 ms each */

struct gd_pcie_poller {
    gd_nvml_session *s;
    pthread_t thread;
    pthread_mutex_t lock; /* the session's gd_nvml_pcie throughput fields and read counts */
    pthread_cond_t wake;
    bool stop;
};

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void lock(gd_nvml_session *s)
{
    if (s->poller)
        pthread_mutex_lock(&s->poller->lock);
}

static void unlock(gd_nvml_session *s)
{
    if (s->poller)
        pthread_mutex_unlock(&s->poller->lock);
}

/* One GPU's answers, read at `at` on the reader's clock: held until the next. */
static void store(gd_nvml_session *s, size_t g, double at, nvmlReturn_t rc_tx, unsigned tx, nvmlReturn_t rc_rx,
                  unsigned rx)
{
    gd_nvml_pcie *p = &s->pcie[g];
    if (p->read && (s->pcie_every_s <= 0 || at - p->read_t < s->pcie_every_s))
        s->pcie_every_s = at - p->read_t;
    p->read = true;
    p->read_t = at;
    p->next_t = at + EVERY_S - 1e-9;
    p->rc_tx = rc_tx;
    p->rc_rx = rc_rx;
    p->tx = tx;
    p->rx = rx;
    p->wanted = rc_tx != NVML_ERROR_GPU_IS_LOST && rc_rx != NVML_ERROR_GPU_IS_LOST; /* a lost GPU is not asked again */
    s->pcie_reads++;
}

/* Both calls for GPU g (40 ms); made with no lock held. */
static void read_gpu(gd_nvml_session *s, size_t g, double at)
{
    unsigned tx = 0, rx = 0;
    nvmlReturn_t rc_tx = s->api.DeviceGetPcieThroughput(s->devices[g], NVML_PCIE_UTIL_TX_BYTES, &tx);
    nvmlReturn_t rc_rx = s->api.DeviceGetPcieThroughput(s->devices[g], NVML_PCIE_UTIL_RX_BYTES, &rx);
    lock(s);
    store(s, g, at, rc_tx, tx, rc_rx, rx);
    unlock(s);
}

/* The first GPU due at `now`, round robin from the one after the last read;
 * -1 when none is, with *wait_s until the earliest one will be. */
static long due(const gd_nvml_session *s, double now, double *wait_s)
{
    size_t n = s->count;
    *wait_s = EVERY_S;
    for (size_t k = 0; k < n; k++) {
        size_t g = (s->pcie_next_gpu + k) % n;
        const gd_nvml_pcie *p = &s->pcie[g];
        if (!p->wanted || !s->devices[g])
            continue;
        if (now >= p->next_t)
            return (long)g;
        if (p->next_t - now < *wait_s)
            *wait_s = p->next_t - now;
    }
    return -1;
}

static void *poll_main(void *arg)
{
    gd_pcie_poller *p = arg;
    gd_nvml_session *s = p->s;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        double wait, now = mono_s();
        long g = due(s, now, &wait);
        if (g < 0) {
            double until = now + wait;
            struct timespec ts = {.tv_sec = (time_t)until, .tv_nsec = (long)((until - (double)(time_t)until) * 1e9)};
            pthread_cond_timedwait(&p->wake, &p->lock, &ts);
            continue;
        }
        s->pcie_next_gpu = (size_t)g + 1;
        pthread_mutex_unlock(&p->lock);
        read_gpu(s, (size_t)g, now);
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* The thread, once some GPU needs the call; false when it cannot start
 * (the reads are then made between samples, as on a simulated machine). */
static bool start(gd_nvml_session *s)
{
    gd_pcie_poller *p = calloc(1, sizeof *p);
    pthread_condattr_t ca;
    if (!p || pthread_condattr_init(&ca) != 0) {
        free(p);
        return false;
    }
    bool ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 && pthread_cond_init(&p->wake, &ca) == 0;
    pthread_condattr_destroy(&ca);
    if (!ok || pthread_mutex_init(&p->lock, NULL) != 0) {
        if (ok)
            pthread_cond_destroy(&p->wake);
        free(p);
        return false;
    }
    p->s = s;
    s->poller = p; /* before the thread runs: lock() takes it */
    s->on_close = gd_nvml_pcie_stop;
    if (pthread_create(&p->thread, NULL, poll_main, p) != 0) {
        s->poller = NULL;
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->wake);
        free(p);
        return false;
    }
    return true;
}

void gd_nvml_pcie_take(gd_nvml_reader *r, size_t g, gd_value *row)
{
    gd_nvml_session *s = r->s;
    if (!s->api.DeviceGetPcieThroughput) {
        row[GD_M_PCIE_TX_KBPS] = row[GD_M_PCIE_RX_KBPS] =
            gd_nvml_take(r, "nvmlDeviceGetPcieThroughput", NVML_ERROR_FUNCTION_NOT_FOUND, 0);
        return;
    }
    lock(s);
    gd_nvml_pcie *q = &s->pcie[g];
    if (!(q->read && (q->rc_tx == NVML_ERROR_GPU_IS_LOST || q->rc_rx == NVML_ERROR_GPU_IS_LOST)))
        q->wanted = true;
    gd_nvml_pcie p = *q;
    unlock(s);
    /* Until the next read the last one holds; before the first, unread. */
    if (!p.read) {
        row[GD_M_PCIE_TX_KBPS] = row[GD_M_PCIE_RX_KBPS] = gd_missing(GD_ST_UNREAD);
        return;
    }
    row[GD_M_PCIE_TX_KBPS] = gd_nvml_take(r, "nvmlDeviceGetPcieThroughput", p.rc_tx, p.tx);
    row[GD_M_PCIE_RX_KBPS] = gd_nvml_take(r, "nvmlDeviceGetPcieThroughput", p.rc_rx, p.rx);
}

/* Between samples, on the session's clock: one GPU due (every GPU for a
 * single snapshot), its answers into sample i's row. */
static void read_between(gd_nvml_session *s, gd_facts *f, size_t i)
{
    double t = gd_series_t(&f->series, i);
    size_t n = f->gpu_count < s->count ? f->gpu_count : s->count;
    for (size_t k = 0; k < n; k++) {
        size_t g = (s->pcie_next_gpu + k) % n;
        gd_gpu *gpu = &f->gpus[g];
        if (!s->pcie[g].wanted || !s->devices[g] || gpu->lost || (!s->one_shot && t < s->pcie[g].next_t))
            continue;
        read_gpu(s, g, t);
        s->pcie_next_gpu = g + 1;
        gd_nvml_reader r = {.s = s, .gpu = gpu, .t_s = t};
        gd_value *row = gd_series_slot(&f->series, i, g);
        gd_nvml_pcie_take(&r, g, row);
        if (gpu->lost) /* answers after the loss are not trusted */
            for (int m = 0; m < GD_M_COUNT; m++)
                row[m] = gd_missing(GD_ST_GPU_LOST);
        if (!s->one_shot)
            return;
    }
}

void gd_nvml_pcie_after_sample(gd_nvml_session *s, gd_facts *f, size_t i)
{
    bool wanted = false;
    lock(s);
    for (size_t g = 0; g < s->count; g++)
        wanted |= s->pcie[g].wanted;
    unlock(s);
    if (!wanted)
        return;
    if (s->pcie_thread && !s->one_shot && !s->poller && !start(s))
        s->pcie_thread = false;
    if (s->poller)
        pthread_cond_signal(&s->poller->wake); /* a GPU that newly needs the call */
    else
        read_between(s, f, i);
    lock(s);
    size_t reads = s->pcie_reads - s->pcie_reads_told;
    s->pcie_reads_told = s->pcie_reads;
    double every = s->pcie_every_s;
    unlock(s);
    if (!reads && !f->pcie_throughput.reads)
        return;
    f->pcie_throughput.reads += reads;
    if (every > 0)
        f->pcie_throughput.every_s = every;
    snprintf(f->pcie_throughput.source, sizeof f->pcie_throughput.source, "%s",
             s->poller ? "nvml:nvmlDeviceGetPcieThroughput (20 ms per call: once a second per GPU, on a thread)"
                       : "nvml:nvmlDeviceGetPcieThroughput (20 ms per call: at most once a second per GPU)");
}

void gd_nvml_pcie_stop(gd_nvml_session *s)
{
    gd_pcie_poller *p = s->poller;
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    s->poller = NULL;
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    free(p);
}
