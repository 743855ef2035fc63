/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: gpudoctor against the NVML behaviours the simulator models
 * after the real library (docs/architecture.md, "What the simulator
 * models"): the 20 ms PCIe throughput call, the driver's byte counters,
 * NVLinks of MIG GPUs, NVML_ERROR_DEPRECATED and its successor calls,
 * temperature limits as T.Limit margins, pending page retirement, MIG
 * utilisation, the 1 s power average, memory temperature 0, a NULL
 * nvmlErrorString and the driver version's successor. Each scenario is
 * written here, small, with the one behaviour it pins.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fast[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", NULL};

#define LOADED_POINT                                                                                                   \
    "\"sm_clock_mhz\":1980,\"mem_clock_mhz\":2619,\"util_gpu_pct\":95,\"util_mem_pct\":50,\"mem_used_mib\":60000,"   \
    "\"pcie_gen\":5,\"pcie_width\":16,\"pcie_tx_kbps\":1000000,\"pcie_rx_kbps\":2000000,\"event_reasons\":[]"

/* One H100-like GPU: `extra` adds static keys (each ending in a comma),
 * `timeline` is the points' list body. */
static void gpu_json(char *buf, size_t len, int i, const char *cc, const char *extra, const char *timeline)
{
    snprintf(buf, len,
             "{\"name\":\"NVIDIA H100 80GB HBM3\",\"uuid\":\"GPU-00000000-0000-4000-8000-%012d\","
             "\"pci_bus_id\":\"00000000:%02X:00.0\",\"compute_capability\":[%s],\"memory_total_mib\":81559,"
             "\"power_limit_w\":700,\"power_limit_default_w\":700,\"clocks_max_mhz\":{\"sm\":1980,\"mem\":2619},"
             "\"pcie_max\":{\"gen\":5,\"width\":16},\"persistence_mode\":true,%s\"timeline\":[%s]}",
             i, 0x18 + i, cc, extra, timeline);
}

/* A scenario of n GPUs (the first `special` of them with `extra0`) in a
 * fresh directory; returns its path (owned by the caller). */
static char *scenario(const char *dir, const char *top, int n, int special, const char *extra0, const char *extra,
                      const char *cc, const char *timeline)
{
    size_t cap = 4096 + (size_t)n * 4096;
    char *body = calloc(1, cap), gpu[4096];
    snprintf(body, cap, "{%s\"gpus\":[", top);
    for (int i = 0; i < n; i++) {
        gpu_json(gpu, sizeof gpu, i, cc, i < special ? extra0 : extra, timeline);
        strcat(body, gpu);
        strcat(body, i + 1 < n ? "," : "]}");
    }
    char *path = write_temp_file(dir, "scenario.json", body);
    free(body);
    return path;
}

/* A string of the report; fails the test (not the process) when absent. */
static const char *str(json_t *j)
{
    const char *s = json_string_value(j);
    assert_non_null(s);
    return s;
}

static json_t *not_checked(json_t *report, const char *check, int gpu)
{
    json_t *a = json_object_get(report, "not_checked"), *o;
    size_t i;
    json_array_foreach(a, i, o)
    {
        json_t *g = json_object_get(o, "gpu"); /* null: host-wide, asked for as -1 */
        if (strcmp(json_string_value(json_object_get(o, "check")), check) == 0 &&
            (json_is_integer(g) ? json_integer_value(g) : -1) == gpu)
            return o;
    }
    return NULL;
}

/* The report says `check` was not checked for `gpu`, with `why` in its reason. */
static void expect_not_checked(json_t *report, const char *check, int gpu, const char *why)
{
    json_t *skip = not_checked(report, check, gpu);
    if (!skip)
        fail_msg("no 'not checked' for %s on GPU %d", check, gpu);
    if (!strstr(str(json_object_get(skip, "reason")), why))
        fail_msg("%s on GPU %d: '%s' has no '%s'", check, gpu, str(json_object_get(skip, "reason")), why);
}

static json_t *finding(json_t *report, const char *id, int gpu)
{
    json_t *a = json_object_get(report, "findings"), *o;
    size_t i;
    json_array_foreach(a, i, o)
    {
        if (strcmp(json_string_value(json_object_get(o, "id")), id) == 0 &&
            json_integer_value(json_object_get(o, "gpu")) == gpu)
            return o;
    }
    return NULL;
}

/* The watch line of `gpu` at scenario time t (jsonl), parsed; NULL when none. */
static json_t *watch_row(const char *out, int gpu, double t)
{
    for (const char *line = out; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        json_t *row = json_loadb(line, n, 0, NULL);
        if (row && json_integer_value(json_object_get(row, "gpu")) == gpu &&
            json_number_value(json_object_get(row, "time_s")) > t - 1e-6 &&
            json_number_value(json_object_get(row, "time_s")) < t + 0.05)
            return row;
        json_decref(row);
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

#define OLD_DRIVER "\"driver_version\":\"535.54.03\",\"cuda_driver_version\":12020,"
#define NEW_DRIVER "\"driver_version\":\"570.124.06\",\"cuda_driver_version\":12080,"
#define CUDA14_DRIVER "\"driver_version\":\"615.10.01\",\"cuda_driver_version\":14000,"

/* Issue point 1: eight GPUs at 10 Hz on a driver without the byte counters.
 * nvmlDeviceGetPcieThroughput takes 20 ms of scenario time per call; asked
 * twice per GPU per sample it made a 5 s window 16 s long. */
static void pcie_throughput_keeps_the_interval(void **state)
{
    (void)state;
    char *dir = temp_dir(), tl[1024];
    snprintf(tl, sizeof tl, "{\"t\":0,\"temp_c\":60,\"power_w\":500," LOADED_POINT "}");
    char *sc = scenario(dir, OLD_DRIVER, 8, 0, "", "", "9,0", tl);
    tool_result r =
        run_tool((const char *[]){"check", "--json", "--duration", "5", "--interval", "100", "--sim", sc, NULL}, fast);
    assert_non_null(r.json);
    json_t *w = json_object_get(r.json, "window");
    double samples = (double)json_integer_value(json_object_get(w, "samples"));
    double span = json_number_value(json_object_get(w, "duration_s"));
    print_message("window %.3f s, %.0f samples\n", span, samples);
    assert_true(samples >= 50 * 0.95 && samples <= 51 * 1.05); /* duration / interval within 5 % */
    assert_true(span <= 5.0 * 1.05); /* each sample at the time it was read: the loop kept up */
    json_t *pt = json_object_get(w, "pcie_throughput");
    assert_non_null(strstr(str(json_object_get(pt, "source")), "nvmlDeviceGetPcieThroughput"));
    json_int_t reads = json_integer_value(json_object_get(pt, "reads"));
    assert_true(reads >= 8 * 4 && reads <= 8 * 6); /* about once a second per GPU */
    assert_true(json_number_value(json_object_get(pt, "every_s")) >= 0.9);
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--duration", "5", "--interval", "100", "--sim", sc, NULL}, fast);
    assert_non_null(strstr(r.out, "PCIe throughput read every 1.0 s per GPU"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(sc);
}

/* Where the driver has the byte counters, every sample reads them, for free. */
static void pcie_byte_counters_give_the_rate(void **state)
{
    (void)state;
    char *dir = temp_dir(), tl[1024];
    snprintf(tl, sizeof tl, "{\"t\":0,\"temp_c\":60,\"power_w\":500," LOADED_POINT "}");
    char *sc = scenario(dir, NEW_DRIVER, 2, 0, "", "", "9,0", tl);
    tool_result r = run_tool(
        (const char *[]){"watch", "--sim", sc, "--count", "3", "--interval", "100", "--format", "jsonl", NULL}, fast);
    json_t *row = watch_row(r.out, 1, 0.2);
    assert_non_null(row);
    assert_int_equal(json_integer_value(json_object_get(row, "pcie_tx_kbps")), 1000000);
    assert_int_equal(json_integer_value(json_object_get(row, "pcie_rx_kbps")), 2000000);
    json_decref(row);
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--json", "--duration", "2", "--interval", "100", "--sim", sc, NULL}, fast);
    json_t *pt = json_object_get(json_object_get(r.json, "window"), "pcie_throughput");
    assert_non_null(strstr(str(json_object_get(pt, "source")), "PCIE_COUNT_TX_BYTES"));
    assert_int_equal(json_integer_value(json_object_get(pt, "reads")), 2 * 21);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(sc);
}

/* Issue point 2: current NVML has 36 NVLinks (NVML_NVLINK_MAX_LINKS); links
 * 18-35 were never asked. */
static void nvlinks_past_18_are_read(void **state)
{
    (void)state;
    char *dir = temp_dir(), tl[1024];
    snprintf(tl, sizeof tl, "{\"t\":0,\"temp_c\":60,\"power_w\":500," LOADED_POINT "}");
    const char *links = "\"nvlink\":[{\"link\":0,\"active\":true},{\"link\":25,\"active\":true},"
                        "{\"link\":35,\"active\":false}],";
    char *sc = scenario(dir, NEW_DRIVER, 2, 0, "", links, "10,0", tl);
    tool_result r = run_tool((const char *[]){"info", "--json", "--sim", sc, NULL}, fast);
    json_t *l = json_object_get(json_array_get(json_object_get(r.json, "gpus"), 1), "nvlink");
    assert_int_equal(json_array_size(l), 3);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(l, 2), "link")), 35);
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--json", "--duration", "2", "--interval", "500", "--sim", sc, NULL}, fast);
    json_t *f = finding(r.json, "nvlink.down", 1);
    assert_non_null(f);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(json_object_get(f, "evidence"), "down_link_indices"), 0)),
                     35);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(sc);
}

