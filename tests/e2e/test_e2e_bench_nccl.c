/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `bench nccl` on the simulated machine, whose libnccl runs its
 * ring at 0.85 of the slowest edge the scenario gives (sim/nccl): on healthy
 * nodes the peak bus bandwidth comes near what the topology allows and no
 * finding fires; NCCL_P2P_DISABLE in the environment, or a switch uplink
 * trained down, gives bench.nccl_low naming the cause; a GPU that returns a
 * wrong element is bench.nccl_failed, never a figure; one GPU measures
 * nothing and says so (exit 3, as bench p2p); bench all includes NCCL with
 * two GPUs or more.
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
#include <unistd.h>

static const char *const fast[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", NULL};

static json_t *nccl_of(const tool_result *r)
{
    json_t *n = json_object_get(r->json, "nccl");
    if (!json_is_object(n))
        fail_msg("no nccl object; exit %d; stderr: %s", r->exit_code, r->err);
    return n;
}

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static double peak(json_t *n, const char *coll)
{
    return num(json_object_get(n, coll), "peak_busbw_gbps");
}

static json_t *finding(const tool_result *r, const char *id)
{
    json_t *fs = json_object_get(r->json, "findings"), *f;
    size_t i;
    json_array_foreach(fs, i, f) if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0) return f;
    return NULL;
}

/* A copy of an example with a change, in a temporary directory. */
static char *variant(const char *name, void (*change)(json_t *root), char **dir)
{
    json_error_t e;
    json_t *root = json_load_file(example(name), 0, &e);
    assert_non_null(root);
    change(root);
    char *text = json_dumps(root, JSON_INDENT(1));
    json_decref(root);
    *dir = temp_dir();
    char *path = write_temp_file(*dir, "scenario.json", text);
    free(text);
    return path;
}

static void healthy_nodes_come_near_their_topology(void **state)
{
    (void)state;
    const char *nodes[] = {"h100x8-idle.json", "rtx4090x8-no-p2p.json"};
    const int ranks[] = {8, 8};
    for (size_t k = 0; k < 2; k++) {
        tool_result r = run_tool((const char *[]){"bench", "nccl", "--json", "--sim", example(nodes[k]), NULL}, fast);
        assert_exact_findings(nodes[k], &r, 0, (const char *[]){NULL});
        assert_string_equal(json_string_value(json_object_get(r.json, "bench")), "nccl");
        json_t *n = nccl_of(&r);
        assert_int_equal(num(n, "ranks"), ranks[k]);
        assert_string_equal(json_string_value(json_object_get(n, "verified")), "ok");
        assert_true(json_is_null(json_object_get(n, "error")));
        assert_true(json_is_null(json_object_get(n, "skipped")));
        assert_true(num(n, "version") >= 22203);
        /* The default sweep, 8 MiB to 1 GiB, for both collectives. */
        json_t *pts = json_object_get(json_object_get(n, "all_reduce"), "points");
        assert_int_equal(json_array_size(pts), 8);
        assert_int_equal(num(json_array_get(pts, 0), "bytes"), 8 << 20);
        assert_int_equal(num(json_array_get(pts, 7), "bytes"), 1 << 30);
        assert_int_equal(json_array_size(json_object_get(json_object_get(n, "all_gather"), "points")), 8);
        /* busbw = algbw x 2(n-1)/n; the simulated ring is exact at every size. */
        for (size_t i = 0; i < 8; i++) {
            json_t *p = json_array_get(pts, i);
            double alg = num(p, "algbw_gbps"), bus = num(p, "busbw_gbps");
            assert_true(fabs(bus - alg * 2.0 * 7 / 8) <= 0.01 * bus);
            assert_true(fabs(bus - peak(n, "all_reduce")) <= 0.01 * bus);
            double us = num(p, "time_us");
            assert_true(fabs(num(p, "bytes") / (us * 1e-6) / 1e9 - alg) <= 0.01 * alg);
        }
        /* The same ring carries the all-gather at the same bus bandwidth. */
        assert_true(fabs(peak(n, "all_gather") - peak(n, "all_reduce")) <= 0.01 * peak(n, "all_reduce"));
        /* Near what the topology allows: the simulated ring reaches 0.85 of its
         * slowest edge, the expectation 0.8 of what the path model allows. */
        double of = num(n, "of_expected");
        json_t *x = json_object_get(n, "expected");
        if (!(of >= 0.85 && of <= 1.15))
            fail_msg("%s: of_expected %.3f (busbw %.1f, expected %.1f)", nodes[k], of, peak(n, "all_reduce"),
                     num(x, "busbw_gbps"));
        assert_true(json_is_string(json_object_get(x, "limit")));
        assert_int_equal(json_is_true(json_object_get(x, "host_staged")), k == 1); /* the 4090s: no P2P */
        tool_result_free(&r);
    }
}

