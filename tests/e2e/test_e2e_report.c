/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: --report FILE.html of check, run and trace. The page is
 * written whole (no temporary file left), says where on stderr, holds what
 * docs/report.md lists, fetches nothing, stays a few hundred kB for 8 GPUs
 * over 10 minutes, keeps outside names as text, and an unwritable path is
 * exit 3 with a message.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report_fixture.h"
#include "run_tool.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const env[] = {"NO_COLOR=", "GPUDOCTOR_SIM_TIMESCALE=", NULL};

/* Files in dir: a page written in place of a temporary one leaves one. */
static size_t files_in(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static void demo_page_has_every_part(void **state)
{
    (void)state;
    char *dir = temp_dir(), page[1200];
    snprintf(page, sizeof page, "%s/demo.html", dir);
    const char *argv[] = {"check", "--sim", example("demo.json"), "--duration", "10", "--report", page, NULL};
    tool_result r = run_tool(argv, env);
    assert_int_equal(r.exit_code, 2); /* the check's own code: the page does not change it */
    assert_non_null(strstr(r.out, "Verdict: CRITICAL")); /* the text report still on stdout */
    assert_non_null(strstr(r.err, "report written to"));
    assert_non_null(strstr(r.err, page));
    assert_int_equal(files_in(dir), 1);
    size_t len;
    char *html = slurp(page, &len);
    assert_non_null(html);
    assert_self_contained(html);
    assert_true(len < 400 * 1024);
    assert_non_null(strstr(html, "Verdict: CRITICAL"));
    assert_non_null(strstr(html, "SIMULATION"));
    assert_non_null(strstr(html, "data-id=\"power.limit_lowered\""));
    assert_non_null(strstr(html, "data-id=\"thermal.hot\""));
    assert_int_equal(count_of(html, "<section class=\"gpu\""), 8);
    assert_int_equal(count_of(html, "<svg class=\"plot\""), 8 * 6);
    static const char *const metrics[] = {"temp_c",       "sm_clock_mhz", "power_w",
                                          "util_gpu_pct", "mem_used_mib", "pcie_kbps"};
    for (size_t m = 0; m < 6; m++) {
        char attr[64];
        snprintf(attr, sizeof attr, "data-metric=\"%s\"", metrics[m]);
        assert_true(count_of(html, attr) >= 8);
    }
    assert_non_null(strstr(html, "slowdown 89 C"));
    /* Memory in MiB, as NVML and the text report it (docs/interface.md's rule). */
    assert_non_null(strstr(html, "total 81559 MiB"));
    assert_null(strstr(html, "GiB"));
    assert_non_null(strstr(html, "limit 500 W")); /* GPU 2's lowered limit */
    assert_non_null(strstr(html, "<rect class=\"span")); /* its sw_power_cap shaded */
    assert_non_null(strstr(html, "sw_power_cap"));
    assert_non_null(strstr(html, "id=\"checked\""));
    assert_non_null(strstr(html, "id=\"not-checked\""));
    free(html);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

static void eight_gpus_ten_minutes_stay_small(void **state)
{
    (void)state;
    char *dir = temp_dir(), page[1200];
    scenario_opts so = {.gpus = 8, .points = 601, .noisy = true};
    char *scen = write_scenario(dir, "noisy.json", &so);
    snprintf(page, sizeof page, "%s/big.html", dir);
    const char *argv[] = {"check", "--sim", scen, "--duration", "600", "--interval", "100", "--report", page, NULL};
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    tool_result r = run_tool(argv, env);
    clock_gettime(CLOCK_MONOTONIC, &b);
    assert_true(r.exit_code >= 0 && r.exit_code <= 2);
    size_t len;
    char *html = slurp(page, &len);
    assert_non_null(html);
    print_message("8 GPUs x 600 s at 100 ms: %zu bytes, %.2f s for the whole run\n", len,
                  (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
    assert_true(len < 600 * 1024); /* a few hundred kB */
    assert_non_null(strstr(html, "data-n=\"6001\"")); /* every sample counted, fewer drawn */
    assert_int_equal(count_of(html, "<svg class=\"plot\""), 8 * 6);
    assert_self_contained(html);
    free(html);
    free(scen);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

static void hostile_names_stay_text(void **state)
{
    (void)state;
    char *dir = temp_dir(), page[1200];
    scenario_opts so = {.gpus = 2,
                        .points = 20,
                        .process_name = "<script>alert(1)</script>",
                        .gpu_name = "H100 <img src=x onerror=alert(2)> \"quoted\""};
    char *scen = write_scenario(dir, "<odd> & name.json", &so);
    snprintf(page, sizeof page, "%s/hostile.html", dir);
    const char *argv[] = {"check", "--sim", scen, "--duration", "10", "--interval", "1000", "--report", page, NULL};
    tool_result r = run_tool(argv, env);
    assert_true(r.exit_code >= 0 && r.exit_code <= 2);
    char *html = slurp(page, NULL);
    assert_non_null(html);
    assert_self_contained(html);
    assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_non_null(strstr(html, "H100 &lt;img src=x onerror=alert(2)&gt; &quot;quoted&quot;"));
    assert_non_null(strstr(html, "&lt;odd&gt; &amp; name.json")); /* the scenario's file name */
    free(html);
    free(scen);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

static void snapshot_page_says_no_curves(void **state)
{
    (void)state;
    char *dir = temp_dir(), page[1200];
    snprintf(page, sizeof page, "%s/snap.html", dir);
    const char *argv[] = {"check", "--sim", example("demo.json"), "--duration", "0", "--report", page, NULL};
    tool_result r = run_tool(argv, env);
    assert_true(r.exit_code >= 0 && r.exit_code <= 2);
    char *html = slurp(page, NULL);
    assert_non_null(html);
    assert_non_null(strstr(html, "One snapshot"));
    assert_int_equal(count_of(html, "<svg"), 0);
    assert_non_null(strstr(html, "id=\"gpus\""));
    free(html);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

static void unwritable_path_is_exit_3(void **state)
{
    (void)state;
    char *dir = temp_dir(), page[1200];
    snprintf(page, sizeof page, "%s/no/such/dir/r.html", dir);
    const char *check[] = {"check", "--sim", example("demo.json"), "--duration", "1", "--report", page, NULL};
    tool_result r = run_tool(check, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "cannot write the report"));
    assert_non_null(strstr(r.err, "No such file or directory"));
    assert_string_equal(r.out, ""); /* refused before the window */
    tool_result_free(&r);
    const char *isdir[] = {"check", "--sim", example("demo.json"), "--duration", "1", "--report", dir, NULL};
    r = run_tool(isdir, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "is a directory"));
    tool_result_free(&r);
    const char *trace[] = {"trace", example("demo.json"), "--report", page, NULL};
    r = run_tool(trace, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "cannot write the report"));
    tool_result_free(&r);
    const char *run[] = {"run", "--report", page, "--", "true", NULL};
    r = run_tool(run, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "cannot write the report"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

#define STEP(n, ts)                                                                                                    \
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#" #n "\",\"ts\":" #ts ",\"dur\":100}"
#define LAUNCH(ts, corr)                                                                                               \
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":" #ts                                 \
    ",\"dur\":5,\"args\":{\"correlation\":" #corr "}}"
#define KERNEL(name, ts, dur, corr)                                                                                    \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"ts\":" #ts ",\"dur\":" #dur                              \
    ",\"args\":{\"stream\":7,\"correlation\":" #corr "}}"

static void trace_page_has_steps_kernels_and_ranks(void **state)
{
    (void)state;
    char *dir = temp_dir(), page[1200];
    /* Two ranks; a kernel name that is markup. */
    static const char *const ranks[] = {
        "{\"distributedInfo\":{\"rank\":0},\"traceEvents\":[" STEP(1, 0) "," STEP(2, 100) "," STEP(3, 200) "," LAUNCH(
            0, 1) "," KERNEL("<b>gemm</b>", 10, 80, 1) "," LAUNCH(100, 2) "," KERNEL("<b>gemm</b>", 110, 80, 2) "]}",
        "{\"distributedInfo\":{\"rank\":1},\"traceEvents\":[" STEP(1, 0) "," STEP(2, 100) "," STEP(3, 200) "," LAUNCH(
            0, 1) "," KERNEL("<b>gemm</b>", 10, 30, 1) "," LAUNCH(100, 2) "," KERNEL("<b>gemm</b>", 110, 30, 2) "]}",
    };
    free(write_temp_file(dir, "rank0.json", ranks[0]));
    free(write_temp_file(dir, "rank1.json", ranks[1]));
    snprintf(page, sizeof page, "%s/out/trace.html", dir);
    char out[1200];
    snprintf(out, sizeof out, "%s/out", dir);
    make_dirs(out);
    const char *argv[] = {"trace", dir, "--report", page, NULL};
    tool_result r = run_tool(argv, env);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.err, "report written to"));
    char *html = slurp(page, NULL);
    assert_non_null(html);
    assert_self_contained(html);
    assert_non_null(strstr(html, "id=\"rank-0\""));
    assert_non_null(strstr(html, "id=\"rank-1\""));
    assert_non_null(strstr(html, "GPU time by rank"));
    assert_non_null(strstr(html, "Steps of rank 0"));
    assert_non_null(strstr(html, "Top kernels"));
    assert_non_null(strstr(html, "&lt;b&gt;gemm&lt;/b&gt;"));
    assert_null(strstr(html, "<b>gemm"));
    /* Each step's compute, non-compute and idle, and the legend's swatches. */
    assert_true(count_of(html, "<rect class=\"bar c2\"") >= 2);
    assert_int_equal(files_in(out), 1);
    free(html);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

static void run_page_has_the_job_timeline(void **state)
{
    (void)state;
    char *dir = temp_dir(), page[1200];
    snprintf(page, sizeof page, "%s/run.html", dir);
    const char *argv[] = {
        "run",      "--sim", example("demo.json"), "--duration", "1.5", "--interval", "100",
        "--report", page,    "--kill-at-end",      "--",         "sh",  "-c",         "while :; do :; done",
        NULL};
    tool_result r = run_tool(argv, env);
    assert_int_equal(r.exit_code, 128 + 15); /* the command's own end: SIGTERM at the end of the watch */
    char *html = slurp(page, NULL);
    assert_non_null(html);
    assert_self_contained(html);
    assert_non_null(strstr(html, "id=\"job\""));
    assert_non_null(strstr(html, "data-metric=\"job_cpu_pct\""));
    assert_non_null(strstr(html, "data-metric=\"gpu_util_mean_pct\""));
    assert_int_equal(count_of(html, "<section class=\"gpu\""), 8);
    free(html);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* The page that argv (with --report page) writes; the caller frees. */
static char *page_by(const char *const *argv, const char *page)
{
    tool_result r = run_tool(argv, env);
    tool_result_free(&r);
    char *html = slurp(page, NULL);
    assert_non_null(html);
    assert_null(strstr(html, "unknown host"));
    return html;
}

/* The page is named after what is known of its machine: the host name,
 * else the scenario or the capture file, never "unknown host" (issue 39);
 * the flat PCIe series of a scenario gets round, distinct y ticks. */
static void page_is_named_after_what_is_known(void **state)
{
    (void)state;
    char *dir = temp_dir(), page[1200];
    snprintf(page, sizeof page, "%s/t.html", dir);
    char *html = page_by((const char *[]){"check", "--sim", example("h100x8-thermal-throttling.json"), "--duration",
                                          "10", "--report", page, NULL},
                         page);
    assert_non_null(strstr(html, "<title>gpudoctor: simulation of h100x8-thermal-throttling.json</title>"));
    assert_non_null(strstr(html, "<h1>gpudoctor report: simulation of h100x8-thermal-throttling.json</h1>"));
    assert_null(strstr(html, ".000000<"));
    free(html);
    /* A capture without a host name: its file names it. */
    char *csv = write_temp_file(dir, "node7.csv",
                                "driver_version, name, uuid, pci.bus_id, temperature.gpu\n"
                                "550.54.15, Tesla T4, GPU-a, 00000000:01:00.0, 40\n");
    html = page_by((const char *[]){"check", "--from", csv, "--report", page, NULL}, page);
    assert_non_null(strstr(html, "<title>gpudoctor: capture node7.csv</title>"));
    free(html);
    free(csv);
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(demo_page_has_every_part),      cmocka_unit_test(eight_gpus_ten_minutes_stay_small),
        cmocka_unit_test(hostile_names_stay_text),       cmocka_unit_test(snapshot_page_says_no_curves),
        cmocka_unit_test(unwritable_path_is_exit_3),     cmocka_unit_test(trace_page_has_steps_kernels_and_ranks),
        cmocka_unit_test(run_page_has_the_job_timeline), cmocka_unit_test(page_is_named_after_what_is_known),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
