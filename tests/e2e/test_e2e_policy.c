/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Accepting what is known: --ignore ID[@GPU], the config file ([ignore],
 * [severity], [thresholds], fail_on), --fail-on. Ignored findings stay in the
 * JSON with "ignored": true and in one line of the text, and do not count for
 * the exit code; a bad file is exit 3 with its name and line.
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

/* demo.json: power.limit_lowered GPU 2 critical, thermal.hot GPU 5 warning. */
static tool_result check(const char *scenario, const char *const *extra, bool json)
{
    const char *argv[32] = {"check", "--duration", "10", "--interval", "1000", "--sim", example(scenario)};
    size_t n = 7;
    if (json)
        argv[n++] = "--json";
    for (size_t i = 0; extra && extra[i] && n < 31; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    return run_tool(argv, NULL);
}

static json_t *finding(const tool_result *r, const char *id)
{
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(r->json, "findings"), i,
                       f) if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0) return f;
    return NULL;
}

static void ignore_keeps_the_finding_and_drops_it_from_the_exit_code(void **state)
{
    (void)state;
    tool_result r = check("demo.json", (const char *[]){"--ignore", "power.limit_lowered@2", NULL}, true);
    assert_int_equal(r.exit_code, 1); /* the thermal.hot warning is left */
    json_t *f = finding(&r, "power.limit_lowered");
    assert_non_null(f);
    assert_true(json_is_true(json_object_get(f, "ignored")));
    assert_null(json_object_get(finding(&r, "thermal.hot"), "ignored"));
    json_t *sum = json_object_get(r.json, "summary");
    assert_int_equal(json_integer_value(json_object_get(sum, "critical")), 0);
    assert_int_equal(json_integer_value(json_object_get(sum, "ignored")), 1);
    tool_result_free(&r);

    /* Both, repeated: exit 0; another GPU's id does not match. */
    r = check("demo.json", (const char *[]){"--ignore", "power.limit_lowered", "--ignore", "thermal.hot@5", NULL},
              false);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "Verdict: OK"));
    assert_non_null(strstr(r.out, "2 ignored"));
    /* One line each, no evidence block. */
    const char *ign = strstr(r.out, "\nIgnored");
    assert_non_null(ign);
    assert_non_null(strstr(ign, "    critical power.limit_lowered: GPU 2 power limit lowered"));
    assert_null(strstr(r.out, "evidence power_limit_w"));
    tool_result_free(&r);
    r = check("demo.json", (const char *[]){"--ignore", "thermal.hot@4", NULL}, false);
    assert_int_equal(r.exit_code, 2);
    tool_result_free(&r);

    r = check("demo.json", (const char *[]){"--ignore", "thermal.nonsense", NULL}, false);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "thermal.nonsense"));
    tool_result_free(&r);
    r = check("demo.json", (const char *[]){"--ignore", "thermal.hot@x", NULL}, false);
    assert_int_equal(r.exit_code, 3);
    tool_result_free(&r);
}

static void fail_on_critical_passes_warnings(void **state)
{
    (void)state;
    tool_result r = check("h100x8-one-gpu-hotter.json", (const char *[]){"--fail-on", "critical", NULL}, true);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(finding(&r, "thermal.outlier"));
    tool_result_free(&r);
    r = check("h100x8-one-gpu-hotter.json", (const char *[]){"--fail-on", "warning", NULL}, true);
    assert_int_equal(r.exit_code, 1);
    tool_result_free(&r);
    r = check("demo.json", (const char *[]){"--fail-on", "critical", NULL}, true);
    assert_int_equal(r.exit_code, 2);
    tool_result_free(&r);
    r = check("demo.json", (const char *[]){"--fail-on", "info", NULL}, true);
    assert_int_equal(r.exit_code, 3);
    tool_result_free(&r);
}

static tool_result with_config(const char *text, bool json)
{
    char *dir = temp_dir();
    char *path = write_temp_file(dir, "gpudoctor.conf", text);
    tool_result r = check("demo.json", (const char *[]){"--config", path, NULL}, json);
    free(path);
    remove_tree(dir);
    free(dir);
    return r;
}

