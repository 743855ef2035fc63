/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `bench gemm`, `bench membw`, `bench stress` and `bench all` on
 * the simulated machine, whose libcublasLt and libcuda take the time the
 * scenario's gemm_tflops and bandwidth_gbps imply: the figures measured
 * through them come back within 5 %, a slow GPU is found and only it, a
 * wrong result or a kernel that does not load is a failure, and the stress
 * window is judged by the thermal checks (a throttled GPU multiplying slower).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const fast[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", NULL};
/* bench stress runs in wall time: 100 scenario seconds per second. */
static const char *const paced[] = {"GPUDOCTOR_SIM_TIMESCALE=100", "NO_COLOR=", NULL};

static json_t *gpu_at(const tool_result *r, size_t i)
{
    return json_array_get(json_object_get(r->json, "gpus"), i);
}

static double field(json_t *gpu, const char *section, const char *key)
{
    json_t *v = json_object_get(json_object_get(gpu, section), key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void assert_near(const char *what, double got, double want)
{
    if (!(fabs(got - want) <= 0.05 * want))
        fail_msg("%s: %.2f, expected %.2f within 5%%", what, got, want);
}

static void gemm_reproduces_the_scenario(void **state)
{
    (void)state;
    tool_result r =
        run_tool((const char *[]){"bench", "gemm", "--json", "--sim", example("h100x8-idle.json"), NULL}, fast);
    assert_exact_findings("bench gemm, idle", &r, 0, (const char *[]){NULL});
    json_t *gpus = json_object_get(r.json, "gpus");
    assert_int_equal(json_array_size(gpus), 8);
    assert_string_equal(json_string_value(json_object_get(json_object_get(r.json, "gemm"), "dtype")), "bf16");
    for (size_t i = 0; i < 8; i++) {
        json_t *g = gpu_at(&r, i);
        assert_near("alone", field(g, "gemm", "single_tflops"), 720);
        assert_near("all at once", field(g, "gemm", "concurrent_tflops"), 720);
        assert_string_equal(json_string_value(json_object_get(json_object_get(g, "gemm"), "verified")), "ok");
        assert_near("datasheet", field(g, "datasheet", "tflops"), 989.4);
    }
    tool_result_free(&r);
    /* Another type takes its own figure. */
    r = run_tool((const char *[]){"bench", "gemm", "--dtype", "fp32", "--no-concurrent", "--json", "--sim",
                                  example("h100x8-idle.json"), NULL},
                 fast);
    assert_int_equal(r.exit_code, 0);
    assert_near("fp32", field(gpu_at(&r, 3), "gemm", "single_tflops"), 55);
    assert_true(isnan(field(gpu_at(&r, 3), "gemm", "concurrent_tflops")));
    tool_result_free(&r);
}

static void the_slow_gpu_and_only_it_is_found(void **state)
{
    (void)state;
    const char *sc = example("bench-h100x8-one-slow.json");
    tool_result r = run_tool((const char *[]){"bench", "gemm", "--json", "--sim", sc, NULL}, fast);
    assert_exact_findings("bench gemm, one slow", &r, 0, (const char *[]){"bench.gemm_low@5", NULL});
    json_t *f = json_array_get(json_object_get(r.json, "findings"), 0);
    assert_string_equal(json_string_value(json_object_get(f, "severity")), "critical");
    assert_near("slow GPU", field(gpu_at(&r, 5), "gemm", "single_tflops"), 504);
    tool_result_free(&r);
    /* The exit code of a health check on request. */
    r = run_tool((const char *[]){"bench", "gemm", "--exit-findings", "--seconds", "0.1", "--sim", sc, NULL}, fast);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.out, "bench.gemm_low"));
    assert_non_null(strstr(r.out, "GPU 5"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"bench", "membw", "--json", "--sim", sc, NULL}, fast);
    assert_exact_findings("bench membw, one slow", &r, 0, (const char *[]){"bench.membw_low@6", NULL});
    tool_result_free(&r);
}

static void membw_reproduces_the_scenario(void **state)
{
    (void)state;
    tool_result r =
        run_tool((const char *[]){"bench", "membw", "--json", "--sim", example("h100x8-idle.json"), NULL}, fast);
    assert_exact_findings("bench membw, idle", &r, 0, (const char *[]){NULL});
    for (size_t i = 0; i < 8; i++) {
        json_t *g = gpu_at(&r, i);
        assert_near("copy engine", field(g, "membw", "copy_gbps"), 2900);
        assert_near("kernel", field(g, "membw", "kernel_gbps"), 2900);
        assert_string_equal(json_string_value(json_object_get(json_object_get(g, "membw"), "verified")), "ok");
        assert_near("datasheet", field(g, "datasheet", "membw_gbps"), 3350);
    }
    tool_result_free(&r);
}

/* A scenario whose A100 80GB PCIe multiplies at 720 TFLOP/s (231 % of its
 * 312) and copies at 2900 GB/s (150 % of its 1935): never "none", a
 * warning that the figure is wrong; the membw table has the SKU's figure. */
static void above_the_datasheet_is_said(void **state)
{
    (void)state;
    const char *sc = example("a100x4-pcie-no-fan-no-memtemp.json");
    tool_result r = run_tool(
        (const char *[]){"bench", "gemm", "--no-concurrent", "--seconds", "0.1", "--json", "--sim", sc, NULL}, fast);
    assert_exact_findings("bench gemm, A100 PCIe at 231 %", &r, 0,
                          (const char *[]){"bench.above_datasheet@0", "bench.above_datasheet@1",
                                           "bench.above_datasheet@2", "bench.above_datasheet@3", NULL});
    tool_result_free(&r);
    r = run_tool((const char *[]){"bench", "membw", "--json", "--sim", sc, NULL}, fast);
    assert_near("datasheet", field(gpu_at(&r, 0), "datasheet", "membw_gbps"), 1935);
    json_t *f = json_array_get(json_object_get(r.json, "findings"), 0);
    assert_string_equal(json_string_value(json_object_get(f, "id")), "bench.above_datasheet");
    assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "memory bandwidth"));
    tool_result_free(&r);
}

