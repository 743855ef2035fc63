/* SPDX-License-Identifier: Apache-2.0 */
/* End to end: what reaches the reader. A scheduler's SIGTERM or a hangup
 * still yields the report of the window so far; a report that could not be
 * written is an error; option values are plain decimal numbers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const fast[] = {"GPUDOCTOR_SIM_TIMESCALE=10", "NO_COLOR=", NULL};

/* The exit code that a report's summary implies (contract section 3). */
static int exit_code_of(json_t *report)
{
    json_t *sum = json_object_get(report, "summary");
    if (json_integer_value(json_object_get(sum, "critical")) > 0)
        return 2;
    return json_integer_value(json_object_get(sum, "warning")) > 0 ? 1 : 0;
}

/* A 300-scenario-second window (30 s at timescale 10) ended by sig as soon
 * as gpudoctor handles it: the report comes, with the report's exit code,
 * and holds fewer samples than the whole window's 3001. The sample count,
 * not the wall clock, says it ended early: a busy machine may take seconds
 * to start gpudoctor or to deliver the signal. */
static void stopped_by(int sig)
{
    const char *const argv[] = {"check", "--json", "--duration", "300", "--sim", example("h100x8-training.json"), NULL};
    tool_proc p = run_tool_start(argv, fast, NULL);
    for (int i = 0; i < 60000 && !tool_catches(p.pid, sig); i++)
        usleep(1000);
    usleep(100 * 1000); /* a few samples */
    assert_int_equal(kill(p.pid, sig), 0);
    tool_result r = run_tool_wait(&p);
    if (!r.json)
        fail_msg("signal %d: no JSON report (exit %d); stderr: %s", sig, r.exit_code, r.err);
    json_int_t samples = json_integer_value(json_object_get(json_object_get(r.json, "window"), "samples"));
    assert_in_range(samples, 1, 3000);
    assert_int_equal(r.exit_code, exit_code_of(r.json));
    tool_result_free(&r);
}

static void sigterm_ends_the_window_with_a_report(void **state)
{
    (void)state;
    stopped_by(SIGTERM);
}

static void sighup_ends_the_window_with_a_report(void **state)
{
    (void)state;
    stopped_by(SIGHUP);
}

/* Every command that writes a report exits 3 with a message when the report
 * cannot be written. */
static void a_report_that_cannot_be_written_exits_3(void **state)
{
    (void)state;
    if (access("/dev/full", W_OK) != 0)
        skip();
    const char *const *cases[] = {
        (const char *[]){"check", "--duration", "0", "--sim", example("h100x8-training.json"), NULL},
        (const char *[]){"check", "--json", "--duration", "0", "--sim", example("h100x8-training.json"), NULL},
        (const char *[]){"info", "--sim", example("h100x8-training.json"), NULL},
        (const char *[]){"info", "--json", "--sim", example("h100x8-training.json"), NULL},
        (const char *[]){"topo", "--sim", example("pcie-h100x8-switches.json"), NULL},
        (const char *[]){"vram", "--params", "7B", "--gpu-memory", "80G", NULL},
        (const char *[]){"check", "--help", NULL},
    };
    static const char *const sinks[] = {"/dev/full", ""}; /* "": a closed stdout */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] * 2; i++) {
        const char *const *argv = cases[i / 2], *sink = sinks[i % 2];
        tool_proc p = run_tool_start(argv, fast, sink);
        tool_result r = run_tool_wait(&p);
        if (r.exit_code != 3 || !strstr(r.err, "cannot write"))
            fail_msg("%s %s into %s: exit %d, stderr: %s", argv[0], argv[1], *sink ? sink : "a closed stdout",
                     r.exit_code, r.err);
        tool_result_free(&r);
    }
    /* The same commands into a file succeed. */
    char *dir = temp_dir();
    char path[1100];
    snprintf(path, sizeof path, "%s/out", dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tool_proc p = run_tool_start(cases[i], fast, path);
        tool_result r = run_tool_wait(&p);
        if (r.exit_code == 3)
            fail_msg("%s %s into a file: exit 3, stderr: %s", cases[i][0], cases[i][1], r.err);
        tool_result_free(&r);
    }
    remove_tree(dir);
    free(dir);
}

