/* SPDX-License-Identifier: Apache-2.0 */
/* End to end: every long-running command stops soon after SIGINT, SIGTERM
 * or SIGHUP and writes what it measured until then (bench all, pcie, gemm,
 * membw, p2p, nccl and stress, watch, export, check, run). Each runs
 * on the simulated machine with its clock paced (GPUDOCTOR_SIM_TIMESCALE),
 * so that it lasts well past the signal. "Soon": a second, and a second
 * more for a loaded machine's scheduling. */
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

#define SOON_S 2.0

static const char *const paced[] = {"GPUDOCTOR_SIM_TIMESCALE=1", "NO_COLOR=", NULL};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* gpudoctor argv under the paced clock, sent sig after_s seconds after it
 * handles it (or after_s seconds, when it does not catch it): its result,
 * failing unless it ended within SOON_S of the signal. */
static tool_result stopped(const char *const *argv, int sig, double after_s, bool caught)
{
    tool_proc p = run_tool_start(argv, paced, NULL);
    for (int i = 0; caught && i < 60000 && !tool_catches(p.pid, sig); i++)
        usleep(1000);
    usleep((useconds_t)(after_s * 1e6));
    double sent = now_s();
    assert_int_equal(kill(p.pid, sig), 0);
    tool_result r = run_tool_wait(&p);
    double took = now_s() - sent;
    if (took > SOON_S)
        fail_msg("%s %s: ended %.2f s after signal %d; stderr: %s", argv[0], argv[1], took, sig, r.err);
    return r;
}

/* A caught stop: the report of what ran, the command's own exit code. */
static void reported(const tool_result *r, const char *what)
{
    if (!r->json)
        fail_msg("%s: no JSON report (exit %d); stderr: %s", what, r->exit_code, r->err);
    assert_in_range(r->exit_code, 0, 2);
}

static void bench_all_stops_with_what_ran(void **state)
{
    (void)state;
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < 3; i++) {
        tool_result r = stopped((const char *[]){"bench", "all", "--json", "--sim", example("h100x8-idle.json"), NULL},
                                sigs[i], 1.0, true);
        reported(&r, "bench all");
        assert_non_null(json_object_get(r.json, "pcie")); /* the first benchmark's figures */
        if (!strstr(r.err, "bench all stopped"))
            fail_msg("bench all: no word of the stop: %s", r.err);
        tool_result_free(&r);
    }
}

static void bench_pcie_stops_with_its_figures(void **state)
{
    (void)state;
    tool_result r = stopped((const char *[]){"bench", "pcie", "--json", "--sim", example("h100x8-idle.json"), NULL},
                            SIGTERM, 1.0, true);
    reported(&r, "bench pcie");
    json_t *g0 = json_array_get(json_object_get(r.json, "gpus"), 0);
    assert_true(json_array_size(json_object_get(g0, "results")) > 0); /* GPU 0 was measured before the stop */
    if (!strstr(r.out, "the benchmark was stopped before it")) /* and a later GPU was not */
        fail_msg("bench pcie: every GPU measured: the stop came after the end? %s", r.err);
    tool_result_free(&r);
}

static void bench_gemm_stops_with_its_figures(void **state)
{
    (void)state;
    tool_result r = stopped(
        (const char *[]){"bench", "gemm", "--seconds", "2", "--json", "--sim", example("h100x8-idle.json"), NULL},
        SIGINT, 1.0, true);
    reported(&r, "bench gemm");
    json_t *g0 = json_array_get(json_object_get(r.json, "gpus"), 0);
    assert_true(json_number_value(json_object_get(json_object_get(g0, "gemm"), "single_tflops")) > 0);
    if (!strstr(r.out, "the benchmark was stopped before it"))
        fail_msg("bench gemm: every GPU measured: the stop came after the end? %s", r.err);
    tool_result_free(&r);
}