static void wrong_results_and_a_kernel_that_does_not_load_fail(void **state)
{
    (void)state;
    const char *sc = example("bench-h100x4-faults.json");
    tool_result r = run_tool((const char *[]){"bench", "gemm", "--seconds", "0.1", "--json", "--sim", sc, NULL}, fast);
    assert_exact_findings("bench gemm, faults", &r, 0, (const char *[]){"bench.failed@1", NULL});
    json_t *g = gpu_at(&r, 1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(g, "gemm"), "verified")), "wrong");
    assert_non_null(strstr(json_string_value(json_object_get(json_object_get(g, "gemm"), "check")), "expected"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"bench", "membw", "--json", "--sim", sc, NULL}, fast);
    assert_exact_findings("bench membw, faults", &r, 0, (const char *[]){"bench.failed@2", NULL});
    g = gpu_at(&r, 2);
    assert_true(isnan(field(g, "membw", "kernel_gbps"))); /* never a figure */
    assert_non_null(
        strstr(json_string_value(json_object_get(json_object_get(g, "membw"), "error")), "CUDA_ERROR_INVALID_PTX"));
    tool_result_free(&r);
}

static void stress_window_is_judged_by_the_thermal_checks(void **state)
{
    (void)state;
    /* 5-second samples: 50 ms of wall time each at 100x, so that a busy
     * machine that deschedules a GPU's thread for a while still sees it
     * finish multiplies in most intervals. */
    tool_result r = run_tool((const char *[]){"bench", "stress", "--seconds", "300", "--interval", "5000", "--json",
                                              "--sim", example("bench-h100x8-stress-heats.json"), NULL},
                             paced);
    /* GPU 3 throttles from 90 s (SM 1710 of 1980 MHz, then 1500 from 120 s) and
     * multiplies that much slower: 720 x (90 + 30 x 1710/1980 + 180 x 1500/1980) / 300. */
    assert_exact_findings("bench stress, heats", &r, 0,
                          (const char *[]){"thermal.throttling@3", "bench.gemm_low@3", NULL});
    const double gpu3 = 720.0 * (90 + 30 * 1710.0 / 1980 + 180 * 1500.0 / 1980) / 300;
    for (size_t i = 0; i < 8; i++) {
        json_t *g = gpu_at(&r, i);
        assert_near("stress", field(g, "stress", "tflops"), i == 3 ? gpu3 : 720);
        json_t *samples = json_object_get(json_object_get(g, "stress"), "samples");
        assert_true(json_array_size(samples) >= 55);
        json_t *last = json_array_get(samples, json_array_size(samples) - 1);
        assert_true(json_is_number(json_object_get(last, "temp_c")));
        if (i == 3)
            assert_int_equal(json_integer_value(json_object_get(last, "temp_c")), 90);
        /* The curve: each interval's throughput (null where no multiply finished in it). */
        double v[400];
        size_t nv = 0, k;
        json_t *x;
        json_array_foreach(samples, k, x) if (json_is_number(json_object_get(x, "tflops")) && nv < 400) v[nv++] =
            json_number_value(json_object_get(x, "tflops"));
        assert_true(nv >= 0.5 * (double)json_array_size(samples));
        qsort(v, nv, sizeof v[0], cmp_double);
        assert_near("stress curve median", v[nv / 2], i == 3 ? 720.0 * 1500 / 1980 : 720);
    }
    tool_result_free(&r);
    /* The text report draws each GPU's curves; --report writes the window's HTML page with its plots. */
    char *dir = temp_dir(), page[512];
    snprintf(page, sizeof page, "%s/stress.html", dir);
    r = run_tool((const char *[]){"bench", "stress", "--seconds", "60", "--report", page, "--sim",
                                  example("bench-h100x8-stress-heats.json"), NULL},
                 paced);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "SM clock"));
    assert_non_null(strstr(r.out, "\u2588"));
    FILE *fp = fopen(page, "r");
    assert_non_null(fp);
    static char html[1 << 20];
    size_t n = fread(html, 1, sizeof html - 1, fp);
    html[n] = '\0';
    fclose(fp);
    assert_non_null(strstr(html, "<svg"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* Children that spin on the CPU until killed: a host as busy as a build. */
static size_t start_busy_loops(pid_t *pids, size_t n)
{
    size_t started = 0;
    for (size_t i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0) {
            volatile unsigned long x = 0;
            for (;;)
                x++;
        }
        if (p > 0)
            pids[started++] = p;
    }
    return started;
}

static void stop_busy_loops(const pid_t *pids, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        kill(pids[i], SIGKILL);
        waitpid(pids[i], NULL, 0);
    }
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Under --sim's fast clock the stress window plays in scenario time, its
 * progress shown as it goes, its figures exact: 300 scenario seconds take a
 * few seconds of CPU, not 300 of wall time. */
static void stress_plays_fast_and_shows_its_progress(void **state)
{
    (void)state;
    double t0 = wall_s();
    tool_result r = run_tool((const char *[]){"bench", "stress", "--seconds", "300", "--size", "16384", "--json",
                                              "--sim", example("bench-h100x8-stress-heats.json"), NULL},
                             fast);
    double took = wall_s() - t0;
    if (took > 150)
        fail_msg("300 scenario seconds took %.0f s of wall time", took);
    assert_exact_findings("bench stress, fast clock", &r, 0,
                          (const char *[]){"thermal.throttling@3", "bench.gemm_low@3", NULL});
    const double gpu3 = 720.0 * (90 + 30 * 1710.0 / 1980 + 180 * 1500.0 / 1980) / 300;
    for (size_t i = 0; i < 8; i++) {
        double got = field(gpu_at(&r, i), "stress", "tflops"), want = i == 3 ? gpu3 : 720;
        if (!(fabs(got - want) <= 0.005 * want))
            fail_msg("GPU %zu: %.2f TFLOP/s under stress, expected %.2f within 0.5%%", i, got, want);
        assert_int_equal(json_array_size(json_object_get(json_object_get(gpu_at(&r, i), "stress"), "samples")), 301);
    }
    /* Progress on stderr: each GPU's throughput, temperature and clock, within 80 columns. */
    assert_non_null(strstr(r.err, "stress 30 of 300 s"));
    assert_non_null(strstr(r.err, "stress 300 of 300 s"));
    assert_non_null(strstr(r.err, "GPU 3 545 TF 90 C 1500 MHz"));
    assert_non_null(strstr(r.err, "GPU 7 720 TF 68 C 1980 MHz"));
    for (const char *p = r.err; *p;) {
        size_t n = strcspn(p, "\n");
        if (n > 80)
            fail_msg("a progress line of %zu columns: %.*s", n, (int)n, p);
        p += n + (p[n] == '\n');
    }
    tool_result_free(&r);
}

/* The simulated GPUs' figures do not depend on how busy the host is: with
 * the CPUs taken by busy loops, a healthy GPU still multiplies at its
 * scenario's rate (a loaded host once made one "critical" bench.gemm_low). */
static void figures_hold_on_a_busy_host(void **state)
{
    (void)state;
    pid_t pids[4];
    size_t n = start_busy_loops(pids, 4);
    assert_int_equal(n, 4);
    tool_result r = run_tool((const char *[]){"bench", "stress", "--seconds", "60", "--size", "16384", "--json",
                                              "--sim", example("h100x8-idle.json"), NULL},
                             fast);
    tool_result g =
        run_tool((const char *[]){"bench", "gemm", "--json", "--sim", example("h100x8-idle.json"), NULL}, fast);
    stop_busy_loops(pids, n);
    assert_exact_findings("bench stress, busy host", &r, 0, (const char *[]){NULL});
    assert_exact_findings("bench gemm, busy host", &g, 0, (const char *[]){NULL});
    for (size_t i = 0; i < 8; i++) {
        double x = field(gpu_at(&r, i), "stress", "tflops"), y = field(gpu_at(&g, i), "gemm", "concurrent_tflops");
        if (!(fabs(x - 720) <= 0.005 * 720) || !(fabs(y - 720) <= 0.005 * 720))
            fail_msg("GPU %zu on a busy host: stress %.2f, gemm all at once %.2f TFLOP/s, expected 720", i, x, y);
    }
    tool_result_free(&r);
    tool_result_free(&g);
}

/* The line of out that starts with prefix, or fails. */
static void line_of(const char *out, const char *prefix, char *buf, size_t len)
{
    for (const char *p = out; *p;) {
        size_t n = strcspn(p, "\n");
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            snprintf(buf, len, "%.*s", (int)n, p);
            return;
        }
        p += n + (p[n] == '\n');
    }
    fail_msg("no line starts with '%s' in:\n%s", prefix, out);
}