/* strtod's hex and exponent forms are not numbers a user types: "0x10" is
 * not 16 seconds, "1e3" not pid 1000. */
static void options_take_decimal_numbers_only(void **state)
{
    (void)state;
    const char *scenario = example("h100x8-training.json");
    static const char *const bad[][2] = {
        {"--duration", "0x10"}, {"--duration", "1e3"},   {"--duration", "inf"}, {"--duration", "2 s"},
        {"--pid", "1e3"},       {"--pid", "0x10"},       {"--pid", "12.0"},     {"--interval", "0x64"},
        {"--interval", "1e2"},  {"--interval", "100us"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *const argv[] = {"check", "--json", bad[i][0], bad[i][1], "--sim", scenario, NULL};
        tool_result r = run_tool(argv, fast);
        if (r.exit_code != 3 || !strstr(r.err, bad[i][0]) || !strstr(r.err, bad[i][1]))
            fail_msg("%s %s: exit %d, stderr: %s", bad[i][0], bad[i][1], r.exit_code, r.err);
        tool_result_free(&r);
    }
    const char *const *bad_other[] = {
        (const char *[]){"vram", "--params", "7B", "--gpu-memory", "80G", "--layers", "0x20", NULL},
        (const char *[]){"bench", "pcie", "--reps", "1e1", "--sim", scenario, NULL},
    };
    for (size_t i = 0; i < sizeof bad_other / sizeof bad_other[0]; i++) {
        tool_result r = run_tool(bad_other[i], fast);
        if (r.exit_code != 3 || !strstr(r.err, "whole number"))
            fail_msg("%s: exit %d, stderr: %s", bad_other[i][0], r.exit_code, r.err);
        tool_result_free(&r);
    }
    /* Plain decimal forms and units: the window the value says. */
    static const struct {
        const char *opt, *val;
        double duration_s, interval_s;
    } good[] = {
        {"--duration", "1", 1, 0.1},        {"--duration", "0.5", 0.5, 0.1},  {"--duration", "300ms", 0.3, 0.1},
        {"--duration", "0.005m", 0.3, 0.1}, {"--interval", "250", 0.5, 0.25}, {"--interval", "0.5s", 0.5, 0.5},
        {"--interval", "200ms", 0.5, 0.2},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        const char *const argv[] = {"check", "--json", "--duration", "0.5",    good[i].opt, good[i].val,
                                    "--pid", "4242",   "--sim",      scenario, NULL};
        tool_result r = run_tool(argv, fast);
        if (!r.json)
            fail_msg("%s %s: no report; stderr: %s", good[i].opt, good[i].val, r.err);
        json_t *w = json_object_get(r.json, "window");
        double d = json_number_value(json_object_get(w, "duration_s"));
        double iv = json_number_value(json_object_get(w, "interval_s"));
        if (d > good[i].duration_s + 0.1 || d < good[i].duration_s - good[i].interval_s - 0.1 ||
            iv < good[i].interval_s - 1e-9 || iv > good[i].interval_s + 1e-9)
            fail_msg("%s %s: window %g s at %g s", good[i].opt, good[i].val, d, iv);
        tool_result_free(&r);
    }
}

#define HOSTILE                                                                                                        \
    "\x1b]0;owned\x07\x1b[2J\xc2\x9b"                                                                                  \
    "2Jx\x7f\nVerdict: OK"

/* The first offending byte of text: a C0 control other than newline, DEL,
 * or a C1 control as UTF-8 (U+0080-U+009F); NULL when there is none. */
static const char *control_in(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if ((*p < 0x20 && *p != '\n') || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
            return (const char *)p;
    return NULL;
}

/* Names that anyone controls (a process's name, a scenario's GPU name,
 * driver version and host, the scenario's own file name) reach the text
 * reports with their control characters replaced: they cannot retitle or
 * clear the terminal, or forge a line. */
static void hostile_names_cannot_steer_the_terminal(void **state)
{
    (void)state;
    json_t *sc = json_load_file(example("h100x8-training.json"), 0, NULL);
    assert_non_null(sc);
    json_t *gpu0 = json_array_get(json_object_get(sc, "gpus"), 0);
    json_object_set_new(gpu0, "name", json_string("H100 " HOSTILE));
    json_t *proc0 = json_array_get(json_object_get(gpu0, "processes"), 0);
    assert_non_null(proc0);
    json_object_set_new(proc0, "name", json_string("python " HOSTILE));
    json_object_set_new(sc, "driver_version", json_string("550" HOSTILE));
    json_object_set_new(
        sc, "host", json_pack("{s:s,s:s,s:i}", "hostname", "node" HOSTILE, "kernel", "6.1" HOSTILE, "numa_nodes", 2));
    char *dir = temp_dir();
    char *text = json_dumps(sc, 0);
    char *path = write_temp_file(dir, "scenario\x1b[2J.json", text);
    free(text);
    json_decref(sc);
    const char *const *cases[] = {
        (const char *[]){"info", "--sim", path, NULL},
        (const char *[]){"check", "--duration", "0", "--sim", path, NULL},
        (const char *[]){"check", "--duration", "0.3", "--pid", "4242", "--sim", path, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tool_result r = run_tool(cases[i], fast);
        if (r.exit_code == 3)
            fail_msg("%s: exit 3: %s", cases[i][0], r.err);
        const char *bad = control_in(r.out);
        if (bad)
            fail_msg("%s: byte 0x%02x at offset %td of:\n%s", cases[i][0], (unsigned char)*bad, bad - r.out, r.out);
        if (control_in(r.err))
            fail_msg("%s: a control character on stderr", cases[i][0]);
        /* The printable rest stays readable. */
        assert_non_null(strstr(r.out, "?]0;owned??[2J??2Jx??Verdict: OK"));
        tool_result_free(&r);
    }
    /* JSON keeps the names as they are, escaped. */
    tool_result r = run_tool((const char *[]){"info", "--json", "--sim", path, NULL}, fast);
    assert_non_null(r.json);
    assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(r.json, "gpus"), 0), "name")),
                        "H100 " HOSTILE);
    tool_result_free(&r);
    /* A message that quotes the file's name is made safe too. */
    char missing[1200];
    snprintf(missing, sizeof missing, "%s/gone\x1b]0;x\x07.json", dir);
    r = run_tool((const char *[]){"info", "--sim", missing, NULL}, fast);
    assert_int_equal(r.exit_code, 3);
    assert_null(control_in(r.err));
    tool_result_free(&r);
    free(path);
    remove_tree(dir);
    free(dir);
}

