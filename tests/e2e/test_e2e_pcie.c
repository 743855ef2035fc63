/* SPDX-License-Identifier: Apache-2.0 */
/* End to end: PCIe, topology and NVLink scenarios, `topo` and `bench pcie`. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const fast[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", NULL}; /* the fast scenario clock */

typedef struct expect {
    const char *scenario;
    const char *pid; /* --pid, or NULL */
    int exit_code;
    const char *ids[3]; /* "id@gpu", NULL-terminated */
} expect;

static const expect cases[] = {
    {"pcie-h100x8-switches.json", NULL, 0, {NULL}},
    {"pcie-h100x8-idle-gen1.json", NULL, 0, {NULL}},
    {"pcie-a100x4-x8.json", NULL, 2, {"pcie.link_downgraded@1", NULL}},
    {"pcie-a100x3-bridge-downgraded.json", NULL, 2, {"pcie.upstream_downgraded@1", NULL}},
    {"pcie-a100x4-gen4-in-gen3-slot.json", NULL, 1, {"pcie.slot_limited@3", NULL}},
    {"pcie-h100x8-replays.json", NULL, 2, {"pcie.replays@5", NULL}},
    {"pcie-h100x8-nvlink-down.json", NULL, 1, {"nvlink.down@2", NULL}},
    {"pcie-h100x8-numa-far-job.json", "41003", 1, {"topology.numa_mismatch@3", NULL}},
};

static void each_scenario_yields_exactly_its_findings(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const expect *x = &cases[c];
        const char *argv[12] = {"check",      "--json", "--duration", "10",
                                "--interval", "1000",   "--sim",      example(x->scenario)};
        if (x->pid) {
            argv[8] = "--pid";
            argv[9] = x->pid;
        }
        tool_result r = run_tool(argv, fast);
        assert_exact_findings(x->scenario, &r, x->exit_code, x->ids);
        tool_result_free(&r);
    }
}

/* Live and simulated runs fill the maxima as captures do: NVML's Max (card
 * and slot together) and GpuMax (the card's own), the width from sysfs. */
static void state_has_together_and_device_maxima(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "10", "--sim",
                                              example("pcie-a100x4-gen4-in-gen3-slot.json"), NULL},
                             fast);
    assert_non_null(r.json);
    json_t *gpus = json_object_get(r.json, "gpus");
    static const int gen_max[] = {4, 4, 4, 3};
    for (size_t g = 0; g < 4; g++) {
        json_t *st = json_object_get(json_array_get(gpus, g), "state");
        assert_int_equal(json_integer_value(json_object_get(st, "pcie_gen_max")), gen_max[g]);
        assert_int_equal(json_integer_value(json_object_get(st, "pcie_gen_max_device")), 4);
        assert_int_equal(json_integer_value(json_object_get(st, "pcie_width_max")), 16);
        assert_int_equal(json_integer_value(json_object_get(st, "pcie_width_max_device")), 16);
    }
    tool_result_free(&r);
}

/* The HGX tree with the uplink of the switch that GPUs 0 and 1 share (its
 * upstream port 16:00.0) trained at Gen4: each of them gets the finding,
 * with the same fix; the other GPUs, on healthy switches, none. */