/* Issue 38, point 2: the counters re-read every 5 s are read once more at
 * the window's end. An NVLink's CRC errors and an uncorrectable ECC error
 * at 2.5 s of a 3 s window (before any 5 s re-read) are seen; a snapshot,
 * which read them once, says that their growth was not judged. */
static void counters_reread_at_the_window_end(void **state)
{
    (void)state;
    char *dir = temp_dir(), tl[1024];
    snprintf(tl, sizeof tl, "{\"t\":0,\"temp_c\":60,\"power_w\":500,\"pcie_replays\":0," LOADED_POINT "}");
    const char *faulty =
        "\"nvlink\":[{\"link\":0,\"active\":true,\"error_counters\":{\"replay\":0,\"recovery\":0,\"crc_flit\":0,"
        "\"crc_data\":0}}],\"ecc\":{\"enabled\":true,\"volatile_uncorrected\":0,\"aggregate_uncorrected\":0},"
        "\"events\":[{\"t\":2.5,\"nvlink\":{\"link\":0,\"crc_flit\":40}},{\"t\":2.5,\"ecc_uncorrected\":1}],";
    char *sc = scenario(dir, NEW_DRIVER, 1, 1, faulty, "", "9,0", tl);
    const char *argv[] = {"check", "--json", "--duration", "3", "--interval", "1000", "--sim", sc, NULL};
    tool_result r = run_tool(argv, fast);
    assert_non_null(finding(r.json, "nvlink.errors", 0));
    json_t *ecc = finding(r.json, "health.ecc_uncorrectable", 0);
    assert_non_null(ecc);
    assert_non_null(strstr(str(json_object_get(ecc, "title")), "1 new uncorrectable error"));
    tool_result_free(&r);
    argv[3] = "0";
    r = run_tool(argv, fast);
    assert_null(finding(r.json, "nvlink.errors", 0));
    expect_not_checked(r.json, "nvlink.errors", -1, "read once");
    expect_not_checked(r.json, "pcie.replays", 0, "read once");
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(sc);
}