/* check --json says when its window ran (ISO 8601 UTC): the scenario's 30 s
 * between its start and its end, on the day it ran; a capture without time
 * says null, never a made-up time. */
static void the_window_has_its_wall_clock(void **state)
{
    (void)state;
    time_t before = time(NULL);
    tool_result r =
        run_tool((const char *[]){"check", "--json", "--duration", "30", "--sim", example("demo.json"), NULL}, NULL);
    assert_non_null(r.json);
    json_t *w = json_object_get(r.json, "window");
    const char *a = json_string_value(json_object_get(w, "started_at")),
               *b = json_string_value(json_object_get(w, "ended_at"));
    assert_non_null(a);
    assert_non_null(b);
    struct tm ta = {0}, tb = {0};
    assert_non_null(strptime(a, "%Y-%m-%dT%H:%M:%S", &ta));
    assert_non_null(strptime(b, "%Y-%m-%dT%H:%M:%S", &tb));
    time_t sa = timegm(&ta), sb = timegm(&tb);
    assert_true(sb - sa >= 29 && sb - sa <= 31);
    assert_true(sa >= before - 5 && sa <= time(NULL) + 5);
    assert_int_equal(a[strlen(a) - 1], 'Z');
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sigterm_ends_the_window_with_a_report),
        cmocka_unit_test(sighup_ends_the_window_with_a_report),
        cmocka_unit_test(a_report_that_cannot_be_written_exits_3),
        cmocka_unit_test(options_take_decimal_numbers_only),
        cmocka_unit_test(hostile_names_cannot_steer_the_terminal),
        cmocka_unit_test(the_window_has_its_wall_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
