/* SPDX-License-Identifier: Apache-2.0 */
/* The node's RDMA ports (src/checks/net.c): a port without link among active
 * peers, a slow port, growing error counters; quiet on healthy InfiniBand,
 * RoCE and Ethernet-only nodes and on what the real captures show is normal
 * (an uncabled second port, an IPoIB netdev down, a front-end NIC beside
 * the rails). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "net_fixture.h"

#include <math.h>

static const char *ev_str(const gd_finding *x, const char *key)
{
    return json_string_value(json_object_get(x->evidence, key));
}

/* gpud's "some down" H100: eight CX-7 (MT4129) RoCE rails at 400, two Down/
 * Disabled, and a dual-port CX-6 Dx (MT4125) front end at 100. */
static void rail_down_among_active_rails_is_critical(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 2);
    gd_net_facts *n = nx_net(&f, "ibstat:ibstat.txt");
    nx_rails(n, 5, "MT4129", GD_LINK_ETHERNET, 400);
    nx_dev(n, "mlx5_5", "MT4129", NULL, GD_LINK_ETHERNET, GD_PORT_DOWN, GD_PORT_PHYS_DISABLED, 40);
    nx_rails(n, 2, "MT4129", GD_LINK_ETHERNET, 400);
    nx_dev(n, "mlx5_8", "MT4125", NULL, GD_LINK_ETHERNET, GD_PORT_ACTIVE, GD_PORT_PHYS_LINKUP, 100);
    nx_dev(n, "mlx5_9", "MT4125", NULL, GD_LINK_ETHERNET, GD_PORT_ACTIVE, GD_PORT_PHYS_LINKUP, 100);
    gd_findings fs = fx_run_one(&f, "net.port_down");
    const gd_finding *x = fx_only(&fs, "net.port_down");
    assert_int_equal(x->severity, GD_SEV_CRITICAL);
    assert_int_equal(x->gpu, GD_NO_GPU);
    assert_non_null(strstr(x->title, "mlx5_5 port 1 is Down/Disabled while 7 MT4129 RoCE peers are Active"));
    assert_non_null(strstr(x->title, "400 of 3200 Gb/s"));
    assert_string_equal(ev_str(x, "summary"), "mlx5_5 port 1 Disabled");
    assert_string_equal(ev_str(x, "source"), "ibstat:ibstat.txt");
    assert_true(fabs(x->impact_pct - 12.5) < 1e-9);
    assert_non_null(strstr(x->fix, "Disabled: the port is switched off"));
    /* The front end at 100 is another kind: not slow. */
    fx_assert_silent(&f, "net.port_rate_low");
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* nccl-tests #128's node: one CX-6 (MT4123) InfiniBand port Active, the
 * other Down/Disabled: perhaps a spare, a warning. */
