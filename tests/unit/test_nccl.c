/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench nccl's pure logic: nccl-tests' bus bandwidth formulas, the sweep's
 * sizes, the ring's expectation (its slowest edge, a downtrained one named
 * among equals, peer access denied staged through the host), and the two
 * checks from literal facts: quiet near the expectation, bench.nccl_low
 * under 60 % (critical under 25 %) with the NCCL settings as the cause,
 * bench.nccl_failed for wrong data, notes when nothing was measured.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/nccl_expect.h"
#include "facts_fixture.h"
#include "gpudoctor/bench.h"
#include "gpudoctor/checks.h"
#include "probes/nccl_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void busbw_formulas(void **state)
{
    (void)state;
    /* PERFORMANCE.md: all-reduce 2(n-1)/n, all-gather (n-1)/n. */
    assert_true(fabs(gd_nccl_busbw_factor(GD_NCCL_ALL_REDUCE, 8) - 1.75) < 1e-12);
    assert_true(fabs(gd_nccl_busbw_factor(GD_NCCL_ALL_GATHER, 8) - 0.875) < 1e-12);
    assert_true(fabs(gd_nccl_busbw_factor(GD_NCCL_ALL_REDUCE, 2) - 1.0) < 1e-12);
    assert_true(gd_nccl_busbw_factor(GD_NCCL_ALL_REDUCE, 1) == 0);
    assert_true(isnan(gd_nccl_busbw_factor(GD_NCCL_ALL_REDUCE, 0)));
    assert_true(fabs(gd_nccl_algbw_gbps((size_t)1 << 30, 0.01) - 107.3741824) < 1e-6);
    assert_true(isnan(gd_nccl_algbw_gbps(1024, 0)));
    assert_true(isnan(gd_nccl_algbw_gbps(0, 1)));
    assert_string_equal(gd_nccl_coll_name(GD_NCCL_ALL_GATHER), "all_gather");
}

static void sweep_sizes(void **state)
{
    (void)state;
    size_t s[GD_NCCL_MAX_POINTS];
    assert_int_equal(gd_nccl_sweep_sizes(GD_NCCL_MIN_BYTES, GD_NCCL_MAX_BYTES, 8, s, GD_NCCL_MAX_POINTS), 8);
    assert_int_equal(s[0], 8 << 20);
    assert_int_equal(s[7], 1 << 30);
    /* One size; whole float32 elements per rank (4 x 3 = 12 bytes). */
    assert_int_equal(gd_nccl_sweep_sizes(1000, 1000, 3, s, GD_NCCL_MAX_POINTS), 1);
    assert_int_equal(s[0], 996);
    /* The largest always ends the sweep, even past the table. */
    assert_int_equal(gd_nccl_sweep_sizes(1, (size_t)1 << 40, 2, s, 4), 4);
    assert_int_equal(s[3], (size_t)1 << 40);
    assert_int_equal(gd_nccl_sweep_sizes(2048, 1024, 2, s, 4), 0);
    assert_int_equal(gd_nccl_sweep_sizes(1024, 1024, 0, s, 4), 0);
}

static void ring_takes_its_slowest_edge(void **state)
{
    (void)state;
    gd_nccl_edge e[3] = {{0, 1, 450, 0.8, false, false, "NVLink"},
                         {1, 2, 425, 0.8, false, false, "17 links"},
                         {2, 0, 450, 0.8, false, false, "NVLink"}};
    gd_nccl_expect x;
    assert_int_equal(gd_nccl_expect_ring(e, 3, &x), 0);
    assert_true(fabs(x.busbw_gbps - 340) < 1e-9);
    assert_int_equal(x.slowest.gpu_a, 1);
    assert_string_equal(x.slowest.limit, "17 links");
    /* Among equal edges, the one with a link trained down is the one to blame. */
    gd_nccl_edge p[3] = {{0, 1, 32, 0.8, false, false, "Gen4 x16"},
                         {1, 2, 32, 0.8, false, true, "switch port trained at Gen3 x8"},
                         {2, 0, 32, 0.8, false, false, "Gen4 x16"}};
    assert_int_equal(gd_nccl_expect_ring(p, 3, &x), 0);
    assert_string_equal(x.slowest.limit, "switch port trained at Gen3 x8");
    /* An unknown edge: no expectation, and which one. */
    e[2].gbps = NAN;
    snprintf(e[2].limit, sizeof e[2].limit, "unknown path");
    assert_int_equal(gd_nccl_expect_ring(e, 3, &x), -1);
    assert_true(isnan(x.busbw_gbps));
    assert_string_equal(x.slowest.limit, "unknown path");
    assert_int_equal(gd_nccl_expect_ring(e, 0, &x), -1);
}

/* n GPUs on PCIe Gen4 x16 whose driver denies peer access between all of
 * them (an expectation the facts alone give: host-staged, half the link),
 * and a bench nccl that measured `busbw` (NAN: nothing). */
