/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the path between two GPUs allows (analysis/p2p_path.c) from literal
 * facts: NVSwitch links and their rate, a GPU with a link down held to the
 * node's healthy count, PCIe pairs below a shared switch and across a
 * downtrained uplink, an idle GPU's parked link, no tree at all, and pairs
 * across two sockets, where the link between the CPUs is a hop of its own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/p2p_path.h"
#include "facts_fixture.h"
#include "gpudoctor/pcie.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void nvswitch_pairs(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 3, 1);
    for (size_t g = 0; g < 3; g++)
        fx_nvswitch(&f, g, 18, g == 2 ? 17 : 18, 6);
    gd_p2p_path p;
    assert_int_equal(gd_p2p_path_of(&f, 0, 1, &p), 0);
    assert_int_equal(p.route, GD_P2P_ROUTE_NVLINK);
    assert_int_equal(p.nvlinks, 18);
    assert_true(fabs(p.gbps - 450) < 1e-9);
    assert_non_null(strstr(p.limit, "NVLink 4.0"));
    /* GPU 2 with a link down: the pair has 17, held to the node's 18. */
    assert_int_equal(gd_p2p_path_of(&f, 2, 0, &p), 0);
    assert_int_equal(p.nvlinks, 17);
    assert_int_equal(p.nvlinks_healthy, 18);
    assert_true(fabs(p.gbps - 450) < 1e-9);
    /* Its rate is the active links' (17 x 25 = 425), the healthy pair's beside it (issue 39: "17 of them
     * active, 450.0 GB/s"). */
    assert_non_null(strstr(p.limit, "17 of 18 NVLink 4.0 links active on this pair x 25 GB/s = 425.0 GB/s (450.0 "
                                    "with all 18)"));
    assert_true(fabs(gd_p2p_path_rate(&p, true) - 425) < 1e-9);
    assert_true(fabs(gd_p2p_path_rate(&p, false) - 450) < 1e-9);
    /* NVML's common speed, where read, is the link's rate. */
    f.gpus[0].nvlink_speed_mbps = f.gpus[1].nvlink_speed_mbps = gd_val(26562);
    assert_int_equal(gd_p2p_path_of(&f, 0, 1, &p), 0);
    assert_true(fabs(p.link_gbps - 26.562) < 1e-9);
    assert_int_equal(gd_p2p_path_of(&f, 1, 1, &p), -1);
    gd_facts_free(&f);
}

/* GPUs 0 and 1 behind switch A, 2 and 3 behind switch B, one host bridge;
 * B's upstream port 0000:38:00.0 trained at b_gen x b_width of Gen4 x16. */
