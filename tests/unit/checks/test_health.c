/* SPDX-License-Identifier: Apache-2.0 */
/* health.gpu_lost and health.sensors_failing (src/checks/health.c): a GPU
 * that stopped answering, sensors that stopped answering for good. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/checks_internal.h"
#include "facts_fixture.h"

#include <string.h>

static void gpu_lost_names_the_gpu_and_the_call(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 10);
    f.gpus[3].lost = true;
    f.gpus[3].lost_at_s = 6.0;
    f.gpus[3].lost_code = 15;
    snprintf(f.gpus[3].serial, sizeof f.gpus[3].serial, "1654922000103");
    snprintf(f.gpus[3].lost_call, sizeof f.gpus[3].lost_call, "nvmlDeviceGetTemperature");
    fx_unset(&f, 3, GD_M_TEMP_C, GD_ST_GPU_LOST);
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fs.n, 1);
    assert_string_equal(fs.v[0].id, "health.gpu_lost");
    assert_int_equal(fs.v[0].gpu, 3);
    assert_string_equal(json_string_value(json_object_get(fs.v[0].evidence, "call")), "nvmlDeviceGetTemperature");
    assert_int_equal(json_integer_value(json_object_get(fs.v[0].evidence, "lost_at_s")), 6);
    /* The return code by NVML's name, which a reader can look up (not only "15"). */
    assert_string_equal(json_string_value(json_object_get(fs.v[0].evidence, "nvml_error")), "NVML_ERROR_GPU_IS_LOST");
    /* Fallen off the bus: a reboot, as health.xid says of Xid 79, never "try a GPU reset" (issue 39). */
    assert_non_null(strstr(fs.v[0].fix, "until the node reboots"));
    assert_null(strstr(fs.v[0].fix, "try 'nvidia-smi -r"));
    assert_non_null(strstr(fs.v[0].fix, "1654922000"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* GPU 1's temperature answers for its first `ok` of 20 samples, then fails with st. */
static void temperature_stops(gd_facts *f, size_t ok, gd_status st)
{
    fx_facts(f, 2, 20);
    for (size_t i = ok; i < 20; i++)
        gd_series_slot(&f->series, i, 1)[GD_M_TEMP_C] = gd_missing(st);
}

/* Answered a quarter of the window: what followed was not judged, said as a warning. */
static void sensors_failing_names_the_call_and_when(void **state)
{
    (void)state;
    gd_facts f;
    temperature_stops(&f, 5, GD_ST_ERROR);
    gd_findings fs = fx_run_one(&f, "health.sensors_failing");
    const gd_finding *x = fx_only(&fs, "health.sensors_failing");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_int_equal(x->gpu, 1);
    assert_string_equal(x->title, "GPU 1: 1 sensor call stopped answering at 5.0 s (answered 25% of the window); "
                                  "what followed was not judged");
    json_t *calls = json_object_get(x->evidence, "calls");
    assert_int_equal(json_array_size(calls), 1);
    assert_string_equal(json_string_value(json_array_get(calls, 0)), "nvmlDeviceGetTemperature");
    assert_float_equal(json_number_value(json_object_get(x->evidence, "failing_from_s")), 5.0, 1e-9);
    assert_float_equal(json_number_value(json_object_get(x->evidence, "answered_pct_min")), 25.0, 1e-9);
    assert_non_null(strstr(x->fix, "nvidia-smi -q -i 1"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Two metrics of one call are one call; a permission lost mid-run counts too. */
static void sensors_failing_lists_each_call_once(void **state)
{
    (void)state;
    gd_facts f;
    temperature_stops(&f, 4, GD_ST_NO_PERMISSION);
    fx_set(&f, 1, GD_M_UTIL_MEM_PCT, 0, 6, 40);
    for (size_t i = 6; i < 20; i++) {
        gd_series_slot(&f.series, i, 1)[GD_M_UTIL_GPU_PCT] = gd_missing(GD_ST_ERROR);
        gd_series_slot(&f.series, i, 1)[GD_M_UTIL_MEM_PCT] = gd_missing(GD_ST_ERROR);
    }
    gd_findings fs = fx_run_one(&f, "health.sensors_failing");
    const gd_finding *x = fx_only(&fs, "health.sensors_failing");
    json_t *calls = json_object_get(x->evidence, "calls");
    assert_int_equal(json_array_size(calls), 2);
    assert_string_equal(json_string_value(json_array_get(calls, 1)), "nvmlDeviceGetUtilizationRates");
    assert_float_equal(json_number_value(json_object_get(x->evidence, "failing_from_s")), 4.0, 1e-9);
    assert_non_null(strstr(x->title, "GPU 1: 2 sensor calls stopped answering at 4.0 s (answered 20%"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Most of the window judged: a note, not a finding. */
static void sensors_failing_late_in_the_window_is_a_note(void **state)
{
    (void)state;
    gd_facts f;
    temperature_stops(&f, 15, GD_ST_ERROR);
    gd_findings fs = fx_run_one(&f, "health.sensors_failing");
    assert_int_equal(fs.n, 0);
    assert_true(fx_skipped(&fs, "health.sensors_failing", 1,
                           "GPU 1: 1 sensor call stopped answering at 15.0 s ([\"nvmlDeviceGetTemperature\"]); the "
                           "rest of the window was judged without them"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Not supported is no failure; a gap that ends is no end; a lost GPU is
 * health.gpu_lost's; healthy sensors say nothing. */
static void sensors_failing_quiet_otherwise(void **state)
{
    (void)state;
    gd_facts f;
    temperature_stops(&f, 5, GD_ST_NOT_SUPPORTED);
    fx_assert_silent(&f, "health.sensors_failing");
    fx_set(&f, 1, GD_M_TEMP_C, 19, 20, 66);
    for (size_t i = 5; i < 19; i++)
        gd_series_slot(&f.series, i, 1)[GD_M_TEMP_C] = gd_missing(GD_ST_ERROR);
    fx_assert_silent(&f, "health.sensors_failing");
    gd_facts_free(&f);
    temperature_stops(&f, 5, GD_ST_ERROR);
    f.gpus[1].lost = true;
    fx_assert_silent(&f, "health.sensors_failing");
    gd_facts_free(&f);
    fx_facts(&f, 8, 20);
    fx_assert_silent(&f, "health.sensors_failing");
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpu_lost_names_the_gpu_and_the_call),
        cmocka_unit_test(sensors_failing_names_the_call_and_when),
        cmocka_unit_test(sensors_failing_lists_each_call_once),
        cmocka_unit_test(sensors_failing_late_in_the_window_is_a_note),
        cmocka_unit_test(sensors_failing_quiet_otherwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
