/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpudoctor run with real processes of this machine while a simulated GPU
 * plays the matching scenario: a CPU-bound single-threaded command, a
 * sleeping one on a well-fed and a starved GPU, exit codes passed through.
 * (Disk wait, IO pressure and swap, which a test cannot make a real process
 * show at will, come from fixture /proc trees: test_e2e_verdicts.c.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const env[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "GPUDOCTOR_ROOT=", NULL};

/* The whole of a file written by the tool (the caller frees it). */
static char *read_page(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *page = calloc(1, 1 << 22);
    size_t len = fread(page, 1, (1 << 22) - 1, f);
    page[len] = 0;
    fclose(f);
    return page;
}

static size_t input_findings(json_t *report)
{
    return count_findings(report, "input.single_thread", -2) + count_findings(report, "input.starved", -2) +
           count_findings(report, "input.io_wait", -2);
}

static void busy_single_thread_on_a_starved_gpu_is_named(void **state)
{
    (void)state;
    tool_result r =
        run_tool((const char *[]){"run", "--json", "--duration", "1.5", "--kill-at-end", "--sim",
                                  example("h100x8-underutilized.json"), "--", "sh", "-c", "while :; do :; done", NULL},
                 env);
    assert_non_null(r.json);
    assert_int_equal(r.exit_code, 128 + 15); /* the command's own end: SIGTERM, as asked */
    assert_int_equal(count_findings(r.json, "input.single_thread", -2), 1);
    assert_int_equal(count_findings(r.json, "input.io_wait", -2), 0);
    assert_int_equal(count_findings(r.json, "input.starved", -2), 0); /* one core: single-threaded, not starved */
    json_t *f = json_array_get(json_object_get(r.json, "findings"), 0);
    json_t *ev = json_object_get(f, "evidence");
    assert_string_equal(json_string_value(json_object_get(ev, "thread_comm")), "sh");
    /* A whole core, or (on a loaded host) runnable in nearly every sample: it wants one. */
    assert_true(json_number_value(json_object_get(ev, "thread_core_share_mean")) >= 0.9 ||
                json_number_value(json_object_get(ev, "thread_runnable_pct")) >= 90);
    assert_non_null(strstr(json_string_value(json_object_get(f, "fix")), "num_workers"));
    tool_result_free(&r);
}

/* The answer first (issue 39): the causes ranked come right under the
 * verdict, before the GPU table and the findings, in the text and the HTML
 * page; a run without a cause adds nothing there. */
static void causes_come_right_under_the_verdict(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char html[1100];
    snprintf(html, sizeof html, "%s/run.html", dir);
    tool_result r =
        run_tool((const char *[]){"run", "--duration", "1.5", "--kill-at-end", "--report", html, "--sim",
                                  example("h100x8-underutilized.json"), "--", "sh", "-c", "while :; do :; done", NULL},
                 env);
    const char *verdict = strstr(r.out, "Verdict:"), *causes = strstr(r.out, "Causes, ranked"),
               *table = strstr(r.out, "GPU  Name");
    if (!verdict || !causes || !table || causes > table)
        fail_msg("the causes are not under the verdict: %s", r.out);
    size_t lines = 0;
    for (const char *p = verdict; p < causes; p++)
        lines += *p == '\n';
    if (lines > 5) /* the verdict, what was judged in a line or two (wrapped), a blank line */
        fail_msg("%zu lines between the verdict and the causes: %s", lines, r.out);
    assert_non_null(strstr(causes, "[input.single_thread]"));
    /* The cause and its fix said once: the findings below leave the fix out. */
    const char *fix = "One thread does the host-side work";
    const char *once = strstr(r.out, fix);
    assert_non_null(once);
    assert_null(strstr(once + 1, fix));
    tool_result_free(&r);
    char *page = read_page(html);
    const char *h_causes = strstr(page, "<h2 id=\"profile\">"), *h_findings = strstr(page, "<h2 id=\"findings\">");
    assert_non_null(h_causes);
    assert_non_null(h_findings);
    assert_true(h_causes < h_findings);
    free(page);
    /* A job that holds nothing back: no causes block. */
    r = run_tool((const char *[]){"run", "--sim", example("h100x8-training.json"), "--", "true", NULL}, env);
    assert_null(strstr(r.out, "Causes, ranked"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

static void sleeping_job_gives_no_input_finding(void **state)
{
    (void)state;
    const char *scenarios[] = {"h100x8-training.json", "h100x8-underutilized.json"};
    for (size_t i = 0; i < 2; i++) {
        tool_result r = run_tool((const char *[]){"run", "--json", "--duration", "1", "--kill-at-end", "--sim",
                                                  example(scenarios[i]), "--", "sleep", "30", NULL},
                                 env);
        assert_non_null(r.json);
        if (input_findings(r.json) != 0)
            fail_msg("%s: a sleeping job gave an input finding: %s", scenarios[i], r.out);
        tool_result_free(&r);
    }
}

/* run --record keeps the window; check --from replays it to the same findings. */
static void run_records_what_it_watched(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char rec[1024];
    snprintf(rec, sizeof rec, "%s/run.jsonl", dir);
    /* Ten scenario seconds, played 20x faster than wall time. */
    static const char *const paced[] = {"GPUDOCTOR_SIM_TIMESCALE=20", "NO_COLOR=", NULL};
    tool_result live = run_tool((const char *[]){"run", "--json", "--duration", "10", "--interval", "1000",
                                                 "--kill-at-end", "--record", rec, "--sim",
                                                 example("h100x8-underutilized.json"), "--", "sleep", "30", NULL},
                                paced);
    assert_non_null(live.json);
    tool_result replay = run_tool((const char *[]){"check", "--json", "--from", rec, NULL}, env);
    if (!replay.json)
        fail_msg("replay: exit %d: %s", replay.exit_code, replay.err);
    assert_int_equal(count_findings(replay.json, "gpu.underutilized", -2),
                     count_findings(live.json, "gpu.underutilized", -2));
    assert_true(count_findings(replay.json, "gpu.underutilized", -2) > 0);
    tool_result_free(&live);
    tool_result_free(&replay);
    remove_tree(dir);
    free(dir);
}

static void exit_code_is_the_commands_own(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"run", "--json", "--sim", example("h100x8-training.json"), "--", "sh",
                                              "-c", "sleep 0.3; exit 7", NULL},
                             env);
    assert_int_equal(r.exit_code, 7);
    assert_non_null(r.json); /* the job ended mid-window: reported with what was seen */
    tool_result_free(&r);
    r = run_tool((const char *[]){"run", "--json", "--exit-findings", "--sim", example("h100x8-training.json"), "--",
                                  "sh", "-c", "sleep 0.3; exit 7", NULL},
                 env);
    assert_int_equal(r.exit_code, 0); /* a healthy node: check's code */
    tool_result_free(&r);
    r = run_tool((const char *[]){"run", "--", "/nonexistent/command", NULL}, env);
    assert_int_equal(r.exit_code, 127);
    assert_non_null(strstr(r.err, "cannot run"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"run", "--json", NULL}, env);
    assert_int_equal(r.exit_code, 3);
    tool_result_free(&r);
}

static void stdout_is_the_commands(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"run", "--sim", example("h100x8-training.json"), "--", "echo", "hello from the job", NULL},
        env);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "hello from the job\n"));
    tool_result_free(&r);
}