/* Paced, the simulated GPUs sleep through each collective: the same figure
 * within 5 % (events time it; a loaded host wakes late once per sync). */
static void paced_figures_hold(void **state)
{
    (void)state;
    const char *const paced[] = {"GPUDOCTOR_SIM_TIMESCALE=100", "NO_COLOR=", NULL};
    tool_result f =
        run_tool((const char *[]){"bench", "nccl", "--json", "--sim", example("h100x8-idle.json"), NULL}, fast);
    tool_result p = run_tool(
        (const char *[]){"bench", "nccl", "--size", "256", "--json", "--sim", example("h100x8-idle.json"), NULL},
        paced);
    double want = peak(nccl_of(&f), "all_reduce"), got = peak(nccl_of(&p), "all_reduce");
    if (!(fabs(got - want) <= 0.05 * want))
        fail_msg("paced %.1f GB/s, fast clock %.1f", got, want);
    tool_result_free(&f);
    tool_result_free(&p);
}

static void p2p_disabled_by_the_environment_is_found(void **state)
{
    (void)state;
    const char *const env[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "NCCL_P2P_DISABLE=1", NULL};
    tool_result r = run_tool(
        (const char *[]){"bench", "nccl", "--json", "--exit-findings", "--sim", example("h100x8-idle.json"), NULL},
        env);
    assert_exact_findings("NCCL_P2P_DISABLE=1", &r, 2, (const char *[]){"bench.nccl_low@-1", NULL});
    json_t *f = finding(&r, "bench.nccl_low"), *ev = json_object_get(f, "evidence");
    assert_string_equal(json_string_value(json_object_get(f, "severity")), "critical");
    assert_string_equal(json_string_value(json_object_get(ev, "nccl_env")), "NCCL_P2P_DISABLE=1");
    assert_non_null(strstr(json_string_value(json_object_get(f, "fix")), "unset it"));
    /* Staged through the host: half the pinned rate (53 GB/s) at the ring's 0.85. */
    double got = num(ev, "busbw_gbps");
    if (!(fabs(got - 0.85 * 53.0 / 2) <= 0.05 * got))
        fail_msg("busbw %.1f, expected %.1f", got, 0.85 * 53.0 / 2);
    assert_true(num(ev, "of_expected_pct") < 25);
    assert_string_equal(json_string_value(json_object_get(nccl_of(&r), "env")), "NCCL_P2P_DISABLE=1");
    tool_result_free(&r);
    /* Set to 0 it changes nothing: no finding, and not named. */
    const char *const off[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "NCCL_P2P_DISABLE=0", NULL};
    r = run_tool((const char *[]){"bench", "nccl", "--json", "--sim", example("h100x8-idle.json"), NULL}, off);
    assert_exact_findings("NCCL_P2P_DISABLE=0", &r, 0, (const char *[]){NULL});
    assert_true(json_is_null(json_object_get(nccl_of(&r), "env")));
    tool_result_free(&r);
}

static void a_link_trained_down_on_the_ring_is_named(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"bench", "nccl", "--json", "--sim", example("pcie-a100x4-slow-switch.json"), NULL}, fast);
    assert_exact_findings("slow switch", &r, 0, (const char *[]){"bench.nccl_low@-1", NULL});
    json_t *ev = json_object_get(finding(&r, "bench.nccl_low"), "evidence");
    assert_true(json_is_true(json_object_get(ev, "downtrained")));
    assert_non_null(strstr(json_string_value(json_object_get(ev, "limit")), "Gen3 x8"));
    assert_true(json_is_null(json_object_get(ev, "nccl_env")));
    tool_result_free(&r);
}

/* Two EPYC sockets: the ring crosses Infinity Fabric twice, and is held to
 * what it carries (16 GB/s), not to a PCIe edge within a socket; with GPU 5
 * at x8 the ring's shortfall is put on that GPU's edge. */
