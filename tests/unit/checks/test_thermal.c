/* SPDX-License-Identifier: Apache-2.0 */
/* thermal.throttling, thermal.hot and thermal.outlier (src/checks/thermal.c)
 * at their edges, and the clock event reasons they and their neighbours need. */
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

static void hot_threshold_is_80_or_5_below_the_limit(void **state)
{
    (void)state;
    assert_true(gd_hot_threshold_c(gd_val(89)) == 80.0);
    assert_true(gd_hot_threshold_c(gd_val(84)) == 79.0);
    assert_true(gd_hot_threshold_c(gd_missing(GD_ST_NOT_SUPPORTED)) == 80.0);
}

static void thermal_hot_fires_at_80(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 20);
    fx_set(&f, 5, GD_M_TEMP_C, 5, 20, 80);
    gd_findings fs;
    fx_run(&f, "thermal.hot", &fs);
    assert_int_equal(fx_count(&fs, "thermal.hot", 5), 1);
    assert_int_equal(fs.n, 1);
    /* 80 C, 9 C below this board's 89 C slowdown and under its 87 C operating max: context. */
    assert_int_equal(fs.v[0].severity, GD_SEV_INFO);
    assert_int_equal(json_integer_value(json_object_get(fs.v[0].evidence, "max_temp_c")), 80);
    /* The nearest limit left: the 87 C where software slowdown begins (issue 39: say which limit). */
    assert_non_null(strstr(fs.v[0].title, "7 C below its 87 C maximum operating temperature"));
    gd_findings_free(&fs);
    fx_set(&f, 5, GD_M_TEMP_C, 5, 20, 84); /* within 5 C of the slowdown */
    fx_run(&f, "thermal.hot", &fs);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    assert_non_null(strstr(fs.v[0].title, "3 C below its 87 C maximum operating temperature"));
    gd_findings_free(&fs);
    f.gpus[5].temp_slowdown_c = gd_val(98);
    f.gpus[5].temp_gpu_max_c = gd_val(84); /* at the max operating temperature */
    fx_run(&f, "thermal.hot", &fs);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    gd_findings_free(&fs);
    f.gpus[5].temp_slowdown_c = gd_missing(GD_ST_NOT_SUPPORTED);
    f.gpus[5].temp_gpu_max_c = gd_missing(GD_ST_NOT_SUPPORTED);
    fx_run(&f, "thermal.hot", &fs);
    assert_int_equal(fs.v[0].severity, GD_SEV_INFO);
    assert_non_null(strstr(fs.v[0].title, "limits could not be read"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* An A10 at 83 C: slowdown 98 C, max operating 91 C. Inside its limits: exit 0. */
static void thermal_hot_a10_at_83_is_info(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 20);
    f.gpus[0].temp_slowdown_c = gd_val(98);
    f.gpus[0].temp_gpu_max_c = gd_val(91);
    fx_set(&f, 0, GD_M_TEMP_C, 0, 20, 83);
    gd_findings fs;
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fx_count(&fs, "thermal.hot", 0), 1);
    assert_int_equal(gd_findings_exit_code(&fs), 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* vGPU guests read 0 C: a sensor that does not report, not a cool GPU. */
static void thermal_zero_c_is_not_checked(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 10);
    fx_set(&f, 0, GD_M_TEMP_C, 0, 10, 0);
    gd_findings fs;
    fx_run(&f, "thermal.hot", &fs);
    assert_int_equal(fs.n, 0);
    assert_int_equal(fs.nskips, 1);
    assert_non_null(strstr(fs.skips[0].reason, "0 C"));
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_TEMP_C, 3, 4, 41); /* one real reading: the sensor works */
    fx_run(&f, "thermal.hot", &fs);
    assert_int_equal(fs.nskips, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void thermal_hot_quiet_at_79_and_on_one_spike(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 20);
    fx_set(&f, 0, GD_M_TEMP_C, 0, 20, 79);
    fx_set(&f, 1, GD_M_TEMP_C, 7, 8, 85); /* 1 sample of 20: under the 10 % share */
    gd_findings fs;
    fx_run(&f, "thermal.hot", &fs);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void thermal_hot_uses_a_low_slowdown_threshold(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 10);
    f.gpus[0].temp_slowdown_c = gd_val(76); /* hot from 71 C */
    fx_set(&f, 0, GD_M_TEMP_C, 0, 10, 72);
    gd_findings fs;
    fx_run(&f, "thermal.hot", &fs);
    assert_int_equal(fx_count(&fs, "thermal.hot", 0), 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void thermal_hot_fires_on_hbm_temperature(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 10);
    fx_set(&f, 0, GD_M_MEM_TEMP_C, 0, 10, 91);
    gd_findings fs;
    fx_run(&f, "thermal.hot", &fs);
    assert_int_equal(fs.n, 1);
    assert_non_null(strstr(fs.v[0].title, "memory"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* The memory's limit is its maximum operating temperature, where its
 * software slowdown begins: never called a "slowdown threshold" (issue 39). */
static void thermal_hot_memory_names_its_own_limit(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 10);
    fx_set(&f, 0, GD_M_MEM_TEMP_C, 0, 10, 92); /* the fixture's memory limit: 95 C */
    gd_findings fs;
    fx_run(&f, "thermal.hot", &fs);
    assert_int_equal(fs.n, 1);
    assert_non_null(strstr(fs.v[0].title, "memory runs hot: 92 C, 3 C below its 95 C maximum operating temperature"));
    assert_null(strstr(fs.v[0].title, "slowdown threshold"));
    json_t *ev = fs.v[0].evidence;
    assert_int_equal(json_integer_value(json_object_get(ev, "mem_max_operating_c")), 95);
    assert_int_equal(json_integer_value(json_object_get(ev, "gpu_max_operating_c")), 87);
    assert_int_equal(json_integer_value(json_object_get(ev, "gpu_slowdown_c")), 89);
    const char *limits = json_string_value(json_object_get(ev, "limits"));
    assert_non_null(limits);
    assert_non_null(strstr(limits, "GPU 87 C max operating (software slowdown), 89 C hardware slowdown"));
    assert_non_null(strstr(limits, "memory 95 C max operating (software slowdown)"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* An HBM that overheats while the core stays cool (issue 39: "thermal
 * slowdown at 78 C" with the cause only in max_mem_temp_c): the memory is
 * named as the driver, with its own limit (typical where the driver gives
 * none), and the fix is about the memory, not generic fans. */
static void throttling_names_the_sensor_that_drives_it(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 20);
    f.gpus[1].temp_mem_max_c = gd_missing(GD_ST_NOT_SUPPORTED); /* T.Limit drivers give no memory limit */
    fx_set(&f, 1, GD_M_TEMP_C, 5, 20, 78);
    fx_set(&f, 1, GD_M_MEM_TEMP_C, 5, 20, 96);
    fx_set(&f, 1, GD_M_EVENT_REASONS, 5, 20, SW_THERMAL);
    fx_set(&f, 1, GD_M_SM_CLOCK_MHZ, 5, 20, 1500);
    gd_findings fs = fx_run_one(&f, "thermal.throttling");
    assert_int_equal(fs.n, 1);
    json_t *ev = fs.v[0].evidence;
    assert_string_equal(json_string_value(json_object_get(ev, "driven_by")), "memory");
    assert_int_equal(json_integer_value(json_object_get(ev, "mem_max_operating_c")), 95);
    assert_non_null(strstr(json_string_value(json_object_get(ev, "limits")), "typical of HBM boards"));
    assert_non_null(strstr(fs.v[0].title, "its memory (HBM) reached 96 C, over its 95 C limit, while the GPU core "
                                          "stayed at 78 C"));
    assert_non_null(strstr(fs.v[0].timeline, "driven by the memory (HBM, up to 96 C) with the GPU at 78 C"));
    assert_non_null(strstr(fs.v[0].fix, "HBM"));
    assert_null(strstr(fs.v[0].fix, "Improve cooling"));
    gd_findings_free(&fs);
    /* The core at its 87 C maximum operating temperature, the memory cool: the GPU drives it. */
    fx_set(&f, 1, GD_M_TEMP_C, 5, 20, 87);
    fx_set(&f, 1, GD_M_MEM_TEMP_C, 5, 20, 70);
    fs = fx_run_one(&f, "thermal.throttling");
    ev = fs.v[0].evidence;
    assert_string_equal(json_string_value(json_object_get(ev, "driven_by")), "GPU");
    assert_non_null(strstr(fs.v[0].title, "the GPU core reached 87 C, at its 87 C maximum operating temperature"));
    assert_non_null(strstr(fs.v[0].fix, "Improve cooling"));
    gd_findings_free(&fs);
    /* Neither at its limit in the samples: not guessed. */
    fx_set(&f, 1, GD_M_TEMP_C, 5, 20, 70);
    fs = fx_run_one(&f, "thermal.throttling");
    assert_true(json_is_null(json_object_get(fs.v[0].evidence, "driven_by")));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void thermal_hot_leaves_throttling_to_its_own_check(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 10);
    fx_set(&f, 0, GD_M_TEMP_C, 0, 10, 88);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 4, 10, 0x20);
    gd_findings fs;
    fx_run(&f, "thermal.hot", &fs);
    assert_int_equal(fx_count(&fs, "thermal.hot", -2), 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void thermal_hot_says_when_temperature_is_unreadable(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 5);
    fx_unset(&f, 0, GD_M_TEMP_C, GD_ST_NOT_SUPPORTED);
    gd_findings fs;
    fx_run(&f, "thermal.hot", &fs);
    assert_int_equal(fs.n, 0);
    assert_int_equal(fs.nskips, 1);
    assert_string_equal(fs.skips[0].check, "thermal.hot");
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void throttling_one_loaded_sample_is_a_warning(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 20);
    fx_set(&f, 1, GD_M_EVENT_REASONS, 10, 11, SW_THERMAL);
    fx_set(&f, 1, GD_M_SM_CLOCK_MHZ, 10, 11, 1900);
    gd_findings fs = fx_run_one(&f, "thermal.throttling");
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
    gd_findings fs = fx_run_one(&f, "thermal.throttling");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 12, 20, SW_THERMAL); /* 8 of 20 at half clock: 20 % lost */
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 12, 20, 990);
    fs = fx_run_one(&f, "thermal.throttling");
    assert_int_equal(fs.v[0].severity, GD_SEV_CRITICAL);
    assert_true(fs.v[0].impact_pct >= 15.0);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 12, 15, 0); /* 5 of 20 at half clock: 12.5 % */
    fs = fx_run_one(&f, "thermal.throttling");
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
    gd_findings fs = fx_run_one(&f, "thermal.throttling");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_CRITICAL);
    assert_true(json_is_true(json_object_get(fs.v[0].evidence, "hw_thermal_slowdown")));
    gd_findings_free(&fs);
    /* HW_SLOWDOWN explained by HW_THERMAL is not also a power.hw_slowdown. */
    fx_set(&f, 0, GD_M_EVENT_REASONS, 15, 20, HW_THERMAL | HW_SLOW);
    fs = fx_run_one(&f, "power.hw_slowdown");
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
    gd_findings fs = fx_run_one(&f, "thermal.throttling");
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
    gd_findings fs = fx_run_one(&f, "thermal.throttling");
    assert_int_equal(fs.n, 1);
    assert_int_equal(json_integer_value(json_object_get(fs.v[0].evidence, "violation_counter_pct")), 6);
    /* No sample shows the reason, yet the timeline says how long. */
    assert_non_null(strstr(fs.v[0].timeline, "thermal slowdown for 0.6 s of the 10.0 s window"));
    gd_findings_free(&fs);
    for (size_t i = 0; i < 11; i++)
        fx_set(&f, 0, GD_M_VIOL_THERMAL_NS, i, i + 1, (double)i * 0.04e9); /* 4 %: noise */
    fs = fx_run_one(&f, "thermal.throttling");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* A window whose thermal slowdown counter never answered judged its samples
 * only: what fell between them is "not checked", said with the calls tried;
 * a snapshot (one sample) has no "between" to miss. The source names the
 * call that gave the counter. */
static void unread_thermal_counter_is_not_checked_between_samples(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 10);
    fx_unset(&f, 1, GD_M_VIOL_THERMAL_NS, GD_ST_NOT_SUPPORTED);
    gd_findings fs = fx_run_one(&f, "thermal.throttling");
    assert_int_equal(fs.n, 0);
    assert_int_equal(fs.nskips, 1);
    assert_true(fx_skipped(&fs, "thermal.throttling", 1, "between samples"));
    assert_true(fx_skipped(&fs, "thermal.throttling", 1, "CLOCKS_EVENT_REASON_SW/HW_THERM_SLOWDOWN"));
    assert_true(fx_skipped(&fs, "thermal.throttling", 1, "not supported"));
    gd_findings_free(&fs);
    /* Throttled in the samples: found, and the note stays. */
    fx_set(&f, 1, GD_M_EVENT_REASONS, 0, 10, SW_THERMAL);
    fx_set(&f, 1, GD_M_SM_CLOCK_MHZ, 0, 10, 1400);
    snprintf(f.thermal_counter, sizeof f.thermal_counter, "nvmlDeviceGetFieldValues(PERF_POLICY_THERMAL)");
    fs = fx_run_one(&f, "thermal.throttling");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.nskips, 1);
    assert_string_equal(json_string_value(json_object_get(fs.v[0].evidence, "source")),
                        "nvml:nvmlDeviceGetCurrentClocksEventReasons,nvmlDeviceGetFieldValues(PERF_POLICY_THERMAL)");
    gd_findings_free(&fs);
    gd_facts_free(&f);
    fx_facts(&f, 1, 1);
    fx_unset(&f, 0, GD_M_VIOL_THERMAL_NS, GD_ST_NOT_SUPPORTED);
    fs = fx_run_one(&f, "thermal.throttling");
    assert_int_equal(fs.n + fs.nskips, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void hotter_peer_is_named_with_the_gap(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 4, 10);
    fx_set(&f, 2, GD_M_TEMP_C, 0, 10, 75); /* peers at 65 */
    gd_findings fs = fx_run_one(&f, "thermal.outlier");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].gpu, 2);
    assert_int_equal(json_integer_value(json_object_get(fs.v[0].evidence, "gap_c")), 10);
    gd_findings_free(&fs);
    fx_set(&f, 2, GD_M_TEMP_C, 0, 10, 74); /* 9 C: within spread */
    fs = fx_run_one(&f, "thermal.outlier");
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
    gd_findings fs = fx_run_one(&f, "thermal.outlier");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void unreadable_event_reasons_are_not_checked_not_passed(void **state)
{
    (void)state;
    static const char *const ids[] = {"thermal.throttling", "power.brake", "power.hw_slowdown", "clocks.low",
                                      "clocks.locked"};
    gd_facts f;
    fx_facts(&f, 2, 10);
    fx_unset(&f, 1, GD_M_EVENT_REASONS, GD_ST_NO_PERMISSION);
    fx_unset(&f, 1, GD_M_VIOL_THERMAL_NS, GD_ST_NO_PERMISSION);
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        gd_findings fs = fx_run_one(&f, ids[k]);
        assert_int_equal(fs.n, 0);
        if (!fx_skipped(&fs, ids[k], 1, "clock event reasons not readable (no permission)"))
            fail_msg("%s: no 'not checked' for GPU 1", ids[k]);
        assert_false(fx_skipped(&fs, ids[k], 0, ""));
        gd_findings_free(&fs);
    }
    /* The thermal violation counter is enough for thermal.throttling; the
     * application clock settings for clocks.locked. */
    for (size_t i = 0; i < 10; i++)
        fx_set(&f, 1, GD_M_VIOL_THERMAL_NS, i, i + 1, 0);
    f.gpus[1].clock_app_sm_mhz = gd_val(1980);
    f.gpus[1].clock_default_app_sm_mhz = gd_val(1980);
    gd_findings fs = fx_run_one(&f, "thermal.throttling");
    assert_int_equal(fs.nskips, 0);
    gd_findings_free(&fs);
    fs = fx_run_one(&f, "clocks.locked");
    assert_int_equal(fs.nskips, 0);
    gd_findings_free(&fs);
    /* clocks.low also needs the maximum clock. */
    f.gpus[0].clock_max_sm_mhz = gd_missing(GD_ST_NOT_SUPPORTED);
    fs = fx_run_one(&f, "clocks.low");
    assert_true(fx_skipped(&fs, "clocks.low", 0, "maximum SM clock not readable (not supported)"));
    gd_findings_free(&fs);
    /* A GPU lost from the start is health.gpu_lost's, not a skip. */
    f.gpus[1].lost = true;
    fs = fx_run_one(&f, "power.brake");
    assert_int_equal(fs.nskips, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hot_threshold_is_80_or_5_below_the_limit),
        cmocka_unit_test(thermal_hot_fires_at_80),
        cmocka_unit_test(thermal_hot_a10_at_83_is_info),
        cmocka_unit_test(thermal_zero_c_is_not_checked),
        cmocka_unit_test(thermal_hot_quiet_at_79_and_on_one_spike),
        cmocka_unit_test(thermal_hot_uses_a_low_slowdown_threshold),
        cmocka_unit_test(thermal_hot_fires_on_hbm_temperature),
        cmocka_unit_test(thermal_hot_memory_names_its_own_limit),
        cmocka_unit_test(throttling_names_the_sensor_that_drives_it),
        cmocka_unit_test(thermal_hot_leaves_throttling_to_its_own_check),
        cmocka_unit_test(thermal_hot_says_when_temperature_is_unreadable),
        cmocka_unit_test(throttling_one_loaded_sample_is_a_warning),
        cmocka_unit_test(throttling_is_critical_when_it_costs_15_percent),
        cmocka_unit_test(hardware_thermal_slowdown_is_critical),
        cmocka_unit_test(thermal_reason_while_idle_is_not_throttling),
        cmocka_unit_test(violation_counter_catches_slowdowns_between_samples),
        cmocka_unit_test(unread_thermal_counter_is_not_checked_between_samples),
        cmocka_unit_test(hotter_peer_is_named_with_the_gap),
        cmocka_unit_test(peers_need_three_loaded_gpus),
        cmocka_unit_test(unreadable_event_reasons_are_not_checked_not_passed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