static void config_file_ignores_changes_severity_and_thresholds(void **state)
{
    (void)state;
    tool_result r = with_config("# this node's power cap is on purpose\n"
                                "fail_on = critical\n"
                                "[ignore]\n"
                                "power.limit_lowered = 2\n"
                                "[severity]\n"
                                "thermal.hot = critical   ; we drain hot nodes\n",
                                true);
    assert_int_equal(r.exit_code, 2);
    assert_true(json_is_true(json_object_get(finding(&r, "power.limit_lowered"), "ignored")));
    assert_string_equal(json_string_value(json_object_get(finding(&r, "thermal.hot"), "severity")), "critical");
    tool_result_free(&r);

    r = with_config("[severity]\nthermal.hot = info\n", true);
    assert_int_equal(r.exit_code, 2); /* power.limit_lowered still critical */
    assert_string_equal(json_string_value(json_object_get(finding(&r, "thermal.hot"), "severity")), "info");
    tool_result_free(&r);

    /* Thresholds are data the checks read: GPU 5 peaks at 85 C. */
    r = with_config("[thresholds]\nthermal.hot.from_c = 82\n", true);
    json_t *hot = finding(&r, "thermal.hot");
    assert_non_null(hot);
    assert_int_equal(json_number_value(json_object_get(json_object_get(hot, "evidence"), "hot_from_c")), 82);
    tool_result_free(&r);
    r = with_config("[thresholds]\nthermal.hot.from_c = 90\nthermal.hot.margin_c = 2\n", true);
    assert_null(finding(&r, "thermal.hot"));
    tool_result_free(&r);

    /* XDG_CONFIG_HOME/gpudoctor.conf is read without --config. */
    char *dir = temp_dir();
    free(write_temp_file(dir, "gpudoctor.conf", "[ignore]\npower.limit_lowered = all\nthermal.hot = all\n"));
    char env[1100];
    snprintf(env, sizeof env, "XDG_CONFIG_HOME=%s", dir);
    r = run_tool(
        (const char *[]){"check", "--duration", "10", "--interval", "1000", "--sim", example("demo.json"), NULL},
        (const char *[]){env, NULL});
    assert_int_equal(r.exit_code, 0);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

static void config_errors_name_file_and_line(void **state)
{
    (void)state;
    static const struct {
        const char *text, *line, *words;
    } bad[] = {
        {"[ignore]\npower.limit_lowered = 2\nbogus.check = all\n", ":3: ", "bogus.check"},
        {"colour = yes\n", ":1: ", "unknown key 'colour'"},
        {"[severity]\nthermal.hot = severe\n", ":2: ", "severe"},
        {"[thresholds]\n\nthermal.hot.from_c = hot\n", ":3: ", "wants a number"},
        {"[thresholds]\nthermal.hot.from_c = 500\n", ":2: ", "from 30 to 120"},
        {"[thresholds]\nthermal.hot.warm_c = 85\n", ":2: ", "unknown threshold"},
        {"[colours]\nred = 1\n", ":2: ", "unknown section"},
        {"[ignore]\nthermal.hot = 0,x\n", ":2: ", "GPU indexes"},
        {"fail_on = sometimes\n", ":1: ", "warning or critical"},
        {"just words\n", ":1: ", "key = value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tool_result r = with_config(bad[i].text, false);
        if (r.exit_code != 3 || !strstr(r.err, "gpudoctor.conf") || !strstr(r.err, bad[i].line) ||
            !strstr(r.err, bad[i].words))
            fail_msg("case %zu: exit %d, stderr: %s", i, r.exit_code, r.err);
        tool_result_free(&r);
    }
    tool_result r = run_tool(
        (const char *[]){"check", "--config", "/nonexistent/gpudoctor.conf", "--sim", example("demo.json"), NULL},
        NULL);
    assert_int_equal(r.exit_code, 3);
    tool_result_free(&r);
}

/* The example of docs/interface.md is a valid file. */
static void the_documented_example_is_valid(void **state)
{
    (void)state;
    FILE *f = fopen(GD_SOURCE_DIR "/docs/interface.md", "r");
    assert_non_null(f);
    char line[512], text[4096] = "";
    bool in = false, found = false;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "```ini", 6) == 0) {
            in = found = true;
            continue;
        }
        if (in && strncmp(line, "```", 3) == 0)
            break;
        if (in)
            strncat(text, line, sizeof text - strlen(text) - 1);
    }
    fclose(f);
    assert_true(found);
    tool_result r = with_config(text, false);
    if (r.exit_code != 2) /* demo.json's critical power cap is not ignored there */
        fail_msg("exit %d: %s", r.exit_code, r.err);
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ignore_keeps_the_finding_and_drops_it_from_the_exit_code),
        cmocka_unit_test(fail_on_critical_passes_warnings),
        cmocka_unit_test(config_file_ignores_changes_severity_and_thresholds),
        cmocka_unit_test(config_errors_name_file_and_line),
        cmocka_unit_test(the_documented_example_is_valid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