/* Issue point 3: NVML reports a MIG GPU's NVLinks down; they are not judged. */
static void mig_gpu_nvlinks_are_not_judged(void **state)
{
    (void)state;
    char *dir = temp_dir(), tl[1024];
    snprintf(tl, sizeof tl, "{\"t\":0,\"temp_c\":60,\"power_w\":500," LOADED_POINT "}");
    const char *links = "\"nvlink\":[{\"link\":0,\"active\":true},{\"link\":1,\"active\":true}],";
    char extra0[256], extra[256];
    snprintf(extra0, sizeof extra0, "\"mig_mode\":true,%s", links);
    snprintf(extra, sizeof extra, "\"mig_mode\":false,%s", links);
    char *sc = scenario(dir, NEW_DRIVER, 2, 1, extra0, extra, "9,0", tl);
    tool_result r = run_tool((const char *[]){"info", "--json", "--sim", sc, NULL}, fast);
    json_t *l0 = json_array_get(json_object_get(json_array_get(json_object_get(r.json, "gpus"), 0), "nvlink"), 0);
    assert_true(json_is_false(json_object_get(l0, "active"))); /* the simulator answers as NVML does */
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--json", "--duration", "2", "--interval", "500", "--sim", sc, NULL}, fast);
    assert_int_equal(count_findings(r.json, "nvlink.down", -2), 0);
    expect_not_checked(r.json, "nvlink.down", 0, "MIG");
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(sc);
}

