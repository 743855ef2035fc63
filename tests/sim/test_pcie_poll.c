/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nvmlDeviceGetPcieThroughput off the sampling path
 * (src/sources/nvml/nvml_pcie_poll.c), against an NVML whose call blocks
 * 20 ms of wall time (nvml_slow_stub.c). Made inside a sample, it held the
 * GPUs read after it 40 ms behind those read before. Structural: the
 * sampler never makes the call between two GPUs' readings of one sample
 * (on a machine, never at all: a thread of its own does); measured, with a
 * generous bound, on the wall clock (ctest's lock wall_clock): the spread of
 * one sample's per-GPU reading times stays far below those 40 ms.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sources/nvml/nvml_backend.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GPUS 4
#define MAX_NOTES 4096
#define SPREAD_BOUND_S 0.035 /* generous: the call alone blocks 0.040 s */

/* nvml_slow_stub.c's note of one call. */
typedef struct note {
    double t;
    unsigned gpu;
    int sample;
    int throughput;
    pthread_t thread;
} note;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
    double left = t - now_s();
    if (left <= 0)
        return;
    struct timespec ts = {.tv_sec = (time_t)left, .tv_nsec = (long)((left - (double)(time_t)left) * 1e9)};
    nanosleep(&ts, NULL);
}

typedef struct run_result {
    note notes[MAX_NOTES];
    size_t n;
    double worst_spread_s, median_spread_s;
    double worst_sample_s; /* the longest gd_nvml_sample call */
    size_t reads_off_sampler, reads_on_sampler, between_readings;
} run_result;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Per sample: the spread of the GPUs' first readings, and the throughput
 * calls the sampler made between its first and last reading. */
static void judge(run_result *r, int samples, pthread_t sampler)
{
    double *spread = calloc((size_t)samples, sizeof *spread);
    assert_non_null(spread);
    for (int k = 0; k < samples; k++) {
        double lo = 0, hi = 0;
        size_t first = r->n, last = 0, seen = 0;
        for (size_t i = 0; i < r->n; i++) {
            const note *x = &r->notes[i];
            if (x->sample != k || x->throughput || !pthread_equal(x->thread, sampler))
                continue;
            lo = seen ? (x->t < lo ? x->t : lo) : x->t;
            hi = seen ? (x->t > hi ? x->t : hi) : x->t;
            first = i < first ? i : first;
            last = i;
            seen++;
        }
        assert_int_equal(seen, GPUS); /* one reading of each GPU per sample */
        spread[k] = hi - lo;
        for (size_t i = first; i <= last; i++)
            r->between_readings += r->notes[i].throughput && pthread_equal(r->notes[i].thread, sampler);
    }
    for (size_t i = 0; i < r->n; i++)
        if (r->notes[i].throughput) {
            if (pthread_equal(r->notes[i].thread, sampler))
                r->reads_on_sampler++;
            else
                r->reads_off_sampler++;
        }
    qsort(spread, (size_t)samples, sizeof *spread, cmp_double);
    r->worst_spread_s = spread[samples - 1];
    r->median_spread_s = spread[samples / 2];
    free(spread);
}

/* `samples` samples `interval_s` apart on the wall clock (session time = wall
 * seconds since the first), with or without the throughput thread. */
static void run(bool thread, int samples, double interval_s, run_result *r)
{
    gd_nvml_session s;
    char err[512] = "";
    if (gd_nvml_open(&s, NVML_SLOW_STUB, NULL, err, sizeof err) != 0)
        fail_msg("%s", err);
    void *h = dlopen(NVML_SLOW_STUB, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(h);
    size_t (*notes)(note *, size_t) = (size_t(*)(note *, size_t))dlsym(h, "slow_stub_notes");
    void (*mark)(int) = (void (*)(int))dlsym(h, "slow_stub_sample");
    assert_non_null(notes);
    assert_non_null(mark);
    s.interval_s = interval_s;
    s.pcie_thread = thread;
    gd_facts f;
    memset(&f, 0, sizeof f);
    assert_int_equal(gd_nvml_snapshot(&s, &f, ""), 0);
    assert_int_equal(f.gpu_count, GPUS);
    assert_int_equal(gd_series_init(&f.series, f.gpu_count), 0);
    notes(r->notes, MAX_NOTES); /* the snapshot's: forgotten */
    double t0 = now_s();
    for (int k = 0; k < samples; k++) {
        mark(k);
        long i = gd_series_push(&f.series, now_s() - t0);
        assert_true(i >= 0);
        double before = now_s();
        gd_nvml_sample(&s, &f, (size_t)i);
        if (now_s() - before > r->worst_sample_s)
            r->worst_sample_s = now_s() - before;
        sleep_until(t0 + (k + 1) * interval_s);
    }
    mark(-1);
    /* Every GPU's throughput arrived in the samples (the stub answers 1000 + GPU). */
    const gd_series *ser = &f.series;
    for (size_t g = 0; g < GPUS; g++) {
        gd_value tx = gd_series_at(ser, ser->n - 1, g, GD_M_PCIE_TX_KBPS);
        assert_true(gd_ok(tx));
        assert_int_equal((int)tx.v, 1000 + (int)g);
    }
    assert_non_null(strstr(f.pcie_throughput.source, "nvmlDeviceGetPcieThroughput"));
    gd_nvml_close(&s); /* stops the thread before NVML shuts down */
    r->n = notes(r->notes, MAX_NOTES);
    dlclose(h);
    gd_facts_free(&f);
    judge(r, samples, pthread_self());
}

/* On a machine: a thread makes every call; a sample of four GPUs at a 25 ms
 * interval (below the 40 ms the calls take) reads them together. */
static void thread_keeps_a_samples_readings_together(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    run(true, 60, 0.025, r);
    print_message("thread: %zu throughput calls off the sampler, spread of a sample's readings median %.3f ms, "
                  "worst %.3f ms; longest sample %.3f ms\n",
                  r->reads_off_sampler, r->median_spread_s * 1e3, r->worst_spread_s * 1e3, r->worst_sample_s * 1e3);
    assert_int_equal(r->reads_on_sampler, 0);
    assert_true(r->reads_off_sampler >= 2 * GPUS); /* TX and RX of every GPU at least once */
    assert_true(r->worst_spread_s < SPREAD_BOUND_S);
    free(r);
}

/* On a simulated machine (no thread): one GPU's call per sample, after the
 * sample's readings, never between them. */
static void between_samples_never_inside_one(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    run(false, 30, 0.05, r);
    print_message("between samples: %zu throughput calls, spread of a sample's readings median %.3f ms, "
                  "worst %.3f ms; longest sample %.3f ms\n",
                  r->reads_on_sampler, r->median_spread_s * 1e3, r->worst_spread_s * 1e3, r->worst_sample_s * 1e3);
    assert_int_equal(r->between_readings, 0);
    assert_true(r->reads_on_sampler >= 2 * GPUS);
    assert_true(r->worst_spread_s < SPREAD_BOUND_S);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(thread_keeps_a_samples_readings_together),
        cmocka_unit_test(between_samples_never_inside_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