/* Each column is explained under the table, and a GPU's row never reads
 * "ok" beside a critical finding on it: the results check says "correct",
 * the finding column names the finding's severity. */
static void gemm_columns_say_what_they_mean(void **state)
{
    (void)state;
    tool_result r =
        run_tool((const char *[]){"bench", "gemm", "--sim", example("bench-h100x8-one-slow.json"), NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    char row[256];
    line_of(r.out, "GPU name ", row, sizeof row);
    assert_non_null(strstr(row, "correct"));
    assert_non_null(strstr(row, "finding"));
    line_of(r.out, "5   ", row, sizeof row);
    if (!strstr(row, " yes critical") || strstr(row, " ok"))
        fail_msg("GPU 5's row: '%s'", row);
    line_of(r.out, "0   ", row, sizeof row);
    assert_non_null(strstr(row, " yes     none"));
    const char *legend[] = {"alone: ", "together: ", "datasheet: ", "of sheet: ", "correct: ", "finding: "};
    for (size_t i = 0; i < 6; i++)
        if (!strstr(r.out, legend[i]))
            fail_msg("no legend for '%s' in:\n%s", legend[i], r.out);
    tool_result_free(&r);
    r = run_tool((const char *[]){"bench", "membw", "--sim", example("bench-h100x4-faults.json"), NULL}, fast);
    line_of(r.out, "2   ", row, sizeof row);
    assert_non_null(strstr(row, "FAILED critical"));
    assert_non_null(strstr(r.out, "engine: "));
    tool_result_free(&r);
    /* In 'all', each table's finding column is its own benchmark's: GPU 2's
     * multiplies are fine though its memory kernel failed, and GPU 1's
     * memory is fine though its multiply is wrong. */
    r = run_tool((const char *[]){"bench", "all", "--reps", "1", "--seconds", "0.05", "--sim",
                                  example("bench-h100x4-faults.json"), NULL},
                 fast);
    const char *gemm = strstr(r.out, "GEMM throughput"), *membw = strstr(r.out, "Device memory bandwidth");
    assert_non_null(gemm);
    assert_non_null(membw);
    line_of(gemm, "2   ", row, sizeof row);
    assert_non_null(strstr(row, " yes     none"));
    line_of(membw, "1   ", row, sizeof row);
    assert_non_null(strstr(row, " yes     none"));
    line_of(membw, "2   ", row, sizeof row);
    assert_non_null(strstr(row, "FAILED critical"));
    tool_result_free(&r);
}

static void a_busy_gpu_is_refused_unless_forced(void **state)
{
    (void)state;
    const char *sc = example("h100x8-training.json");
    tool_result r = run_tool((const char *[]){"bench", "gemm", "--sim", sc, NULL}, fast);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "in use by process"));
    assert_non_null(strstr(r.err, "--force"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"bench", "gemm", "--force", "--seconds", "0.05", "--no-concurrent", "--json", "--sim",
                                  sc, NULL},
                 fast);
    assert_int_equal(r.exit_code, 0);
    assert_true(json_array_size(json_object_get(r.json, "gpus")) > 0);
    tool_result_free(&r);
}