/* Issue points 4 and 5: a CUDA 14 driver answers NVML_ERROR_DEPRECATED for
 * nvmlDeviceGetTemperature, the absolute thresholds and the violation
 * counters; the successors (nvmlDeviceGetTemperatureV, T.Limit, field
 * values) give the temperature, the limits and the time throttled. */
static void deprecated_calls_use_their_successors(void **state)
{
    (void)state;
    char *dir = temp_dir(), tl[1024];
    snprintf(tl, sizeof tl,
             "{\"t\":0,\"temp_c\":85,\"power_w\":500," LOADED_POINT "},"
             "{\"t\":1,\"event_reasons\":[\"sw_thermal_slowdown\"]},{\"t\":1.5,\"event_reasons\":[]}");
    const char *limits = "\"temperature_limit_c\":87,"
                         "\"temperature_tlimit_c\":{\"shutdown\":-8,\"slowdown\":-2,\"gpu_max\":0,\"mem_max\":0},";
    char *sc = scenario(dir, CUDA14_DRIVER, 1, 0, "", limits, "9,0", tl);
    tool_result r =
        run_tool((const char *[]){"check", "--json", "--duration", "4", "--interval", "100", "--sim", sc, NULL}, fast);
    json_t *g0 = json_array_get(json_object_get(r.json, "gpus"), 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(g0, "state"), "temp_c")), 85);
    json_t *viol = json_object_get(json_object_get(g0, "window"), "violation_pct_of_window");
    assert_true(json_is_number(json_object_get(viol, "thermal")));
    assert_true(json_number_value(json_object_get(viol, "thermal")) > 5);
    tool_result_free(&r);
    /* Without the successor the reading is "deprecated", and thermal.hot says
     * it was not checked instead of vanishing. */
    free(sc);
    sc = scenario(dir, CUDA14_DRIVER, 1, 0, "",
                  "\"errors\":{\"nvmlDeviceGetTemperatureV\":\"NVML_ERROR_FUNCTION_NOT_FOUND\"},", "9,0", tl);
    r = run_tool((const char *[]){"check", "--json", "--duration", "4", "--interval", "100", "--sim", sc, NULL}, fast);
    expect_not_checked(r.json, "thermal.hot", 0, "deprecated by the driver");
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(sc);
}

/* Issue 38, point 1: nvml.h says thermal violations are "not supported at
 * this time" (nvmlDeviceGetViolationStatus, field 75). A GPU that throttles
 * only between its samples (0.2-0.8 s of every second, sampled on the
 * second) is seen through the R570 counters (fields 251/252); where none
 * answers, thermal.throttling says what it could not see. */
/* A loaded GPU with clock event reason `reason` from 0.2 to 0.8 s of every
 * second: a 1 s sample on the second never sees it. */
static void between_samples(char *tl, size_t len, const char *reason)
{
    int used = snprintf(tl, len, "{\"t\":0,\"temp_c\":86,\"power_w\":500," LOADED_POINT "}");
    for (int k = 0; k < 12; k++)
        used += snprintf(tl + used, len - (size_t)used,
                         ",{\"t\":%d.2,\"event_reasons\":[\"%s\"]},{\"t\":%d.8,\"event_reasons\":[]}", k, reason, k);
}

