/* SPDX-License-Identifier: Apache-2.0 */
/* pcie.bandwidth_low (src/checks/pcie_bandwidth.c): bench pcie's pinned
 * copies against what each GPU's link allows (Gen4 x16: 31.5 GB/s). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/pcie.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two Gen4 x16 GPUs whose bench pcie copied 25 GB/s host to device and
 * 26 back with pinned memory (79 % of the link: healthy). */
static gd_pcie_bench *bench_pcie(gd_facts *f)
{
    fx_facts(f, 2, 2);
    f->pcie = calloc(1, sizeof *f->pcie);
    gd_pcie_bench *b = f->pcie->bench = calloc(1, sizeof *f->pcie->bench);
    b->gpu_count = 2;
    b->gpus = calloc(2, sizeof *b->gpus);
    for (int g = 0; g < 2; g++) {
        f->gpus[g].pcie_gen_max = gd_val(4);
        f->gpus[g].pcie_width_max = gd_val(16);
        gd_pcie_bench_gpu *bg = &b->gpus[g];
        *bg = (gd_pcie_bench_gpu){.gpu = g, .cuda_device = g};
        for (int d = 0; d < 2; d++)
            for (int m = 0; m < 2; m++)
                bg->single_gbps[d][m] = bg->concurrent_gbps[d][m] = NAN;
        bg->single_gbps[GD_BW_H2D][GD_BW_PINNED] = 25;
        bg->single_gbps[GD_BW_D2H][GD_BW_PINNED] = 26;
    }
    return b;
}

static void bandwidth_low_warns_under_60_percent(void **state)
{
    (void)state;
    gd_facts f;
    gd_pcie_bench *b = bench_pcie(&f);
    b->gpus[1].single_gbps[GD_BW_H2D][GD_BW_PINNED] = 15; /* 48 % */
    gd_findings fs = fx_run_one(&f, "pcie.bandwidth_low");
    const gd_finding *x = fx_only(&fs, "pcie.bandwidth_low");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_int_equal(x->gpu, 1);
    assert_string_equal(x->title, "GPU 1 h2d bandwidth 15.0 GB/s, 48% of the 31.5 GB/s a Gen4 x16 link allows");
    assert_float_equal(json_number_value(json_object_get(x->evidence, "of_theoretical_pct")), 47.6, 1e-9);
    assert_float_equal(json_number_value(json_object_get(x->evidence, "theoretical_gbps")), 31.51, 1e-9);
    assert_float_equal(json_number_value(json_object_get(x->evidence, "healthy_gbps")), 25.21, 1e-9);
    assert_int_equal(json_integer_value(json_object_get(x->evidence, "link_width")), 16);
    assert_null(json_object_get(x->evidence, "link_width_seen")); /* the link was not read below */
    assert_non_null(strstr(x->fix, "Healthy Gen4 x16 links reach about 25 GB/s"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Under 40 %: critical; the worse direction is the one named. */
static void bandwidth_low_is_critical_under_40_percent(void **state)
{
    (void)state;
    gd_facts f;
    gd_pcie_bench *b = bench_pcie(&f);
    b->gpus[0].single_gbps[GD_BW_H2D][GD_BW_PINNED] = 15;
    b->gpus[0].single_gbps[GD_BW_D2H][GD_BW_PINNED] = 10;
    gd_findings fs = fx_run_one(&f, "pcie.bandwidth_low");
    const gd_finding *x = fx_only(&fs, "pcie.bandwidth_low");
    assert_int_equal(x->severity, GD_SEV_CRITICAL);
    assert_int_equal(x->gpu, 0);
    assert_string_equal(x->title, "GPU 0 d2h bandwidth 10.0 GB/s, 32% of the 31.5 GB/s a Gen4 x16 link allows");
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* The link read right after the copies trained at x4: the cause, said first. */
static void bandwidth_low_names_a_link_trained_below(void **state)
{
    (void)state;
    gd_facts f;
    gd_pcie_bench *b = bench_pcie(&f);
    b->gpus[1].single_gbps[GD_BW_H2D][GD_BW_PINNED] = 6;
    b->gpus[1].single_gbps[GD_BW_D2H][GD_BW_PINNED] = 6.5;
    b->gpus[1].link_gen = gd_val(4);
    b->gpus[1].link_width = gd_val(4);
    gd_findings fs = fx_run_one(&f, "pcie.bandwidth_low");
    const gd_finding *x = fx_only(&fs, "pcie.bandwidth_low");
    assert_int_equal(x->severity, GD_SEV_CRITICAL);
    assert_string_equal(x->title, "GPU 1 h2d bandwidth 6.0 GB/s, 19% of the 31.5 GB/s a Gen4 x16 link allows; it "
                                  "trained at Gen4 x4 (7.9 GB/s)");
    assert_int_equal(json_integer_value(json_object_get(x->evidence, "link_width_seen")), 4);
    assert_non_null(strstr(x->fix, "The link runs at Gen4 x4, below the Gen4 x16 it should reach"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void bandwidth_low_quiet_near_the_link(void **state)
{
    (void)state;
    gd_facts f;
    gd_pcie_bench *b = bench_pcie(&f);
    fx_assert_silent(&f, "pcie.bandwidth_low");
    b->gpus[1].single_gbps[GD_BW_H2D][GD_BW_PINNED] = 19; /* 60 %: the bar itself */
    fx_assert_silent(&f, "pcie.bandwidth_low");
    gd_facts_free(&f);
}

/* Not measured (check, not bench), a copy that failed, a CUDA device no
 * GPU matches, a Grace Hopper's C2C host path: said, never passed. */
static void bandwidth_low_not_checked_and_why(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 2);
    gd_findings fs = fx_run_one(&f, "pcie.bandwidth_low");
    assert_true(fx_skipped(&fs, "pcie.bandwidth_low", GD_NO_GPU, "measured by 'gpudoctor bench pcie', not during"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    gd_pcie_bench *b = bench_pcie(&f);
    snprintf(b->gpus[0].error, sizeof b->gpus[0].error, "cuMemAllocHost failed: CUDA_ERROR_OUT_OF_MEMORY");
    b->gpus[1].gpu = -1;
    b->gpus[1].cuda_device = 3;
    fs = fx_run_one(&f, "pcie.bandwidth_low");
    assert_int_equal(fs.n, 0);
    assert_true(fx_skipped(&fs, "pcie.bandwidth_low", 0,
                           "GPU 0 not measured: cuMemAllocHost failed: CUDA_ERROR_OUT_OF_MEMORY"));
    assert_true(
        fx_skipped(&fs, "pcie.bandwidth_low", GD_NO_GPU, "CUDA device 3: the link it should reach is not known"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    b = bench_pcie(&f);
    b->gpus[0].single_gbps[GD_BW_H2D][GD_BW_PINNED] = 1; /* GH200's PCIe Gen4 x1 is not its host path */
    f.gpus[0].c2c_mode = gd_val(1);
    fs = fx_run_one(&f, "pcie.bandwidth_low");
    assert_int_equal(fs.n, 0);
    assert_true(fx_skipped(&fs, "pcie.bandwidth_low", 0, "reaches the host over NVLink-C2C"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bandwidth_low_warns_under_60_percent),
        cmocka_unit_test(bandwidth_low_is_critical_under_40_percent),
        cmocka_unit_test(bandwidth_low_names_a_link_trained_below),
        cmocka_unit_test(bandwidth_low_quiet_near_the_link),
        cmocka_unit_test(bandwidth_low_not_checked_and_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
