/* SPDX-License-Identifier: Apache-2.0 */
/* watch's history scale (report/watch_scale.h) and the samples' wall-clock
 * time (gd_event_utc): one scale per metric across GPUs, up to the limit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "report/watch_scale.h"

#include <math.h>
#include <string.h>

/* Two GPUs: one at 56->58 C, one at 82->85 C. Each row scaled on its own drew
 * both as the same climb from bottom to top; on one scale they differ. */
static void one_scale_for_every_gpu(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 10);
    fx_set(&f, 0, GD_M_TEMP_C, 0, 5, 56);
    fx_set(&f, 0, GD_M_TEMP_C, 5, 10, 58);
    fx_set(&f, 1, GD_M_TEMP_C, 0, 5, 82);
    fx_set(&f, 1, GD_M_TEMP_C, 5, 10, 85);
    gd_watch_scale s = gd_watch_scale_of(&f, 0, 10, GD_M_TEMP_C);
    assert_true(s.lo == 50); /* the lowest sample, down to a multiple of 10 */
    assert_true(s.hi == 89); /* the slowdown limit is the top */
    assert_true(s.limit == 89);
    assert_string_equal(s.limit_name, "slowdown");
    assert_string_equal(s.unit, "C");
    int a0 = gd_watch_level(&s, gd_val(56), 8), a1 = gd_watch_level(&s, gd_val(58), 8);
    int b0 = gd_watch_level(&s, gd_val(82), 8), b1 = gd_watch_level(&s, gd_val(85), 8);
    assert_true(a1 - a0 <= 1); /* a 2 C rise is a small step */
    assert_true(b0 >= 5 && b1 >= 6);
    assert_true(b0 - a1 >= 4); /* the hot GPU is drawn high, the cool one low */
    assert_int_equal(gd_watch_level(&s, gd_val(89), 8), 7);
    assert_int_equal(gd_watch_level(&s, gd_val(95), 8), 7); /* over the limit: the top */
    assert_int_equal(gd_watch_level(&s, gd_missing(GD_ST_NOT_SUPPORTED), 8), -1);
    gd_facts_free(&f);
}

/* A sample over the limit raises the top; amounts start at zero. */
static void limits_and_amounts(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 4);
    fx_set(&f, 1, GD_M_TEMP_C, 0, 4, 95);
    gd_watch_scale s = gd_watch_scale_of(&f, 0, 4, GD_M_TEMP_C);
    assert_true(s.hi == 95 && s.limit == 89);
    fx_set(&f, 0, GD_M_POWER_W, 0, 4, 300);
    fx_set(&f, 1, GD_M_POWER_W, 0, 4, 310);
    s = gd_watch_scale_of(&f, 0, 4, GD_M_POWER_W);
    assert_true(s.lo == 0 && s.hi == 700);
    s = gd_watch_scale_of(&f, 0, 4, GD_M_UTIL_GPU_PCT);
    assert_true(s.lo == 0 && s.hi == 100);
    /* No limit known: the highest sample is the top. */
    f.gpus[0].power_limit_w = gd_missing(GD_ST_NOT_SUPPORTED);
    f.gpus[1].power_limit_w = gd_missing(GD_ST_NOT_SUPPORTED);
    s = gd_watch_scale_of(&f, 0, 4, GD_M_POWER_W);
    assert_true(isnan(s.limit) && s.hi == 310);
    /* Only the samples asked for count. */
    fx_set(&f, 0, GD_M_POWER_W, 0, 1, 650);
    s = gd_watch_scale_of(&f, 1, 4, GD_M_POWER_W);
    assert_true(s.hi == 310);
    /* Nothing valid: nothing to scale. */
    fx_unset(&f, 0, GD_M_PCIE_RX_KBPS, GD_ST_NOT_SUPPORTED);
    fx_unset(&f, 1, GD_M_PCIE_RX_KBPS, GD_ST_NOT_SUPPORTED);
    s = gd_watch_scale_of(&f, 0, 4, GD_M_PCIE_RX_KBPS);
    assert_true(s.hi <= s.lo);
    gd_facts_free(&f);
}

static void utc_times(void **state)
{
    (void)state;
    gd_events ev = {0};
    char buf[40];
    assert_false(gd_event_utc(&ev, 1.0, buf, sizeof buf)); /* no start known */
    assert_string_equal(buf, "");
    ev.start_unix = 1773497000.0; /* 2026-03-14T14:03:20Z */
    assert_true(gd_event_utc(&ev, 1.25, buf, sizeof buf));
    assert_string_equal(buf, "2026-03-14T14:03:21.250Z");
    assert_true(gd_event_utc(&ev, 59.9996, buf, sizeof buf));
    assert_string_equal(buf, "2026-03-14T14:04:20.000Z"); /* rounding carries into the second */
    /* And back: what a recording's header says, read by its replay. */
    double at = 0;
    assert_int_equal(gd_utc_parse("2026-03-14T14:03:21.250Z", &at), 0);
    assert_true(fabs(at - 1773497001.25) < 1e-6);
    assert_int_equal(gd_utc_parse("2026-03-14T14:03:21Z", &at), 0);
    assert_true(at == 1773497001.0);
    const char *bad[] = {"", "2026-03-14", "2026-03-14T14:03:21.250", "2026-03-14T14:03:21.25Z", "2026-13-14T14:03:21Z",
                         "2026-03-14T14:03:21.250Zx", "2026-03-14 14:03:21Z", NULL};
    for (const char **b = bad; *b; b++)
        if (gd_utc_parse(*b, &at) == 0)
            fail_msg("'%s' read as a time", *b);
    assert_int_equal(gd_utc_parse(NULL, &at), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_scale_for_every_gpu),
        cmocka_unit_test(limits_and_amounts),
        cmocka_unit_test(utc_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