static void thermal_slowdown_between_samples_from_the_successors(void **state)
{
    (void)state;
    char *dir = temp_dir(), tl[2048];
    between_samples(tl, sizeof tl, "sw_thermal_slowdown");
    const char *refused = "\"errors\":{\"nvmlDeviceGetViolationStatus\":\"NVML_ERROR_NOT_SUPPORTED\"},";
    char *sc = scenario(dir, NEW_DRIVER, 1, 0, "", refused, "9,0", tl);
    const char *argv[] = {"check", "--json", "--duration", "10", "--interval", "1000", "--sim", sc, NULL};
    tool_result r = run_tool(argv, fast);
    json_t *f = finding(r.json, "thermal.throttling", 0);
    assert_non_null(f);
    json_t *ev = json_object_get(f, "evidence");
    assert_int_equal(json_integer_value(json_object_get(ev, "violation_counter_pct")), 60);
    assert_non_null(strstr(str(json_object_get(ev, "source")), "CLOCKS_EVENT_REASON_SW/HW_THERM_SLOWDOWN"));
    assert_null(not_checked(r.json, "thermal.throttling", 0));
    tool_result_free(&r);
    /* A driver before the successors, with the old call refused: nothing
     * between the samples could be seen, and the report says so. */
    free(sc);
    sc = scenario(dir, OLD_DRIVER, 1, 0, "", refused, "9,0", tl);
    argv[7] = sc;
    r = run_tool(argv, fast);
    assert_int_equal(r.exit_code, 0);
    assert_null(finding(r.json, "thermal.throttling", 0));
    expect_not_checked(r.json, "thermal.throttling", 0, "between samples");
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(sc);
}

/* Issue 38, point 1: the power brake's R570 counter (field 253) sees a
 * brake no sample caught. */
