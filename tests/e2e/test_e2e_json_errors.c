/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: every command that takes --json (and watch's --format jsonl)
 * answers with one JSON error object on stdout when it cannot run: bad
 * arguments, unreadable input, no driver where it needs one
 * (docs/interface.md "When a command cannot run"). The commands come from
 * the parser's own tables (help --commands, help --options), so a command
 * added later is held to it too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A machine with NVIDIA GPUs on its PCI bus (a sysfs tree of eight) whose driver does not load. */
static const char *const no_driver[] = {"GPUDOCTOR_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1",
                                        "GPUDOCTOR_SYS_ROOT=" GD_EXAMPLES_DIR "/sysfs/hgx-h100x8",
                                        "GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", NULL};

/* r's stdout is one JSON object {"error", "exit_code", "command", ...}
 * matching its exit code, and stderr says the same. */
static void assert_error_object(const char *what, const tool_result *r, const char *command)
{
    if (r->exit_code == 0)
        fail_msg("%s: exit 0 (%s)", what, r->out);
    if (!json_is_object(r->json))
        fail_msg("%s: exit %d, stdout is no JSON object: '%.300s' (stderr '%.300s')", what, r->exit_code, r->out,
                 r->err);
    const char *error = json_string_value(json_object_get(r->json, "error"));
    if (!error || !*error)
        fail_msg("%s: no \"error\" in '%.300s'", what, r->out);
    if (json_integer_value(json_object_get(r->json, "exit_code")) != r->exit_code)
        fail_msg("%s: exit_code %lld, the process exited %d", what,
                 (long long)json_integer_value(json_object_get(r->json, "exit_code")), r->exit_code);
    const char *got = json_string_value(json_object_get(r->json, "command"));
    if (command && (!got || strcmp(got, command) != 0))
        fail_msg("%s: command is not '%s' in '%.300s'", what, command, r->out);
    if (!strstr(r->err, "gpudoctor"))
        fail_msg("%s: nothing on stderr", what);
}

/* The commands whose option table holds --json. */
static size_t json_commands(char names[][32], size_t cap)
{
    tool_result r = run_tool((const char *[]){"help", "--commands", NULL}, NULL);
    assert_int_equal(r.exit_code, 0);
    size_t n = 0;
    for (char *line = strtok(r.out, "\n"); line && n < cap; line = strtok(NULL, "\n")) {
        char name[32];
        snprintf(name, sizeof name, "%.31s", line);
        tool_result o = run_tool((const char *[]){"help", "--options", name, NULL}, NULL);
        if (o.exit_code == 0 && strstr(o.out, "--json\n"))
            memcpy(names[n++], name, sizeof name);
        tool_result_free(&o);
    }
    tool_result_free(&r);
    return n;
}

static void bad_arguments_are_a_json_error_in_every_command(void **state)
{
    (void)state;
    char names[32][32];
    size_t n = json_commands(names, 32);
    assert_true(n >= 8); /* check info vram topo bench trace run fleet */
    for (size_t i = 0; i < n; i++) {
        char what[96];
        snprintf(what, sizeof what, "%.31s --json --no-such-option", names[i]);
        tool_result r = run_tool((const char *[]){names[i], "--json", "--no-such-option", NULL}, no_driver);
        assert_error_object(what, &r, names[i]);
        assert_int_equal(r.exit_code, 3);
        tool_result_free(&r);
    }
    tool_result r = run_tool((const char *[]){"watch", "--format", "jsonl", "--no-such-option", NULL}, no_driver);
    assert_error_object("watch --format jsonl --no-such-option", &r, "watch");
    assert_int_equal(strcspn(r.out, "\n") + 1, strlen(r.out)); /* JSON Lines: one line */
    tool_result_free(&r);
}

static void bad_input_is_a_json_error(void **state)
{
    (void)state;
    const char *const runs[][8] = {
        {"trace", "/nonexistent/trace.json", "--json", NULL},
        {"fleet", "/nonexistent/node.json", "--json", NULL},
        {"vram", "--json", NULL},
        {"vram", "--params", "7B", "--batch", "x", "--json", NULL},
        {"check", "--json", "--duration", "x", NULL},
        {"check", "--json", "--sim", "/nonexistent/scenario.json", NULL},
        {"info", "--json", "--from", "/nonexistent/capture.xml", NULL},
        {"bench", "gemm", "--size", "8", "--json", NULL},
        {"bench", "nothing", "--json", NULL},
        {"run", "--json", "--duration", "x", "--", "true", NULL},
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        char what[160] = "";
        for (size_t i = 0; runs[k][i]; i++)
            snprintf(what + strlen(what), sizeof what - strlen(what), "%s ", runs[k][i]);
        tool_result r = run_tool((const char *const *)runs[k], no_driver);
        assert_error_object(what, &r, runs[k][0]);
        assert_int_equal(r.exit_code, 3);
        tool_result_free(&r);
    }
}

static void no_driver_is_a_json_error_where_one_is_needed(void **state)
{
    (void)state;
    /* bench cannot run at all: the error object, and the reason after the colon. */
    const char *const benches[] = {"pcie", "gemm", "membw", "stress", "all"};
    for (size_t i = 0; i < 5; i++) {
        tool_result r = run_tool((const char *[]){"bench", benches[i], "--json", NULL}, no_driver);
        assert_error_object(benches[i], &r, "bench");
        assert_int_equal(r.exit_code, 3);
        const char *error = json_string_value(json_object_get(r.json, "error"));
        if (!strstr(error, "no NVIDIA driver: ") || !strstr(error, "libnvidia-ml"))
            fail_msg("bench %s: the reason is missing: '%s'", benches[i], error);
        tool_result_free(&r);
        /* The text says it too, with something after the colon. */
        r = run_tool((const char *[]){"bench", benches[i], NULL}, no_driver);
        assert_int_equal(r.exit_code, 3);
        assert_non_null(strstr(r.err, "cannot benchmark: no NVIDIA driver: cannot load"));
        assert_null(r.json);
        tool_result_free(&r);
    }
    /* info and topo show what they read and exit 3: their report carries the error. */
    const char *const snaps[] = {"info", "topo"};
    for (size_t i = 0; i < 2; i++) {
        tool_result r = run_tool((const char *[]){snaps[i], "--json", NULL}, no_driver);
        assert_error_object(snaps[i], &r, NULL);
        assert_int_equal(r.exit_code, 3);
        assert_non_null(strstr(json_string_value(json_object_get(r.json, "error")), "no NVIDIA driver"));
        tool_result_free(&r);
    }
    /* check judges a machine without a driver: a report, not an error. */
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "0.2", NULL}, no_driver);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(json_object_get(r.json, "findings"));
    assert_null(json_object_get(r.json, "error"));
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_arguments_are_a_json_error_in_every_command),
        cmocka_unit_test(bad_input_is_a_json_error),
        cmocka_unit_test(no_driver_is_a_json_error_where_one_is_needed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
