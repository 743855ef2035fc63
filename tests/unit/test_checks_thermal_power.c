/* SPDX-License-Identifier: Apache-2.0 */
/* Issue 3's rules at their edges: throttling, power, clocks, peers, impact model. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/checks_internal.h"
#include "facts_fixture.h"

#include <string.h>

#define SW_THERMAL 0x20
#define HW_THERMAL 0x40
#define HW_SLOW 0x8
#define BRAKE 0x80
#define POWER_CAP 0x4
#define APP_CLOCKS 0x2

static gd_findings run_one(const gd_facts *f, const char *id)
{
    gd_findings fs;
    fx_run(f, id, &fs);
    return fs;
}

static void impact_is_share_times_clock_deficit(void **state)
{
    (void)state;
    gd_episode e = {.hit = 10, .loaded = 20, .share = 0.5, .clock_median_mhz = 1485};
    assert_float_equal(gd_episode_impact_pct(&e, 1980), 12.5, 1e-9);
    e.clock_median_mhz = 2000; /* faster than the reference: nothing lost */
    assert_float_equal(gd_episode_impact_pct(&e, 1980), 0.0, 1e-9);
    e.hit = 0;
    assert_true(isnan(gd_episode_impact_pct(&e, 1980)));
    e.hit = 10;
    assert_true(isnan(gd_episode_impact_pct(&e, 0)));
}

static void episode_measures_share_start_and_clocks(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 10);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 6, 10, SW_THERMAL);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 6, 10, 1400);
    fx_set(&f, 0, GD_M_TEMP_C, 6, 10, 87);
    gd_episode e;
    gd_episode_of(&f, 0, SW_THERMAL, &e);
    assert_int_equal(e.loaded, 10);
    assert_int_equal(e.hit, 4);
    assert_float_equal(e.share, 0.4, 1e-9);
    assert_float_equal(e.first_s, 6.0, 1e-9);
    assert_float_equal(e.clock_median_mhz, 1400, 1e-9);
    assert_float_equal(e.clock_free_mhz, 1980, 1e-9);
    assert_float_equal(e.temp_first_c, 87, 1e-9);
    char line[256];
    gd_episode_timeline(&e, "thermal slowdown", line, sizeof line);
    assert_non_null(strstr(line, "from 6.0 s: thermal slowdown at 87 C, SM 1400 MHz"));
    gd_facts_free(&f);
}

