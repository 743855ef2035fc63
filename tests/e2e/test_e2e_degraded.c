/* SPDX-License-Identifier: Apache-2.0 */
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

static const char *const fast[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", NULL}; /* the fast scenario clock */

#define J(...) #__VA_ARGS__
#define GPU(n, extra)                                                                                                  \
    "{\"name\": \"NVIDIA H100 80GB HBM3\", \"uuid\": \"GPU-" #n "\", \"pci_bus_id\": \"00000000:1" #n ":00.0\","       \
    "\"memory_total_mib\": 81559, \"power_limit_w\": 700, \"power_limit_default_w\": 700,"                             \
    "\"clocks_max_mhz\": {\"sm\": 1980, \"mem\": 2619},"                                                               \
    "\"temperature_thresholds_c\": {\"shutdown\": 92, \"slowdown\": 89, \"gpu_max\": 87, \"mem_max\": 95}," extra      \
    "\"timeline\": [{\"t\": 0, \"temp_c\": 62, \"sm_clock_mhz\": 1980, \"power_w\": 560,"                              \
    "\"util_gpu_pct\": 98, \"mem_used_mib\": 60000, \"event_reasons\": []}]}"

/* GPU 1 refuses the clock event reasons, the violation counters and the
 * default power limit; GPUs 0 and 2 answer everything. */
static const char scenario[] = "{\"driver_version\": \"550.54.15\", \"gpus\": [" GPU(0, "") "," GPU(
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
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "5", "--sim", path, NULL}, fast);
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

    r = run_tool((const char *[]){"check", "--details", "--duration", "5", "--sim", path, NULL}, fast);
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
        dir, "late.json", J({
            "gpus" : [ {
                "name" : "G",
                "power_limit_w" : 700,
                "power_limit_default_w" : 700,
                "timeline" : [
                    {"t" : 0, "temp_c" : 60, "power_w" : 500, "util_gpu_pct" : 98, "event_reasons" : []}, {
                        "t" : 1,
                        "errors" : {
                            "nvmlDeviceGetPowerUsage" : "NVML_ERROR_UNKNOWN",
                            "nvmlDeviceGetTemperature" : "NVML_ERROR_NO_PERMISSION"
                        }
                    }
                ]
            } ]
        }));
    tool_result r = run_tool(
        (const char *[]){"check", "--json", "--duration", "6", "--interval", "1000", "--sim", path, NULL}, fast);
    if (!r.json)
        fail_msg("no JSON; exit %d, stderr: %s", r.exit_code, r.err);
    /* Not lost, but most of the window unseen: said, not passed over. */
    assert_int_equal(r.exit_code, 1);
    assert_int_equal(count_findings(r.json, "health.sensors_failing", 0), 1);
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

/* A GPU whose handle is refused (not ours in this cgroup, a timeout) is not
 * accessible, not lost: no critical, no spurious finding from its empty
 * name, left out of the peers. GPU_IS_LOST stays loss. */
/* Fourteen sensor calls failing from t=3 on every GPU, one of them throttling:
 * a health check must not say OK about a window it could mostly not see. */
#define FAILING_FROM_3(n, reasons)                                                                                     \
    "{\"name\": \"NVIDIA H100 80GB HBM3\", \"uuid\": \"GPU-" #n "\", \"memory_total_mib\": 81559,"                     \
    "\"power_limit_w\": 700, \"power_limit_default_w\": 700, \"clocks_max_mhz\": {\"sm\": 1980, \"mem\": 2619},"       \
    "\"timeline\": [{\"t\": 0, \"temp_c\": 80, \"sm_clock_mhz\": 1400, \"power_w\": 560, \"util_gpu_pct\": 98, "       \
    "\"util_mem_pct\": 50,"                                                                                            \
    "\"mem_used_mib\": 60000, \"event_reasons\": [" reasons "]}, {\"t\": 3, \"errors\": {"                             \
    "\"nvmlDeviceGetTemperature\": \"NVML_ERROR_UNKNOWN\", \"nvmlDeviceGetClockInfo\": \"NVML_ERROR_UNKNOWN\","        \
    "\"nvmlDeviceGetPowerUsage\": \"NVML_ERROR_UNKNOWN\", \"nvmlDeviceGetUtilizationRates\": \"NVML_ERROR_UNKNOWN\","  \
    "\"nvmlDeviceGetMemoryInfo\": \"NVML_ERROR_UNKNOWN\", \"nvmlDeviceGetMemoryInfo_v2\": \"NVML_ERROR_UNKNOWN\","     \
    "\"nvmlDeviceGetCurrPcieLinkGeneration\": \"NVML_ERROR_UNKNOWN\","                                                 \
    "\"nvmlDeviceGetCurrPcieLinkWidth\": \"NVML_ERROR_UNKNOWN\", \"nvmlDeviceGetPcieThroughput\": "                    \
    "\"NVML_ERROR_UNKNOWN\","                                                                                          \
    "\"nvmlDeviceGetPcieReplayCounter\": \"NVML_ERROR_UNKNOWN\","                                                      \
    "\"nvmlDeviceGetCurrentClocksEventReasons\": \"NVML_ERROR_UNKNOWN\","                                              \
    "\"nvmlDeviceGetTotalEnergyConsumption\": \"NVML_ERROR_UNKNOWN\","                                                 \
    "\"nvmlDeviceGetViolationStatus\": \"NVML_ERROR_UNKNOWN\", \"nvmlDeviceGetFieldValues\": "                         \
    "\"NVML_ERROR_UNKNOWN\"}}]}"