static void power_brake_between_samples_from_its_counter(void **state)
{
    (void)state;
    char *dir = temp_dir(), tl[2048];
    between_samples(tl, sizeof tl, "hw_power_brake_slowdown");
    char *sc = scenario(dir, NEW_DRIVER, 1, 0, "", "", "9,0", tl);
    tool_result r = run_tool(
        (const char *[]){"check", "--json", "--duration", "10", "--interval", "1000", "--sim", sc, NULL}, fast);
    json_t *f = finding(r.json, "power.brake", 0);
    assert_non_null(f);
    assert_non_null(strstr(str(json_object_get(f, "title")), "between samples (60% of the window)"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(sc);
}

/* Issue point 5: a hot H100 on a current driver (T.Limit only) warns, as it
 * did with the absolute thresholds; it must not fall to info. */
static void hot_gpu_judged_from_its_tlimit(void **state)
{
    (void)state;
    char *dir = temp_dir(), tl[1024];
    snprintf(tl, sizeof tl, "{\"t\":0,\"temp_c\":85,\"power_w\":500," LOADED_POINT "}");
    const char *limits = "\"temperature_limit_c\":87,"
                         "\"temperature_tlimit_c\":{\"shutdown\":-8,\"slowdown\":-2,\"gpu_max\":0,\"mem_max\":0},";
    char *sc = scenario(dir, NEW_DRIVER, 1, 0, "", limits, "9,0", tl);
    tool_result r =
        run_tool((const char *[]){"check", "--json", "--duration", "10", "--interval", "1000", "--sim", sc, NULL}, fast);
    json_t *f = finding(r.json, "thermal.hot", 0);
    assert_non_null(f);
    assert_string_equal(json_string_value(json_object_get(f, "severity")), "warning");
    json_t *ev = json_object_get(f, "evidence");
    assert_int_equal(json_integer_value(json_object_get(ev, "gpu_slowdown_c")), 89); /* 87 - (-2) */
    assert_non_null(strstr(str(json_object_get(ev, "limits_source")), "nvmlDeviceGetMarginTemperature"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(sc);
}

/* Issue point 4: application clocks answer DEPRECATED from R590 (real
 * captures): named deprecated, not an error. */
static void deprecated_application_clocks_are_not_errors(void **state)
{
    (void)state;
    char *dir = temp_dir(), tl[1024];
    snprintf(tl, sizeof tl, "{\"t\":0,\"temp_c\":60,\"power_w\":500," LOADED_POINT "}");
    const char *apps = "\"clocks_app_mhz\":{\"sm\":1980,\"mem\":2619},"
                       "\"clocks_default_app_mhz\":{\"sm\":1980,\"mem\":2619},";
    char *sc = scenario(dir, "\"driver_version\":\"590.44.01\",\"cuda_driver_version\":13010,", 1, 0, "", apps, "9,0",
                        tl);
    tool_result r = run_tool((const char *[]){"info", "--json", "--sim", sc, NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    json_t *dep = json_object_get(json_array_get(json_object_get(r.json, "gpus"), 0), "deprecated");
    assert_int_equal(json_array_size(dep), 4); /* application and default application clocks, SM and memory */
    assert_string_equal(json_string_value(json_array_get(dep, 0)), "clock_default_app_sm_mhz");
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(sc);
}

/* Issue 38, point 5: a driver older than a temperature threshold type
 * answers INVALID_ARGUMENT for it: not reported by that driver, not an
 * error of the tool. */
static void threshold_unknown_to_the_driver_is_not_an_error(void **state)
{
    (void)state;
    char *dir = temp_dir(), tl[1024];
    snprintf(tl, sizeof tl, "{\"t\":0,\"temp_c\":60,\"power_w\":500," LOADED_POINT "}");
    const char *old = "\"temperature_thresholds_c\":{\"shutdown\":92,\"slowdown\":89,\"gpu_max\":87,\"mem_max\":95},"
                      "\"errors\":{\"nvmlDeviceGetTemperatureThreshold\":\"NVML_ERROR_INVALID_ARGUMENT\"},";
    char *sc = scenario(dir, OLD_DRIVER, 1, 0, "", old, "9,0", tl);
    tool_result r = run_tool((const char *[]){"info", "--details", "--sim", sc, NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "n/a hardware slowdown, n/a shutdown"));
    assert_null(strstr(r.out, "(error)"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(sc);
}

/* Issue point 6: a V100 whose double-bit error waits for a reset. */
static void pending_page_retirement_is_read_live(void **state)
{
    (void)state;
    char *dir = temp_dir(), tl[1024];
    snprintf(tl, sizeof tl, "{\"t\":0,\"temp_c\":60,\"power_w\":200," LOADED_POINT "}");
    const char *ecc = "\"ecc\":{\"enabled\":true,\"retired_pages\":2,\"retired_pages_pending\":true},";
    char *sc = scenario(dir, NEW_DRIVER, 1, 0, "", ecc, "7,0", tl);
    tool_result r =
        run_tool((const char *[]){"check", "--json", "--duration", "2", "--interval", "500", "--sim", sc, NULL}, fast);
    json_t *f = finding(r.json, "health.row_remap", 0);
    assert_non_null(f);
    assert_string_equal(json_string_value(json_object_get(f, "severity")), "critical");
    assert_non_null(strstr(str(json_object_get(f, "title")), "pending"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(sc);
}

/* Issue point 7: whole-GPU utilisation is NOT_SUPPORTED in MIG mode. */
static void mig_utilisation_explained(void **state)
{
    (void)state;
    char *dir = temp_dir(), tl[1024];
    snprintf(tl, sizeof tl, "{\"t\":0,\"temp_c\":60,\"power_w\":300," LOADED_POINT "}");
    const char *mig = "\"mig_mode\":true,\"processes\":[{\"pid\":4242,\"name\":\"python\",\"used_mib\":30000}],";
    char *sc = scenario(dir, NEW_DRIVER, 1, 0, "", mig, "9,0", tl);
    tool_result r =
        run_tool((const char *[]){"check", "--json", "--duration", "30", "--interval", "1000", "--sim", sc, NULL}, fast);
    json_t *skip = not_checked(r.json, "gpu.underutilized", 0);
    assert_non_null(skip);
    const char *why = json_string_value(json_object_get(skip, "reason"));
    assert_non_null(strstr(why, "MIG mode"));
    assert_null(strstr(why, "--duration"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(sc);
}

/* Issue point 8: the instant power field for short intervals (Ampere and
 * newer average nvmlDeviceGetPowerUsage over a second); memory temperature 0
 * means "not reported". */
static void power_is_instant_and_memory_zero_is_unreported(void **state)
{
    (void)state;
    char *dir = temp_dir(), tl[1024];
    snprintf(tl, sizeof tl,
             "{\"t\":0,\"temp_c\":60,\"mem_temp_c\":0,\"power_w\":100," LOADED_POINT "},{\"t\":2,\"power_w\":600}");
    char *sc = scenario(dir, NEW_DRIVER, 1, 0, "", "", "9,0", tl);
    tool_result r = run_tool(
        (const char *[]){"watch", "--sim", sc, "--count", "25", "--interval", "100", "--format", "jsonl", NULL}, fast);
    json_t *row = watch_row(r.out, 0, 2.1);
    assert_non_null(row);
    assert_int_equal(json_integer_value(json_object_get(row, "power_w")), 600); /* the average reads 150 */
    json_t *mt = json_object_get(row, "mem_temp_c");
    assert_false(json_is_integer(mt) && json_integer_value(mt) == 0);
    json_decref(row);
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--json", "--duration", "3", "--interval", "100", "--sim", sc, NULL}, fast);
    const char *reading = json_string_value(json_object_get(json_object_get(r.json, "window"), "power_reading"));
    assert_non_null(reading);
    assert_non_null(strstr(reading, "instant"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--json", "--duration", "3", "--interval", "1000", "--sim", sc, NULL}, fast);
    reading = json_string_value(json_object_get(json_object_get(r.json, "window"), "power_reading"));
    assert_non_null(strstr(reading, "1 s average"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(sc);
}

/* Issue point 8: nvmlErrorString may answer NULL; the driver version query's
 * successor on a CUDA 14 driver is the kernel module's version. */
static void error_string_null_and_driver_version_successor(void **state)
{
    (void)state;
    char *dir = temp_dir(), tl[1024], proc[1200];
    snprintf(proc, sizeof proc, "%s/proc/driver/nvidia", dir);
    make_dirs(proc);
    const char *ver = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  615.10.01  Mon Jan  5 00:00:00 UTC 2027\n";
    put_file(dir, "proc/driver/nvidia/version", ver, strlen(ver));
    snprintf(tl, sizeof tl, "{\"t\":0,\"temp_c\":60,\"power_w\":500," LOADED_POINT "}");
    char *sc = scenario(dir,
                        CUDA14_DRIVER "\"host\":{\"proc\":\"proc\"},"
                                      "\"errors\":{\"nvmlErrorString\":\"NVML_ERROR_NOT_SUPPORTED\"},",
                        2, 1, "\"errors\":{\"nvmlDeviceGetHandleByIndex\":\"NVML_ERROR_NO_PERMISSION\"},", "", "9,0",
                        tl);
    tool_result r =
        run_tool((const char *[]){"check", "--json", "--duration", "1", "--interval", "500", "--sim", sc, NULL}, fast);
    assert_non_null(r.json);
    assert_string_equal(str(json_object_get(json_object_get(r.json, "driver"), "version")),
                        "615.10.01");
    json_t *denied = json_array_get(json_object_get(r.json, "gpus_not_accessible"), 0);
    assert_non_null(denied);
    assert_string_equal(str(json_object_get(denied, "error")), "NVML error 4");
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(sc);
}

int main(void)
{
    hermetic_environment();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pcie_throughput_keeps_the_interval),
        cmocka_unit_test(pcie_byte_counters_give_the_rate),
        cmocka_unit_test(nvlinks_past_18_are_read),
        cmocka_unit_test(mig_gpu_nvlinks_are_not_judged),
        cmocka_unit_test(counters_reread_at_the_window_end),
        cmocka_unit_test(deprecated_calls_use_their_successors),
        cmocka_unit_test(thermal_slowdown_between_samples_from_the_successors),
        cmocka_unit_test(power_brake_between_samples_from_its_counter),
        cmocka_unit_test(hot_gpu_judged_from_its_tlimit),
        cmocka_unit_test(deprecated_application_clocks_are_not_errors),
        cmocka_unit_test(threshold_unknown_to_the_driver_is_not_an_error),
        cmocka_unit_test(pending_page_retirement_is_read_live),
        cmocka_unit_test(mig_utilisation_explained),
        cmocka_unit_test(power_is_instant_and_memory_zero_is_unreported),
        cmocka_unit_test(error_string_null_and_driver_version_successor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