static void two_switches(gd_facts *f, int b_gen, int b_width)
{
    static const char *const gpu[] = {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0"};
    static const char *const dsp[] = {"0000:17:00.0", "0000:17:01.0", "0000:39:00.0", "0000:39:01.0"};
    gd_pcie_facts *p = calloc(1, sizeof *p);
    p->gpu_count = 4;
    p->gpus = calloc(4, sizeof *p->gpus);
    for (size_t g = 0; g < 4; g++) {
        gd_pcie_gpu *pg = &p->gpus[g];
        pg->gpu = (int)g;
        pg->matched = true;
        snprintf(pg->bdf, sizeof pg->bdf, "%s", gpu[g]);
        snprintf(pg->host_bridge, sizeof pg->host_bridge, "pci0000:00");
        pg->numa_node = gd_val(0);
        const char *bdfs[] = {gpu[g], dsp[g], g < 2 ? "0000:16:00.0" : "0000:38:00.0",
                              g < 2 ? "0000:00:01.0" : "0000:00:03.0"};
        const char *roles[] = {"gpu", "switch_port", "switch_port", "root_port"};
        pg->hop_count = 4;
        for (size_t k = 0; k < 4; k++) {
            gd_pcie_hop *h = &pg->hops[k];
            snprintf(h->bdf, sizeof h->bdf, "%s", bdfs[k]);
            snprintf(h->role, sizeof h->role, "%s", roles[k]);
            h->gen_max = gd_val(4);
            h->width_max = gd_val(16);
            bool uplink = g >= 2 && k >= 2; /* B's upstream port and the root port above it share that link */
            h->gen = gd_val(uplink ? b_gen : 4);
            h->width = gd_val(uplink ? b_width : 16);
        }
        snprintf(f->gpus[g].pci_bus_id, sizeof f->gpus[g].pci_bus_id, "0000%s", gpu[g]);
    }
    f->pcie = p;
}

static void pcie_pairs(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 4, 1);
    two_switches(&f, 3, 8);
    gd_p2p_path p;
    /* Within a switch: the GPUs' own Gen4 x16 links. */
    assert_int_equal(gd_p2p_path_of(&f, 2, 3, &p), 0);
    assert_int_equal(p.route, GD_P2P_ROUTE_SWITCH);
    assert_int_equal(p.level, GD_TOPO_PIX);
    assert_true(fabs(p.gbps - 31.5077) < 1e-3);
    assert_false(p.downtrained);
    /* Across: the uplink, blamed at the rate it trained to, the path held to what it can. */
    assert_int_equal(gd_p2p_path_of(&f, 0, 3, &p), 0);
    assert_int_equal(p.route, GD_P2P_ROUTE_HOST);
    assert_true(fabs(p.gbps - 31.5077) < 1e-3);
    assert_true(p.downtrained);
    assert_non_null(strstr(p.limit, "Gen3 x8 of Gen4 x16"));
    assert_true(strcmp(p.slowest_bdf, "0000:38:00.0") == 0 || strcmp(p.slowest_bdf, "0000:00:03.0") == 0);
    assert_int_equal(p.blame_gpu, -1); /* a bridge several GPUs share */
    gd_facts_free(&f);

    /* An idle GPU's link parked at Gen1 is no fault; trained at x8 it is, and the GPU is blamed. */
    fx_facts(&f, 4, 1);
    two_switches(&f, 4, 16);
    f.pcie->gpus[1].hops[0].gen = gd_val(1);
    f.pcie->gpus[1].hops[1].gen = gd_val(1);
    assert_int_equal(gd_p2p_path_of(&f, 0, 1, &p), 0);
    assert_false(p.downtrained);
    f.pcie->gpus[1].hops[0].width = f.pcie->gpus[1].hops[1].width = gd_val(8);
    assert_int_equal(gd_p2p_path_of(&f, 0, 1, &p), 0);
    assert_true(p.downtrained);
    assert_true(strcmp(p.slowest_bdf, "0000:2a:00.0") == 0 || strcmp(p.slowest_bdf, "0000:17:01.0") == 0);
    assert_non_null(strstr(p.limit, "Gen4 x8 of Gen4 x16"));
    assert_int_equal(p.blame_gpu, 1);
    gd_facts_free(&f);
}

static void no_tree(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 1);
    f.gpus[0].pcie_gen_max = f.gpus[1].pcie_gen_max = gd_val(3);
    f.gpus[0].pcie_width_max = f.gpus[1].pcie_width_max = gd_val(16);
    gd_p2p_path p;
    assert_int_equal(gd_p2p_path_of(&f, 0, 1, &p), 0);
    assert_int_equal(p.route, GD_P2P_ROUTE_UNKNOWN);
    assert_true(fabs(p.gbps - 15.7538) < 1e-3);
    assert_non_null(strstr(p.limit, "no PCIe tree"));
    f.gpus[1].pcie_gen_max = gd_missing(GD_ST_NOT_SUPPORTED);
    f.gpus[0].pcie_gen_max = gd_missing(GD_ST_NOT_SUPPORTED);
    assert_int_equal(gd_p2p_path_of(&f, 0, 1, &p), -1);
    assert_true(isnan(p.gbps));
    gd_facts_free(&f);
}

/* Two sockets, a GPU per root port (Gen4 x16): GPUs 0 and 1 on host bridges
 * of NUMA node 0, 2 and 3 on node 1; the root ports' PCI vendor `vendor`. */
static void two_sockets(gd_facts *f, int vendor)
{
    static const char *const gpu[] = {"0000:01:00.0", "0000:21:00.0", "0000:81:00.0", "0000:a1:00.0"};
    static const char *const port[] = {"0000:00:01.1", "0000:20:01.1", "0000:80:01.1", "0000:a0:01.1"};
    static const char *const hb[] = {"pci0000:00", "pci0000:20", "pci0000:80", "pci0000:a0"};
    fx_facts(f, 4, 1);
    gd_pcie_facts *p = calloc(1, sizeof *p);
    p->gpu_count = 4;
    p->gpus = calloc(4, sizeof *p->gpus);
    for (size_t g = 0; g < 4; g++) {
        gd_pcie_gpu *pg = &p->gpus[g];
        fx_pcie_path(pg, hb[g], g < 2 ? 0 : 1, (const char *const[]){gpu[g], port[g], NULL});
        pg->gpu = (int)g;
        pg->matched = true;
        pg->hops[1].vendor = vendor;
        for (size_t k = 0; k < pg->hop_count; k++) {
            pg->hops[k].gen = pg->hops[k].gen_max = gd_val(4);
            pg->hops[k].width = pg->hops[k].width_max = gd_val(16);
        }
    }
    f->pcie = p;
}