static void a_slow_shared_uplink_is_reported_for_every_gpu_behind_it(void **state)
{
    (void)state;
    char *dir = temp_dir(), cmd[4096];
    snprintf(cmd, sizeof cmd, "cp -a '%s' '%s/sysfs'", example("sysfs/hgx-h100x8"), dir);
    assert_int_equal(system(cmd), 0);
    char port[1024];
    snprintf(port, sizeof port, "%s/sysfs/devices/pci0000:15/0000:15:01.0/0000:16:00.0", dir);
    free(write_temp_file(port, "current_link_speed", "16.0 GT/s PCIe\n"));
    json_error_t jerr;
    json_t *sc = json_load_file(example("pcie-h100x8-switches.json"), 0, &jerr);
    assert_non_null(sc);
    char sysfs[1024];
    snprintf(sysfs, sizeof sysfs, "%s/sysfs", dir);
    json_object_set_new(json_object_get(sc, "host"), "sysfs", json_string(sysfs));
    char *text = json_dumps(sc, 0), *path = write_temp_file(dir, "scenario.json", text);
    free(text);
    json_decref(sc);
    tool_result r = run_tool(
        (const char *[]){"check", "--json", "--duration", "10", "--interval", "1000", "--sim", path, NULL}, fast);
    const char *const ids[] = {"pcie.upstream_downgraded@0", "pcie.upstream_downgraded@1", NULL};
    assert_exact_findings("shared slow uplink", &r, 2, ids); /* half the rate: critical */
    json_t *f = json_object_get(r.json, "findings"), *a = json_array_get(f, 0), *b = json_array_get(f, 1);
    assert_string_equal(json_string_value(json_object_get(a, "fix")), json_string_value(json_object_get(b, "fix")));
    assert_string_equal(json_string_value(json_object_get(json_object_get(a, "evidence"), "bridge")), "0000:16:00.0");
    assert_string_equal(json_string_value(json_object_get(json_object_get(b, "evidence"), "bridge")), "0000:16:00.0");
    tool_result_free(&r);
    remove_tree(dir);
    free(path);
    free(dir);
}

/* The idle node says why its links were not judged, and how to judge them. */
static void idle_links_are_not_judged_but_explained(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"check", "--json", "--duration", "10", "--sim", example("pcie-h100x8-idle-gen1.json"), NULL},
        fast);
    assert_non_null(r.json);
    json_t *skips = json_object_get(r.json, "not_checked");
    size_t n = 0, i;
    json_t *s;
    json_array_foreach(skips, i, s)
    {
        if (strcmp(json_string_value(json_object_get(s, "check")), "pcie.link_downgraded") == 0) {
            n++;
            assert_non_null(strstr(json_string_value(json_object_get(s, "reason")), "bench pcie"));
        }
    }
    assert_int_equal(n, 8);
    tool_result_free(&r);
}

/* An idle L4 at x8 of x16: the GPU table shows the width against its
 * maximum, and an info finding says what to do if it stays there. */