/* membw, p2p and nccl: the figures measured, the rest said not measured
 * (membw's later GPUs, p2p's later pairs) or left out (nccl's later sizes). */
static void bench_membw_p2p_nccl_stop_with_their_figures(void **state)
{
    (void)state;
    const char *sim = example("h100x8-idle.json");
    const char *const *argv[] = {
        (const char *[]){"bench", "membw", "--reps", "64", "--json", "--sim", sim, NULL},
        (const char *[]){"bench", "p2p", "--size", "65536", "--json", "--sim", sim, NULL},
        (const char *[]){"bench", "nccl", "--size", "4096", "--reps", "64", "--json", "--sim", sim, NULL},
    };
    const char *const what[] = {"membw", "p2p", "nccl"};
    for (size_t i = 0; i < 3; i++) {
        tool_result r = stopped(argv[i], SIGTERM, 0.5, true);
        reported(&r, what[i]);
        if (!strstr(r.err, "stopped (signal 15)"))
            fail_msg("bench %s: no word of the stop: %s", what[i], r.err);
        if (i < 2 && !strstr(r.out, "the benchmark was stopped before it"))
            fail_msg("bench %s: everything measured: the stop came after the end? %s", what[i], r.err);
        tool_result_free(&r);
    }
}

static void bench_stress_stops_with_its_window(void **state)
{
    (void)state;
    tool_result r = stopped(
        (const char *[]){"bench", "stress", "--seconds", "300", "--json", "--sim", example("h100x8-idle.json"), NULL},
        SIGHUP, 1.0, true);
    reported(&r, "bench stress");
    tool_result_free(&r);
}

static void watch_stops_with_its_lines(void **state)
{
    (void)state;
    tool_result r = stopped((const char *[]){"watch", "--sim", example("h100x8-training.json"), "--count", "600",
                                             "--format", "jsonl", NULL},
                            SIGINT, 1.5, true);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strchr(r.out, '\n')); /* a line a sample, at least one */
    tool_result_free(&r);
}

static void export_stops(void **state)
{
    (void)state;
    tool_result r =
        stopped((const char *[]){"export", "--listen", "127.0.0.1:0", "--sim", example("h100x8-training.json"), NULL},
                SIGTERM, 1.0, true);
    assert_int_equal(r.exit_code, 0);
    tool_result_free(&r);
}

static void check_with_a_duration_stops_with_its_report(void **state)
{
    (void)state;
    tool_result r = stopped(
        (const char *[]){"check", "--json", "--duration", "600", "--sim", example("h100x8-training.json"), NULL},
        SIGHUP, 1.5, true);
    reported(&r, "check");
    json_int_t samples = json_integer_value(json_object_get(json_object_get(r.json, "window"), "samples"));
    assert_in_range(samples, 1, 600);
    tool_result_free(&r);
}

static void run_stops_with_its_report(void **state)
{
    (void)state;
    tool_result r =
        stopped((const char *[]){"run", "--json", "--sim", example("h100x8-training.json"), "--", "sleep", "60", NULL},
                SIGTERM, 1.5, true);
    /* Its report, and the job's own exit code (the signal went on to it). */
    if (!r.json)
        fail_msg("run: no JSON report (exit %d); stderr: %s", r.exit_code, r.err);
    assert_int_equal(r.exit_code, 128 + SIGTERM);
    tool_result_free(&r);
}

int main(void)
{
    hermetic_environment();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bench_all_stops_with_what_ran),
        cmocka_unit_test(bench_pcie_stops_with_its_figures),
        cmocka_unit_test(bench_gemm_stops_with_its_figures),
        cmocka_unit_test(bench_membw_p2p_nccl_stop_with_their_figures),
        cmocka_unit_test(bench_stress_stops_with_its_window),
        cmocka_unit_test(watch_stops_with_its_lines),
        cmocka_unit_test(export_stops),
        cmocka_unit_test(check_with_a_duration_stops_with_its_report),
        cmocka_unit_test(run_stops_with_its_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
