/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The window's running statistics (src/analysis/window_acc.c): kept as
 * samples arrive and leave, they answer exactly what the same statistics
 * built afresh over the same window answer. A sliding window (the
 * exporter's, the live view's) and a ring that drops its oldest samples
 * (a session longer than the retention) are checked against a fresh build
 * at many points of a series of every kind of sample: loads by every
 * signal, clock event reasons in runs, sensors that stop answering, memory
 * that grows, values missing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/window_acc.h"
#include "facts_fixture.h"
#include "gpudoctor/abi/nvml_api.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GPUS 3

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static bool chance(int pct)
{
    return (int)(next() % 100) < pct;
}

/* Sample number i (at index `at`) of GPU g: phases of load, throttling runs, a memory ramp,
 * readings missing or failing. */
static void fill_sample(gd_facts *f, size_t at, size_t i, size_t g)
{
    gd_value *v = gd_series_slot(&f->series, at, g);
    size_t phase = (i / 37 + g) % 5;
    for (int m = 0; m < GD_M_COUNT; m++)
        v[m] = (gd_value){.v = 0, .status = GD_ST_UNREAD};
    bool busy = phase != 0;
    v[GD_M_UTIL_GPU_PCT] = gd_val(busy ? 60 + (double)(next() % 40) : (double)(next() % 20));
    if (phase == 3) /* no utilisation: the power decides, then the clocks */
        v[GD_M_UTIL_GPU_PCT] = (gd_value){.v = 0, .status = chance(50) ? GD_ST_NOT_SUPPORTED : GD_ST_ERROR};
    v[GD_M_POWER_W] = gd_val(busy ? 300 + (double)(next() % 400) : 70);
    v[GD_M_SM_CLOCK_MHZ] = gd_val(chance(30) ? 1410 : 1980);
    v[GD_M_PSTATE] = gd_val(busy ? 0 : 8);
    v[GD_M_TEMP_C] = gd_val(60 + (double)(next() % 30));
    v[GD_M_MEM_TEMP_C] = chance(80) ? gd_val(70 + (double)(next() % 30)) : (gd_value){.status = GD_ST_ERROR};
    unsigned long long reasons = 0;
    if (chance(35))
        reasons |= nvmlClocksThrottleReasonSwThermalSlowdown;
    if ((i / 5) % 3 == g % 3)
        reasons |= nvmlClocksThrottleReasonHwSlowdown; /* runs of five */
    if (chance(10))
        reasons |= nvmlClocksThrottleReasonHwThermalSlowdown;
    if (chance(15))
        reasons |= nvmlClocksThrottleReasonSwPowerCap;
    if (chance(5))
        reasons |= nvmlClocksThrottleReasonHwPowerBrakeSlowdown;
    v[GD_M_EVENT_REASONS] = chance(95) ? gd_val((double)reasons) : (gd_value){.status = GD_ST_ERROR};
    v[GD_M_MEM_USED_MIB] = gd_val(1000 + 7.5 * (double)i + (double)(next() % 50));
    v[GD_M_PCIE_GEN] = gd_val(chance(20) ? 3 : 5);
    v[GD_M_PCIE_WIDTH] = gd_val(chance(10) ? 8 : 16);
    v[GD_M_VIOL_POWER_NS] = chance(90) ? gd_val(1e6 * (double)i) : (gd_value){.status = GD_ST_NOT_SUPPORTED};
    /* A sensor that stops answering for a while, then again for good. */
    v[GD_M_FAN_PCT] = (i % 200) < 150 ? gd_val(40) : (gd_value){.status = GD_ST_ERROR};
}

static void same_double(double a, double b, const char *what, uint64_t at, size_t g)
{
    if (isnan(a) && isnan(b))
        return;
    if (!(fabs(a - b) <= 1e-9 * fmax(1, fmax(fabs(a), fabs(b)))))
        fail_msg("%s at sample %llu, GPU %zu: running %.17g, fresh %.17g", what, (unsigned long long)at, g, a, b);
}