static void an_idle_narrow_link_is_shown_and_said(void **state)
{
    (void)state;
    need_realdata();
    const char *cap = realdata("smi-text/l4-x8-of-x16-width-idle-550-gls.txt");
    tool_result r = run_tool((const char *[]){"check", "--from", cap, NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    if (!strstr(r.out, "Gen1 x8/16") || !strstr(r.out, "trained at x8 of x16") || !strstr(r.out, "reseat"))
        fail_msg("the narrow link is not shown or said:\n%s", r.out);
    tool_result_free(&r);
    r = run_tool((const char *[]){"info", "--from", cap, NULL}, fast);
    assert_non_null(strstr(r.out, "Gen1 x8/16"));
    tool_result_free(&r);
    /* A link at its full width keeps the short form. */
    r = run_tool(
        (const char *[]){"check", "--from", realdata("smi-text/rtx4060ti-x2-one-at-x4-of-x8-550-gls.txt"), NULL}, fast);
    if (!strstr(r.out, "Gen4 x4/8") || !strstr(r.out, "Gen4 x8\n") || strstr(r.out, "x8/8"))
        fail_msg("the links of the two RTX 4060 Ti:\n%s", r.out);
    tool_result_free(&r);
}

/* topo --json --sim: the matrix row of GPU `row` as one string "X PIX PXB". */
static void matrix_row(json_t *topo, size_t row, char *buf, size_t len)
{
    json_t *cells = json_array_get(json_object_get(topo, "matrix"), row), *c;
    size_t i, used = 0;
    buf[0] = '\0';
    json_array_foreach(cells, i, c) used +=
        (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", json_string_value(c));
}

static json_t *topo_of(const char *scenario, tool_result *r)
{
    *r = run_tool((const char *[]){"topo", "--json", "--sim", example(scenario), NULL}, fast);
    if (!r->json || r->exit_code != 0)
        fail_msg("%s: topo failed: %s", scenario, r->err);
    return r->json;
}

static void topo_matrix_is_derived_from_the_sysfs_tree(void **state)
{
    (void)state;
    char row[256];
    tool_result r;
    /* Two levels of switches: GPU 0 and 2 share the first switch (PIX);
     * GPU 1 sits behind a second switch (PXB), with the NIC. */
    json_t *t = topo_of("pcie-a100x3-bridge-downgraded.json", &r);
    matrix_row(t, 0, row, sizeof row);
    assert_string_equal(row, "X PXB PIX");
    matrix_row(t, 1, row, sizeof row);
    assert_string_equal(row, "PXB X PXB");
    json_t *nic = json_array_get(json_object_get(json_array_get(json_object_get(t, "gpus"), 1), "nics"), 0);
    assert_string_equal(json_string_value(json_object_get(nic, "name")), "mlx5_0");
    assert_string_equal(json_string_value(json_object_get(nic, "link")), "PIX");
    tool_result_free(&r);
    /* Two root ports of one host bridge, and a GPU on a root port of its own. */
    t = topo_of("pcie-a100x4-gen4-in-gen3-slot.json", &r);
    matrix_row(t, 0, row, sizeof row);
    assert_string_equal(row, "X PIX PHB PHB");
    matrix_row(t, 3, row, sizeof row);
    assert_string_equal(row, "PHB PHB PHB X");
    json_t *path = json_object_get(json_array_get(json_object_get(t, "gpus"), 3), "path");
    assert_int_equal(json_array_size(path), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(path, 1), "role")), "root_port");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(path, 1), "gen_max")), 3);
    tool_result_free(&r);
    /* NVSwitch: NV18 between all, NV17 for the GPU with a link down; NUMA
     * nodes and CPU lists per socket; each NIC on its GPU pair's switch. */
    t = topo_of("pcie-h100x8-nvlink-down.json", &r);
    matrix_row(t, 0, row, sizeof row);
    assert_string_equal(row, "X NV18 NV17 NV18 NV18 NV18 NV18 NV18");
    assert_true(json_is_true(json_object_get(t, "nvlink_visible"))); /* NVML reports the links */
    assert_true(json_is_null(json_object_get(t, "note")));
    json_t *n0 = json_array_get(json_object_get(t, "nics"), 0);
    assert_string_equal(json_string_value(json_object_get(n0, "name")), "mlx5_0");
    assert_int_equal(json_array_size(json_object_get(n0, "links")), 8);
    json_t *g4 = json_array_get(json_object_get(t, "gpus"), 4);
    assert_int_equal(json_integer_value(json_object_get(g4, "numa_node")), 1);
    assert_string_equal(json_string_value(json_object_get(g4, "cpu_affinity")), "48-95,144-191");
    nic = json_array_get(json_object_get(g4, "nics"), 0);
    assert_string_equal(json_string_value(json_object_get(nic, "name")), "mlx5_2");
    tool_result_free(&r);
    /* Without NVLink the same tree gives PIX / NODE / SYS (old-kernel speed strings too). */
    t = topo_of("pcie-a100x4-x8.json", &r);
    matrix_row(t, 1, row, sizeof row);
    assert_string_equal(row, "PIX X PHB PHB");
    json_t *p1 = json_object_get(json_array_get(json_object_get(t, "gpus"), 1), "path");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(p1, 0), "width")), 8);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(p1, 0), "gen")), 4);
    tool_result_free(&r);
}

static double result_gbps(json_t *gpu, const char *mode, const char *dir, const char *mem)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(gpu, "results"), i, x)
    {
        if (strcmp(json_string_value(json_object_get(x, "mode")), mode) == 0 &&
            strcmp(json_string_value(json_object_get(x, "direction")), dir) == 0 &&
            strcmp(json_string_value(json_object_get(x, "memory")), mem) == 0)
            return json_is_number(json_object_get(x, "gbps")) ? json_number_value(json_object_get(x, "gbps")) : NAN;
    }
    return NAN;
}

/* The simulated copy is a timed sleep of a few ms: a loaded 2-core machine's
 * wake-up latency can add 20 % to it, never a factor of 2 (an x8 link). */
