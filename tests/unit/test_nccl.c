/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench nccl's pure logic: nccl-tests' bus bandwidth formulas and the sweep's
 * sizes (src/probes/nccl_bench.c), the ring's expectation: its slowest edge,
 * a downtrained one named among equals (src/analysis/nccl_expect.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/nccl_expect.h"
#include "probes/nccl_bench.h"

#include <math.h>
#include <stdio.h>
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
    gd_nccl_edge e[3] = {{0, 1, 450, 0.8, false, false, "NVLink", NAN, NAN},
                         {1, 2, 425, 0.8, false, false, "17 links", NAN, NAN},
                         {2, 0, 450, 0.8, false, false, "NVLink", NAN, NAN}};
    gd_nccl_expect x;
    assert_int_equal(gd_nccl_expect_ring(e, 3, &x), 0);
    assert_true(fabs(x.busbw_gbps - 340) < 1e-9);
    assert_int_equal(x.slowest.gpu_a, 1);
    assert_string_equal(x.slowest.limit, "17 links");
    /* Among equal edges, the one with a link trained down is the one to blame. */
    gd_nccl_edge p[3] = {{0, 1, 32, 0.8, false, false, "Gen4 x16", NAN, NAN},
                         {1, 2, 32, 0.8, false, true, "switch port trained at Gen3 x8", NAN, NAN},
                         {2, 0, 32, 0.8, false, false, "Gen4 x16", NAN, NAN}};
    assert_int_equal(gd_nccl_expect_ring(p, 3, &x), 0);
    assert_string_equal(x.slowest.limit, "switch port trained at Gen3 x8");
    /* Two sockets: the ring is held to what the CPUs' link carries (16, already what a copy reaches); a
     * link trained down within a socket slows it below that now, and is the one named. */
    gd_nccl_edge s[3] = {{0, 1, 31.5, 0.8, false, false, "Gen4 x16", NAN, NAN},
                         {1, 2, 16, 1, false, false, "AMD Infinity Fabric (xGMI)", NAN, NAN},
                         {2, 0, 31.5, 0.8, false, true, "GPU 0 trained at Gen4 x8", 0.8 * 15.75, NAN}};
    assert_int_equal(gd_nccl_expect_ring(s, 3, &x), 0);
    assert_true(fabs(x.busbw_gbps - 16) < 1e-9);
    assert_string_equal(x.slowest.limit, "GPU 0 trained at Gen4 x8");
    s[2].downtrained = false;
    s[2].now_gbps = NAN;
    assert_int_equal(gd_nccl_expect_ring(s, 3, &x), 0);
    assert_string_equal(x.slowest.limit, "AMD Infinity Fabric (xGMI)");
    /* An unknown edge: no expectation, and which one. */
    e[2].gbps = NAN;
    snprintf(e[2].limit, sizeof e[2].limit, "unknown path");
    assert_int_equal(gd_nccl_expect_ring(e, 3, &x), -1);
    assert_true(isnan(x.busbw_gbps));
    assert_string_equal(x.slowest.limit, "unknown path");
    assert_int_equal(gd_nccl_expect_ring(e, 0, &x), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(busbw_formulas),
        cmocka_unit_test(sweep_sizes),
        cmocka_unit_test(ring_takes_its_slowest_edge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