static void same_episode(const gd_episode *x, const gd_episode *y, uint64_t at, size_t g)
{
    assert_int_equal(x->loaded, y->loaded);
    assert_int_equal(x->hit, y->hit);
    assert_int_equal(x->hit_any, y->hit_any);
    same_double(x->share, y->share, "share", at, g);
    same_double(x->first_s, y->first_s, "first_s", at, g);
    same_double(x->last_s, y->last_s, "last_s", at, g);
    same_double(x->span_s, y->span_s, "span_s", at, g);
    same_double(x->temp_first_c, y->temp_first_c, "temp_first_c", at, g);
    same_double(x->temp_max_c, y->temp_max_c, "temp_max_c", at, g);
    same_double(x->mem_temp_max_c, y->mem_temp_max_c, "mem_temp_max_c", at, g);
    same_double(x->clock_median_mhz, y->clock_median_mhz, "clock_median", at, g);
    same_double(x->clock_free_mhz, y->clock_free_mhz, "clock_free", at, g);
    same_double(x->power_median_w, y->power_median_w, "power_median", at, g);
}

/* The running accumulator `a` answers as one built afresh over w. */
static void same_as_fresh(const gd_window_acc *a, const gd_facts *w, uint64_t at)
{
    gd_window_acc *b = gd_window_acc_build(w);
    assert_non_null(b);
    gd_facts wa = *w;
    wa.acc = (gd_window_acc *)a;
    assert_non_null(gd_window_acc_of(&wa)); /* a covers exactly w's samples */
    for (size_t g = 0; g < GPUS; g++) {
        for (int m = 0; m < GD_M_COUNT; m++) {
            gd_stats x, y;
            assert_int_equal(gd_window_acc_stats(a, w, g, (gd_metric)m, &x),
                             gd_window_acc_stats(b, w, g, (gd_metric)m, &y));
            if (!x.n)
                continue;
            same_double(x.min, y.min, "min", at, g);
            same_double(x.max, y.max, "max", at, g);
            same_double(x.mean, y.mean, "mean", at, g);
            same_double(x.median, y.median, "median", at, g);
            same_double(x.last, y.last, "last", at, g);
            uint64_t f1, l1, f2, l2;
            assert_int_equal(gd_window_acc_valid_span(a, g, (gd_metric)m, &f1, &l1),
                             gd_window_acc_valid_span(b, g, (gd_metric)m, &f2, &l2));
            double from1, from2, ans1, ans2;
            assert_int_equal(gd_window_acc_stopped(a, w, g, (gd_metric)m, &from1, &ans1),
                             gd_window_acc_stopped(b, w, g, (gd_metric)m, &from2, &ans2));
            same_double(from1, from2, "failing from", at, g);
            same_double(ans1, ans2, "answered", at, g);
        }
        static const gd_metric kept[] = {GD_M_SM_CLOCK_MHZ, GD_M_POWER_W, GD_M_TEMP_C, GD_M_PCIE_GEN, GD_M_PCIE_WIDTH};
        for (size_t k = 0; k < sizeof kept / sizeof kept[0]; k++)
            same_double(gd_window_acc_loaded_median(a, g, kept[k]), gd_window_acc_loaded_median(b, g, kept[k]),
                        "loaded median", at, g);
        assert_int_equal(gd_window_acc_loaded(a, g), gd_window_acc_loaded(b, g));
        for (int k = 0; k < 4; k++)
            assert_int_equal(gd_window_acc_by_signal(a, g, (gd_load_signal)k),
                             gd_window_acc_by_signal(b, g, (gd_load_signal)k));
        for (int k = 0; k < GD_WINDOW_STREAMS; k++) {
            gd_window_picks x, y;
            gd_window_acc_stream(a, w, g, (gd_window_stream)k, &x);
            gd_window_acc_stream(b, w, g, (gd_window_stream)k, &y);
            assert_int_equal(x.n, y.n);
            same_double(x.sum, y.sum, "stream sum", at, g);
            same_double(x.max, y.max, "stream max", at, g);
            same_double(x.first_s, y.first_s, "stream first", at, g);
        }
        for (double mib = 1000; mib < 20000; mib += 3000)
            assert_int_equal(gd_window_acc_mem_at_least(a, g, mib), gd_window_acc_mem_at_least(b, g, mib));
        for (double c = 60; c < 100; c += 7) {
            assert_int_equal(gd_window_acc_at_least(a, g, GD_M_TEMP_C, c),
                             gd_window_acc_at_least(b, g, GD_M_TEMP_C, c));
            assert_int_equal(gd_window_acc_at_least(a, g, GD_M_MEM_TEMP_C, c),
                             gd_window_acc_at_least(b, g, GD_M_MEM_TEMP_C, c));
        }
        static const double maxima[][2] = {{5, 16}, {4, 16}, {5, 8}, {INFINITY, INFINITY}, {6, 32}};
        for (size_t k = 0; k < sizeof maxima / sizeof maxima[0]; k++)
            for (int loaded_only = 0; loaded_only < 2; loaded_only++) {
                gd_window_link x, y;
                gd_window_acc_link(a, w, g, maxima[k][0], maxima[k][1], loaded_only, &x);
                gd_window_acc_link(b, w, g, maxima[k][0], maxima[k][1], loaded_only, &y);
                assert_int_equal(x.samples, y.samples);
                assert_int_equal(x.judged, y.judged);
                assert_int_equal(x.low, y.low);
                assert_int_equal(x.width_low, y.width_low);
                same_double(x.gen, y.gen, "link gen", at, g);
                same_double(x.width, y.width, "link width", at, g);
                same_double(x.first_s, y.first_s, "link first", at, g);
                same_double(x.widest_low, y.widest_low, "link widest", at, g);
            }
        for (int m = 0; m < GD_M_COUNT; m++) {
            gd_value x = gd_window_acc_tried(a, w, g, (gd_metric)m), y = gd_window_acc_tried(b, w, g, (gd_metric)m);
            assert_int_equal(x.status, y.status);
            same_double(x.v, y.v, "tried", at, g);
        }
        for (size_t k = 0; k < gd_window_episode_mask_count; k++) {
            gd_episode x, y;
            assert_int_equal(gd_window_acc_episode(a, w, g, gd_window_episode_masks[k], &x), 0);
            assert_int_equal(gd_window_acc_episode(b, w, g, gd_window_episode_masks[k], &y), 0);
            same_episode(&x, &y, at, g);
            same_double(gd_window_acc_hit_median(a, g, gd_window_episode_masks[k], GD_M_SM_CLOCK_MHZ),
                        gd_window_acc_hit_median(b, g, gd_window_episode_masks[k], GD_M_SM_CLOCK_MHZ), "hit clock", at,
                        g);
            same_double(gd_window_acc_hit_median(a, g, gd_window_episode_masks[k], GD_M_PSTATE),
                        gd_window_acc_hit_median(b, g, gd_window_episode_masks[k], GD_M_PSTATE), "hit pstate", at, g);
        }
        gd_runs r1, r2;
        const unsigned long long explained =
            nvmlClocksThrottleReasonHwThermalSlowdown | nvmlClocksThrottleReasonHwPowerBrakeSlowdown;
        assert_int_equal(gd_window_acc_runs(a, w, g, nvmlClocksThrottleReasonHwSlowdown, explained, &r1), 0);
        assert_int_equal(gd_window_acc_runs(b, w, g, nvmlClocksThrottleReasonHwSlowdown, explained, &r2), 0);
        assert_int_equal(r1.runs, r2.runs);
        same_double(r1.total_s, r2.total_s, "runs total", at, g);
        same_double(r1.loaded_s, r2.loaded_s, "runs loaded", at, g);
        same_double(r1.longest_s, r2.longest_s, "runs longest", at, g);
        same_double(r1.window_loaded_s, r2.window_loaded_s, "window loaded", at, g);
        gd_vram_trend t1, t2;
        int ok1 = gd_window_acc_memory_trend(a, g, &t1), ok2 = gd_window_acc_memory_trend(b, g, &t2);
        assert_int_equal(ok1, ok2);
        if (ok1 == 0) {
            assert_int_equal(t1.n, t2.n);
            same_double(t1.slope, t2.slope, "memory slope", at, g);
            same_double(t1.r2, t2.r2, "memory r2", at, g);
            assert_int_equal(t1.steady, t2.steady);
            assert_int_equal(t1.one_step, t2.one_step);
        }
    }
    assert_int_equal(gd_window_acc_misses(a), 0);
    gd_window_acc_free(b);
}

