/* SPDX-License-Identifier: Apache-2.0 */
/* p2p.unsupported, p2p.slow_pair and p2p.sys_route (src/checks/p2p.c): NVML's
 * P2P status, and bench p2p's copies against their paths and their peers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/bench.h"
#include "gpudoctor/pcie.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void unsupported_severity(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 3, 1);
    gd_findings fs;
    fx_run(&f, "p2p.unsupported", &fs);
    assert_int_equal(fs.n, 0);
    assert_int_equal(fs.nskips, 1); /* not read: not checked, never "ok" */
    gd_findings_free(&fs);
    f.p2p_status = calloc(9, sizeof *f.p2p_status);
    for (int i = 0; i < 3; i++)
        f.p2p_status[i * 3 + i] = -1;
    assert_int_equal(fx_run_count(&f, "p2p.unsupported"), 0);
    /* A registry key switched off GPU 2's: a fault to fix; a chipset without P2P: how it is built. */
    f.p2p_status[0 * 3 + 2] = f.p2p_status[2 * 3 + 0] = 4;
    f.p2p_status[1 * 3 + 2] = f.p2p_status[2 * 3 + 1] = 4;
    f.p2p_status[0 * 3 + 1] = f.p2p_status[1 * 3 + 0] = 1;
    fx_run(&f, "p2p.unsupported", &fs);
    assert_int_equal(fs.n, 2);
    for (size_t i = 0; i < fs.n; i++) {
        json_t *pairs = json_object_get(fs.v[i].evidence, "pairs");
        bool regkey = fs.v[i].severity == GD_SEV_WARNING;
        assert_int_equal(json_array_size(pairs), regkey ? 2 : 1);
        assert_true(regkey || fs.v[i].severity == GD_SEV_INFO);
        assert_non_null(strstr(fs.v[i].fix, regkey ? "NVreg_RegistryDwords" : "GeForce"));
        assert_true(isnan(fs.v[i].impact_pct)); /* no figures: no cost claimed */
    }
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Issue 38: a status matrix with no answer in it (every call refused, or
 * MIG mode) is "not checked", not "P2P works"; a GPU none of whose pairs
 * answered is named; a lost GPU is left to health.gpu_lost. */
