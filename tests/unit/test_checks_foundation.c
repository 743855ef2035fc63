/* SPDX-License-Identifier: Apache-2.0 */
/* driver.missing, gpu.none, health.gpu_lost, thermal.hot: fire and stay quiet. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/checks_internal.h"
#include "facts_fixture.h"

#include <string.h>

static void healthy_node_has_no_finding(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 20);
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fs.n, 0);
    assert_int_equal(gd_findings_exit_code(&fs), 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void driver_missing_fires_without_driver(void **state)
{
    (void)state;
    gd_facts f;
    memset(&f, 0, sizeof f);
    snprintf(f.driver_error, sizeof f.driver_error, "cannot load libnvidia-ml.so.1");
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fs.n, 1);
    assert_string_equal(fs.v[0].id, "driver.missing");
    assert_int_equal(fs.v[0].severity, GD_SEV_CRITICAL);
    assert_int_equal(fs.v[0].gpu, GD_NO_GPU);
    assert_string_equal(json_string_value(json_object_get(fs.v[0].evidence, "error")), "cannot load libnvidia-ml.so.1");
    assert_int_equal(gd_findings_exit_code(&fs), 2);
    gd_findings_free(&fs);
}

static void gpu_none_fires_when_driver_sees_no_gpu(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 0, 0);
    gd_findings fs;
    fx_run(&f, "gpu.none", &fs);
    assert_int_equal(fx_count(&fs, "gpu.none", GD_NO_GPU), 1);
    gd_findings_free(&fs);
    fx_run(&f, "driver.missing", &fs);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void gpu_lost_names_the_gpu_and_the_call(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 10);
    f.gpus[3].lost = true;
    f.gpus[3].lost_at_s = 6.0;
    f.gpus[3].lost_code = 15;
    snprintf(f.gpus[3].lost_call, sizeof f.gpus[3].lost_call, "nvmlDeviceGetTemperature");
    fx_unset(&f, 3, GD_M_TEMP_C, GD_ST_GPU_LOST);
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fs.n, 1);
    assert_string_equal(fs.v[0].id, "health.gpu_lost");
    assert_int_equal(fs.v[0].gpu, 3);
    assert_string_equal(json_string_value(json_object_get(fs.v[0].evidence, "call")), "nvmlDeviceGetTemperature");
    assert_int_equal(json_integer_value(json_object_get(fs.v[0].evidence, "lost_at_s")), 6);
    assert_non_null(strstr(fs.v[0].fix, "nvidia-smi -r -i 3"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

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
    assert_non_null(strstr(fs.v[0].title, "9 C below its 89 C slowdown threshold"));
    gd_findings_free(&fs);
    fx_set(&f, 5, GD_M_TEMP_C, 5, 20, 84); /* within 5 C of the slowdown */
    fx_run(&f, "thermal.hot", &fs);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    assert_non_null(strstr(fs.v[0].title, "close to its 89 C slowdown threshold"));
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

static void findings_sort_by_severity_then_impact(void **state)
{
    (void)state;
    gd_findings fs = {0};
    gd_finding_add(&fs, "a.info", GD_SEV_INFO, 0, NULL, NAN, "", "i");
    gd_finding_add(&fs, "b.warn", GD_SEV_WARNING, 1, NULL, 5, "", "w5");
    gd_finding_add(&fs, "c.crit", GD_SEV_CRITICAL, 2, NULL, NAN, "", "c");
    gd_finding_add(&fs, "d.warn", GD_SEV_WARNING, 3, NULL, 30, "", "w30");
    gd_findings_sort(&fs);
    assert_string_equal(fs.v[0].id, "c.crit");
    assert_string_equal(fs.v[1].id, "d.warn");
    assert_string_equal(fs.v[2].id, "b.warn");
    assert_string_equal(fs.v[3].id, "a.info");
    assert_int_equal(gd_findings_exit_code(&fs), 2);
    gd_findings_free(&fs);
}

static void exit_code_follows_the_worst_severity(void **state)
{
    (void)state;
    gd_findings fs = {0};
    assert_int_equal(gd_findings_exit_code(&fs), 0);
    gd_finding_add(&fs, "x", GD_SEV_INFO, 0, NULL, NAN, "", "i");
    assert_int_equal(gd_findings_exit_code(&fs), 0);
    gd_finding_add(&fs, "y", GD_SEV_WARNING, 0, NULL, NAN, "", "w");
    assert_int_equal(gd_findings_exit_code(&fs), 1);
    gd_findings_free(&fs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(healthy_node_has_no_finding),
        cmocka_unit_test(driver_missing_fires_without_driver),
        cmocka_unit_test(gpu_none_fires_when_driver_sees_no_gpu),
        cmocka_unit_test(gpu_lost_names_the_gpu_and_the_call),
        cmocka_unit_test(a_gpu_that_came_back_keeps_its_finding),
        cmocka_unit_test(hot_threshold_is_80_or_5_below_the_limit),
        cmocka_unit_test(thermal_hot_fires_at_80),
        cmocka_unit_test(thermal_hot_a10_at_83_is_info),
        cmocka_unit_test(thermal_zero_c_is_not_checked),
        cmocka_unit_test(thermal_hot_quiet_at_79_and_on_one_spike),
        cmocka_unit_test(thermal_hot_uses_a_low_slowdown_threshold),
        cmocka_unit_test(thermal_hot_fires_on_hbm_temperature),
        cmocka_unit_test(thermal_hot_leaves_throttling_to_its_own_check),
        cmocka_unit_test(thermal_hot_says_when_temperature_is_unreadable),
        cmocka_unit_test(findings_sort_by_severity_then_impact),
        cmocka_unit_test(exit_code_follows_the_worst_severity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
