/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `gpudoctor watch` off a terminal: one line per GPU per sample, CSV (header
 * first, the default in a pipe) or JSONL, every line parsed; a recording
 * plays back through it; --format table wants a terminal.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const env[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "GPUDOCTOR_ROOT=", NULL};

/* The lines of out, split in place; returns how many. */
static size_t split_lines(char *out, char **lines, size_t max)
{
    size_t n = 0;
    for (char *save = NULL, *l = strtok_r(out, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save))
        lines[n++] = l;
    return n;
}

static size_t fields(const char *line)
{
    size_t n = 1;
    for (const char *p = line; *p; p++)
        n += *p == ',';
    return n;
}

static void csv_is_a_header_then_one_line_per_gpu_per_sample(void **state)
{
    (void)state;
    /* No --format: stdout is a pipe here, so CSV. */
    tool_result r = run_tool((const char *[]){"watch", "--sim", example("h100x8-thermal-throttling.json"), "--count",
                                              "5", "--interval", "10s", NULL},
                             env);
    assert_int_equal(r.exit_code, 0);
    char *lines[128];
    size_t n = split_lines(r.out, lines, 128);
    assert_int_equal(n, 1 + 5 * 8);
    assert_true(strncmp(lines[0], "time_s,gpu,temp_c,", 18) == 0);
    size_t cols = fields(lines[0]);
    bool throttled = false;
    for (size_t i = 1; i < n; i++) {
        assert_int_equal(fields(lines[i]), cols);
        char *end;
        double t = strtod(lines[i], &end);
        assert_true(*end == ',' && t == (double)((i - 1) / 8) * 10.0);
        long gpu = strtol(end + 1, &end, 10);
        assert_int_equal(gpu, (long)((i - 1) % 8));
        double temp = strtod(end + 1, &end);
        assert_true(*end == ',' && temp > 20 && temp < 100);
        throttled |= gpu == 2 && strstr(lines[i], "sw_thermal_slowdown") != NULL;
    }
    assert_true(throttled);
    tool_result_free(&r);
}

static void jsonl_lines_parse_and_keep_statuses(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"watch", "--sim", example("a100x4-pcie-no-fan-no-memtemp.json"),
                                              "--count", "3", "--format", "jsonl", NULL},
                             env);
    assert_int_equal(r.exit_code, 0);
    char *lines[64];
    size_t n = split_lines(r.out, lines, 64);
    assert_int_equal(n, 3 * 4);
    for (size_t i = 0; i < n; i++) {
        json_error_t je;
        json_t *j = json_loads(lines[i], 0, &je);
        if (!json_is_object(j))
            fail_msg("line %zu is no JSON object: %s", i + 1, lines[i]);
        assert_int_equal(json_integer_value(json_object_get(j, "gpu")), (json_int_t)(i % 4));
        assert_true(json_is_number(json_object_get(j, "temp_c")));
        /* No fan, no memory temperature on these boards: a status, never 0. */
        const char *fan = json_string_value(json_object_get(j, "fan_pct"));
        assert_non_null(fan);
        assert_true(strncmp(fan, "not_supported", 13) == 0);
        assert_true(json_is_array(json_object_get(j, "event_reasons")));
        json_decref(j);
    }
    tool_result_free(&r);
}

static void a_recording_plays_back_as_lines(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char rec[1024];
    snprintf(rec, sizeof rec, "%s/w.jsonl", dir);
    tool_result r = run_tool((const char *[]){"watch", "--sim", example("demo.json"), "--count", "4", "--format",
                                              "jsonl", "--record", rec, NULL},
                             env);
    assert_int_equal(r.exit_code, 0);
    char *live = strdup(r.out);
    tool_result_free(&r);
    r = run_tool((const char *[]){"watch", "--from", rec, "--format", "jsonl", NULL}, env);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, live);
    tool_result_free(&r);
    free(live);
    remove_tree(dir);
    free(dir);
}

static void table_wants_a_terminal(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"watch", "--sim", example("demo.json"), "--format", "table", NULL}, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "needs a terminal"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"watch", "--format", "html", NULL}, env);
    assert_int_equal(r.exit_code, 3);
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csv_is_a_header_then_one_line_per_gpu_per_sample),
        cmocka_unit_test(jsonl_lines_parse_and_keep_statuses),
        cmocka_unit_test(a_recording_plays_back_as_lines),
        cmocka_unit_test(table_wants_a_terminal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
