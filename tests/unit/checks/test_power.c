/* SPDX-License-Identifier: Apache-2.0 */
/* power.limit_lowered, power.brake, power.hw_slowdown and power.capped
 * (src/checks/power.c) at their edges. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/checks_internal.h"
#include "facts_fixture.h"

#include <string.h>

#define HW_SLOW 0x8
#define BRAKE 0x80
#define POWER_CAP 0x4

static void power_limit_tolerance_is_one_watt(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 5);
    f.gpus[0].power_limit_w = gd_val(699);
    gd_findings fs = fx_run_one(&f, "power.limit_lowered");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    f.gpus[0].power_limit_w = gd_val(698);
    fs = fx_run_one(&f, "power.limit_lowered");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    assert_non_null(strstr(fs.v[0].fix, "nvidia-smi -i 0 -pl 700"));
    assert_true(isnan(fs.v[0].impact_pct)); /* never reached the cap */
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void power_limit_that_caps_clocks_has_an_impact(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 10);
    f.gpus[0].power_limit_w = gd_val(400);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 0, 10, POWER_CAP);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 10, 1386); /* 30 % below max */
    gd_findings fs = fx_run_one(&f, "power.limit_lowered");
    assert_int_equal(fs.n, 1);
    assert_float_equal(fs.v[0].impact_pct, 30.0, 1e-6);
    assert_int_equal(fs.v[0].severity, GD_SEV_CRITICAL);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* The limit asked for is the default, the enforced one lower: the platform
 * holds it (a module budget, a BMC), and 'nvidia-smi -pl' is not the fix. A
 * requested limit below the default is this machine's own setting: -pl is. */
static void power_limit_held_by_the_platform_is_not_fixed_by_pl(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 5);
    for (size_t g = 0; g < 2; g++) {
        f.gpus[g].power_limit_w = gd_val(700);
        f.gpus[g].power_limit_default_w = gd_val(900);
        f.gpus[g].power_limit_max_w = gd_val(900);
    }
    f.gpus[0].power_limit_requested_w = gd_val(900);
    f.gpus[0].c2c_mode = gd_val(1);
    f.gpus[1].power_limit_requested_w = gd_val(700);
    gd_findings fs = fx_run_one(&f, "power.limit_lowered");
    assert_int_equal(fs.n, 2);
    for (size_t i = 0; i < fs.n; i++) {
        const gd_finding *x = &fs.v[i];
        const char *held = json_string_value(json_object_get(x->evidence, "held_by"));
        if (x->gpu == 0) {
            assert_string_equal(held, "platform");
            assert_non_null(strstr(x->title, "held at 700 W by the platform (900 W requested, default 900 W)"));
            assert_null(strstr(x->fix, "-pl 900"));
            assert_non_null(strstr(x->fix, "cannot raise it"));
            assert_non_null(strstr(x->fix, "Module Power Readings"));
        } else {
            assert_string_equal(held, "requested");
            assert_non_null(strstr(x->fix, "nvidia-smi -i 1 -pl 900"));
        }
    }
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void unreadable_power_limits_are_not_checked(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 5);
    f.gpus[0].power_limit_default_w = gd_missing(GD_ST_NOT_SUPPORTED);
    gd_findings fs = fx_run_one(&f, "power.limit_lowered");
    assert_int_equal(fs.n, 0);
    assert_int_equal(fs.nskips, 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void power_brake_under_load_is_critical_idle_a_warning(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 10);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 5, 10, BRAKE | HW_SLOW);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 5, 10, 500);
    gd_findings fs = fx_run_one(&f, "power.brake");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_CRITICAL);
    /* The strongest evidence leads: the clock it was held at. */
    assert_non_null(strstr(fs.v[0].title, "SM 500 of 1980 MHz"));
    assert_string_equal(json_object_iter_key(json_object_iter(fs.v[0].evidence)), "sm_clock_mhz");
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 10, 0);
    fs = fx_run_one(&f, "power.brake");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Judged by time, not samples: the same events give the same verdict at 1 Hz and 10 Hz. */
static void hw_slowdown_is_judged_by_time(void **state)
{
    (void)state;
    static const double hz[] = {1, 10};
    for (size_t k = 0; k < 2; k++) {
        size_t n = (size_t)(30 * hz[k]);
        gd_facts f;
        fx_facts(&f, 1, n);
        for (size_t i = 0; i < n; i++)
            *gd_series_t_slot(&f.series, i) = (double)i / hz[k];
        /* Two isolated 0.7 s P-state blips. */
        for (double t0 = 5; t0 < 20; t0 += 10)
            for (size_t i = 0; i < n; i++)
                if (gd_series_t(&f.series, i) >= t0 && gd_series_t(&f.series, i) < t0 + 0.7)
                    fx_set(&f, 0, GD_M_EVENT_REASONS, i, i + 1, HW_SLOW);
        gd_findings fs = fx_run_one(&f, "power.hw_slowdown");
        if (fs.n != 0)
            fail_msg("%.0f Hz: two blips reported", hz[k]);
        gd_findings_free(&fs);
        /* 6 s of slowdown at half clock: 20 % of the loaded time. */
        for (size_t i = 0; i < n; i++)
            if (gd_series_t(&f.series, i) >= 20 && gd_series_t(&f.series, i) <= 26) {
                fx_set(&f, 0, GD_M_EVENT_REASONS, i, i + 1, HW_SLOW);
                fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, i, i + 1, 900);
            }
        fs = fx_run_one(&f, "power.hw_slowdown");
        if (fs.n != 1)
            fail_msg("%.0f Hz: %zu findings for 6 s of slowdown", hz[k], fs.n);
        assert_int_equal(fs.v[0].severity, GD_SEV_WARNING); /* about 11 % lost */
        double slowed = json_number_value(json_object_get(fs.v[0].evidence, "slowed_s"));
        assert_true(slowed >= 6.0 && slowed <= 7.5);
        gd_findings_free(&fs);
        gd_facts_free(&f);
    }
}

