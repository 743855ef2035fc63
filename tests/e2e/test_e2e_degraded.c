/*
 * End to end: a driver that answers only part of what gpudoctor asks. NVML
 * calls refused with NO_PERMISSION or failing, a library without its
 * optional functions, no driver at all: values are null, the checks that
 * needed them say "not checked", nothing crashes and nothing is made up.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *const fast[] = {"GPUDOCTOR_SIM_TIMESCALE=10", "NO_COLOR=", NULL};

#define J(...) #__VA_ARGS__
#define GPU(n, extra)                                                                                          \
    "{\"name\": \"NVIDIA H100 80GB HBM3\", \"uuid\": \"GPU-" #n "\", \"pci_bus_id\": \"00000000:1" #n ":00.0\","  \
    "\"memory_total_mib\": 81559, \"power_limit_w\": 700, \"power_limit_default_w\": 700,"                     \
    "\"clocks_max_mhz\": {\"sm\": 1980, \"mem\": 2619},"                                                       \
    "\"temperature_thresholds_c\": {\"shutdown\": 92, \"slowdown\": 89, \"gpu_max\": 87, \"mem_max\": 95},"    \
    extra "\"timeline\": [{\"t\": 0, \"temp_c\": 62, \"sm_clock_mhz\": 1980, \"power_w\": 560,"                 \
    "\"util_gpu_pct\": 98, \"mem_used_mib\": 60000, \"event_reasons\": []}]}"

/* GPU 1 refuses the clock event reasons, the violation counters and the
 * default power limit; GPUs 0 and 2 answer everything. */
static const char scenario[] =
    "{\"driver_version\": \"550.54.15\", \"gpus\": [" GPU(0, "") "," GPU(
        1, "\"errors\": {\"nvmlDeviceGetCurrentClocksEventReasons\": \"NVML_ERROR_NO_PERMISSION\","
           "\"nvmlDeviceGetViolationStatus\": \"NVML_ERROR_NO_PERMISSION\","
           "\"nvmlDeviceGetPowerManagementDefaultLimit\": \"NVML_ERROR_NO_PERMISSION\"},") "," GPU(2, "") "]}";

static json_t *state_of(json_t *report, size_t g, const char *key)
{
    return json_object_get(json_object_get(json_array_get(json_object_get(report, "gpus"), g), "state"), key);
}

static bool not_checked(json_t *report, const char *check, int gpu, const char *why)
{
    json_t *skips = json_object_get(report, "not_checked"), *k;
    size_t i;
    json_array_foreach(skips, i, k)
    {
        json_t *g = json_object_get(k, "gpu");
        const char *reason = json_string_value(json_object_get(k, "reason"));
        if (strcmp(json_string_value(json_object_get(k, "check")), check) == 0 &&
            (json_is_integer(g) ? (int)json_integer_value(g) : -1) == gpu && reason && strstr(reason, why))
            return true;
    }
    return false;
}

static void refused_calls_are_null_and_not_checked(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char *path = write_temp_file(dir, "refused.json", scenario);
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "0.5", "--sim", path, NULL}, fast);
    if (!r.json)
        fail_msg("no JSON; exit %d, stderr: %s", r.exit_code, r.err);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(json_array_size(json_object_get(r.json, "findings")), 0);
    assert_true(json_is_null(state_of(r.json, 1, "event_reasons")));
    assert_true(json_is_integer(state_of(r.json, 1, "temp_c")));
    assert_true(json_is_array(state_of(r.json, 0, "event_reasons")));
    assert_true(not_checked(r.json, "thermal.throttling", 1, "no permission"));
    assert_true(not_checked(r.json, "power.brake", 1, "no permission"));
    assert_true(not_checked(r.json, "power.limit_lowered", 1, "not readable"));
    assert_false(not_checked(r.json, "thermal.throttling", 0, ""));
    tool_result_free(&r);

    r = run_tool((const char *[]){"check", "--duration", "0.5", "--sim", path, NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "clock event reasons not readable (no permission)"));
    tool_result_free(&r);
    remove_tree(dir);
    free(path);
    free(dir);
}

static void call_failing_mid_window_is_null_not_lost(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char *path = write_temp_file(
        dir, "late.json",
        J({"gpus": [{"name": "G", "power_limit_w": 700, "power_limit_default_w": 700,
                     "timeline": [{"t": 0, "temp_c": 60, "power_w": 500, "util_gpu_pct": 98, "event_reasons": []},
                                  {"t": 3, "errors": {"nvmlDeviceGetPowerUsage": "NVML_ERROR_UNKNOWN",
                                                      "nvmlDeviceGetTemperature": "NVML_ERROR_NO_PERMISSION"}}]}]}));
    tool_result r =
        run_tool((const char *[]){"check", "--json", "--duration", "0.6", "--interval", "100", "--sim", path, NULL}, fast);
    if (!r.json)
        fail_msg("no JSON; exit %d, stderr: %s", r.exit_code, r.err);
    assert_int_equal(r.exit_code, 0);
    /* The end-of-window state: the refused readings are null, never 0; the GPU is not lost. */
    assert_true(json_is_null(state_of(r.json, 0, "power_w")));
    assert_true(json_is_null(state_of(r.json, 0, "temp_c")));
    json_t *gpu = json_array_get(json_object_get(r.json, "gpus"), 0);
    assert_false(json_is_true(json_object_get(gpu, "lost")));
    assert_int_equal(count_findings(r.json, "health.gpu_lost", -2), 0);
    tool_result_free(&r);
    remove_tree(dir);
    free(path);
    free(dir);
}

static void library_without_optional_functions_is_read_as_unavailable(void **state)
{
    (void)state;
#ifndef GD_NVML_STUB
    skip();
#else
    const char *env[] = {"GPUDOCTOR_NVML_LIBRARY=" GD_NVML_STUB, NULL};
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "0.3", NULL}, env);
    if (!r.json)
        fail_msg("no JSON; exit %d, stderr: %s", r.exit_code, r.err);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(json_array_size(json_object_get(r.json, "gpus")), 2);
    assert_int_equal(count_findings(r.json, "driver.missing", -2), 0);
    assert_true(json_is_null(state_of(r.json, 0, "temp_c")));
    assert_true(json_is_null(state_of(r.json, 1, "power_limit_w")));
    assert_true(not_checked(r.json, "thermal.throttling", 0, "not in driver library"));
    assert_true(not_checked(r.json, "clocks.low", 1, "not in driver library"));
    tool_result_free(&r);

    r = run_tool((const char *[]){"info", NULL}, env);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "GPU 1"));
    assert_non_null(strstr(r.out, "not in driver library"));
    tool_result_free(&r);
#endif
}

static void without_a_driver_the_gpu_checks_are_not_called_ok(void **state)
{
    (void)state;
    const char *env[] = {"GPUDOCTOR_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1", NULL};
    tool_result r = run_tool((const char *[]){"check", NULL}, env);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.out, "thermal         not checked: no GPU was read"));
    /* Nothing on a GPU was judged: no group may say "ok" for it. */
    assert_null(strstr(r.out, "health          ok"));
    assert_null(strstr(r.out, "pcie            ok"));
    assert_null(strstr(r.out, "capture         ok"));
    assert_null(strstr(r.out, "thermal         ok"));
    assert_null(strstr(r.out, "power           ok"));
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refused_calls_are_null_and_not_checked),
        cmocka_unit_test(call_failing_mid_window_is_null_not_lost),
        cmocka_unit_test(library_without_optional_functions_is_read_as_unavailable),
        cmocka_unit_test(without_a_driver_the_gpu_checks_are_not_called_ok),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
