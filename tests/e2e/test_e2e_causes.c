/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The first screen (issue 39): one cause counted once, its symptoms under
 * it, in text, JSON and HTML; bench all's one findings section; an idle
 * machine's verdict says what it could not judge; coverage in a line or
 * two by default, every check behind --details, and only what could have
 * applied (never "no --pid" on a capture; a group ok only for what it
 * judged); run and run --profile give the answer first.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report_fixture.h"
#include "run_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const fast[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "COLUMNS=80", NULL};

static size_t count(const char *text, const char *what)
{
    return count_of(text, what);
}

/* Fails unless text says each of yes and none of no (NULL-terminated lists). */
static void says(const char *what, const char *text, const char *const *yes, const char *const *no)
{
    for (; yes && *yes; yes++)
        if (!strstr(text, *yes))
            fail_msg("%s does not say '%s':\n%s", what, *yes, text);
    for (; no && *no; no++)
        if (strstr(text, *no))
            fail_msg("%s says '%s':\n%s", what, *no, text);
}

/* The first `lines` lines of text, copied. */
static char *first_lines(const char *text, size_t lines)
{
    const char *p = text;
    for (size_t i = 0; i < lines && *p; i++) {
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    return strndup(text, (size_t)(p - text));
}

static json_t *only_cause(const tool_result *r)
{
    json_t *c = json_object_get(r->json, "causes");
    if (json_array_size(c) != 1)
        fail_msg("one cause expected, the JSON lists %zu: %s", json_array_size(c), r->out);
    return json_array_get(c, 0);
}

/* The job's waiting on storage and the 8 GPUs it leaves idle: one cause. */
static void one_cause_with_its_symptoms(void **state)
{
    (void)state;
    const char *argv[] = {"check", "--json", "--sim", example("h100x8-input-io-wait.json"), "--pid", "41000", NULL};
    tool_result r = run_tool(argv, fast);
    assert_int_equal(r.exit_code, 1); /* the worst cause's code, as before */
    json_t *c = only_cause(&r), *findings = json_object_get(r.json, "findings");
    assert_int_equal(json_array_size(findings), 9); /* every per-GPU finding stays */
    assert_string_equal(json_string_value(json_object_get(c, "id")), "input.io_wait");
    assert_string_equal(json_string_value(json_object_get(c, "severity")), "warning");
    assert_int_equal(json_array_size(json_object_get(c, "findings")), 1);
    json_t *sym = json_object_get(c, "symptoms");
    assert_int_equal(json_array_size(sym), 8);
    size_t i;
    json_t *k;
    json_array_foreach(sym, i, k)
    {
        json_t *x = json_array_get(findings, (size_t)json_integer_value(k));
        assert_string_equal(json_string_value(json_object_get(x, "id")), "gpu.underutilized");
    }
    assert_int_equal(json_array_size(json_object_get(c, "gpus")), 8);
    assert_true(json_is_true(json_object_get(c, "host")));
    json_t *sum = json_object_get(json_object_get(r.json, "summary"), "causes");
    assert_int_equal(json_integer_value(json_object_get(sum, "warning")), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r.json, "summary"), "warning")), 9);
    /* The symptom's own advice (how to find its cause) is not the cause's. */
    char symptom_fix[48];
    snprintf(symptom_fix, sizeof symptom_fix, "%.40s",
             json_string_value(json_object_get(json_array_get(findings, 1), "fix")));
    tool_result_free(&r);

    const char *text_argv[] = {"check", "--sim", example("h100x8-input-io-wait.json"), "--pid", "41000", NULL};
    r = run_tool(text_argv, fast);
    assert_int_equal(r.exit_code, 1);
    says("io-wait", r.out,
         (const char *[]){"Verdict: WARNING - 1 cause, on 8 GPUs\n", "1. warning  host  input.io_wait",
                          "explains gpu.underutilized on GPUs 0-7", "(symptom of cause 1)", NULL},
         (const char *[]){"0 critical, 9 warnings", symptom_fix, NULL});
    tool_result_free(&r);
}

