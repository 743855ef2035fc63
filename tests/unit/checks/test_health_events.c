/* SPDX-License-Identifier: Apache-2.0 */
/* The session's fault events (src/checks/health_events.c): a GPU that came
 * back (health.gpu_lost), a driver that stopped answering every GPU
 * (health.driver_unresponsive). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/checks_internal.h"
#include "facts_fixture.h"

#include <string.h>

/* A GPU lost at 10 s that answered again at 20 s keeps its finding, with both times. */
static void a_gpu_that_came_back_keeps_its_finding(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 4, 30);
    gd_event lost = {.t = 10, .gpu = 2, .kind = GD_EV_GPU_LOST, .value = 15};
    gd_event back = {.t = 20, .gpu = 2, .kind = GD_EV_GPU_BACK};
    snprintf(lost.what, sizeof lost.what, "nvmlDeviceGetTemperature");
    assert_int_equal(gd_event_add(&f.events, &lost), 0);
    assert_int_equal(gd_event_add(&f.events, &back), 0);
    gd_findings fs = {0};
    fx_run(&f, "health.gpu_lost", &fs);
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].gpu, 2);
    assert_int_equal(json_integer_value(json_object_get(fs.v[0].evidence, "back_at_s")), 20);
    assert_non_null(strstr(fs.v[0].title, "answered again"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* The driver failed every GPU's sample from `down` s, and answered again at `back` (< 0: never). */
static void driver_stops(gd_facts *f, double down, double back)
{
    fx_facts(f, 4, 30);
    gd_event lost = {.t = down, .gpu = -1, .kind = GD_EV_DRIVER_LOST, .value = 15};
    assert_int_equal(gd_event_add(&f->events, &lost), 0);
    if (back >= 0) {
        gd_event again = {.t = back, .gpu = -1, .kind = GD_EV_DRIVER_BACK};
        assert_int_equal(gd_event_add(&f->events, &again), 0);
    }
}

static void driver_unresponsive_gives_both_times(void **state)
{
    (void)state;
    gd_facts f;
    driver_stops(&f, 12, 21);
    gd_findings fs = fx_run_one(&f, "health.driver_unresponsive");
    const gd_finding *x = fx_only(&fs, "health.driver_unresponsive");
    assert_int_equal(x->severity, GD_SEV_CRITICAL);
    assert_int_equal(x->gpu, GD_NO_GPU);
    assert_string_equal(x->title, "The driver stopped answering for every GPU at t=12.0 s (12.0 s, NVML return code "
                                  "15); it answered again at t=21.0 s");
    assert_float_equal(json_number_value(json_object_get(x->evidence, "from_s")), 12.0, 1e-9);
    assert_float_equal(json_number_value(json_object_get(x->evidence, "until_s")), 21.0, 1e-9);
    assert_int_equal(json_integer_value(json_object_get(x->evidence, "nvml_return")), 15);
    /* The registry row's fix: what to look at. */
    assert_non_null(strstr(x->fix, "dmesg -T"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* A driver still silent at the end of the window: no "until". */
static void driver_unresponsive_to_the_end(void **state)
{
    (void)state;
    gd_facts f;
    driver_stops(&f, 7, -1);
    gd_findings fs = fx_run_one(&f, "health.driver_unresponsive");
    const gd_finding *x = fx_only(&fs, "health.driver_unresponsive");
    assert_string_equal(x->title, "The driver stopped answering for every GPU at t=7.0 s (7.0 s, NVML return code 15)");
    assert_true(json_is_null(json_object_get(x->evidence, "until_s")));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* One GPU lost is health.gpu_lost's; a quiet session has nothing. */
static void driver_unresponsive_quiet_without_a_driver_event(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 4, 30);
    fx_assert_silent(&f, "health.driver_unresponsive");
    gd_event lost = {.t = 10, .gpu = 2, .kind = GD_EV_GPU_LOST, .value = 15};
    assert_int_equal(gd_event_add(&f.events, &lost), 0);
    fx_assert_silent(&f, "health.driver_unresponsive");
    gd_facts_free(&f);
}

/* 1100 Xid events after the fault: the ring no longer holds it. */
static void storm(gd_facts *f, double from)
{
    for (int k = 0; k < 1100; k++) {
        gd_event e = {.t = from + k * 0.01, .gpu = 1, .kind = GD_EV_XID, .value = 13};
        snprintf(e.what, sizeof e.what, "nvml");
        assert_int_equal(gd_event_add(&f->events, &e), 0);
    }
    assert_true(f->events.dropped > 0);
}

/* A GPU lost twice and back, then an Xid storm: one finding, both times and
 * how often, judged from the session's sums. */
static void a_lost_gpu_outlives_the_ring(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 4, 30);
    double at[] = {10, 20, 25, 27};
    for (int k = 0; k < 4; k++) {
        gd_event e = {.t = at[k], .gpu = 2, .kind = k % 2 ? GD_EV_GPU_BACK : GD_EV_GPU_LOST, .value = k % 2 ? 0 : 15};
        snprintf(e.what, sizeof e.what, "nvmlDeviceGetTemperature");
        assert_int_equal(gd_event_add(&f.events, &e), 0);
    }
    storm(&f, 28);
    gd_findings fs = fx_run_one(&f, "health.gpu_lost");
    const gd_finding *x = fx_only(&fs, "health.gpu_lost");
    assert_int_equal(x->severity, GD_SEV_CRITICAL);
    assert_int_equal(x->gpu, 2);
    assert_string_equal(x->title, "GPU 2 stopped answering at t=10.0 s (10.0 s) and answered again at t=20.0 s, 2 "
                                  "times (the last at t=25.0 s)");
    assert_int_equal(json_integer_value(json_object_get(x->evidence, "times")), 2);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void a_silent_driver_outlives_the_ring(void **state)
{
    (void)state;
    gd_facts f;
    driver_stops(&f, 12, 21);
    storm(&f, 22);
    gd_findings fs = fx_run_one(&f, "health.driver_unresponsive");
    const gd_finding *x = fx_only(&fs, "health.driver_unresponsive");
    assert_string_equal(x->title, "The driver stopped answering for every GPU at t=12.0 s (12.0 s, NVML return code "
                                  "15); it answered again at t=21.0 s");
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_gpu_that_came_back_keeps_its_finding),
        cmocka_unit_test(driver_unresponsive_gives_both_times),
        cmocka_unit_test(driver_unresponsive_to_the_end),
        cmocka_unit_test(driver_unresponsive_quiet_without_a_driver_event),
        cmocka_unit_test(a_lost_gpu_outlives_the_ring),
        cmocka_unit_test(a_silent_driver_outlives_the_ring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