static void all_runs_the_three_in_one_report(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"bench", "all", "--seconds", "0.1", "--json", "--sim", example("h100x8-idle.json"), NULL},
        fast);
    assert_exact_findings("bench all, idle", &r, 0, (const char *[]){NULL});
    assert_string_equal(json_string_value(json_object_get(r.json, "bench")), "all");
    assert_true(json_is_object(json_object_get(r.json, "pcie")));
    assert_true(json_is_object(json_object_get(r.json, "gemm")));
    assert_true(json_is_object(json_object_get(r.json, "membw")));
    assert_near("gemm in all", field(gpu_at(&r, 0), "gemm", "single_tflops"), 720);
    assert_near("membw in all", field(gpu_at(&r, 0), "membw", "copy_gbps"), 2900);
    tool_result_free(&r);
}

static void what_cannot_run_says_why(void **state)
{
    (void)state;
    /* No fp8 figure in the scenario: the simulated cuBLASLt has no algorithm. */
    tool_result r =
        run_tool((const char *[]){"bench", "gemm", "--dtype", "fp8", "--sim", example("h100x8-idle.json"), NULL}, fast);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "CUBLAS_STATUS_NOT_SUPPORTED"));
    tool_result_free(&r);
    const char *bad[][3] = {{"--dtype", "int4", "--dtype"},
                            {"--size", "8", "at least 16"},
                            {"--interval", "500", "--interval is for"},
                            {"--report", "x.html", "--report is for"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = run_tool(
            (const char *[]){"bench", "gemm", bad[i][0], bad[i][1], "--sim", example("h100x8-idle.json"), NULL}, fast);
        assert_int_equal(r.exit_code, 3);
        if (!strstr(r.err, bad[i][2]))
            fail_msg("%s %s: %s", bad[i][0], bad[i][1], r.err);
        tool_result_free(&r);
    }
    r = run_tool((const char *[]){"bench", "all", "--size", "64", "--sim", example("h100x8-idle.json"), NULL}, fast);
    assert_int_equal(r.exit_code, 3);
    tool_result_free(&r);
}

