/* SPDX-License-Identifier: Apache-2.0 */
/* The training network of a simulated node (src/sources/net/net_scenario.c):
 * every examples/net-*.json gives f->net its NICs, interfaces, GPUDirect's
 * module and ACS; where its sysfs tree has the NICs' PCI functions, the
 * bdfs are the tree's (the topology joins them to the GPUs); counters grow
 * as the scenario says by the window's end. */
#include "sources/net/net_collect.h"

#include "scenario.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

static gd_scenario *load(const char *name)
{
    char path[512], err[512] = "";
    snprintf(path, sizeof path, "%s/examples/%s", GD_SOURCE_DIR, name);
    gd_scenario *sc = gd_scenario_load(path, err, sizeof err);
    if (!sc)
        fail_msg("%s", err);
    return sc;
}

static void every_example_fills_the_network(void **state)
{
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/examples", GD_SOURCE_DIR);
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t seen = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "net-", 4) != 0 || len < 5 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        seen++;
        gd_scenario *sc = load(e->d_name);
        gd_net_facts *n = gd_net_from_scenario(sc, e->d_name);
        if (!n)
            fail_msg("%s: no network facts", e->d_name);
        assert_true(n->devices_read);
        assert_true(n->ifaces_read);
        assert_int_not_equal(n->peermem, GD_PEERMEM_UNKNOWN);
        for (size_t i = 0; i < n->dev_count; i++) {
            assert_true(n->devs[i].port_count > 0);
            if (!sc->host.sysfs)
                continue;
            char path[1024];
            struct stat st;
            snprintf(path, sizeof path, "%s/bus/pci/devices/%s", sc->host.sysfs, n->devs[i].bdf);
            if (stat(path, &st) != 0)
                fail_msg("%s: %s (%s) is not in its sysfs tree", e->d_name, n->devs[i].name, n->devs[i].bdf);
        }
        gd_net_facts_free(n);
        gd_scenario_free(sc);
    }
    closedir(d);
    assert_true(seen >= 10);
}

static void counters_at_the_window_end(void **state)
{
    (void)state;
    gd_scenario *sc = load("net-ib-symbol-errors.json");
    gd_net_facts *n = gd_net_from_scenario(sc, "x");
    assert_non_null(n);
    assert_int_equal(n->dev_count, 8);
    const gd_net_port *p = &gd_net_dev_by_name(n, "mlx5_2")->ports[0];
    assert_float_equal(p->counters_first[GD_PC_SYMBOL_ERROR].v, 1200, 0);
    assert_float_equal(p->counters_last[GD_PC_SYMBOL_ERROR].v, 1200, 0);
    assert_float_equal(p->counter_span_s, 0, 0);
    gd_net_scenario_at(n, sc, 30);
    assert_float_equal(p->counters_first[GD_PC_SYMBOL_ERROR].v, 1200, 0);
    assert_float_equal(p->counters_last[GD_PC_SYMBOL_ERROR].v, 1200 + 40 * 30, 1e-9);
    assert_float_equal(p->counters_last[GD_PC_RCV_ERRORS].v, 5 * 30, 1e-9);
    assert_float_equal(p->counter_span_s, 30, 0);
    const gd_net_port *q = &gd_net_dev_by_name(n, "mlx5_0")->ports[0];
    assert_float_equal(q->counters_last[GD_PC_SYMBOL_ERROR].v, 0, 0); /* a clean port stays at 0 */
    assert_int_equal(q->counters_last[GD_PC_OUT_OF_BUFFER].status, GD_ST_NOT_SUPPORTED); /* not given */
    assert_int_equal(q->state, GD_PORT_ACTIVE);
    assert_int_equal(q->phys, GD_PORT_PHYS_LINKUP);
    assert_float_equal(q->rate_gbps.v, 400, 0);
    assert_int_equal(q->netdev_up, 1); /* ib0, from the interfaces */
    gd_net_facts_free(n);
    gd_scenario_free(sc);

    /* An Ethernet-only node: devices read, none; no module. */
    sc = load("net-eth-cloud-vm.json");
    n = gd_net_from_scenario(sc, "x");
    assert_true(n->devices_read);
    assert_int_equal(n->dev_count, 0);
    assert_int_equal(n->peermem, GD_PEERMEM_ABSENT);
    assert_false(n->acs_read);
    gd_net_facts_free(n);
    gd_scenario_free(sc);

    /* A scenario that says nothing of its network: nothing read. */
    sc = load("h100x8-training.json");
    assert_null(gd_net_from_scenario(sc, "x"));
    gd_scenario_free(sc);
}

/* A NIC whose bdf the scenario's PCIe tree does not have: refused, named. */
static void nics_and_the_pcie_tree_agree(void **state)
{
    (void)state;
    gd_scenario *sc = load("net-ib-nic-far.json");
    char err[512] = "";
    assert_int_equal(gd_net_scenario_check(sc, err, sizeof err), 0);
    snprintf(sc->net.nics[3].bdf, sizeof sc->net.nics[3].bdf, "0000:9b:00.0"); /* not in hgx-h100x8-nics-node0 */
    assert_int_equal(gd_net_scenario_check(sc, err, sizeof err), -1);
    assert_non_null(strstr(err, "nics[3].bdf: 0000:9b:00.0 (mlx5_3) is not a PCI device of host.sysfs"));
    gd_scenario_free(sc);
    sc = load("net-eth-cloud-vm.json"); /* no tree: nothing to join */
    assert_int_equal(gd_net_scenario_check(sc, err, sizeof err), 0);
    gd_scenario_free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_example_fills_the_network),
        cmocka_unit_test(counters_at_the_window_end),
        cmocka_unit_test(nics_and_the_pcie_tree_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