/* A 60-sample window sliding over 1500 samples (no ring drop). */
static void a_sliding_window_answers_as_a_fresh_one(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, GPUS, 1500);
    for (size_t i = 0; i < f.series.n; i++) {
        *gd_series_t_slot(&f.series, i) = 0.1 * (double)i + (i % 7 == 3 ? 0.03 : 0); /* jitter */
        for (size_t g = 0; g < GPUS; g++)
            fill_sample(&f, i, i, g);
    }
    gd_window_acc *a = gd_window_acc_new(GPUS, 6.0);
    assert_non_null(a);
    f.acc = a;
    for (size_t i = 0; i < f.series.n; i++) {
        assert_int_equal(gd_window_acc_add(a, &f, i), 0);
        if (i % 23 == 0 || i == f.series.n - 1) {
            gd_facts w = gd_window_acc_upto(&f, i, 6.0);
            assert_true(w.acc == a); /* the accumulator's own window */
            gd_facts fresh = w;
            fresh.acc = NULL;
            same_as_fresh(a, &fresh, f.series.dropped + i);
        }
    }
    f.acc = NULL;
    gd_window_acc_free(a);
    gd_facts_free(&f);
}

/* A session longer than its ring: each sample leaves the accumulator just
 * before the ring drops it (as gd_session_step does). */