static void a_ring_across_two_sockets_is_held_to_their_link(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"bench", "nccl", "--json", "--exit-findings", "--sim",
                                              example("pcie-epyc-a100x8-sys.json"), NULL},
                             fast);
    assert_exact_findings("dual EPYC", &r, 0, (const char *[]){NULL});
    json_t *x = json_object_get(nccl_of(&r), "expected");
    assert_true(fabs(num(x, "busbw_gbps") - 16) < 0.05);
    assert_non_null(strstr(json_string_value(json_object_get(x, "limit")), "AMD Infinity Fabric"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"bench", "nccl", "--json", "--exit-findings", "--sim",
                                  example("pcie-epyc-a100x8-gpu5-x8.json"), NULL},
                 fast);
    assert_exact_findings("dual EPYC, GPU 5 at x8", &r, 1, (const char *[]){"bench.nccl_low@-1", NULL});
    json_t *ev = json_object_get(finding(&r, "bench.nccl_low"), "evidence");
    assert_true(json_is_true(json_object_get(ev, "downtrained")));
    json_t *edge = json_object_get(ev, "slowest_edge");
    assert_int_equal(json_integer_value(json_array_get(edge, 0)), 4);
    assert_int_equal(json_integer_value(json_array_get(edge, 1)), 5);
    assert_non_null(strstr(json_string_value(json_object_get(ev, "limit")), "0000:a1:00.0, trained at Gen4 x8"));
    assert_non_null(strstr(json_string_value(json_object_get(finding(&r, "bench.nccl_low"), "fix")), "Reseat"));
    tool_result_free(&r);
}

static void wrong_gpu(json_t *root)
{
    json_t *g = json_array_get(json_object_get(root, "gpus"), 5);
    json_object_set_new(g, "faults", json_pack("{s:b}", "nccl_wrong_results", 1));
}

static void one_gpu(json_t *root)
{
    json_array_remove(json_object_get(root, "gpus"), 0); /* leaves seven... */
    while (json_array_size(json_object_get(root, "gpus")) > 1)
        json_array_remove(json_object_get(root, "gpus"), 1);
}

static void wrong_data_is_a_failure_never_a_figure(void **state)
{
    (void)state;
    char *dir;
    char *path = variant("h100x8-idle.json", wrong_gpu, &dir);
    tool_result r = run_tool((const char *[]){"bench", "nccl", "--json", "--sim", path, NULL}, fast);
    assert_exact_findings("wrong data", &r, 0, (const char *[]){"bench.nccl_failed@-1", NULL});
    json_t *n = nccl_of(&r);
    assert_string_equal(json_string_value(json_object_get(n, "verified")), "wrong");
    assert_non_null(strstr(json_string_value(json_object_get(n, "check")), "rank 5"));
    assert_true(isnan(peak(n, "all_reduce")));
    assert_int_equal(json_array_size(json_object_get(json_object_get(n, "all_reduce"), "points")), 0);
    tool_result_free(&r);
    r = run_tool((const char *[]){"bench", "nccl", "--sim", path, NULL}, fast);
    assert_non_null(strstr(r.out, "Data: WRONG"));
    assert_non_null(strstr(r.out, "critical host   bench.nccl_failed\n")); /* check's layout */
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(path);
}

static void one_gpu_measures_nothing_and_says_so(void **state)
{
    (void)state;
    char *dir;
    char *path = variant("h100x8-idle.json", one_gpu, &dir);
    /* Nothing to measure: said, exit 3, as bench p2p answers. */
    tool_result r = run_tool((const char *[]){"bench", "nccl", "--sim", path, NULL}, fast);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "bench nccl: 1 CUDA device: NCCL's collectives need two GPUs or more"));
    assert_string_equal(r.out, "");
    tool_result_free(&r);
    /* bench all leaves NCCL (and p2p) out on one GPU. */
    r = run_tool((const char *[]){"bench", "all", "--reps", "1", "--seconds", "0.05", "--json", "--sim", path, NULL},
                 fast);
    assert_int_equal(r.exit_code, 0);
    assert_null(json_object_get(r.json, "nccl"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    free(path);
}

static void all_includes_nccl_with_two_gpus_or_more(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"bench", "all", "--reps", "1", "--seconds", "0.05", "--json", "--sim",
                                              example("h100x8-idle.json"), NULL},
                             fast);
    assert_exact_findings("bench all", &r, 0, (const char *[]){NULL});
    json_t *n = nccl_of(&r);
    assert_int_equal(num(n, "ranks"), 8);
    assert_true(peak(n, "all_reduce") > 100);
    assert_int_equal(num(n, "iters"), 1); /* --reps */
    assert_non_null(strstr(r.err, "bench nccl..."));
    tool_result_free(&r);
}