/* The evidence of the job.no_gpu finding of a report, or NULL. */
static json_t *no_gpu_evidence(json_t *report)
{
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(report, "findings"), i, f)
    {
        if (strcmp(json_string_value(json_object_get(f, "id")), "job.no_gpu") == 0)
            return json_object_get(f, "evidence");
    }
    return NULL;
}

/* A job that never opened a GPU on a machine with eight idle ones: run says
 * so, with the cause it can see (here a CUDA_VISIBLE_DEVICES that hides them
 * all), and keeps the command's exit code. Beside GPUs whose processes may be
 * the job's (a scenario's stand for it), or a job too short to tell: quiet. */
static void a_job_that_used_no_gpu_is_said(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"run", "--json", "--sim", example("h100x8-idle.json"), "--", "env",
                                              "CUDA_VISIBLE_DEVICES=", "sh", "-c", "sleep 5.5", NULL},
                             env);
    assert_non_null(r.json);
    assert_int_equal(r.exit_code, 0);
    json_t *ev = no_gpu_evidence(r.json);
    if (!ev)
        fail_msg("no job.no_gpu: %s", r.out);
    assert_true(json_is_true(json_object_get(ev, "job_ended")));
    assert_string_equal(json_string_value(json_object_get(ev, "cuda_visible_devices")), "");
    char *causes = json_dumps(json_object_get(ev, "causes"), 0);
    assert_non_null(strstr(causes, "hides every GPU"));
    free(causes);
    tool_result_free(&r);
    /* The training scenario's GPUs list processes, which stand for the job. */
    r = run_tool(
        (const char *[]){"run", "--json", "--sim", example("h100x8-training.json"), "--", "sleep", "5.5", NULL}, env);
    assert_non_null(r.json);
    assert_null(no_gpu_evidence(r.json));
    tool_result_free(&r);
    /* A command that ends at once is not a training job. */
    r = run_tool((const char *[]){"run", "--json", "--sim", example("h100x8-idle.json"), "--", "true", NULL}, env);
    assert_non_null(r.json);
    assert_null(no_gpu_evidence(r.json));
    tool_result_free(&r);
}

int main(void)
{
    run_first_in_line(); /* CPU shares are judged: the machine may be busy */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(busy_single_thread_on_a_starved_gpu_is_named),
        cmocka_unit_test(causes_come_right_under_the_verdict),
        cmocka_unit_test(run_records_what_it_watched),
        cmocka_unit_test(sleeping_job_gives_no_input_finding),
        cmocka_unit_test(exit_code_is_the_commands_own),
        cmocka_unit_test(stdout_is_the_commands),
        cmocka_unit_test(a_job_that_used_no_gpu_is_said),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