static void sensors_failing_partway_are_not_ok(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char *path =
        write_temp_file(dir, "failing.json",
                        "{\"gpus\": [" FAILING_FROM_3(0, "") "," FAILING_FROM_3(1, "\"sw_thermal_slowdown\"") "]}");
    tool_result r = run_tool(
        (const char *[]){"check", "--json", "--duration", "10", "--interval", "1000", "--sim", path, NULL}, fast);
    if (!r.json)
        fail_msg("no JSON; exit %d, stderr: %s", r.exit_code, r.err);
    assert_int_equal(count_findings(r.json, "health.sensors_failing", 0), 1);
    assert_int_equal(count_findings(r.json, "health.sensors_failing", 1), 1);
    assert_true(r.exit_code >= 1);
    json_t *f, *findings = json_object_get(r.json, "findings");
    size_t i;
    json_array_foreach(findings, i, f)
    {
        if (strcmp(json_string_value(json_object_get(f, "id")), "health.sensors_failing") != 0)
            continue;
        json_t *ev = json_object_get(f, "evidence");
        char *calls = json_dumps(json_object_get(ev, "calls"), 0);
        assert_non_null(strstr(calls, "nvmlDeviceGetTemperature"));
        assert_non_null(strstr(calls, "nvmlDeviceGetCurrentClocksEventReasons"));
        free(calls);
        double from = json_number_value(json_object_get(ev, "failing_from_s"));
        assert_true(from >= 3.0 && from <= 4.0); /* the scenario fails from t=3 (scenario seconds) */
    }
    /* The throttling seen before the sensors stopped is still reported. */
    assert_int_equal(count_findings(r.json, "thermal.throttling", 1), 1);
    tool_result_free(&r);
    remove_tree(dir);
    free(path);
    free(dir);
}

#define HANDLE_REFUSED(code)                                                                                           \
    "{\"driver_version\": \"550.54.15\", \"gpus\": [" GPU(0, "") "," GPU(                                              \
        1, "\"errors\": {\"nvmlDeviceGetHandleByIndex\": \"" code "\"},") "," GPU(2, "") "]}"

static void refused_handle_is_not_accessible_not_lost(void **state)
{
    (void)state;
    static const char *const docs[] = {HANDLE_REFUSED("NVML_ERROR_NO_PERMISSION"), HANDLE_REFUSED("NVML_ERROR_TIMEOUT"),
                                       HANDLE_REFUSED("NVML_ERROR_UNKNOWN")};
    char *dir = temp_dir();
    for (size_t c = 0; c < 3; c++) {
        char *path = write_temp_file(dir, "denied.json", docs[c]);
        tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "3", "--sim", path, NULL}, fast);
        if (!r.json)
            fail_msg("case %zu: no JSON; exit %d, stderr: %s", c, r.exit_code, r.err);
        if (r.exit_code != 0 || json_array_size(json_object_get(r.json, "findings")) != 0)
            fail_msg("case %zu: exit %d, %s", c, r.exit_code, r.out);
        assert_int_equal(json_array_size(json_object_get(r.json, "gpus")), 2);
        json_t *denied = json_array_get(json_object_get(r.json, "gpus_not_accessible"), 0);
        assert_int_equal(json_integer_value(json_object_get(denied, "index")), 1);
        assert_true(not_checked(r.json, "gpu.none", 1, "GPU 1 is not accessible: nvmlDeviceGetHandleByIndex"));
        tool_result_free(&r);
        free(path);
    }
    char *path = write_temp_file(dir, "lost.json", HANDLE_REFUSED("NVML_ERROR_GPU_IS_LOST"));
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "3", "--sim", path, NULL}, fast);
    assert_int_equal(r.exit_code, 2);
    assert_int_equal(count_findings(r.json, "health.gpu_lost", 1), 1);
    tool_result_free(&r);
    free(path);
    remove_tree(dir);
    free(dir);
}

static void library_without_optional_functions_is_read_as_unavailable(void **state)
{
    (void)state;
#ifndef GD_NVML_STUB
    skip();
#else
    /* An empty root: the software stack of the machine running the test
     * (a CPU build of torch, say) is not what this test is about. */
    char *root = temp_dir(), envroot[600];
    snprintf(envroot, sizeof envroot, "GPUDOCTOR_ROOT=%s", root);
    const char *env[] = {"GPUDOCTOR_NVML_LIBRARY=" GD_NVML_STUB, envroot, NULL};
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

    r = run_tool((const char *[]){"info", "--details", NULL}, env);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "GPU 1"));
    assert_non_null(strstr(r.out, "not in driver library"));
    tool_result_free(&r);
    remove_tree(root);
    free(root);
#endif
}

static void without_a_driver_the_gpu_checks_are_not_called_ok(void **state)
{
    (void)state;
    /* NVIDIA GPUs on the bus (a sysfs tree of eight), no driver. */
    const char *env[] = {"GPUDOCTOR_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1",
                         "GPUDOCTOR_SYS_ROOT=" GD_EXAMPLES_DIR "/sysfs/hgx-h100x8", NULL};
    tool_result r = run_tool((const char *[]){"check", "--details", NULL}, env);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.out, "thermal         not judged (3 checks): no GPU was read"));
    /* Nothing on a GPU was judged: no group may say "ok" for it; health is
     * ok at most for the kernel log it read, never for ECC counters. */
    assert_null(strstr(r.out, "health          ok ("));
    assert_null(strstr(r.out, "ECC, row remapping, retired pages;"));
    assert_null(strstr(r.out, "PCIe            ok"));
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
        cmocka_unit_test(refused_handle_is_not_accessible_not_lost),
        cmocka_unit_test(sensors_failing_partway_are_not_ok),
        cmocka_unit_test(library_without_optional_functions_is_read_as_unavailable),
        cmocka_unit_test(without_a_driver_the_gpu_checks_are_not_called_ok),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
