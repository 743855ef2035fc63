/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench.nccl_low and bench.nccl_failed (src/checks/nccl.c) from literal facts:
 * the ring's expectation with peer access denied (staged through the host),
 * quiet near it, bench.nccl_low under 60 % (critical under 25 %) with the NCCL
 * settings as the cause, bench.nccl_failed for wrong data, notes when nothing
 * was measured.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/nccl_expect.h"
#include "facts_fixture.h"
#include "gpudoctor/bench.h"
#include "gpudoctor/checks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* n GPUs on PCIe Gen4 x16 whose driver denies peer access between all of
 * them (an expectation the facts alone give: host-staged, half the link),
 * and a bench nccl that measured `busbw` (NAN: nothing). */
static void nccl_facts(gd_facts *f, size_t n, double busbw)
{
    fx_facts_no_peer_access(f, n);
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

/* Where the slow pair is measured: by 'gpudoctor bench p2p', or (bench all,
 * the copies measured beside the ring) in this very report; never 'gpudoctor
 * topo', which shows the wiring and not the links' speeds (issue 39). */
static void fix_points_at_what_measures_the_pairs(void **state)
{
    (void)state;
    gd_facts f;
    nccl_facts(&f, 4, 6.0);
    gd_findings fs = judge(&f);
    const gd_finding *x = fx_only(&fs, "bench.nccl_low");
    assert_non_null(strstr(x->fix, "'gpudoctor bench p2p'"));
    assert_null(strstr(x->fix, "gpudoctor topo"));
    gd_findings_free(&fs);
    f.bench->p2p = true; /* bench all */
    fs = judge(&f);
    x = fx_only(&fs, "bench.nccl_low");
    assert_non_null(strstr(x->fix, "GPU-to-GPU copies of this report"));
    assert_null(strstr(x->fix, "gpudoctor bench p2p"));
    gd_findings_free(&fs);
    /* Wrong data, the copies measured beside it: read them, do not run them again. */
    f.bench->nccl->verdict = GD_VERIFY_WRONG;
    f.bench->nccl->failed = true;
    fs = judge(&f);
    x = fx_only(&fs, "bench.nccl_failed");
    assert_non_null(strstr(x->fix, "GPU-to-GPU copies of this report"));
    assert_null(strstr(x->fix, "gpudoctor bench p2p"));
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
        cmocka_unit_test(host_staged_expectation),
        cmocka_unit_test(quiet_near_the_expectation),
        cmocka_unit_test(low_names_the_settings),
        cmocka_unit_test(failures_and_notes),
        cmocka_unit_test(fix_points_at_what_measures_the_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