static void a_ring_that_drops_its_oldest_is_followed(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, GPUS, 0);
    gd_series_set_limit(&f.series, 250);
    gd_window_acc *a = gd_window_acc_new(GPUS, 0);
    assert_non_null(a);
    for (size_t k = 0; k < 2000; k++) {
        if (f.series.n == f.series.limit)
            gd_window_acc_forget(a, &f, (uint64_t)f.series.dropped + 1);
        long i = gd_series_push(&f.series, (double)k);
        assert_true(i >= 0);
        for (size_t g = 0; g < GPUS; g++)
            fill_sample(&f, (size_t)i, k, g);
        assert_int_equal(gd_window_acc_add(a, &f, (size_t)i), 0);
        if (k % 97 == 0 || k == 1999) {
            gd_facts fresh = f;
            fresh.acc = NULL;
            same_as_fresh(a, &fresh, k);
        }
    }
    assert_int_equal(f.series.dropped, 1750);
    gd_window_acc_free(a);
    gd_facts_free(&f);
}

/* Memory stays bounded whatever the length: 64 buckets of memory at most,
 * and the extremes' queues only as long as what can still be an extreme. */
static void what_it_keeps_is_bounded_by_the_window(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 0);
    gd_series_set_limit(&f.series, 600);
    gd_window_acc *a = gd_window_acc_new(1, 30.0);
    for (size_t k = 0; k < 20000; k++) {
        if (f.series.n == f.series.limit)
            gd_window_acc_forget(a, &f, (uint64_t)f.series.dropped + 1);
        long i = gd_series_push(&f.series, 0.1 * (double)k);
        fill_sample(&f, (size_t)i, k, 0);
        assert_int_equal(gd_window_acc_add(a, &f, (size_t)i), 0);
    }
    f.acc = a;
    gd_facts w = gd_window_acc_upto(&f, f.series.n - 1, 30.0);
    assert_int_equal(w.series.n, 301); /* 30 s at 10 Hz, both ends */
    gd_vram_trend t;
    assert_int_equal(gd_window_acc_memory_trend(a, 0, &t), 0);
    assert_true(t.n >= 32 && t.n <= 64);
    assert_true(t.slope > 70 && t.slope < 80); /* 7.5 MiB a sample at 10 Hz */
    f.acc = NULL;
    gd_window_acc_free(a);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_sliding_window_answers_as_a_fresh_one),
        cmocka_unit_test(a_ring_that_drops_its_oldest_is_followed),
        cmocka_unit_test(what_it_keeps_is_bounded_by_the_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