/* One chassis power brake on 8 GPUs: one cause in text and one block in HTML. */
static void one_brake_one_block(void **state)
{
    (void)state;
    need_realdata();
    const char *cap = realdata("smi-text/h100x8-hw-slowdown-power-brake-gpud.txt");
    char *dir = temp_dir();
    char html[4200];
    snprintf(html, sizeof html, "%s/r.html", dir);
    tool_result r = run_tool((const char *[]){"check", "--from", cap, "--report", html, NULL}, fast);
    assert_int_equal(r.exit_code, 1);
    assert_non_null(strstr(r.out, "Verdict: WARNING - 1 cause, on 8 GPUs\n"));
    assert_int_equal(count(r.out, "All 8 GPUs braked at once"), 1); /* the fix, once */
    tool_result_free(&r);
    size_t len;
    char *page = slurp(html, &len);
    assert_non_null(page);
    assert_int_equal(count(page, "data-id=\"power.brake\""), 1);
    assert_non_null(strstr(page, "1 cause, on 8 GPUs"));
    free(page);
    remove_tree(dir);
    free(dir);
    r = run_tool((const char *[]){"check", "--json", "--from", cap, NULL}, fast);
    json_t *c = only_cause(&r);
    assert_int_equal(json_array_size(json_object_get(c, "findings")), 8);
    tool_result_free(&r);
}

/* bench all on one slow switch uplink: the answer first, one cause, the
 * fix once, one findings section after every table. */
static void bench_all_one_findings_section(void **state)
{
    (void)state;
    const char *sw = example("pcie-a100x4-slow-switch.json");
    tool_result r = run_tool((const char *[]){"bench", "all", "--sim", sw, NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    char *screen = first_lines(r.out, 24);
    /* The switch, and the A100 PCIe datasheet the scenario's GEMM figures beat
     * (bench.above_datasheet: a measurement or identification error). */
    assert_non_null(strstr(screen, "Verdict: CRITICAL - 2 causes (1 critical, 1 warning), on GPUs 0-3"));
    assert_non_null(strstr(screen, "1. critical GPUs 0-3  p2p.slow_pair"));
    assert_non_null(strstr(screen, "explains bench.nccl_low on the host; pcie.bandwidth_low on GPUs 2-3"));
    assert_non_null(strstr(screen, "fix "));
    free(screen);
    assert_null(strstr(r.out, "No finding.")); /* not under a table above a critical */
    assert_int_equal(count(r.out, "The pairs share one slow hop"), 1);
    assert_int_equal(count(r.out, "Healthy Gen4 x16 links reach about"), 0); /* a symptom's fix */
    assert_int_equal(count(r.out, "\nFindings"), 1);
    const char *findings = strstr(r.out, "\nFindings"), *nccl = strstr(r.out, "NCCL all-reduce and all-gather");
    assert_true(findings && nccl && nccl < findings); /* after every table */
    tool_result_free(&r);
    r = run_tool((const char *[]){"bench", "all", "--json", "--exit-findings", "--sim", sw, NULL}, fast);
    assert_int_equal(r.exit_code, 2);
    json_t *causes = json_object_get(r.json, "causes"), *c = json_array_get(causes, 0);
    assert_int_equal(json_array_size(causes), 2);
    assert_string_equal(json_string_value(json_object_get(c, "id")), "p2p.slow_pair");
    assert_int_equal(json_array_size(json_object_get(c, "symptoms")), 3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(causes, 1), "id")), "bench.above_datasheet");
    assert_int_equal(json_array_size(json_object_get(r.json, "findings")), 8);
    tool_result_free(&r);
}

/* An idle machine is OK on what could be judged, and says what load shows. */
static void idle_verdict_says_what_load_would_show(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"check", "--sim", example("h100x8-idle.json"), NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "Verdict: OK on what could be judged; GPUs idle: PCIe links, clocks and\n"
                                  "    throttling need load ('bench pcie' loads them)\n"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--sim", example("h100x8-training.json"), NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "Verdict: OK - no problem found on 8 GPUs\n"));
    assert_null(strstr(r.out, "GPUs idle"));
    tool_result_free(&r);
}

/* Coverage in a line or two; every check with --details; a healthy check
 * fits one screen with its table. */