static void near(double got, double want, const char *what, int gpu)
{
    if (!(fabs(got - want) <= 0.25 * want))
        fail_msg("GPU %d %s: %.2f GB/s, scenario %.2f (more than 25%% off)", gpu, what, got, want);
}

/* bench pcie --sim measures the scenario's figures (within 25 %: timing noise) and finds GPU 1's x8 link. */
static void bench_pcie_reports_the_scenario_figures(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"bench", "pcie", "--json", "--reps", "3", "--sim", example("pcie-a100x4-x8.json"), NULL},
        fast);
    if (!r.json || r.exit_code != 0)
        fail_msg("bench failed (%d): %s", r.exit_code, r.err);
    json_t *gpus = json_object_get(r.json, "gpus");
    assert_int_equal(json_array_size(gpus), 4);
    for (int g = 0; g < 4; g++) {
        json_t *x = json_array_get(gpus, (size_t)g);
        double h2d = g == 1 ? 12.2 : 24.5, d2h = g == 1 ? 12.4 : 25.0;
        near(result_gbps(x, "single", "h2d", "pinned"), h2d, "h2d pinned", g);
        near(result_gbps(x, "single", "d2h", "pinned"), d2h, "d2h pinned", g);
        near(result_gbps(x, "single", "h2d", "pageable"), 11.0, "h2d pageable", g);
        near(result_gbps(x, "single", "d2h", "pageable"), 10.0, "d2h pageable", g);
        near(result_gbps(x, "concurrent", "h2d", "pinned"), h2d, "concurrent h2d pinned", g);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(x, "link"), "gen")), 4);
        assert_true(fabs(json_number_value(json_object_get(json_object_get(x, "link"), "theoretical_gbps")) - 31.51) <
                    0.01);
        /* The link that carried the copies: x8 on GPU 1, not the x16 it should reach. */
        assert_int_equal(json_integer_value(json_object_get(json_object_get(x, "link"), "measured_width")),
                         g == 1 ? 8 : 16);
    }
    json_t *f = json_object_get(r.json, "findings");
    assert_int_equal(json_array_size(f), 1);
    char key[96];
    finding_key(json_array_get(f, 0), key, sizeof key);
    assert_string_equal(key, "pcie.bandwidth_low@1");
    tool_result_free(&r);
    /* Wide lines: the phrases are matched, not where they wrap. */
    r = run_tool((const char *[]){"bench", "pcie", "--reps", "1", "--sim", example("pcie-a100x4-x8.json"), NULL},
                 (const char *[]){"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "COLUMNS=400", NULL});
    /* Table and finding agree: the x8 link, marked below what the slot allows, is named in the finding. */
    assert_non_null(strstr(r.out, "0000:2a:00.0 Gen4 x8* "));
    assert_non_null(strstr(r.out, "*: below the link the GPU should reach"));
    assert_non_null(strstr(r.out, "a Gen4 x16 link allows;"));
    assert_non_null(strstr(r.out, "it trained at Gen4 x8"));
    assert_null(strstr(r.out, "its Gen4 x16 link"));
    assert_non_null(strstr(r.out, "The link runs at Gen4 x8"));
    tool_result_free(&r);

    r = run_tool((const char *[]){"bench", "gemm", NULL}, fast);
    assert_int_equal(r.exit_code, 3);
    tool_result_free(&r);
}

/* pcie-a100x4-x8.json with the GPUs in `full` holding 8 MiB of memory in
 * all, too little for the benchmark's 16 MiB buffers: their cuMemAlloc
 * fails. Written into dir; returns its path (caller frees). */
static char *scenario_with_full_gpus(const char *dir, const bool full[4])
{
    json_error_t je;
    json_t *sc = json_load_file(example("pcie-a100x4-x8.json"), 0, &je);
    assert_non_null(sc);
    char sysfs[1024];
    snprintf(sysfs, sizeof sysfs, "%s",
             example(json_string_value(json_object_get(json_object_get(sc, "host"), "sysfs"))));
    json_object_set_new(json_object_get(sc, "host"), "sysfs", json_string(sysfs));
    for (size_t g = 0; g < 4; g++)
        if (full[g])
            json_object_set_new(json_array_get(json_object_get(sc, "gpus"), g), "memory_total_mib", json_integer(8));
    char *text = json_dumps(sc, 0);
    json_decref(sc);
    char *path = write_temp_file(dir, "scenario.json", text);
    free(text);
    return path;
}

/* An idle link parked at Gen1 rises under load: the copies ran at 53 GB/s,
 * which Gen1 x16 (4 GB/s) cannot carry, so the link shown is the Gen5 x16
 * that carried them, marked and explained, never "Gen1 x16 53.0 (84%)". */
static void bench_pcie_shows_the_link_that_carried_the_copies(void **state)
{
    (void)state;
    const char *sc = example("pcie-h100x8-idle-gen1.json");
    tool_result r = run_tool((const char *[]){"bench", "pcie", "--reps", "1", "--sim", sc, NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    assert_null(strstr(r.out, "Gen1"));
    assert_non_null(strstr(r.out, "0000:18:00.0 Gen5 x16+   53.0 (84%)"));
    assert_non_null(strstr(r.out, "+: the driver read a lower link after the copies"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"bench", "pcie", "--json", "--reps", "1", "--sim", sc, NULL}, fast);
    json_t *link = json_object_get(json_array_get(json_object_get(r.json, "gpus"), 0), "link");
    assert_int_equal(json_integer_value(json_object_get(link, "measured_gen")), 1); /* as read */
    assert_int_equal(json_integer_value(json_object_get(link, "copies_gen")), 5);
    assert_int_equal(json_integer_value(json_object_get(link, "copies_width")), 16);
    tool_result_free(&r);
}

/* Every line of bench pcie's text fits the terminal: 80 columns in a pipe,
 * COLUMNS where set (the fix line was 484 columns). */
static void bench_pcie_text_fits_the_width(void **state)
{
    (void)state;
    const char *const scenarios[] = {"pcie-a100x4-x8.json", "pcie-h100x8-idle-gen1.json", "pcie-h100x8-replays.json"};
    const char *const widths[] = {NULL, "COLUMNS=120", "COLUMNS=60"};
    const int cols[] = {80, 120, 60};
    for (size_t k = 0; k < 3; k++)
        for (size_t w = 0; w < 3; w++) {
            const char *env[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", widths[w], NULL};
            const char *argv[] = {"bench", "pcie", "--force", "--reps", "1", "--sim", example(scenarios[k]), NULL};
            tool_result r = run_tool(argv, env);
            assert_true(r.exit_code == 0 || r.exit_code == 2);
            for (const char *p = r.out; *p;) {
                size_t n = strcspn(p, "\n"), lead = strspn(p, " ");
                bool one_word = memchr(p + lead, ' ', n - lead) == NULL;
                if ((int)n > cols[w] && !one_word)
                    fail_msg("%s at %d columns: a line of %zu: %.*s", scenarios[k], cols[w], n, (int)n, p);
                p += n + (p[n] == '\n');
            }
            tool_result_free(&r);
        }
}

/* A benchmark that could not run is an error (exit 3) that says why, not
 * "No finding."; one whose some GPUs failed reports the others. */
static void bench_pcie_that_measured_nothing_fails(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char *all = scenario_with_full_gpus(dir, (const bool[]){true, true, true, true});
    const char *text[] = {"bench", "pcie", "--reps", "1", "--sim", all, NULL};
    const char *json[] = {"bench", "pcie", "--json", "--reps", "1", "--sim", all, NULL};
    const char *const *runs[] = {text, json};
    for (size_t k = 0; k < 2; k++) {
        tool_result r = run_tool(runs[k], fast);
        assert_int_equal(r.exit_code, 3);
        assert_null(strstr(r.out, "No finding"));
        if (!strstr(r.err, "no GPU could be measured: cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (all 4 GPUs)"))
            fail_msg("stderr: %s", r.err);
        tool_result_free(&r);
    }
    free(all);
    char *one = scenario_with_full_gpus(dir, (const bool[]){false, false, true, false});
    tool_result r = run_tool((const char *[]){"bench", "pcie", "--json", "--reps", "1", "--sim", one, NULL}, fast);
    if (!r.json || r.exit_code != 0)
        fail_msg("bench failed (%d): %s", r.exit_code, r.err);
    json_t *gpus = json_object_get(r.json, "gpus");
    assert_int_equal(json_array_size(gpus), 4);
    for (size_t g = 0; g < 4; g++) {
        json_t *x = json_array_get(gpus, g);
        json_t *err = json_object_get(x, "error");
        double h2d = result_gbps(x, "single", "h2d", "pinned");
        if (g == 2) {
            assert_string_equal(json_string_value(err), "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY");
            assert_true(isnan(h2d));
        } else {
            assert_true(json_is_null(err));
            near(h2d, g == 1 ? 12.2 : 24.5, "h2d pinned", (int)g);
        }
    }
    tool_result_free(&r);
    free(one);
    remove_tree(dir);
    free(dir);
}

/* lspci of an HGX H100 node: each ConnectX on a GPU's switch is PIX to that
 * GPU, NODE to the other GPUs of its socket and SYS across; the matrix is
 * PCIe only, and both outputs say that lspci cannot see NVLink. */
static void lspci_hgx_topology(json_t *topo, const char *path)
{
    assert_true(json_is_false(json_object_get(topo, "nvlink_visible")));
    assert_non_null(strstr(json_string_value(json_object_get(topo, "note")), "lspci cannot see NVLink"));
    json_t *nics = json_object_get(topo, "nics"), *nic, *cx7 = NULL;
    size_t i;
    json_array_foreach(
        nics, i, nic) if (strcmp(json_string_value(json_object_get(nic, "pci_bus_id")), "0000:1a:00.0") == 0) cx7 = nic;
    assert_non_null(cx7);
    assert_string_equal(json_string_value(json_object_get(cx7, "name")), "ConnectX-7");
    json_t *links = json_object_get(cx7, "links");
    assert_int_equal(json_array_size(links), 8);
    assert_string_equal(json_string_value(json_array_get(links, 0)), "PIX");
    assert_string_equal(json_string_value(json_array_get(links, 1)), "NODE");
    assert_string_equal(json_string_value(json_array_get(links, 4)), "SYS");
    json_t *g0nics = json_object_get(json_array_get(json_object_get(topo, "gpus"), 0), "nics");
    assert_true(json_array_size(g0nics) >= 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(g0nics, 0), "link")), "PIX");
    tool_result t = run_tool((const char *[]){"topo", "--from", path, NULL}, fast);
    assert_int_equal(t.exit_code, 0);
    assert_non_null(strstr(t.out, "lspci cannot see NVLink"));
    assert_non_null(strstr(t.out, "NIC Legend"));
    assert_non_null(strstr(t.out, "ConnectX-7 0000:1a:00.0"));
    tool_result_free(&t);
}

/* Every real capture in shared/realdata/{topo,lspci} goes through `topo --from`. */
static void real_captures_import(void **state)
{
    (void)state;
    need_realdata();
    static const char *const dirs[] = {"topo", "lspci"};
    size_t files = 0;
    for (size_t d = 0; d < 2; d++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s", realdata(dirs[d]));
        DIR *dp = opendir(dir);
        if (!dp)
            fail_msg("%s: cannot list it", dir);
        struct dirent *e;
        while ((e = readdir(dp))) {
            if (e->d_name[0] == '.')
                continue;
            char path[2048], rel[600];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            snprintf(rel, sizeof rel, "%s/%s", dirs[d], e->d_name);
            tool_result r = run_tool((const char *[]){"topo", "--json", "--from", path, NULL}, fast);
            if (!r.json || r.exit_code != 0)
                fail_msg("%s: exit %d: %s", path, r.exit_code, r.err);
            json_t *gpus = json_object_get(r.json, "gpus");
            assert_true(json_array_size(gpus) >= 1);
            if (strstr(e->d_name, "h100-8gpu") || strstr(e->d_name, "p5-8xh100")) {
                char row[256];
                matrix_row(r.json, 7, row, sizeof row);
                assert_string_equal(row, "NV18 NV18 NV18 NV18 NV18 NV18 NV18 X");
                assert_int_equal(json_integer_value(json_object_get(json_array_get(gpus, 7), "numa_node")), 1);
            }
            if (strstr(e->d_name, "h100x8-dell")) { /* Gen5 x16 behind Broadcom switches */
                assert_int_equal(json_array_size(gpus), 8);
                json_t *p0 = json_object_get(json_array_get(gpus, 0), "path");
                assert_true(json_array_size(p0) >= 3);
                assert_int_equal(json_integer_value(json_object_get(json_array_get(p0, 0), "gen_max")), 5);
                lspci_hgx_topology(r.json, path);
            }
            /* nvidia-smi topo -m shows NVLinks (or their absence); lspci never does */
            assert_true(json_is_boolean(json_object_get(r.json, "nvlink_visible")));
            assert_int_equal(json_is_true(json_object_get(r.json, "nvlink_visible")), d == 0);
            if (strstr(e->d_name, "g6e-4xl40s")) {
                char row[256];
                matrix_row(r.json, 0, row, sizeof row);
                assert_string_equal(row, "X NODE NODE NODE");
            }
            files++;
            tool_result_free(&r);
        }
        closedir(dp);
    }
    assert_true(files >= 8);
}

/* topo --from keeps every NIC of the matrix, with its level to each GPU,
 * not only those behind a GPU's own switch. */
static void topo_capture_keeps_every_nic(void **state)
{
    (void)state;
    need_realdata();
    static const struct {
        const char *file;
        size_t nics;
    } caps[] = {{"topo/h100-1gpu-6nic-prompt-princeton.txt", 6}, {"topo/8gpu-nv18-10nic-2numa-dwflyingw.txt", 10}};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        tool_result r = run_tool((const char *[]){"topo", "--json", "--from", realdata(caps[c].file), NULL}, NULL);
        if (!r.json)
            fail_msg("%s: no JSON (exit %d): %s", caps[c].file, r.exit_code, r.err);
        json_t *nics = json_object_get(r.json, "nics");
        if (json_array_size(nics) != caps[c].nics)
            fail_msg("%s: %zu NICs, want %zu", caps[c].file, json_array_size(nics), caps[c].nics);
        tool_result_free(&r);
        r = run_tool((const char *[]){"topo", "--from", realdata(caps[c].file), NULL}, NULL);
        char last[32];
        snprintf(last, sizeof last, "mlx5_%zu", caps[c].nics - 1);
        if (!strstr(r.out, last))
            fail_msg("%s: the text does not show %s:\n%s", caps[c].file, last, r.out);
        tool_result_free(&r);
    }
    /* The far NIC of the one-GPU capture is SYS from GPU0. */
    tool_result r = run_tool((const char *[]){"topo", "--json", "--from", realdata(caps[0].file), NULL}, NULL);
    json_t *n5 = json_array_get(json_object_get(r.json, "nics"), 5);
    assert_string_equal(json_string_value(json_object_get(n5, "name")), "mlx5_5");
    assert_string_equal(json_string_value(json_array_get(json_object_get(n5, "links"), 0)), "SYS");
    assert_true(json_is_null(json_object_get(n5, "pci_bus_id")));
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_scenario_yields_exactly_its_findings),
        cmocka_unit_test(idle_links_are_not_judged_but_explained),
        cmocka_unit_test(an_idle_narrow_link_is_shown_and_said),
        cmocka_unit_test(state_has_together_and_device_maxima),
        cmocka_unit_test(a_slow_shared_uplink_is_reported_for_every_gpu_behind_it),
        cmocka_unit_test(topo_matrix_is_derived_from_the_sysfs_tree),
        cmocka_unit_test(bench_pcie_reports_the_scenario_figures),
        cmocka_unit_test(bench_pcie_that_measured_nothing_fails),
        cmocka_unit_test(bench_pcie_shows_the_link_that_carried_the_copies),
        cmocka_unit_test(bench_pcie_text_fits_the_width),
        cmocka_unit_test(real_captures_import),
        cmocka_unit_test(topo_capture_keeps_every_nic),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
