/* SPDX-License-Identifier: Apache-2.0 */
/* PCIe helpers (src/core/pcie_util.h) and the topology levels derived from
 * PCIe paths (src/analysis/topology.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/pcie.h"
#include "analysis/topology.h"
#include "core/pcie_util.h"

#include <math.h>
#include <string.h>

static void speed_strings_of_old_and_new_kernels(void **state)
{
    (void)state;
    assert_true(gd_pcie_parse_speed("8 GT/s") == 8.0); /* kernels <= 5.6 */
    assert_true(gd_pcie_parse_speed("8.0 GT/s PCIe\n") == 8.0); /* newer */
    assert_true(gd_pcie_parse_speed("2.5 GT/s PCIe") == 2.5);
    assert_true(gd_pcie_parse_speed("16GT/s") == 16.0); /* lspci */
    assert_true(isnan(gd_pcie_parse_speed("Unknown")));
    assert_true(isnan(gd_pcie_parse_speed("Unknown speed")));
    assert_true(isnan(gd_pcie_parse_speed("8 MB/s")));
    assert_int_equal(gd_pcie_gen_of_speed(2.5), 1);
    assert_int_equal(gd_pcie_gen_of_speed(32), 5);
    assert_int_equal(gd_pcie_gen_of_speed(7), 0);
    /* Per direction: 15.75 / 31.5 / 63 GB/s at x16 (research/facts.md 2.1). */
    assert_true(fabs(gd_pcie_link_gbps(3, 16) - 15.75) < 0.01);
    assert_true(fabs(gd_pcie_link_gbps(4, 16) - 31.5) < 0.02);
    assert_true(fabs(gd_pcie_link_gbps(5, 16) - 63.0) < 0.03);
    assert_true(fabs(gd_pcie_link_gbps(1, 16) - 4.0) < 0.001);
    assert_true(isnan(gd_pcie_link_gbps(0, 16)));
}

static void bus_ids_and_cpulists(void **state)
{
    (void)state;
    char b[16];
    assert_int_equal(gd_pcie_norm_bdf("00000000:1B:00.0", b, sizeof b), 0);
    assert_string_equal(b, "0000:1b:00.0");
    assert_int_equal(gd_pcie_norm_bdf("1b:00.0", b, sizeof b), 0);
    assert_string_equal(b, "0000:1b:00.0");
    assert_int_equal(gd_pcie_norm_bdf("garbage", b, sizeof b), -1);
    assert_true(gd_cpulist_has("0-23,48-71", 50));
    assert_false(gd_cpulist_has("0-23,48-71", 24));
    assert_int_equal(gd_cpulist_count("0-23,48-71"), 48);
    assert_int_equal(gd_cpulist_count("5"), 1);
    assert_int_equal(gd_cpulist_count("3-1"), 0);
    assert_int_equal(gd_cpulist_count(""), 0);
}

static void topology_levels_from_paths(void **state)
{
    (void)state;
    gd_pcie_gpu a, b, c, d, e, x;
    /* One switch: a and b; a second-level switch under it: c. */
    fx_pcie_path(&a, "pci0000:00", 0,
                 (const char *const[]){"0000:03:00.0", "0000:02:00.0", "0000:01:00.0", "0000:00:01.0", NULL});
    fx_pcie_path(&b, "pci0000:00", 0,
                 (const char *const[]){"0000:07:00.0", "0000:02:02.0", "0000:01:00.0", "0000:00:01.0", NULL});
    fx_pcie_path(&c, "pci0000:00", 0,
                 (const char *const[]){"0000:06:00.0", "0000:05:00.0", "0000:04:00.0", "0000:02:01.0", "0000:01:00.0",
                                       "0000:00:01.0", NULL});
    /* Another root port of the same host bridge; another host bridge on the
     * same node; another node. */
    fx_pcie_path(&d, "pci0000:00", 0, (const char *const[]){"0000:41:00.0", "0000:00:03.0", NULL});
    fx_pcie_path(&e, "pci0000:40", 0, (const char *const[]){"0000:42:00.0", "0000:40:01.0", NULL});
    fx_pcie_path(&x, "pci0000:80", 1, (const char *const[]){"0000:81:00.0", "0000:80:01.0", NULL});
    assert_int_equal(gd_topo_pair_level(&a, &a), GD_TOPO_SELF);
    assert_int_equal(gd_topo_pair_level(&a, &b), GD_TOPO_PIX);
    assert_int_equal(gd_topo_pair_level(&a, &c), GD_TOPO_PXB);
    assert_int_equal(gd_topo_pair_level(&c, &b), GD_TOPO_PXB);
    assert_int_equal(gd_topo_pair_level(&a, &d), GD_TOPO_PHB);
    assert_int_equal(gd_topo_pair_level(&a, &e), GD_TOPO_NODE);
    assert_int_equal(gd_topo_pair_level(&e, &x), GD_TOPO_SYS);
    x.numa_node = gd_missing(GD_ST_NOT_SUPPORTED);
    assert_int_equal(gd_topo_pair_level(&e, &x), GD_TOPO_UNKNOWN);
    char cell[16];
    gd_topo_cell_label((gd_topo_cell){GD_TOPO_SYS, 18}, cell, sizeof cell);
    assert_string_equal(cell, "NV18");
    gd_topo_cell_label((gd_topo_cell){GD_TOPO_PXB, 0}, cell, sizeof cell);
    assert_string_equal(cell, "PXB");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(speed_strings_of_old_and_new_kernels),
        cmocka_unit_test(bus_ids_and_cpulists),
        cmocka_unit_test(topology_levels_from_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