static void nccl_facts(gd_facts *f, size_t n, double busbw)
{
    fx_facts(f, n, 10);
    f->p2p_status = calloc(n * n, sizeof *f->p2p_status);
    for (size_t a = 0; a < n; a++) {
        f->gpus[a].pcie_gen_max = gd_val(4);
        f->gpus[a].pcie_width_max = gd_val(16);
        for (size_t b = 0; b < n; b++)
            f->p2p_status[a * n + b] = a == b ? -1 : 5; /* NVML_P2P_STATUS_NOT_SUPPORTED */
    }
    gd_bench_facts *b = gd_bench_facts_get(f);
    b->nccl = calloc(1, sizeof *b->nccl);
    gd_nccl_bench *x = b->nccl;
    x->ranks = (int)n;
    for (size_t i = 0; i < n; i++)
        x->gpus[i] = f->gpus[i].index;
    x->verdict = isnan(busbw) ? GD_VERIFY_NOT_RUN : GD_VERIFY_OK;
    x->peak_busbw_gbps[GD_NCCL_ALL_REDUCE] = x->peak_busbw_gbps[GD_NCCL_ALL_GATHER] = busbw;
    x->version = 22203;
}

static gd_findings judge(const gd_facts *f)
{
    gd_findings fs = {0};
    gd_check_run(gd_check_find("bench.nccl_failed"), f, &fs);
    gd_check_run(gd_check_find("bench.nccl_low"), f, &fs);
    return fs;
}

static size_t count(const gd_findings *fs, const char *id)
{
    size_t n = 0;
    for (size_t i = 0; i < fs->n; i++)
        n += strcmp(fs->v[i].id, id) == 0;
    return n;
}

static void host_staged_expectation(void **state)
{
    (void)state;
    gd_facts f;
    nccl_facts(&f, 4, 12);
    gd_nccl_expect x;
    assert_int_equal(gd_nccl_expect_of(&f, f.bench->nccl, &x), 0);
    /* Gen4 x16 (31.5 GB/s), half through the host, at 0.8. */
    assert_true(fabs(x.busbw_gbps - 0.8 * 0.5 * 31.5077) < 0.01);
    assert_true(x.slowest.host_staged);
    assert_non_null(strstr(x.slowest.limit, "denies peer access"));
    gd_facts_free(&f);
}

static void quiet_near_the_expectation(void **state)
{
    (void)state;
    gd_facts f;
    nccl_facts(&f, 4, 12); /* 95 % of 12.6 */
    gd_findings fs = judge(&f);
    assert_int_equal(count(&fs, "bench.nccl_low") + count(&fs, "bench.nccl_failed"), 0);
    gd_findings_free(&fs);
    f.bench->nccl->peak_busbw_gbps[GD_NCCL_ALL_REDUCE] = 7.6; /* 60 %: the bar itself */
    fs = judge(&f);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void low_names_the_settings(void **state)
{
    (void)state;
    gd_facts f;
    nccl_facts(&f, 4, 6.0); /* 48 %: a warning */
    gd_findings fs = judge(&f);
    assert_int_equal(count(&fs, "bench.nccl_low"), 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    assert_true(json_is_null(json_object_get(fs.v[0].evidence, "nccl_env")));
    assert_non_null(strstr(fs.v[0].fix, "NCCL_DEBUG=INFO"));
    gd_findings_free(&fs);
    /* 2 GB/s (16 %) with NCCL_SHM_DISABLE set: critical, and the setting is the fix. */
    f.bench->nccl->peak_busbw_gbps[GD_NCCL_ALL_REDUCE] = 2;
    snprintf(f.bench->nccl->env, sizeof f.bench->nccl->env, "NCCL_SHM_DISABLE=1");
    fs = judge(&f);
    assert_int_equal(count(&fs, "bench.nccl_low"), 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_CRITICAL);
    assert_string_equal(json_string_value(json_object_get(fs.v[0].evidence, "nccl_env")), "NCCL_SHM_DISABLE=1");
    assert_non_null(strstr(fs.v[0].fix, "unset it"));
    assert_non_null(strstr(fs.v[0].title, "NCCL_SHM_DISABLE=1"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void failures_and_notes(void **state)
{
    (void)state;
    gd_facts f;
    nccl_facts(&f, 2, NAN);
    gd_nccl_bench *n = f.bench->nccl;
    n->verdict = GD_VERIFY_WRONG;
    n->failed = true;
    snprintf(n->detail, sizeof n->detail, "all-reduce (sum) of known values: GPU rank 1 element 9 is 4, expected 3");
    gd_findings fs = judge(&f);
    assert_int_equal(count(&fs, "bench.nccl_failed"), 1);
    assert_int_equal(count(&fs, "bench.nccl_low"), 0); /* no figure: a note */
    assert_non_null(strstr(fs.v[0].title, "wrong data"));
    gd_findings_free(&fs);
    /* An NCCL error. */
    n->verdict = GD_VERIFY_NOT_RUN;
    snprintf(n->error, sizeof n->error, "ncclCommInitAll failed: ncclSystemError (unhandled system error)");
    fs = judge(&f);
    assert_int_equal(count(&fs, "bench.nccl_failed"), 1);
    assert_non_null(strstr(fs.v[0].title, "ncclCommInitAll"));
    gd_findings_free(&fs);
    /* One GPU: nothing measured, nothing judged. */
    n->failed = false;
    n->error[0] = '\0';
    snprintf(n->skipped, sizeof n->skipped, "1 CUDA device: NCCL's collectives need two GPUs or more");
    fs = judge(&f);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    /* Not run: bench's other runs leave the checks quiet. */
    free(f.bench->nccl);
    f.bench->nccl = NULL;
    fs = judge(&f);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(busbw_formulas),          cmocka_unit_test(sweep_sizes),
        cmocka_unit_test(ring_takes_its_slowest_edge), cmocka_unit_test(host_staged_expectation),
        cmocka_unit_test(quiet_near_the_expectation),  cmocka_unit_test(low_names_the_settings),
        cmocka_unit_test(failures_and_notes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