static void one_of_two_down_is_a_warning(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 2);
    gd_net_facts *n = nx_net(&f, "sysfs:/sys");
    nx_dev(n, "mlx5_0", "MT4123", NULL, GD_LINK_INFINIBAND, GD_PORT_ACTIVE, GD_PORT_PHYS_LINKUP, 200);
    nx_dev(n, "mlx5_1", "MT4123", NULL, GD_LINK_INFINIBAND, GD_PORT_DOWN, GD_PORT_PHYS_POLLING, 10);
    nx_dev(n, "mlx5_2", "MT4117", NULL, GD_LINK_ETHERNET, GD_PORT_ACTIVE, GD_PORT_PHYS_LINKUP, 25);
    gd_findings fs = fx_run_one(&f, "net.port_down");
    const gd_finding *x = fx_only(&fs, "net.port_down");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_string_equal(ev_str(x, "summary"), "mlx5_1 port 1 Polling");
    assert_non_null(strstr(x->fix, "Polling"));
    assert_non_null(strstr(x->fix, "spare"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    /* Init: the link trained, no subnet manager brought the port up. */
    fx_facts(&f, 8, 2);
    n = nx_net(&f, "sysfs:/sys");
    nx_rails(n, 4, "MT4129", GD_LINK_INFINIBAND, 400);
    nx_dev(n, "mlx5_4", "MT4129", NULL, GD_LINK_INFINIBAND, GD_PORT_INIT, GD_PORT_PHYS_LINKUP, 400);
    fs = fx_run_one(&f, "net.port_down");
    x = fx_only(&fs, "net.port_down");
    assert_int_equal(x->severity, GD_SEV_CRITICAL);
    assert_string_equal(ev_str(x, "summary"), "mlx5_4 port 1 Init");
    assert_non_null(strstr(x->fix, "subnet manager"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* A dual-port card's second port (function 1) down while the first is
 * Active is an uncabled port; so is the DGX Spark's rocep1s0f1. */
static void uncabled_second_port_is_quiet(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 2);
    gd_net_facts *n = nx_net(&f, "sysfs:/sys");
    nx_rails(n, 8, "MT4129", GD_LINK_INFINIBAND, 400);
    nx_dev(n, "mlx5_8", "MT4125", "0000:1b:00.0", GD_LINK_ETHERNET, GD_PORT_ACTIVE, GD_PORT_PHYS_LINKUP, 100);
    nx_dev(n, "mlx5_9", "MT4125", "0000:1b:00.1", GD_LINK_ETHERNET, GD_PORT_DOWN, GD_PORT_PHYS_DISABLED, 40);
    nx_dev(n, "roceP2p1s0f0", "MT4129", NULL, GD_LINK_ETHERNET, GD_PORT_ACTIVE, GD_PORT_PHYS_LINKUP, 200);
    nx_dev(n, "roceP2p1s0f1", "MT4129", NULL, GD_LINK_ETHERNET, GD_PORT_DOWN, GD_PORT_PHYS_DISABLED, 40);
    fx_assert_silent(&f, "net.port_down");
    fx_assert_silent(&f, "net.port_rate_low");
    gd_facts_free(&f);
}

/* ibdev2netdev alone (imbue's H100): pure InfiniBand ports whose IPoIB
 * netdevs are Down (normal), and CX-6 Ethernet second ports Down beside
 * their Up first ports. */
static void ipoib_netdev_down_and_netdev_only_facts_are_quiet(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 2);
    gd_net_facts *n = nx_net(&f, "ibdev2netdev:ibdev2netdev.txt");
    static const struct {
        const char *dev, *netdev;
        gd_link_layer ll;
        int up;
    } rows[] = {
        {"mlx5_0", "ibp26s0", GD_LINK_INFINIBAND, 0},     {"mlx5_1", "enp27s0f0np0", GD_LINK_ETHERNET, 1},
        {"mlx5_2", "enp27s0f1np1", GD_LINK_ETHERNET, 0},  {"mlx5_3", "ibp60s0", GD_LINK_INFINIBAND, 0},
        {"mlx5_7", "enp157s0f0np0", GD_LINK_ETHERNET, 1}, {"mlx5_8", "enp157s0f1np1", GD_LINK_ETHERNET, 0},
        {"mlx5_9", "ibp188s0", GD_LINK_UNKNOWN, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        gd_net_dev *d = nx_dev(n, rows[i].dev, NULL, NULL, rows[i].ll, GD_PORT_STATE_UNKNOWN, GD_PORT_PHYS_UNKNOWN, 0);
        snprintf(d->ports[0].netdev, sizeof d->ports[0].netdev, "%s", rows[i].netdev);
        d->ports[0].netdev_up = rows[i].up;
    }
    fx_assert_silent(&f, "net.port_down");
    fx_assert_silent(&f, "net.port_rate_low");
    /* A RoCE first port whose netdev is down, beside Up ones: down. */
    snprintf(n->devs[n->dev_count - 1].ports[0].netdev, GD_NET_NAME, "enp200s0np0");
    n->devs[n->dev_count - 1].ports[0].link_layer = GD_LINK_ETHERNET;
    gd_findings fs = fx_run_one(&f, "net.port_down");
    const gd_finding *x = fx_only(&fs, "net.port_down");
    assert_string_equal(ev_str(x, "device"), "mlx5_9");
    assert_string_equal(ev_str(x, "summary"), "mlx5_9 port 1 Down");
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* An operator's HGX node (ibdev2netdev only): eight RoCE rails Up, two
 * front-end dual-port cards whose first ports are in bond0 and whose second
 * ports (f1np1) are Down. */
static void bonded_front_end_second_ports_are_quiet(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 2);
    gd_net_facts *n = nx_net(&f, "ibdev2netdev:node.txt");
    static const struct {
        const char *dev, *netdev;
        int up;
    } rows[] = {
        {"mlx5_0", "enp25s0np0", 1},   {"mlx5_1", "enp41s0np0", 1},  {"mlx5_10", "enp210s0f1np1", 0},
        {"mlx5_11", "enp218s0np0", 1}, {"mlx5_2", "enp59s0np0", 1},  {"mlx5_3", "bond0", 1},
        {"mlx5_4", "enp83s0f1np1", 0}, {"mlx5_5", "enp92s0np0", 1},  {"mlx5_6", "enp155s0np0", 1},
        {"mlx5_7", "enp170s0np0", 1},  {"mlx5_8", "enp187s0np0", 1}, {"mlx5_9", "bond0", 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        gd_net_dev *d =
            nx_dev(n, rows[i].dev, NULL, NULL, GD_LINK_ETHERNET, GD_PORT_STATE_UNKNOWN, GD_PORT_PHYS_UNKNOWN, 0);
        snprintf(d->ports[0].netdev, sizeof d->ports[0].netdev, "%s", rows[i].netdev);
        d->ports[0].netdev_up = rows[i].up;
    }
    fx_assert_silent(&f, "net.port_down");
    fx_assert_silent(&f, "net.port_rate_low");
    /* A rail's own netdev down is a rail down. */
    n->devs[4].ports[0].netdev_up = 0;
    gd_findings fs = fx_run_one(&f, "net.port_down");
    const gd_finding *x = fx_only(&fs, "net.port_down");
    assert_string_equal(ev_str(x, "device"), "mlx5_2");
    assert_int_equal(x->severity, GD_SEV_CRITICAL);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Healthy InfiniBand (Azure's eight HDR 200 and a 40 Gb/s Ethernet port),
 * healthy RoCE, an Ethernet-only VM, and all ports down (nothing to compare). */
static void healthy_and_ethernet_only_nodes_are_quiet(void **state)
{
    (void)state;
    static const char *const ids[] = {"net.port_down", "net.port_rate_low", "net.port_errors"};
    gd_facts f;
    fx_facts(&f, 8, 2);
    gd_net_facts *n = nx_net(&f, "ibstatus:ibstatus.txt");
    nx_rails(n, 8, NULL, GD_LINK_INFINIBAND, 200);
    nx_dev(n, "mlx5_8", NULL, NULL, GD_LINK_ETHERNET, GD_PORT_ACTIVE, GD_PORT_PHYS_LINKUP, 40);
    for (size_t i = 0; i < n->dev_count; i++) /* a window in which no counter moved */
        for (int c = 0; c < GD_PC_COUNT; c++) {
            n->devs[i].ports[0].counters_first[c] = n->devs[i].ports[0].counters_last[c] = gd_val(3);
            n->devs[i].ports[0].counter_span_s = 30;
        }
    for (size_t i = 0; i < 3; i++)
        fx_assert_silent(&f, ids[i]);
    n->dev_count = 0; /* a cloud VM: devices listed, none there */
    for (size_t i = 0; i < 3; i++)
        fx_assert_silent(&f, ids[i]);
    nx_dev(n, "mlx5_0", "MT4123", NULL, GD_LINK_INFINIBAND, GD_PORT_DOWN, GD_PORT_PHYS_DISABLED, 10);
    nx_dev(n, "mlx5_1", "MT4123", NULL, GD_LINK_INFINIBAND, GD_PORT_DOWN, GD_PORT_PHYS_DISABLED, 10);
    fx_assert_silent(&f, "net.port_down");
    gd_facts_free(&f);
}

static void network_not_read_is_not_checked(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 2);
    gd_findings fs = fx_run_one(&f, "net.port_down");
    assert_int_equal(fs.n, 0);
    assert_true(fx_skipped(&fs, "net.port_down", GD_NO_GPU, "not read"));
    gd_findings_free(&fs);
    gd_net_facts *n = nx_net(&f, "sysfs:/sys");
    n->devices_read = false;
    fs = fx_run_one(&f, "net.port_rate_low");
    assert_true(fx_skipped(&fs, "net.port_rate_low", GD_NO_GPU, "not listed"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void port_at_half_its_peers_rate_is_slow(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 2);
    gd_net_facts *n = nx_net(&f, "sysfs:/sys");
    nx_rails(n, 8, "MT4123", GD_LINK_INFINIBAND, 200);
    n->devs[3].ports[0].rate_gbps = gd_val(100);
    gd_findings fs = fx_run_one(&f, "net.port_rate_low");
    const gd_finding *x = fx_only(&fs, "net.port_rate_low");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_non_null(strstr(x->title, "mlx5_3 port 1 runs at 100 of 200 Gb/s"));
    assert_non_null(strstr(x->title, "100 of 1600 Gb/s"));
    assert_true(fabs(x->impact_pct - 6.25) < 1e-9);
    gd_findings_free(&fs);
    /* A rate not read is not a slow rate. */
    n->devs[3].ports[0].rate_gbps = gd_missing(GD_ST_UNREAD);
    fx_assert_silent(&f, "net.port_rate_low");
    gd_facts_free(&f);
}

static void counters(gd_net_port *p, gd_port_counter c, double first, double last, double span)
{
    p->counters_first[c] = gd_val(first);
    p->counters_last[c] = gd_val(last);
    p->counter_span_s = span;
}

static void growing_error_counters_fire_a_reading_once_does_not(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 2);
    gd_net_facts *n = nx_net(&f, "sysfs:/sys");
    nx_rails(n, 4, "MT4129", GD_LINK_INFINIBAND, 400);
    /* A capture: totals since boot, read once. */
    counters(&n->devs[0].ports[0], GD_PC_SYMBOL_ERROR, 5000, 5000, 0);
    gd_findings fs = fx_run_one(&f, "net.port_errors");
    assert_int_equal(fs.n, 0);
    assert_true(fx_skipped(&fs, "net.port_errors", GD_NO_GPU, "read once"));
    gd_findings_free(&fs);
    /* A window: quiet where nothing grew, a warning for symbol errors, critical for a link down. */
    counters(&n->devs[0].ports[0], GD_PC_SYMBOL_ERROR, 5000, 5000, 60);
    counters(&n->devs[1].ports[0], GD_PC_XMIT_DISCARDS, 0, 20, 60);
    fx_assert_silent(&f, "net.port_errors");
    counters(&n->devs[2].ports[0], GD_PC_SYMBOL_ERROR, 10, 60, 60);
    fs = fx_run_one(&f, "net.port_errors");
    const gd_finding *x = fx_only(&fs, "net.port_errors");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_non_null(strstr(x->title, "mlx5_2 port 1: error counters grew in 60 s (symbol_error +50)"));
    gd_findings_free(&fs);
    counters(&n->devs[2].ports[0], GD_PC_LINK_DOWNED, 1, 2, 60);
    fs = fx_run_one(&f, "net.port_errors");
    assert_int_equal(fx_only(&fs, "net.port_errors")->severity, GD_SEV_CRITICAL);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rail_down_among_active_rails_is_critical),
        cmocka_unit_test(one_of_two_down_is_a_warning),
        cmocka_unit_test(uncabled_second_port_is_quiet),
        cmocka_unit_test(ipoib_netdev_down_and_netdev_only_facts_are_quiet),
        cmocka_unit_test(bonded_front_end_second_ports_are_quiet),
        cmocka_unit_test(healthy_and_ethernet_only_nodes_are_quiet),
        cmocka_unit_test(network_not_read_is_not_checked),
        cmocka_unit_test(port_at_half_its_peers_rate_is_slow),
        cmocka_unit_test(growing_error_counters_fire_a_reading_once_does_not),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
