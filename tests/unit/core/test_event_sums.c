/* SPDX-License-Identifier: Apache-2.0 */
/* The events' sums (src/core/event_sums.c): what each key's events add up
 * to over the whole session, beside the ring of the newest 1024. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "gpudoctor/model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void add(gd_events *ev, double t, int gpu, int kind, long long value, const char *what)
{
    gd_event e = {.t = t, .gpu = gpu, .kind = kind, .value = value};
    snprintf(e.what, sizeof e.what, "%s", what);
    assert_int_equal(gd_event_add(ev, &e), 0);
}

/* The sum of (gpu, kind, code, what) over the whole session, or NULL. */
static const gd_event_sum *find(const gd_events *ev, int gpu, int kind, long long code, const char *what)
{
    for (size_t i = 0; i < ev->sum_count; i++) {
        const gd_event_sum *s = &ev->sums[i];
        if (s->gpu == gpu && s->kind == kind && s->code == code && (!what || strcmp(s->what, what) == 0))
            return s;
    }
    return NULL;
}

/* An Xid 79 followed by 1100 Xid 13 on another GPU: the ring lets the 79 go,
 * its sum keeps it with its time. */
static void an_xid_79_outlives_the_ring(void **state)
{
    (void)state;
    gd_events ev = {0};
    add(&ev, 1.0, 0, GD_EV_XID, 79, "nvml");
    for (int i = 0; i < 1100; i++)
        add(&ev, 2.0 + i * 0.01, 1, GD_EV_XID, 13, "nvml");
    assert_int_equal(ev.n, GD_EVENTS_MAX);
    assert_int_equal(ev.dropped, 1101 - GD_EVENTS_MAX);
    assert_int_equal(ev.total, 1101);
    for (size_t i = 0; i < ev.n; i++)
        assert_int_not_equal(ev.v[i].value, 79); /* the ring no longer holds it */
    assert_int_equal(ev.sum_count, 2);
    const gd_event_sum *x79 = find(&ev, 0, GD_EV_XID, 79, "nvml"), *x13 = find(&ev, 1, GD_EV_XID, 13, "nvml");
    assert_non_null(x79);
    assert_non_null(x13);
    assert_int_equal(x79->count, 1);
    assert_float_equal(x79->first_t, 1.0, 1e-12);
    assert_int_equal(x79->first_seq, 1);
    assert_int_equal(x13->count, 1100);
    assert_float_equal(x13->first_t, 2.0, 1e-12);
    assert_float_equal(x13->last_t, 2.0 + 1099 * 0.01, 1e-9);
    assert_int_equal(x13->last_seq, 1101);
    gd_event_sum got;
    assert_true(gd_event_sum_get(&ev, 0, -INFINITY, INFINITY, &got));
    assert_int_equal(got.code, 79);
    gd_events_free(&ev);
}

/* The key: an Xid's number and source, a counter's name; a lost GPU's call
 * is not part of it (the first one is kept). */
static void keys_part_what_matters(void **state)
{
    (void)state;
    gd_events ev = {0};
    add(&ev, 1, 2, GD_EV_XID, 48, "nvml");
    add(&ev, 1, 2, GD_EV_XID, 48, "kernel log");
    add(&ev, 2, 2, GD_EV_XID, 48, "nvml");
    add(&ev, 5, 2, GD_EV_COUNTER, 2, "ecc_volatile_uncorrected");
    add(&ev, 10, 2, GD_EV_COUNTER, 3, "ecc_volatile_uncorrected");
    add(&ev, 10, 2, GD_EV_COUNTER, 1, "remap_pending");
    add(&ev, 6, 3, GD_EV_GPU_LOST, 15, "nvmlDeviceGetTemperatureV");
    add(&ev, 9, 3, GD_EV_GPU_LOST, 999, "nvmlDeviceGetPowerUsage");
    assert_int_equal(ev.sum_count, 5);
    assert_int_equal(find(&ev, 2, GD_EV_XID, 48, "nvml")->count, 2);
    assert_int_equal(find(&ev, 2, GD_EV_XID, 48, "kernel log")->count, 1);
    const gd_event_sum *ecc = find(&ev, 2, GD_EV_COUNTER, 0, "ecc_volatile_uncorrected");
    assert_int_equal(ecc->total, 5);
    assert_int_equal(ecc->count, 2);
    assert_float_equal(ecc->last_t, 10, 1e-12);
    const gd_event_sum *lost = find(&ev, 3, GD_EV_GPU_LOST, 0, NULL);
    assert_int_equal(lost->count, 2);
    assert_string_equal(lost->what, "nvmlDeviceGetTemperatureV");
    assert_int_equal(lost->first_value, 15);
    assert_int_equal(lost->last_value, 999);
    gd_events_free(&ev);
}