/* A flag the clocks contradict is reported as such, not as a slowdown. */
/* A brake no sample saw: its counter (field 253, R570 drivers) tells how
 * long it held the GPU; 5 % of the window is the floor, as for thermal. */
static void power_brake_between_samples_from_its_counter(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 11); /* a 10 s window */
    for (size_t i = 0; i < 11; i++)
        fx_set(&f, 1, GD_M_VIOL_POWER_BRAKE_NS, i, i + 1, (double)i * 0.3e9); /* 30 % of the time */
    gd_findings fs = fx_run_one(&f, "power.brake");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].gpu, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_CRITICAL); /* 25 % or more of the window */
    assert_non_null(strstr(fs.v[0].title, "between samples"));
    assert_non_null(strstr(fs.v[0].timeline, "power brake slowdown for 3.0 s of the 10.0 s window"));
    gd_findings_free(&fs);
    for (size_t i = 0; i < 11; i++)
        fx_set(&f, 1, GD_M_VIOL_POWER_BRAKE_NS, i, i + 1, (double)i * 0.04e9); /* 4 %: noise */
    fs = fx_run_one(&f, "power.brake");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void power_brake_flag_with_full_clocks_is_info(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 1);
    fx_set(&f, 1, GD_M_EVENT_REASONS, 0, 1, BRAKE); /* HW Slowdown itself not active, SM 1980 */
    gd_findings fs = fx_run_one(&f, "power.brake");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_INFO);
    assert_non_null(strstr(fs.v[0].title, "flag set, clocks not reduced"));
    assert_false(json_is_true(json_object_get(fs.v[0].evidence, "hw_slowdown_active")));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* All GPUs at once is the chassis; one GPU is its own connector or board. */
static void power_brake_fix_names_the_likely_source(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 4, 1);
    for (size_t g = 0; g < 4; g++) {
        fx_set(&f, g, GD_M_EVENT_REASONS, 0, 1, BRAKE | HW_SLOW);
        fx_set(&f, g, GD_M_SM_CLOCK_MHZ, 0, 1, 86);
    }
    gd_findings fs = fx_run_one(&f, "power.brake");
    assert_int_equal(fs.n, 4);
    for (size_t i = 0; i < fs.n; i++)
        assert_non_null(strstr(fs.v[i].fix, "chassis or power supply signal"));
    gd_findings_free(&fs);
    for (size_t g = 1; g < 4; g++)
        fx_set(&f, g, GD_M_EVENT_REASONS, 0, 1, 0);
    fs = fx_run_one(&f, "power.brake");
    assert_int_equal(fs.n, 1);
    assert_non_null(strstr(fs.v[0].fix, "that GPU's power connector or board"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void power_cap_near_max_clock_is_normal(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 10);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 0, 10, POWER_CAP);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 10, 1800); /* >= 90 % of 1980 */
    fx_set(&f, 1, GD_M_EVENT_REASONS, 0, 10, POWER_CAP);
    fx_set(&f, 1, GD_M_SM_CLOCK_MHZ, 0, 10, 1700);
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fs.n, 1);
    assert_string_equal(fs.v[0].id, "power.capped");
    assert_int_equal(fs.v[0].severity, GD_SEV_INFO);
    assert_int_equal(fs.v[0].gpu, 1);
    assert_int_equal(gd_findings_exit_code(&fs), 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(power_limit_tolerance_is_one_watt),
        cmocka_unit_test(power_limit_that_caps_clocks_has_an_impact),
        cmocka_unit_test(unreadable_power_limits_are_not_checked),
        cmocka_unit_test(power_limit_held_by_the_platform_is_not_fixed_by_pl),
        cmocka_unit_test(power_brake_under_load_is_critical_idle_a_warning),
        cmocka_unit_test(hw_slowdown_is_judged_by_time),
        cmocka_unit_test(power_brake_between_samples_from_its_counter),
        cmocka_unit_test(power_brake_flag_with_full_clocks_is_info),
        cmocka_unit_test(power_brake_fix_names_the_likely_source),
        cmocka_unit_test(power_cap_near_max_clock_is_normal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
