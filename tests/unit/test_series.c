/* SPDX-License-Identifier: Apache-2.0 */
/* The bounded series: a ring of the newest samples, flat in memory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/model.h"
#include "gpudoctor/abi/nvml_api.h"

#include <math.h>
#include <string.h>

static void unbounded_series_keeps_everything(void **state)
{
    (void)state;
    gd_series s;
    assert_int_equal(gd_series_init(&s, 2), 0);
    for (int i = 0; i < 1000; i++) {
        long k = gd_series_push(&s, i * 0.5);
        assert_int_equal(k, i);
        gd_series_slot(&s, (size_t)k, 1)[GD_M_TEMP_C] = gd_val(i);
    }
    assert_int_equal(s.n, 1000);
    assert_int_equal(s.dropped, 0);
    assert_true(gd_series_t(&s, 999) == 499.5);
    assert_true(gd_series_at(&s, 3, 1, GD_M_TEMP_C).v == 3);
    gd_series_free(&s);
}

static void a_limited_series_keeps_the_newest(void **state)
{
    (void)state;
    gd_series s;
    assert_int_equal(gd_series_init(&s, 3), 0);
    gd_series_set_limit(&s, 100);
    for (int i = 0; i < 1000; i++) {
        long k = gd_series_push(&s, (double)i);
        assert_true(k >= 0 && k < 100);
        gd_value *row = gd_series_slot(&s, (size_t)k, 2);
        assert_int_equal(row[GD_M_POWER_W].status, GD_ST_UNREAD); /* a reused row starts unread */
        row[GD_M_POWER_W] = gd_val(i * 10.0);
    }
    assert_int_equal(s.n, 100);
    assert_int_equal(s.cap, 100); /* never more storage than the limit */
    assert_int_equal(s.dropped, 900);
    /* Sample 0 is the oldest kept, in order to the newest. */
    for (size_t i = 0; i < s.n; i++) {
        assert_true(gd_series_t(&s, i) == 900.0 + (double)i);
        assert_true(gd_series_at(&s, i, 2, GD_M_POWER_W).v == (900.0 + (double)i) * 10.0);
    }
    *gd_series_t_slot(&s, 0) = -1;
    assert_true(gd_series_t(&s, 0) == -1);
    gd_series_free(&s);
}

/* A window shares the ring's storage; the newest span_s seconds of it. */
static void a_window_is_a_view_of_the_ring(void **state)
{
    (void)state;
    gd_series s;
    assert_int_equal(gd_series_init(&s, 1), 0);
    gd_series_set_limit(&s, 50);
    for (int i = 0; i < 120; i++) { /* 120 s at 1 Hz into a ring of 50 */
        long k = gd_series_push(&s, (double)i);
        gd_series_slot(&s, (size_t)k, 0)[GD_M_TEMP_C] = gd_val(i);
    }
    gd_series w = gd_series_window(&s, 10, 5);
    assert_int_equal(w.n, 5);
    assert_true(gd_series_t(&w, 0) == 80.0); /* sample 10 of those kept (70..119) */
    assert_true(gd_series_at(&w, 4, 0, GD_M_TEMP_C).v == 84.0);
    assert_ptr_equal(w.values, s.values); /* no copy */
    gd_series last = gd_series_last(&s, 9.5);
    assert_int_equal(last.n, 10);
    assert_true(gd_series_t(&last, 0) == 110.0);
    assert_int_equal(gd_series_window(&s, 60, 5).n, 0); /* beyond the end: empty */
    gd_series_free(&s);
}

/* The checks judge a window as they judge the whole: thermal throttling in
 * the first half of 120 s is in the whole window, not in the last minute. */
static void checks_judge_a_window(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 120);
    fx_set(&f, 1, GD_M_EVENT_REASONS, 10, 50, nvmlClocksThrottleReasonSwThermalSlowdown);
    fx_set(&f, 1, GD_M_SM_CLOCK_MHZ, 10, 50, 1200);
    gd_findings all, last;
    fx_run(&f, "thermal.throttling", &all);
    gd_facts w = gd_facts_window(&f, gd_series_last(&f.series, 60));
    fx_run(&w, "thermal.throttling", &last);
    assert_int_equal(fx_count(&all, "thermal.throttling", 1), 1);
    assert_int_equal(fx_count(&last, "thermal.throttling", 1), 0);
    gd_findings_free(&all);
    gd_findings_free(&last);
    gd_facts_free(&f); /* the window owns nothing */
}

/* The host's series is a ring like the GPUs', with its own sample times,
 * and a window of the GPUs' series brings the host's samples of that time. */
static void the_host_series_is_a_ring_of_its_own(void **state)
{
    (void)state;
    gd_facts f;
    memset(&f, 0, sizeof f);
    assert_int_equal(gd_series_init(&f.series, 1), 0);
    f.host_series.limit = 5;
    for (int k = 0; k < 100; k++) { /* GPUs at 10 Hz, the host at 1 Hz: 10 s */
        assert_true(gd_series_push(&f.series, k * 0.1) >= 0);
        if (k % 10 == 0) {
            gd_host_sample *h = gd_host_push(&f.host_series, k * 0.1);
            assert_non_null(h);
            h->busy = k / 100.0;
        }
    }
    assert_int_equal(f.host_series.n, 5);
    assert_int_equal(f.host_series.dropped, 5);
    assert_true(gd_host_at(&f.host_series, 0)->t > 4.9 && gd_host_at(&f.host_series, 4)->t > 8.9);
    gd_facts w = gd_facts_window(&f, gd_series_last(&f.series, 2.0)); /* 7.9 .. 9.9 s */
    assert_int_equal(w.host_series.n, 2); /* the samples at 8 and 9 s */
    assert_true(fabs(gd_host_at(&w.host_series, 0)->busy - 0.8) < 1e-9);
    assert_true(fabs(gd_host_at(&w.host_series, 1)->busy - 0.9) < 1e-9);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unbounded_series_keeps_everything),    cmocka_unit_test(a_limited_series_keeps_the_newest),
        cmocka_unit_test(a_window_is_a_view_of_the_ring),       cmocka_unit_test(checks_judge_a_window),
        cmocka_unit_test(the_host_series_is_a_ring_of_its_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