/* A window that cuts a sum is counted from the ring; older events the ring
 * let go of are counted in where they may fall inside. */
static void a_window_counts_what_falls_inside(void **state)
{
    (void)state;
    gd_events ev = {0};
    for (int i = 0; i < 100; i++)
        add(&ev, i, 0, GD_EV_COUNTER, 1, "nvlink_replay:3");
    gd_event_sum got;
    assert_true(gd_event_sum_get(&ev, 0, 50, 59.5, &got));
    assert_int_equal(got.count, 10);
    assert_int_equal(got.total, 10);
    assert_float_equal(got.first_t, 50, 1e-12);
    assert_float_equal(got.last_t, 59, 1e-12);
    assert_false(gd_event_sum_get(&ev, 0, 100, 200, &got));
    /* 2000 more on another key push the first key's events out of the ring. */
    for (int i = 0; i < 2000; i++)
        add(&ev, 100 + i * 0.01, 1, GD_EV_XID, 13, "nvml");
    assert_true(gd_event_sum_get(&ev, 0, 50, 59.5, &got));
    assert_true(got.count >= 10); /* not known exactly any more: never fewer */
    assert_true(gd_event_sum_get(&ev, 0, -INFINITY, INFINITY, &got));
    assert_int_equal(got.count, 100);
    gd_events_free(&ev);
}

/* A bounded view (a paused watch) sees nothing after its time. */
static void a_bounded_view_sees_up_to_its_time(void **state)
{
    (void)state;
    gd_events ev = {0};
    add(&ev, 5, 3, GD_EV_XID, 79, "nvml");
    add(&ev, 8, 4, GD_EV_XID, 119, "nvml");
    add(&ev, 9, 4, GD_EV_XID, 119, "nvml");
    gd_events view = ev;
    view.bounded = true;
    view.until_t = 8;
    gd_event_sum got;
    assert_true(gd_event_sum_get(&view, 0, -INFINITY, INFINITY, &got));
    assert_true(gd_event_sum_get(&view, 1, -INFINITY, INFINITY, &got));
    assert_int_equal(got.count, 1);
    assert_float_equal(got.last_t, 8, 1e-12);
    view.until_t = 6;
    assert_false(gd_event_sum_get(&view, 1, -INFINITY, INFINITY, &got));
    gd_events_free(&ev);
}

/* A recording's sums, read back, replace what its events added. */
static void a_put_sum_replaces_its_key(void **state)
{
    (void)state;
    gd_events ev = {0};
    add(&ev, 5, 0, GD_EV_XID, 13, "kernel log");
    gd_event_sum s = {.gpu = 0,
                      .kind = GD_EV_XID,
                      .code = 13,
                      .count = 5000,
                      .first_t = 1,
                      .last_t = 9,
                      .first_value = 13,
                      .last_value = 13,
                      .total = 65000};
    snprintf(s.what, sizeof s.what, "kernel log");
    assert_int_equal(gd_event_sum_put(&ev, &s), 0);
    assert_int_equal(ev.sum_count, 1);
    assert_int_equal(ev.sums[0].count, 5000);
    s.gpu = 1;
    assert_int_equal(gd_event_sum_put(&ev, &s), 0);
    assert_int_equal(ev.sum_count, 2);
    gd_events_free(&ev);
}

/* Keys beyond GD_EVENT_SUMS_MAX are counted, not kept; the ring goes on. */
static void too_many_keys_are_counted(void **state)
{
    (void)state;
    gd_events ev = {0};
    for (int i = 0; i < GD_EVENT_SUMS_MAX + 10; i++)
        add(&ev, i, i % 64, GD_EV_XID, i / 64, "nvml");
    assert_int_equal(ev.sum_count, GD_EVENT_SUMS_MAX);
    assert_int_equal(ev.sums_dropped, 10);
    assert_int_equal(ev.total, GD_EVENT_SUMS_MAX + 10);
    /* A known key still counts. */
    add(&ev, 1e6, 0, GD_EV_XID, 0, "nvml");
    assert_int_equal(find(&ev, 0, GD_EV_XID, 0, "nvml")->count, 2);
    gd_events_free(&ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_xid_79_outlives_the_ring),       cmocka_unit_test(keys_part_what_matters),
        cmocka_unit_test(a_window_counts_what_falls_inside), cmocka_unit_test(a_bounded_view_sees_up_to_its_time),
        cmocka_unit_test(a_put_sum_replaces_its_key),        cmocka_unit_test(too_many_keys_are_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