static void throttling_one_loaded_sample_is_a_warning(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 20);
    fx_set(&f, 1, GD_M_EVENT_REASONS, 10, 11, SW_THERMAL);
    fx_set(&f, 1, GD_M_SM_CLOCK_MHZ, 10, 11, 1900);
    gd_findings fs = run_one(&f, "thermal.throttling");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].gpu, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    assert_true(fs.v[0].timeline[0] != '\0');
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void throttling_is_critical_when_it_costs_15_percent(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 20);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 15, 20, SW_THERMAL); /* 5 of 20 = 25 % of the time... */
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 15, 20, 1950); /* ...at a small clock loss: 0.4 % */
    gd_findings fs = run_one(&f, "thermal.throttling");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 12, 20, SW_THERMAL); /* 8 of 20 at half clock: 20 % lost */
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 12, 20, 990);
    fs = run_one(&f, "thermal.throttling");
    assert_int_equal(fs.v[0].severity, GD_SEV_CRITICAL);
    assert_true(fs.v[0].impact_pct >= 15.0);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 12, 15, 0); /* 5 of 20 at half clock: 12.5 % */
    fs = run_one(&f, "thermal.throttling");
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void hardware_thermal_slowdown_is_critical(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 20);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 19, 20, HW_THERMAL | HW_SLOW);
    gd_findings fs = run_one(&f, "thermal.throttling");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_CRITICAL);
    assert_true(json_is_true(json_object_get(fs.v[0].evidence, "hw_thermal_slowdown")));
    gd_findings_free(&fs);
    /* HW_SLOWDOWN explained by HW_THERMAL is not also a power.hw_slowdown. */
    fx_set(&f, 0, GD_M_EVENT_REASONS, 15, 20, HW_THERMAL | HW_SLOW);
    fs = run_one(&f, "power.hw_slowdown");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void thermal_reason_while_idle_is_not_throttling(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 10);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 10, 0);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 0, 10, SW_THERMAL | 0x1);
    gd_findings fs = run_one(&f, "thermal.throttling");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void violation_counter_catches_slowdowns_between_samples(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 11); /* 10 s window */
    for (size_t i = 0; i < 11; i++)
        fx_set(&f, 0, GD_M_VIOL_THERMAL_NS, i, i + 1, (double)i * 0.06e9); /* 6 % of the time */
    gd_findings fs = run_one(&f, "thermal.throttling");
    assert_int_equal(fs.n, 1);
    assert_int_equal(json_integer_value(json_object_get(fs.v[0].evidence, "violation_counter_pct")), 6);
    /* No sample shows the reason, yet the timeline says how long. */
    assert_non_null(strstr(fs.v[0].timeline, "thermal slowdown for 0.6 s of the 10.0 s window"));
    gd_findings_free(&fs);
    for (size_t i = 0; i < 11; i++)
        fx_set(&f, 0, GD_M_VIOL_THERMAL_NS, i, i + 1, (double)i * 0.04e9); /* 4 %: noise */
    fs = run_one(&f, "thermal.throttling");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void power_limit_tolerance_is_one_watt(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 5);
    f.gpus[0].power_limit_w = gd_val(699);
    gd_findings fs = run_one(&f, "power.limit_lowered");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    f.gpus[0].power_limit_w = gd_val(698);
    fs = run_one(&f, "power.limit_lowered");
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
    gd_findings fs = run_one(&f, "power.limit_lowered");
    assert_int_equal(fs.n, 1);
    assert_float_equal(fs.v[0].impact_pct, 30.0, 1e-6);
    assert_int_equal(fs.v[0].severity, GD_SEV_CRITICAL);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void unreadable_power_limits_are_not_checked(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 5);
    f.gpus[0].power_limit_default_w = gd_missing(GD_ST_NOT_SUPPORTED);
    gd_findings fs = run_one(&f, "power.limit_lowered");
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
    gd_findings fs = run_one(&f, "power.brake");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_CRITICAL);
    /* The strongest evidence leads: the clock it was held at. */
    assert_non_null(strstr(fs.v[0].title, "SM 500 of 1980 MHz"));
    assert_string_equal(json_object_iter_key(json_object_iter(fs.v[0].evidence)), "sm_clock_mhz");
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 10, 0);
    fs = run_one(&f, "power.brake");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* A flag the clocks contradict is reported as such, not as a slowdown. */
static void power_brake_flag_with_full_clocks_is_info(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 1);
    fx_set(&f, 1, GD_M_EVENT_REASONS, 0, 1, BRAKE); /* HW Slowdown itself not active, SM 1980 */
    gd_findings fs = run_one(&f, "power.brake");
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
    gd_findings fs = run_one(&f, "power.brake");
    assert_int_equal(fs.n, 4);
    for (size_t i = 0; i < fs.n; i++)
        assert_non_null(strstr(fs.v[i].fix, "chassis or power supply signal"));
    gd_findings_free(&fs);
    for (size_t g = 1; g < 4; g++)
        fx_set(&f, g, GD_M_EVENT_REASONS, 0, 1, 0);
    fs = run_one(&f, "power.brake");
    assert_int_equal(fs.n, 1);
    assert_non_null(strstr(fs.v[0].fix, "that GPU's power connector or board"));
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
        gd_findings fs = run_one(&f, "power.hw_slowdown");
        if (fs.n != 0)
            fail_msg("%.0f Hz: two blips reported", hz[k]);
        gd_findings_free(&fs);
        /* 6 s of slowdown at half clock: 20 % of the loaded time. */
        for (size_t i = 0; i < n; i++)
            if (gd_series_t(&f.series, i) >= 20 && gd_series_t(&f.series, i) <= 26) {
                fx_set(&f, 0, GD_M_EVENT_REASONS, i, i + 1, HW_SLOW);
                fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, i, i + 1, 900);
            }
        fs = run_one(&f, "power.hw_slowdown");
        if (fs.n != 1)
            fail_msg("%.0f Hz: %zu findings for 6 s of slowdown", hz[k], fs.n);
        assert_int_equal(fs.v[0].severity, GD_SEV_WARNING); /* about 11 % lost */
        double slowed = json_number_value(json_object_get(fs.v[0].evidence, "slowed_s"));
        assert_true(slowed >= 6.0 && slowed <= 7.5);
        gd_findings_free(&fs);
        gd_facts_free(&f);
    }
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