static void across_two_sockets(void **state)
{
    (void)state;
    gd_facts f;
    two_sockets(&f, 0x1022);
    gd_p2p_path p;
    /* Within a socket: the PCIe links alone. */
    assert_int_equal(gd_p2p_path_of(&f, 0, 1, &p), 0);
    assert_int_equal(p.route, GD_P2P_ROUTE_HOST);
    assert_true(isnan(p.cpu_gbps));
    assert_false(gd_p2p_path_cpu_limited(&p));
    assert_true(fabs(gd_p2p_path_expected(&p, false) - 0.8 * 31.5077) < 1e-3);
    /* Across: EPYC's Infinity Fabric carries 16 GB/s of a copy (NCCL's AMD_BW), less than the links. */
    assert_int_equal(gd_p2p_path_of(&f, 0, 2, &p), 0);
    assert_int_equal(p.route, GD_P2P_ROUTE_SYS);
    assert_true(fabs(p.gbps - 31.5077) < 1e-3); /* the PCIe links, as before */
    assert_true(fabs(p.cpu_gbps - 16) < 1e-9);
    assert_string_equal(p.cpu_link, "AMD Infinity Fabric (xGMI)");
    assert_false(p.cpu_assumed);
    assert_true(gd_p2p_path_cpu_limited(&p));
    assert_true(fabs(gd_p2p_path_expected(&p, false) - 16) < 1e-9);
    assert_non_null(strstr(p.limit, "NCCL AMD_BW"));
    /* GPU 2 trained at x8: the path is held to what it can, the link blamed; as it runs, 0.8 of Gen4 x8. */
    f.pcie->gpus[2].hops[0].width = f.pcie->gpus[2].hops[1].width = gd_val(8);
    assert_int_equal(gd_p2p_path_of(&f, 0, 2, &p), 0);
    assert_true(p.downtrained);
    assert_int_equal(p.blame_gpu, 2);
    assert_true(fabs(gd_p2p_path_expected(&p, false) - 16) < 1e-9);
    assert_true(fabs(gd_p2p_path_expected(&p, true) - 0.8 * 15.7538) < 1e-3);
    gd_facts_free(&f);
    /* Intel's UPI (Skylake-SP and later): 10 GB/s (SKL_QPI_BW). */
    two_sockets(&f, 0x8086);
    assert_int_equal(gd_p2p_path_of(&f, 1, 3, &p), 0);
    assert_true(fabs(gd_p2p_path_expected(&p, false) - 10) < 1e-9);
    assert_string_equal(p.cpu_link, "Intel UPI");
    gd_facts_free(&f);
    /* POWER9's X-Bus carries more than the Gen4 links: they set it. */
    two_sockets(&f, 0x1014);
    assert_int_equal(gd_p2p_path_of(&f, 1, 3, &p), 0);
    assert_false(gd_p2p_path_cpu_limited(&p));
    assert_true(fabs(gd_p2p_path_expected(&p, false) - 0.8 * 31.5077) < 1e-3);
    gd_facts_free(&f);
    /* A platform not known (a fixture tree, a VM's ports, two makers): the least of any CPU link. */
    two_sockets(&f, 0);
    assert_int_equal(gd_p2p_path_of(&f, 1, 3, &p), 0);
    assert_true(p.cpu_assumed);
    assert_true(fabs(gd_p2p_path_expected(&p, false) - 6) < 1e-9);
    f.pcie->gpus[1].hops[1].vendor = 0x1022;
    f.pcie->gpus[3].hops[1].vendor = 0x8086;
    assert_int_equal(gd_p2p_path_of(&f, 1, 3, &p), 0);
    assert_true(p.cpu_assumed);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nvswitch_pairs),
        cmocka_unit_test(pcie_pairs),
        cmocka_unit_test(no_tree),
        cmocka_unit_test(across_two_sockets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