static void unanswered_status_is_not_checked(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 3, 1);
    f.p2p_status = malloc(9 * sizeof *f.p2p_status);
    for (int i = 0; i < 9; i++)
        f.p2p_status[i] = -1;
    gd_findings fs;
    fx_run(&f, "p2p.unsupported", &fs);
    assert_int_equal(fs.n, 0);
    assert_true(fx_skipped(&fs, "p2p.unsupported", GD_NO_GPU, "for no GPU pair"));
    gd_findings_free(&fs);
    /* GPUs 0 and 1 answer for their pair; GPU 2 for none of its. */
    f.p2p_status[0 * 3 + 1] = f.p2p_status[1 * 3 + 0] = 0;
    fx_run(&f, "p2p.unsupported", &fs);
    assert_int_equal(fs.n, 0);
    assert_int_equal(fs.nskips, 1);
    assert_true(fx_skipped(&fs, "p2p.unsupported", 2, "none of the GPU's pairs"));
    gd_findings_free(&fs);
    f.gpus[2].lost = true;
    fx_run(&f, "p2p.unsupported", &fs);
    assert_int_equal(fs.n + fs.nskips, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* bench p2p on f's GPUs: every ordered pair (src-major) copied at gbps with peer access on. */
static gd_bench_facts *bench_p2p(gd_facts *f, double gbps)
{
    size_t n = f->gpu_count;
    gd_bench_facts *b = gd_bench_facts_get(f);
    b->p2p = true;
    b->gpu_count = n;
    b->gpus = calloc(n, sizeof *b->gpus);
    for (size_t i = 0; i < n; i++)
        b->gpus[i] = (gd_bench_gpu){.gpu = f->gpus[i].index, .cuda_device = (int)i};
    b->p2p_pair_count = n * (n - 1);
    b->p2p_pairs = calloc(b->p2p_pair_count, sizeof *b->p2p_pairs);
    size_t k = 0;
    for (size_t s = 0; s < n; s++)
        for (size_t d = 0; d < n; d++)
            if (s != d)
                b->p2p_pairs[k++] = (gd_p2p_pair){
                    .src = s, .dst = d, .can_access = 1, .peer_enabled = true, .uni_gbps = gbps, .bidi_gbps = NAN};
    return b;
}

/* The measured pair of bench rows src -> dst. */
static gd_p2p_pair *pair(gd_bench_facts *b, size_t src, size_t dst)
{
    for (size_t i = 0; i < b->p2p_pair_count; i++)
        if (b->p2p_pairs[i].src == src && b->p2p_pairs[i].dst == dst)
            return &b->p2p_pairs[i];
    fail_msg("no pair %zu -> %zu", src, dst);
    return NULL;
}

/* Four GPUs on an NVSwitch, 18 NVLink 4.0 links each: 450 GB/s a path, 360 expected. */
static gd_bench_facts *nvswitch_node(gd_facts *f, double gbps)
{
    fx_facts(f, 4, 2);
    for (size_t g = 0; g < 4; g++)
        fx_nvswitch(f, g, 18, 18, 6);
    return bench_p2p(f, gbps);
}

/* GPUs 0 and 1 behind one switch on CPU 0, 2 and 3 behind another on CPU 1;
 * every link Gen4 x16. */
static gd_pcie_facts *two_cpus(gd_facts *f)
{
    static const char *const paths[4][5] = {
        {"0000:18:00.0", "0000:17:00.0", "0000:16:00.0", "0000:00:01.0", NULL},
        {"0000:19:00.0", "0000:17:01.0", "0000:16:00.0", "0000:00:01.0", NULL},
        {"0000:98:00.0", "0000:97:00.0", "0000:96:00.0", "0000:80:01.0", NULL},
        {"0000:99:00.0", "0000:97:01.0", "0000:96:00.0", "0000:80:01.0", NULL},
    };
    fx_facts(f, 4, 2);
    gd_pcie_facts *p = calloc(1, sizeof *p);
    p->gpu_count = 4;
    p->gpus = calloc(4, sizeof *p->gpus);
    for (size_t g = 0; g < 4; g++) {
        gd_pcie_gpu *pg = &p->gpus[g];
        fx_pcie_path(pg, g < 2 ? "pci0000:00" : "pci0000:80", g < 2 ? 0 : 1, paths[g]);
        pg->gpu = (int)g;
        pg->matched = true;
        for (size_t k = 0; k < pg->hop_count; k++) {
            pg->hops[k].gen = pg->hops[k].gen_max = gd_val(4);
            pg->hops[k].width = pg->hops[k].width_max = gd_val(16);
        }
    }
    f->pcie = p;
    return p;
}

/* 200 GB/s where the path carries 360: critical, blamed on the source's NVLinks. */
/* Inside bench p2p the fix does not send the reader to bench p2p: the
 * copies are the report's own (issue 39); outside it, it does. */
static void unsupported_fix_fits_where_it_is_read(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 1);
    f.p2p_status = calloc(4, sizeof *f.p2p_status);
    f.p2p_status[0] = f.p2p_status[3] = -1;
    f.p2p_status[1] = f.p2p_status[2] = 4;
    gd_findings fs;
    fx_run(&f, "p2p.unsupported", &fs);
    assert_non_null(strstr(fx_only(&fs, "p2p.unsupported")->fix, "measure the copies with 'gpudoctor bench p2p'"));
    gd_findings_free(&fs);
    bench_p2p(&f, 6.0);
    fx_run_at(&f, "p2p.unsupported", GD_AT_BENCH, &fs);
    const char *fix = fx_only(&fs, "p2p.unsupported")->fix;
    assert_null(strstr(fix, "gpudoctor bench p2p"));
    assert_non_null(strstr(fix, "the copies this report measured"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void slow_pair_below_what_its_path_carries(void **state)
{
    (void)state;
    gd_facts f;
    gd_bench_facts *b = nvswitch_node(&f, 380);
    pair(b, 0, 1)->uni_gbps = 200;
    gd_findings fs = fx_run_one(&f, "p2p.slow_pair");
    const gd_finding *x = fx_only(&fs, "p2p.slow_pair");
    assert_int_equal(x->severity, GD_SEV_CRITICAL);
    assert_int_equal(x->gpu, 0);
    assert_float_equal(x->impact_pct, 100 * (1 - 200.0 / 360), 1e-9);
    assert_string_equal(x->title, "GPU 0 to 1 copies 200.0 GB/s, 56% of the 360.0 GB/s a healthy node copies on its "
                                  "path (1 pair, one way, slow through its NVLinks)");
    assert_string_equal(json_string_value(json_object_get(x->evidence, "route")), "NVLink");
    assert_string_equal(json_string_value(json_object_get(x->evidence, "path")),
                        "18 NVLink 4.0 links x 25 GB/s = 450.0 GB/s");
    assert_float_equal(json_number_value(json_object_get(x->evidence, "expected_gbps")), 360, 1e-9);
    assert_float_equal(json_number_value(json_object_get(x->evidence, "peer_median_gbps")), 380, 1e-9);
    json_t *p = json_array_get(json_object_get(x->evidence, "copies"), 0);
    assert_int_equal(json_integer_value(json_object_get(p, "to")), 1);
    assert_float_equal(json_number_value(json_object_get(p, "copy_gbps")), 200, 1e-9);
    assert_non_null(strstr(x->fix, "'nvidia-smi nvlink -s -i 0'"));
    gd_findings_free(&fs);
    /* A second slow pair from the same GPU joins its finding. */
    pair(b, 0, 2)->uni_gbps = 250;
    fs = fx_run_one(&f, "p2p.slow_pair");
    assert_non_null(strstr(fx_only(&fs, "p2p.slow_pair")->title, "(2 pairs, one way, slow through its NVLinks)"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Above the path's share but far behind its peers on the same path. */
static void slow_pair_behind_its_peers(void **state)
{
    (void)state;
    gd_facts f;
    gd_bench_facts *b = nvswitch_node(&f, 450);
    pair(b, 2, 3)->uni_gbps = 300; /* over 75 % of 360, under 70 % of 450 */
    gd_findings fs = fx_run_one(&f, "p2p.slow_pair");
    const gd_finding *x = fx_only(&fs, "p2p.slow_pair");
    assert_int_equal(x->gpu, 2);
    assert_int_equal(x->severity, GD_SEV_CRITICAL);
    assert_string_equal(x->title, "GPU 2 to 3 copies 300.0 GB/s, 33% below its peers on the same path (450.0 GB/s)");
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* A GPU's own link trained at x8 slows the pairs through it: blamed on
 * that device and that GPU, one finding for both directions. */
static void slow_pair_blames_a_downtrained_pcie_hop(void **state)
{
    (void)state;
    gd_facts f;
    gd_pcie_facts *p = two_cpus(&f);
    p->gpus[3].hops[0].width = gd_val(8);
    gd_bench_facts *b = bench_p2p(&f, 20);
    pair(b, 2, 3)->uni_gbps = 12;
    pair(b, 3, 2)->uni_gbps = 12;
    gd_findings fs = fx_run_one(&f, "p2p.slow_pair");
    const gd_finding *x = fx_only(&fs, "p2p.slow_pair");
    assert_int_equal(x->gpu, 3);
    /* One pair, slow both ways: counted once (issue 39 mixed ordered and unordered pairs). */
    assert_string_equal(x->title, "GPU 2 to 3 copies 12.0 GB/s, 48% of the 25.2 GB/s a healthy node copies on its "
                                  "path (1 pair, both ways, slow through 0000:99:00.0)");
    assert_int_equal(json_integer_value(json_object_get(x->evidence, "pair_count")), 1);
    /* The path's rate is its slowest hop as it runs: the x8 link's 15.75, the full rate beside it. */
    assert_float_equal(json_number_value(json_object_get(x->evidence, "path_gbps")), 15.8, 1e-9);
    assert_float_equal(json_number_value(json_object_get(x->evidence, "path_full_gbps")), 31.5, 1e-9);
    assert_string_equal(json_string_value(json_object_get(x->evidence, "route")), "PCIe switch");
    assert_non_null(strstr(x->fix, "'sudo lspci -vv -s 0000:99:00.0'"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* The root ports of two_cpus' host bridges made by `vendor` (the CPUs' maker); bench p2p at `within`
 * GB/s within a CPU and `across` between them. */
static gd_bench_facts *two_cpus_measured(gd_facts *f, int vendor, double within, double across)
{
    gd_pcie_facts *p = two_cpus(f);
    for (size_t g = 0; g < 4; g++)
        p->gpus[g].hops[p->gpus[g].hop_count - 1].vendor = vendor;
    gd_bench_facts *b = bench_p2p(f, across);
    pair(b, 0, 1)->uni_gbps = pair(b, 1, 0)->uni_gbps = within;
    pair(b, 2, 3)->uni_gbps = pair(b, 3, 2)->uni_gbps = within;
    return b;
}

/* Copies across two EPYC sockets at 15.5 GB/s, 22.5 within: what Infinity
 * Fabric carries (16, NCCL's AMD_BW), not every GPU's link to reseat; on
 * Intel, 9 of UPI's 10; on a platform not known, anything above the least
 * CPU link (6). */
static void copies_across_the_sockets_are_held_to_the_cpus_link(void **state)
{
    (void)state;
    gd_facts f;
    two_cpus_measured(&f, 0x1022, 22.5, 15.5);
    fx_assert_silent(&f, "p2p.slow_pair");
    gd_facts_free(&f);
    two_cpus_measured(&f, 0x8086, 22.5, 9);
    fx_assert_silent(&f, "p2p.slow_pair");
    gd_facts_free(&f);
    two_cpus_measured(&f, 0, 22.5, 7);
    fx_assert_silent(&f, "p2p.slow_pair");
    gd_facts_free(&f);
}

/* Far below what the CPUs' link carries, with every PCIe link trained
 * fully: the host's link between the sockets, a warning (a setting, not a
 * part to replace), never a GPU's. */
static void a_slow_cpu_link_is_the_hosts(void **state)
{
    (void)state;
    gd_facts f;
    two_cpus_measured(&f, 0x1022, 22.5, 6);
    gd_findings fs = fx_run_one(&f, "p2p.slow_pair");
    const gd_finding *x = fx_only(&fs, "p2p.slow_pair");
    assert_int_equal(x->gpu, GD_NO_GPU);
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_string_equal(x->title, "GPU 0 to 2 copies 6.0 GB/s, 38% of the 16.0 GB/s a healthy node copies on its path "
                                  "(4 pairs, both ways, slow through the link between the CPUs)");
    /* Across the CPUs the path runs at their link's 16, not the PCIe links' 31.5. */
    assert_float_equal(json_number_value(json_object_get(x->evidence, "path_gbps")), 16, 1e-9);
    assert_string_equal(json_string_value(json_object_get(x->evidence, "route")), "CPU interconnect");
    assert_non_null(strstr(json_string_value(json_object_get(x->evidence, "path")), "AMD Infinity Fabric (xGMI)"));
    assert_non_null(strstr(x->fix, "xGMI link width"));
    assert_null(strstr(x->fix, "reseat"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Pairs near their path, pairs without peer access (p2p.unsupported's), pairs not measured: quiet. */
static void slow_pair_quiet_otherwise(void **state)
{
    (void)state;
    gd_facts f;
    gd_bench_facts *b = nvswitch_node(&f, 380);
    fx_assert_silent(&f, "p2p.slow_pair");
    pair(b, 0, 1)->peer_enabled = false;
    pair(b, 0, 1)->uni_gbps = 20;
    pair(b, 1, 0)->uni_gbps = NAN;
    fx_assert_silent(&f, "p2p.slow_pair");
    gd_facts_free(&f);
}

/* bench ran without p2p: not checked; no bench at all: nothing to say. */
static void p2p_checks_need_bench_p2p(void **state)
{
    static const char *const ids[] = {"p2p.slow_pair", "p2p.sys_route"};
    (void)state;
    for (size_t k = 0; k < 2; k++) {
        gd_facts f;
        fx_facts(&f, 2, 2);
        fx_assert_silent(&f, ids[k]);
        gd_bench_facts_get(&f)->gemm = true;
        gd_findings fs = fx_run_one(&f, ids[k]);
        assert_int_equal(fs.n, 0);
        assert_true(fx_skipped(&fs, ids[k], GD_NO_GPU, "measured by 'gpudoctor bench p2p', which did not run"));
        gd_findings_free(&fs);
        gd_facts_free(&f);
    }
}

/* Copies across the CPUs at 10 GB/s against 25 within one: placement advice. */
static void sys_route_fires_when_crossing_cpus_is_far_slower(void **state)
{
    (void)state;
    gd_facts f;
    two_cpus(&f);
    gd_bench_facts *b = bench_p2p(&f, 10);
    pair(b, 0, 1)->uni_gbps = pair(b, 1, 0)->uni_gbps = 25;
    pair(b, 2, 3)->uni_gbps = pair(b, 3, 2)->uni_gbps = 25;
    gd_findings fs = fx_run_one(&f, "p2p.sys_route");
    const gd_finding *x = fx_only(&fs, "p2p.sys_route");
    assert_int_equal(x->severity, GD_SEV_INFO);
    assert_int_equal(x->gpu, GD_NO_GPU);
    assert_float_equal(x->impact_pct, 60, 1e-9);
    assert_string_equal(x->title, "Copies between GPUs of different CPUs run at 10.0 GB/s, 60% below the 25.0 GB/s "
                                  "within one CPU (4 pairs cross)");
    assert_float_equal(json_number_value(json_object_get(x->evidence, "cross_cpu_gbps")), 10, 1e-9);
    assert_float_equal(json_number_value(json_object_get(x->evidence, "within_cpu_gbps")), 25, 1e-9);
    json_t *pairs = json_object_get(x->evidence, "pairs");
    assert_int_equal(json_array_size(pairs), 4);
    assert_int_equal(json_integer_value(json_array_get(json_array_get(pairs, 3), 1)), 3); /* GPUs 1 and 3 */
    assert_non_null(strstr(x->fix, "Give a job GPUs of one CPU"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Within 80 % of the in-CPU rate, or no pair crossing: quiet. */
static void sys_route_quiet_otherwise(void **state)
{
    (void)state;
    gd_facts f;
    two_cpus(&f);
    gd_bench_facts *b = bench_p2p(&f, 20);
    pair(b, 0, 1)->uni_gbps = pair(b, 1, 0)->uni_gbps = 25;
    pair(b, 2, 3)->uni_gbps = pair(b, 3, 2)->uni_gbps = 25;
    fx_assert_silent(&f, "p2p.sys_route");
    gd_facts_free(&f);
    nvswitch_node(&f, 380); /* every pair over NVLink */
    fx_assert_silent(&f, "p2p.sys_route");
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unsupported_severity),
        cmocka_unit_test(unanswered_status_is_not_checked),
        cmocka_unit_test(unsupported_fix_fits_where_it_is_read),
        cmocka_unit_test(slow_pair_below_what_its_path_carries),
        cmocka_unit_test(slow_pair_behind_its_peers),
        cmocka_unit_test(slow_pair_blames_a_downtrained_pcie_hop),
        cmocka_unit_test(slow_pair_quiet_otherwise),
        cmocka_unit_test(copies_across_the_sockets_are_held_to_the_cpus_link),
        cmocka_unit_test(a_slow_cpu_link_is_the_hosts),
        cmocka_unit_test(p2p_checks_need_bench_p2p),
        cmocka_unit_test(sys_route_fires_when_crossing_cpus_is_far_slower),
        cmocka_unit_test(sys_route_quiet_otherwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