static void clocks_low_edges(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 10);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 10, 1584); /* exactly 80 %: not low */
    gd_findings fs = run_one(&f, "clocks.low");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 10, 1583);
    fs = run_one(&f, "clocks.low");
    assert_int_equal(fs.n, 1);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 0, 10, POWER_CAP); /* a reason explains it */
    fs = run_one(&f, "clocks.low");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 0, 9, 0); /* 1 of 10 low samples without reason */
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 9, 1980);
    fs = run_one(&f, "clocks.low");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 10, 5); /* idle GPUs drop clocks on purpose */
    fx_set(&f, 0, GD_M_EVENT_REASONS, 0, 10, 0);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 10, 345);
    fs = run_one(&f, "clocks.low");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void clocks_locked_by_application_clocks(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 5);
    f.gpus[0].clock_app_sm_mhz = gd_val(1980);
    f.gpus[0].clock_default_app_sm_mhz = gd_val(1980);
    gd_findings fs = run_one(&f, "clocks.locked");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    f.gpus[0].clock_app_sm_mhz = gd_val(1410);
    fs = run_one(&f, "clocks.locked");
    assert_int_equal(fs.n, 1);
    assert_non_null(strstr(fs.v[0].fix, "-rac"));
    gd_findings_free(&fs);
    /* Or seen only through the event reason under load. */
    f.gpus[0].clock_app_sm_mhz = gd_missing(GD_ST_NOT_SUPPORTED);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 0, 5, APP_CLOCKS);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 5, 1200);
    fs = run_one(&f, "clocks.locked");
    assert_int_equal(fs.n, 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void boost_above_default_application_clocks_is_normal(void **state)
{
    (void)state;
    /* A Tesla K80 (real capture): application clocks at their 562 MHz default,
     * boosting to 810 of 875 MHz with the application-clocks reason set. */
    gd_facts f;
    fx_facts(&f, 1, 5);
    f.gpus[0].clock_max_sm_mhz = gd_val(875);
    f.gpus[0].clock_app_sm_mhz = gd_val(562);
    f.gpus[0].clock_default_app_sm_mhz = gd_val(562);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 0, 5, APP_CLOCKS);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 5, 810);
    gd_findings fs = run_one(&f, "clocks.locked");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    /* Held at the application clock below the maximum: still normal at defaults. */
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 5, 562);
    fs = run_one(&f, "clocks.locked");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    /* Application clocks lowered by hand: a finding. */
    f.gpus[0].clock_app_sm_mhz = gd_val(324);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 5, 324);
    fs = run_one(&f, "clocks.locked");
    assert_int_equal(fs.n, 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void hotter_peer_is_named_with_the_gap(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 4, 10);
    fx_set(&f, 2, GD_M_TEMP_C, 0, 10, 75); /* peers at 65 */
    gd_findings fs = run_one(&f, "thermal.outlier");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].gpu, 2);
    assert_int_equal(json_integer_value(json_object_get(fs.v[0].evidence, "gap_c")), 10);
    gd_findings_free(&fs);
    fx_set(&f, 2, GD_M_TEMP_C, 0, 10, 74); /* 9 C: within spread */
    fs = run_one(&f, "thermal.outlier");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void peers_need_three_loaded_gpus(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 3, 10);
    fx_set(&f, 2, GD_M_TEMP_C, 0, 10, 78);
    fx_set(&f, 1, GD_M_UTIL_GPU_PCT, 0, 10, 0); /* idle: not a peer under the same load */
    gd_findings fs = run_one(&f, "thermal.outlier");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void slower_peer_is_named_unless_explained(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 4, 10);
    fx_set(&f, 3, GD_M_SM_CLOCK_MHZ, 0, 10, 1782); /* exactly 10 % below the best */
    fx_set(&f, 3, GD_M_EVENT_REASONS, 0, 10, POWER_CAP);
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fx_count(&fs, "clocks.outlier", 3), 1);
    gd_findings_free(&fs);
    f.gpus[3].power_limit_w = gd_val(500); /* now power.limit_lowered explains it */
    memset(&fs, 0, sizeof fs);
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fx_count(&fs, "clocks.outlier", -2), 0);
    assert_int_equal(fx_count(&fs, "power.limit_lowered", 3), 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static bool skipped(const gd_findings *fs, const char *id, int gpu, const char *why)
{
    for (size_t i = 0; i < fs->nskips; i++)
        if (strcmp(fs->skips[i].check, id) == 0 && fs->skips[i].gpu == gpu && strstr(fs->skips[i].reason, why))
            return true;
    return false;
}

static void unreadable_event_reasons_are_not_checked_not_passed(void **state)
{
    (void)state;
    static const char *const ids[] = {"thermal.throttling", "power.brake", "power.hw_slowdown", "clocks.low",
                                      "clocks.locked"};
    gd_facts f;
    fx_facts(&f, 2, 10);
    fx_unset(&f, 1, GD_M_EVENT_REASONS, GD_ST_NO_PERMISSION);
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        gd_findings fs = run_one(&f, ids[k]);
        assert_int_equal(fs.n, 0);
        if (!skipped(&fs, ids[k], 1, "clock event reasons not readable (no permission)"))
            fail_msg("%s: no 'not checked' for GPU 1", ids[k]);
        assert_false(skipped(&fs, ids[k], 0, ""));
        gd_findings_free(&fs);
    }
    /* The thermal violation counter is enough for thermal.throttling; the
     * application clock settings for clocks.locked. */
    for (size_t i = 0; i < 10; i++)
        fx_set(&f, 1, GD_M_VIOL_THERMAL_NS, i, i + 1, 0);
    f.gpus[1].clock_app_sm_mhz = gd_val(1980);
    f.gpus[1].clock_default_app_sm_mhz = gd_val(1980);
    gd_findings fs = run_one(&f, "thermal.throttling");
    assert_int_equal(fs.nskips, 0);
    gd_findings_free(&fs);
    fs = run_one(&f, "clocks.locked");
    assert_int_equal(fs.nskips, 0);
    gd_findings_free(&fs);
    /* clocks.low also needs the maximum clock. */
    f.gpus[0].clock_max_sm_mhz = gd_missing(GD_ST_NOT_SUPPORTED);
    fs = run_one(&f, "clocks.low");
    assert_true(skipped(&fs, "clocks.low", 0, "maximum SM clock not readable (not supported)"));
    gd_findings_free(&fs);
    /* A GPU lost from the start is health.gpu_lost's, not a skip. */
    f.gpus[1].lost = true;
    fs = run_one(&f, "power.brake");
    assert_int_equal(fs.nskips, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void healthy_and_idle_nodes_stay_quiet(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 30);
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    for (size_t g = 0; g < 8; g++) { /* idle: low clocks, gpu_idle, cool */
        fx_set(&f, g, GD_M_UTIL_GPU_PCT, 0, 30, 0);
        fx_set(&f, g, GD_M_SM_CLOCK_MHZ, 0, 30, 345);
        fx_set(&f, g, GD_M_EVENT_REASONS, 0, 30, 0x1);
        fx_set(&f, g, GD_M_TEMP_C, 0, 30, 33);
    }
    memset(&fs, 0, sizeof fs);
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(impact_is_share_times_clock_deficit),
        cmocka_unit_test(episode_measures_share_start_and_clocks),
        cmocka_unit_test(throttling_one_loaded_sample_is_a_warning),
        cmocka_unit_test(throttling_is_critical_when_it_costs_15_percent),
        cmocka_unit_test(hardware_thermal_slowdown_is_critical),
        cmocka_unit_test(thermal_reason_while_idle_is_not_throttling),
        cmocka_unit_test(violation_counter_catches_slowdowns_between_samples),
        cmocka_unit_test(power_limit_tolerance_is_one_watt),
        cmocka_unit_test(power_limit_that_caps_clocks_has_an_impact),
        cmocka_unit_test(unreadable_power_limits_are_not_checked),
        cmocka_unit_test(power_brake_under_load_is_critical_idle_a_warning),
        cmocka_unit_test(hw_slowdown_is_judged_by_time),
        cmocka_unit_test(power_brake_flag_with_full_clocks_is_info),
        cmocka_unit_test(power_brake_fix_names_the_likely_source),
        cmocka_unit_test(power_cap_near_max_clock_is_normal),
        cmocka_unit_test(clocks_low_edges),
        cmocka_unit_test(clocks_locked_by_application_clocks),
        cmocka_unit_test(boost_above_default_application_clocks_is_normal),
        cmocka_unit_test(hotter_peer_is_named_with_the_gap),
        cmocka_unit_test(peers_need_three_loaded_gpus),
        cmocka_unit_test(slower_peer_is_named_unless_explained),
        cmocka_unit_test(unreadable_event_reasons_are_not_checked_not_passed),
        cmocka_unit_test(healthy_and_idle_nodes_stay_quiet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