static void one_size_and_the_text(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"bench", "nccl", "--size", "64", "--reps", "3", "--json", "--sim",
                                              example("h100x8-idle.json"), NULL},
                             fast);
    assert_int_equal(r.exit_code, 0);
    json_t *n = nccl_of(&r), *pts = json_object_get(json_object_get(n, "all_reduce"), "points");
    assert_int_equal(json_array_size(pts), 1);
    assert_int_equal(num(json_array_get(pts, 0), "bytes"), 64 << 20);
    assert_int_equal(num(n, "iters"), 3);
    tool_result_free(&r);
    r = run_tool((const char *[]){"bench", "nccl", "--sim", example("h100x8-idle.json"), NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    const char *want[] = {"all-reduce",
                          "all-gather",
                          "busbw",
                          "Peak bus bandwidth: all-reduce",
                          "expected",
                          "read back right on all 8 GPUs",
                          "No finding: NCCL's bus bandwidth"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(r.out, want[i]))
            fail_msg("no '%s' in:\n%s", want[i], r.out);
    for (const char *p = r.out; *p;) {
        size_t len = strcspn(p, "\n");
        if (len > 80)
            fail_msg("a line of %zu columns: %.*s", len, (int)len, p);
        p += len + (p[len] == '\n');
    }
    tool_result_free(&r);
}

/* The simulated libraries but libnccl.so.2, in a directory of their own. */
static char *sim_dir_without_nccl(void)
{
    char *dir = temp_dir(), bin[1024], from[1100], to[1100];
    snprintf(bin, sizeof bin, "%s", GD_BINARY);
    *strrchr(bin, '/') = '\0';
    const char *libs[] = {"libnvidia-ml.so.1", "libcuda.so.1", "libcublasLt.so.13"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(from, sizeof from, "%s/%s", bin, libs[i]);
        snprintf(to, sizeof to, "%s/%s", dir, libs[i]);
        assert_int_equal(symlink(from, to), 0);
    }
    return dir;
}

static void without_nccl_it_says_how_to_get_it(void **state)
{
    (void)state;
    char *dir = sim_dir_without_nccl(), env_dir[1200];
    snprintf(env_dir, sizeof env_dir, "GPUDOCTOR_SIM_DIR=%s", dir);
    const char *const env[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", env_dir, NULL};
    tool_result r = run_tool((const char *[]){"bench", "nccl", "--sim", example("h100x8-idle.json"), NULL}, env);
    assert_int_equal(r.exit_code, 3);
    const char *want[] = {"libnccl.so.2", "nvidia-nccl", "--python", "GPUDOCTOR_NCCL_LIBRARY"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(r.err, want[i]))
            fail_msg("no '%s' in: %s", want[i], r.err);
    tool_result_free(&r);
    /* bench all goes on without it. */
    r = run_tool((const char *[]){"bench", "all", "--reps", "1", "--seconds", "0.05", "--json", "--sim",
                                  example("h100x8-idle.json"), NULL},
                 env);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.err, "bench nccl not run"));
    assert_null(json_object_get(r.json, "nccl"));
    assert_true(json_is_object(json_object_get(r.json, "gemm")));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(healthy_nodes_come_near_their_topology),
        cmocka_unit_test(paced_figures_hold),
        cmocka_unit_test(p2p_disabled_by_the_environment_is_found),
        cmocka_unit_test(a_link_trained_down_on_the_ring_is_named),
        cmocka_unit_test(a_ring_across_two_sockets_is_held_to_their_link),
        cmocka_unit_test(wrong_data_is_a_failure_never_a_figure),
        cmocka_unit_test(one_gpu_measures_nothing_and_says_so),
        cmocka_unit_test(all_includes_nccl_with_two_gpus_or_more),
        cmocka_unit_test(one_size_and_the_text),
        cmocka_unit_test(without_nccl_it_says_how_to_get_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