/* Columns of a UTF-8 line: code points (the curves' blocks are one column each). */
static size_t columns(const char *p, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)p[i] & 0xc0) != 0x80;
    return c;
}

static void text_fits_80_columns(void **state)
{
    (void)state;
    const char *runs[][8] = {
        {"bench", "gemm", "--seconds", "0.05", "--sim", "bench-h100x8-one-slow.json", NULL},
        {"bench", "membw", "--reps", "2", "--sim", "bench-h100x4-faults.json", NULL},
        {"bench", "gemm", "--seconds", "0.05", "--sim", "bench-h100x4-faults.json", NULL},
        {"bench", "stress", "--seconds", "100", "--sim", "bench-h100x8-stress-heats.json", NULL},
        {"bench", "pcie", "--reps", "1", "--sim", "pcie-a100x4-x8.json", NULL},
        {"bench", "all", "--reps", "1", "--sim", "bench-h100x8-one-slow.json", NULL},
    };
    /* Paced (wall time) and on the fast clock; 80 columns in a pipe, and COLUMNS where set. */
    const char *const envs[][4] = {{"GPUDOCTOR_SIM_TIMESCALE=100", "NO_COLOR=", NULL, NULL},
                                   {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", NULL, NULL},
                                   {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "COLUMNS=120", NULL}};
    const size_t widths[] = {80, 80, 120};
    for (size_t e = 0; e < 3; e++)
        for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
            if (e == 0 && k >= 4) /* pcie and all: paced copies take wall time, the text is the same */
                continue;
            const char *argv[8];
            for (size_t i = 0; i < 8; i++)
                argv[i] = runs[k][i] && i == 5 ? example(runs[k][i]) : runs[k][i];
            tool_result r = run_tool(argv, envs[e]);
            assert_true(r.exit_code == 0);
            const char *outs[] = {r.out, r.err}; /* stress's progress too */
            for (size_t o = 0; o < 2; o++)
                for (const char *p = outs[o]; *p;) {
                    size_t n = strcspn(p, "\n"), lead = strspn(p, " ");
                    bool one_word = memchr(p + lead, ' ', n - lead) == NULL;
                    if (columns(p, n) > widths[e] && !one_word)
                        fail_msg("bench %s at %zu: a line of %zu columns: %.*s", runs[k][1], widths[e], columns(p, n),
                                 (int)n, p);
                    p += n + (p[n] == '\n');
                }
            tool_result_free(&r);
        }
}

int main(void)
{
    run_first_in_line(); /* timed in wall seconds beside the rest of the suite */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemm_reproduces_the_scenario),
        cmocka_unit_test(the_slow_gpu_and_only_it_is_found),
        cmocka_unit_test(membw_reproduces_the_scenario),
        cmocka_unit_test(above_the_datasheet_is_said),
        cmocka_unit_test(wrong_results_and_a_kernel_that_does_not_load_fail),
        cmocka_unit_test(stress_window_is_judged_by_the_thermal_checks),
        cmocka_unit_test(stress_plays_fast_and_shows_its_progress),
        cmocka_unit_test(figures_hold_on_a_busy_host),
        cmocka_unit_test(gemm_columns_say_what_they_mean),
        cmocka_unit_test(a_busy_gpu_is_refused_unless_forced),
        cmocka_unit_test(all_runs_the_three_in_one_report),
        cmocka_unit_test(what_cannot_run_says_why),
        cmocka_unit_test(text_fits_80_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