static void coverage_brief_and_details(void **state)
{
    (void)state;
    const char *sc = example("h100x8-training.json");
    tool_result r = run_tool((const char *[]){"check", "--sim", sc, NULL}, fast);
    const char *judged = strstr(r.out, "\n    Judged 12 of 14 groups");
    assert_non_null(judged);
    assert_non_null(strstr(judged, "not judged: job (no --pid)"));
    assert_null(strstr(r.out, "\nChecked"));
    assert_null(strstr(r.out, "\nNot checked"));
    if (count(r.out, "\n") > 24)
        fail_msg("a healthy check is %zu lines: %s", count(r.out, "\n"), r.out);
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--details", "--sim", sc, NULL}, fast);
    assert_non_null(strstr(r.out, "\nChecked\n"));
    assert_non_null(strstr(r.out, "\nNot checked\n"));
    assert_non_null(strstr(r.out, "    job             not judged (10 checks): no --pid"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--json", "--sim", sc, NULL}, fast);
    size_t i;
    json_t *g;
    bool stack = false;
    json_array_foreach(json_object_get(r.json, "checked"), i, g)
    {
        const char *name = json_string_value(json_object_get(g, "group"));
        assert_non_null(json_string_value(json_object_get(g, "state")));
        if (strcmp(name, "input") == 0)
            assert_string_equal(json_string_value(json_object_get(g, "state")), "not judged");
        if (strcmp(name, "capture") == 0)
            assert_string_equal(json_string_value(json_object_get(g, "state")), "not applicable");
        stack |= strcmp(name, "stack") == 0 && json_integer_value(json_object_get(g, "checks_judged")) > 0;
    }
    assert_true(stack);
    tool_result_free(&r);
}

/* A capture: what could not have applied is not counted, and no group is
 * ok for what the files did not hold. */
static void captures_claim_only_what_they_judged(void **state)
{
    (void)state;
    need_realdata();
    tool_result r = run_tool(
        (const char *[]){"check", "--details", "--from", realdata("smi-csv/h100-load-dmon-utku.txt"), NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    /* No clock event reasons: throttling not judged, however quiet. */
    says("dmon", r.out,
         (const char *[]){"    thermal         ok on 2 of 3 checks", "    software stack  not applicable",
                          "    job             not applicable", NULL},
         (const char *[]){"no --pid", "    thermal         ok (", NULL});
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--details", "--from",
                                  realdata("logs/h100nvl-x2-clean-boot-rocky9-dmesg-supermicro.txt"), NULL},
                 fast);
    assert_int_equal(r.exit_code, 0);
    says("a kernel log", r.out, (const char *[]){"ECC, row remapping, retired pages: not in this capture", NULL},
         (const char *[]){"no --pid", "driver          ok", "ECC, row remapping, retired pages;", "software stack  ok",
                          NULL});
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--details", "--from", realdata("topo/h100-8gpu-nv18-stas00.txt"), NULL},
                 fast);
    assert_int_equal(r.exit_code, 3);
    says("a topology matrix", r.out, (const char *[]){"a matrix alone: 'gpudoctor topo' shows it", NULL},
         (const char *[]){"topology        not checked: no GPU was read", NULL});
    tool_result_free(&r);
    char *dir = temp_dir();
    char html[4200];
    snprintf(html, sizeof html, "%s/r.html", dir);
    r = run_tool((const char *[]){"check", "--sim", example("h100x8-training.json"), "--report", html, NULL}, fast);
    size_t len;
    char *page = slurp(html, &len);
    assert_non_null(page);
    assert_null(strstr(page, "<td>capture</td><td>ok"));
    assert_non_null(strstr(page, "<td>capture</td><td>not used: no --from capture"));
    free(page);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* run and run --profile: the answer (verdict, causes or why none) on the first screen. */
static void run_answers_on_the_first_screen(void **state)
{
    (void)state;
    need_component(access("/usr/bin/python3", X_OK) == 0, "/usr/bin/python3", GD_FIX_TEST_PACKAGES);
    const char *sc = example("h100x8-underutilized.json");
    tool_result r = run_tool((const char *[]){"run", "--profile", "--sim", sc, "--", "/usr/bin/python3", "-c",
                                              "import time; time.sleep(1)", NULL},
                             fast);
    char *screen = first_lines(r.out, 24);
    if (!strstr(screen, "Verdict:") || !strstr(screen, "Not profiled:") ||
        !(strstr(screen, "No cause") || strstr(screen, "Causes, ranked")))
        fail_msg("run --profile's first screen lacks the answer:\n%s", screen);
    /* The answer above the GPUs' table. */
    const char *verdict = strstr(r.out, "Verdict:"), *why = strstr(r.out, "Not profiled:"),
               *table = strstr(r.out, "GPU  Name");
    assert_true(verdict && why && table && verdict < why && why < table);
    free(screen);
    tool_result_free(&r);
}

int main(void)
{
    hermetic_environment();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_cause_with_its_symptoms),     cmocka_unit_test(one_brake_one_block),
        cmocka_unit_test(bench_all_one_findings_section),  cmocka_unit_test(idle_verdict_says_what_load_would_show),
        cmocka_unit_test(coverage_brief_and_details),      cmocka_unit_test(captures_claim_only_what_they_judged),
        cmocka_unit_test(run_answers_on_the_first_screen),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
