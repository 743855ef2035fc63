/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `gpudoctor watch` off a terminal: one line per GPU per sample, CSV (header
 * first, the default in a pipe) or JSONL, every line parsed, numbers or
 * null with the status beside them, time_s and the wall clock time_utc; a
 * lost GPU says so; a recording plays back through it; --format table wants
 * a terminal; without a driver it says why and exits 3.
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

/* "2026-03-14T14:02:11.250Z" */
static bool is_utc(const char *s)
{
    if (!s || strlen(s) != 24)
        return false;
    int y, mo, d, h, mi, sec, ms;
    char z;
    return sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%3d%c", &y, &mo, &d, &h, &mi, &sec, &ms, &z) == 8 && z == 'Z' &&
           y >= 2020 && mo >= 1 && mo <= 12;
}

/* Every member of a sample line but the named text ones is a number or null. */
static void every_field_a_number_or_null(json_t *j)
{
    const char *key;
    json_t *v;
    json_object_foreach(j, key, v)
    {
        if (strcmp(key, "time_utc") == 0 || strcmp(key, "gpu_state") == 0 || strcmp(key, "status") == 0 ||
            strcmp(key, "event_reasons") == 0)
            continue;
        if (!json_is_number(v) && !json_is_null(v))
            fail_msg("\"%s\" is neither a number nor null", key);
    }
    assert_true(json_is_object(json_object_get(j, "status")));
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
        /* The last three fields: the GPU's state, why a field is empty, the wall clock. */
        char *utc = strrchr(lines[i], ',');
        assert_true(is_utc(utc + 1));
        assert_non_null(strstr(lines[i], ",ok,"));
    }
    assert_non_null(strstr(lines[0], ",event_reasons,gpu_state,status,time_utc"));
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
        /* No fan, no memory temperature on these boards: null, never 0 nor a
         * string, and the status says why. */
        assert_true(json_is_null(json_object_get(j, "fan_pct")));
        assert_true(json_is_null(json_object_get(j, "mem_temp_c")));
        const char *fan = json_string_value(json_object_get(json_object_get(j, "status"), "fan_pct"));
        assert_non_null(fan);
        assert_true(strncmp(fan, "not_supported", 13) == 0);
        assert_null(json_object_get(json_object_get(j, "status"), "temp_c"));
        assert_string_equal(json_string_value(json_object_get(j, "gpu_state")), "ok");
        every_field_a_number_or_null(j);
        /* One name for the time, as in CSV and the docs, and the wall clock. */
        assert_null(json_object_get(j, "t"));
        assert_true(json_is_number(json_object_get(j, "time_s")));
        assert_true(is_utc(json_string_value(json_object_get(j, "time_utc"))));
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
    /* The recording carries the wall clock: the start in its header, each sample's time. */
    FILE *in = fopen(rec, "r");
    assert_non_null(in);
    char line[65536];
    size_t samples = 0;
    for (size_t k = 0; fgets(line, sizeof line, in); k++) {
        json_t *j = json_loads(line, 0, NULL);
        assert_non_null(j);
        if (k == 0)
            assert_true(is_utc(json_string_value(json_object_get(j, "started_at"))));
        else if (json_object_get(j, "gpus")) {
            assert_true(is_utc(json_string_value(json_object_get(j, "time_utc"))));
            samples++;
        }
        json_decref(j);
    }
    fclose(in);
    assert_int_equal(samples, 4);
    r = run_tool((const char *[]){"watch", "--from", rec, "--format", "jsonl", NULL}, env);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, live);
    tool_result_free(&r);
    free(live);
    /* A recording cut short (no end line, where the exact start is) keeps
     * the wall clock of its header: every sample line still has its time. */
    char cut[1024];
    snprintf(cut, sizeof cut, "%s/cut.jsonl", dir);
    in = fopen(rec, "r");
    FILE *out = fopen(cut, "w");
    assert_true(in && out);
    while (fgets(line, sizeof line, in))
        if (!strstr(line, "{\"end\""))
            fputs(line, out);
    fclose(in);
    fclose(out);
    r = run_tool((const char *[]){"watch", "--from", cut, "--format", "jsonl", NULL}, env);
    assert_int_equal(r.exit_code, 0);
    char *lines[64];
    size_t n = split_lines(r.out, lines, 64);
    assert_true(n >= 4);
    for (size_t k = 0; k < n; k++) {
        json_t *j = json_loads(lines[k], 0, NULL);
        assert_true(is_utc(json_string_value(json_object_get(j, "time_utc"))));
        json_decref(j);
    }
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* The digits of each real in text, outside strings: at most 15 significant
 * ones (a reading written with 17, "627.30000000000007", fails). */
static void reals_are_short(const char *text)
{
    bool in_string = false;
    for (const char *p = text; *p; p++) {
        if (*p == '"' && (p == text || p[-1] != '\\'))
            in_string = !in_string;
        if (in_string || !(*p >= '0' && *p <= '9') || (p > text && (p[-1] >= '0' && p[-1] <= '9')))
            continue;
        size_t k = strspn(p, "0123456789.");
        if (!memchr(p, '.', k))
            continue;
        size_t digits = 0;
        for (size_t i = 0; i < k; i++)
            digits += p[i] != '.';
        if (digits > 15)
            fail_msg("a real written long: %.*s", (int)k, p);
    }
}

/* A reading is written in its shortest form that reads back the same:
 * 0.3 s, not 0.29999999999999999 (jansson's default "%.17g"). */
static void jsonl_reals_are_shortest(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"watch", "--sim", example("h100x8-training.json"), "--count", "4",
                                              "--interval", "300", "--format", "jsonl", NULL},
                             env);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "\"time_s\":0.3,"));
    assert_non_null(strstr(r.out, "\"time_s\":0.9,"));
    reals_are_short(r.out);
    tool_result_free(&r);
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

/* Without a driver there is nothing to watch: it says why on stderr and
 * exits 3 in every format, before any output (it cleared the screen, or
 * printed a lone CSV header, and exited 0); jsonl gives the JSON error
 * object every --json gives. */
static void without_a_driver_it_says_why(void **state)
{
    (void)state;
    const char *nodrv[] = {"GPUDOCTOR_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1", "GPUDOCTOR_SIM_TIMESCALE=", NULL};
    const char *formats[] = {"csv", "jsonl", NULL};
    for (const char **fmt = formats;; fmt++) {
        tool_result r = *fmt ? run_tool((const char *[]){"watch", "--count", "2", "--format", *fmt, NULL}, nodrv)
                             : run_tool((const char *[]){"watch", "--count", "2", NULL}, nodrv);
        assert_int_equal(r.exit_code, 3);
        if (*fmt && strcmp(*fmt, "jsonl") == 0) /* JSON asked: one JSON error object, the same reason */
            assert_true(strncmp(r.out, "{\"error\":\"no NVIDIA driver", 26) == 0 && strstr(r.out, "\"exit_code\":3"));
        else
            assert_string_equal(r.out, "");
        assert_non_null(strstr(r.err, "no NVIDIA driver"));
        assert_non_null(strstr(r.err, "libnvidia-ml.so.1"));
        tool_result_free(&r);
        if (!*fmt)
            break;
    }
}

/* A lost GPU is not "not supported": its fields are null (JSONL) or empty
 * (CSV), gpu_state says "lost" and status says gpu_lost. Finding lines say
 * time_s too. */
static void a_lost_gpu_says_so(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"watch", "--sim", example("h100x8-gpu-lost.json"), "--count", "6",
                                              "--interval", "5s", "--format", "jsonl", NULL},
                             env);
    assert_int_equal(r.exit_code, 0);
    char *lines[256];
    size_t n = split_lines(r.out, lines, 256);
    size_t lost = 0, findings = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *j = json_loads(lines[i], 0, NULL);
        assert_non_null(j);
        assert_null(json_object_get(j, "t"));
        assert_true(json_is_number(json_object_get(j, "time_s")));
        if (json_object_get(j, "finding")) {
            findings++;
            assert_true(is_utc(json_string_value(json_object_get(j, "time_utc"))));
            json_decref(j);
            continue;
        }
        every_field_a_number_or_null(j);
        const char *st = json_string_value(json_object_get(j, "gpu_state"));
        assert_non_null(st);
        if (strcmp(st, "lost") == 0) {
            lost++;
            assert_int_equal(json_integer_value(json_object_get(j, "gpu")), 3);
            assert_true(json_is_null(json_object_get(j, "temp_c")));
            assert_string_equal(json_string_value(json_object_get(json_object_get(j, "status"), "temp_c")), "gpu_lost");
        } else {
            assert_string_equal(st, "ok");
        }
        json_decref(j);
    }
    assert_true(lost >= 1);
    assert_true(findings >= 1);
    tool_result_free(&r);

    r = run_tool((const char *[]){"watch", "--sim", example("h100x8-gpu-lost.json"), "--count", "6", "--interval", "5s",
                                  "--format", "csv", NULL},
                 env);
    assert_int_equal(r.exit_code, 0);
    n = split_lines(r.out, lines, 256);
    lost = 0;
    for (size_t i = 1; i < n; i++)
        if (strstr(lines[i], ",lost,temp_c=gpu_lost|")) {
            lost++;
            assert_true(strncmp(strchr(lines[i], ','), ",3,", 3) == 0);
        }
    assert_true(lost >= 1);
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csv_is_a_header_then_one_line_per_gpu_per_sample),
        cmocka_unit_test(jsonl_lines_parse_and_keep_statuses),
        cmocka_unit_test(a_recording_plays_back_as_lines),
        cmocka_unit_test(jsonl_reals_are_shortest),
        cmocka_unit_test(table_wants_a_terminal),
        cmocka_unit_test(without_a_driver_it_says_why),
        cmocka_unit_test(a_lost_gpu_says_so),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
