/* SPDX-License-Identifier: Apache-2.0 */
/* The training network read from a sysfs and procfs tree
 * (src/sources/net/net_sysfs.c), on fake trees built here: an IB HCA and a
 * RoCE NIC with their GIDs and counters, the interfaces, nvidia_peermem,
 * ACS from a bridge's config space (and one a non-root reader sees only 64
 * bytes of), and a node without RDMA devices. */
#include "sources/net/net_collect.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

static char root[64];

/* ROOT/rel into path, its folders made. */
static void make_parents(char *path, size_t cap, const char *rel)
{
    snprintf(path, cap, "%s/%s", root, rel);
    for (char *c = path + strlen(root) + 1; *c; c++)
        if (*c == '/') {
            *c = '\0';
            mkdir(path, 0755);
            *c = '/';
        }
}

/* Writes ROOT/rel with text. */
static void put(const char *rel, const char *text)
{
    char path[512];
    make_parents(path, sizeof path, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void link_to(const char *target, const char *rel)
{
    char path[512];
    make_parents(path, sizeof path, rel);
    assert_int_equal(symlink(target, path), 0);
}

/* A bridge's config space: `len` bytes, the ACS capability at 0x148 behind
 * another at 0x100, its control register `ctl`. */
static void put_config(const char *rel, size_t len, unsigned ctl)
{
    unsigned char cfg[4096] = {0};
    cfg[0x100] = 0x01; /* AER, next at 0x148 */
    cfg[0x102] = 0x01 | (0x48 << 4 & 0xf0);
    cfg[0x103] = 0x14;
    cfg[0x148] = 0x0d; /* ACS, last */
    cfg[0x14a] = 0x01;
    cfg[0x148 + 6] = (unsigned char)(ctl & 0xff);
    cfg[0x148 + 7] = (unsigned char)(ctl >> 8);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(cfg, 1, len, f);
    fclose(f);
}

static void build_tree(void)
{
    strcpy(root, "/tmp/gd-net-sysfs-XXXXXX");
    assert_non_null(mkdtemp(root));
    /* mlx5_0: InfiniBand, port 1 active at 400 Gb/s. */
    put("sys/devices/pci0000:15/0000:15:01.0/0000:19:00.0/numa_node", "0\n");
    put("sys/devices/pci0000:15/0000:15:01.0/0000:19:00.0/net/ib0/dev_port", "0\n");
    put("sys/class/infiniband/mlx5_0/fw_ver", "28.39.1002\n");
    put("sys/class/infiniband/mlx5_0/hca_type", "MT4129\n");
    link_to("../../../devices/pci0000:15/0000:15:01.0/0000:19:00.0", "sys/class/infiniband/mlx5_0/device");
    put("sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
    put("sys/class/infiniband/mlx5_0/ports/1/phys_state", "5: LinkUp\n");
    put("sys/class/infiniband/mlx5_0/ports/1/rate", "400 Gb/sec (4X NDR)\n");
    put("sys/class/infiniband/mlx5_0/ports/1/link_layer", "InfiniBand\n");
    put("sys/class/infiniband/mlx5_0/ports/1/gids/0", "fe80:0000:0000:0000:0c42:a103:0065:2b0c\n");
    put("sys/class/infiniband/mlx5_0/ports/1/gids/1", "0000:0000:0000:0000:0000:0000:0000:0000\n");
    put("sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/0", "IB/RoCE v1\n");
    put("sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error", "7\n");
    put("sys/class/infiniband/mlx5_0/ports/1/counters/link_downed", "1\n");
    put("sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer", "0\n");
    /* rocep1s0f0: RoCE, port 1 down; GID 3 RoCE v2 on eth2. */
    put("sys/devices/pci0000:97/0000:97:01.0/0000:9B:00.0/numa_node", "1\n");
    link_to("../../../devices/pci0000:97/0000:97:01.0/0000:9B:00.0", "sys/class/infiniband/rocep1s0f0/device");
    put("sys/class/infiniband/rocep1s0f0/ports/1/state", "1: DOWN\n");
    put("sys/class/infiniband/rocep1s0f0/ports/1/phys_state", "3: Disabled\n");
    put("sys/class/infiniband/rocep1s0f0/ports/1/rate", "100 Gb/sec (4X EDR)\n");
    put("sys/class/infiniband/rocep1s0f0/ports/1/link_layer", "Ethernet\n");
    put("sys/class/infiniband/rocep1s0f0/ports/1/gids/0", "0000:0000:0000:0000:0000:0000:0000:0000\n");
    put("sys/class/infiniband/rocep1s0f0/ports/1/gids/1", "0000:0000:0000:0000:0000:0000:0000:0000\n");
    put("sys/class/infiniband/rocep1s0f0/ports/1/gids/2", "fe80:0000:0000:0000:ba3f:d2ff:fe00:0001\n");
    put("sys/class/infiniband/rocep1s0f0/ports/1/gids/3", "0000:0000:0000:0000:0000:ffff:0a00:0001\n");
    put("sys/class/infiniband/rocep1s0f0/ports/1/gid_attrs/types/2", "IB/RoCE v1\n");
    put("sys/class/infiniband/rocep1s0f0/ports/1/gid_attrs/types/3", "RoCE v2\n");
    put("sys/class/infiniband/rocep1s0f0/ports/1/gid_attrs/ndevs/2", "eth2\n");
    put("sys/class/infiniband/rocep1s0f0/ports/1/gid_attrs/ndevs/3", "eth2\n");
    put("sys/class/infiniband/rocep1s0f0/ports/1/hw_counters/out_of_sequence", "12\n");
    /* Interfaces: lo, eth0 (a device), eth2 down, docker0 (a bridge). */
    put("sys/class/net/lo/operstate", "unknown\n");
    put("sys/class/net/lo/carrier", "1\n");
    put("sys/class/net/lo/type", "772\n");
    put("sys/class/net/eth0/operstate", "up\n");
    put("sys/class/net/eth0/type", "1\n");
    link_to("../../../devices/pci0000:15/0000:15:01.0/0000:19:00.0", "sys/class/net/eth0/device");
    put("sys/class/net/eth2/operstate", "down\n");
    link_to("../../../devices/pci0000:97/0000:97:01.0/0000:9B:00.0", "sys/class/net/eth2/device");
    put("sys/class/net/docker0/operstate", "down\n");
    put("sys/class/net/docker0/bridge/stp_state", "0\n");
    /* A bridge with ACS SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+ (0x1d),
     * an endpoint (not a bridge: not read). */
    put("sys/bus/pci/devices/0000:15:01.0/class", "0x060400\n");
    put_config("sys/bus/pci/devices/0000:15:01.0/config", 4096, 0x1d);
    put("sys/bus/pci/devices/0000:19:00.0/class", "0x020700\n");
    put_config("sys/bus/pci/devices/0000:19:00.0/config", 4096, 0x7f);
    put("proc/modules", "nvidia_uvm 1 0 - Live 0x0\nnvidia_peermem 16384 0 - Live 0x0\nmlx5_ib 1 0 - Live 0x0\n");
}

static void remove_tree(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

static gd_roots roots_of(void)
{
    gd_roots r = {0};
    snprintf(r.sys, sizeof r.sys, "%s/sys", root);
    snprintf(r.proc, sizeof r.proc, "%s/proc", root);
    return r;
}

static void devices_ports_gids_and_counters(void **state)
{
    (void)state;
    build_tree();
    gd_roots r = roots_of();
    gd_net_facts *n = gd_net_sysfs_read(&r, false);
    assert_non_null(n);
    assert_true(n->devices_read);
    assert_int_equal(n->dev_count, 2);
    const gd_net_dev *ib = gd_net_dev_by_name(n, "mlx5_0");
    assert_non_null(ib);
    assert_string_equal(ib->bdf, "0000:19:00.0");
    assert_int_equal(ib->numa_node, 0);
    assert_string_equal(ib->firmware, "28.39.1002");
    assert_string_equal(ib->ca_type, "MT4129");
    assert_int_equal(ib->port_count, 1);
    const gd_net_port *p = &ib->ports[0];
    assert_int_equal(p->port, 1);
    assert_int_equal(p->state, GD_PORT_ACTIVE);
    assert_int_equal(p->phys, GD_PORT_PHYS_LINKUP);
    assert_int_equal(p->link_layer, GD_LINK_INFINIBAND);
    assert_true(gd_ok(p->rate_gbps));
    assert_float_equal(p->rate_gbps.v, 400, 0);
    assert_string_equal(p->rate_text, "400 Gb/sec (4X NDR)");
    assert_int_equal(p->gid_count, 1); /* the all-zero row is skipped */
    assert_string_equal(p->gids[0].type, "IB");
    assert_string_equal(p->netdev, "ib0"); /* from the device's net/, its dev_port 0 */
    assert_float_equal(p->counters_first[GD_PC_SYMBOL_ERROR].v, 7, 0);
    assert_float_equal(p->counters_last[GD_PC_SYMBOL_ERROR].v, 7, 0);
    assert_float_equal(p->counters_first[GD_PC_LINK_DOWNED].v, 1, 0);
    assert_true(gd_ok(p->counters_first[GD_PC_OUT_OF_BUFFER]));
    assert_int_equal(p->counters_first[GD_PC_RCV_ERRORS].status, GD_ST_NOT_SUPPORTED);

    const gd_net_dev *roce = gd_net_dev_by_name(n, "rocep1s0f0");
    assert_non_null(roce);
    assert_string_equal(roce->bdf, "0000:9b:00.0"); /* lower case */
    assert_int_equal(roce->numa_node, 1);
    p = &roce->ports[0];
    assert_int_equal(p->state, GD_PORT_DOWN);
    assert_int_equal(p->phys, GD_PORT_PHYS_DISABLED);
    assert_int_equal(p->link_layer, GD_LINK_ETHERNET);
    assert_int_equal(p->gid_count, 2);
    assert_int_equal(p->gids[0].index, 2);
    assert_string_equal(p->gids[0].type, "IB/RoCE v1"); /* as written */
    assert_int_equal(p->gids[1].index, 3);
    assert_string_equal(p->gids[1].type, "RoCE v2");
    assert_string_equal(p->gids[1].netdev, "eth2");
    assert_string_equal(p->netdev, "eth2");
    assert_int_equal(p->netdev_up, 0);
    assert_float_equal(p->counters_first[GD_PC_OUT_OF_SEQUENCE].v, 12, 0);

    /* Counters read again at the window's end. */
    put("sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error", "907\n");
    gd_net_sysfs_reread(n, &r, 60);
    p = &gd_net_dev_by_name(n, "mlx5_0")->ports[0];
    assert_float_equal(p->counters_first[GD_PC_SYMBOL_ERROR].v, 7, 0);
    assert_float_equal(p->counters_last[GD_PC_SYMBOL_ERROR].v, 907, 0);
    assert_float_equal(p->counter_span_s, 60, 0);
    gd_net_facts_free(n);
    remove_tree();
}

static void interfaces_peermem_and_acs(void **state)
{
    (void)state;
    build_tree();
    gd_roots r = roots_of();
    gd_net_facts *n = gd_net_sysfs_read(&r, false);
    assert_non_null(n);
    assert_true(n->ifaces_read);
    assert_int_equal(n->iface_count, 4);
    for (size_t i = 0; i < n->iface_count; i++) {
        const gd_net_iface *x = &n->ifaces[i];
        if (strcmp(x->name, "lo") == 0) {
            assert_true(x->loopback);
            assert_int_equal(x->up, 1);
            assert_true(x->virtual_dev);
        } else if (strcmp(x->name, "eth0") == 0) {
            assert_false(x->loopback || x->bridge || x->virtual_dev);
            assert_int_equal(x->up, 1);
        } else if (strcmp(x->name, "docker0") == 0) {
            assert_true(x->bridge);
            assert_true(x->virtual_dev);
            assert_int_equal(x->up, 0);
        }
        assert_string_equal(x->ipv4, ""); /* not live: no getifaddrs */
    }
    assert_int_equal(n->peermem, GD_PEERMEM_LOADED);
    assert_string_equal(n->peermem_module, "nvidia_peermem");
    assert_true(n->acs_read);
    assert_int_equal(n->acs_count, 1); /* the bridge, not the endpoint */
    assert_string_equal(n->acs[0].bdf, "0000:15:01.0");
    assert_true(n->acs[0].src_valid && n->acs[0].req_redir && n->acs[0].cmplt_redir && n->acs[0].upstream_fwd);
    assert_false(n->acs[0].trans_blk || n->acs[0].egress_ctrl || n->acs[0].direct_trans);
    gd_net_facts_free(n);

    /* A bridge whose config space shows 64 bytes (not root): not read, and why. */
    put("sys/bus/pci/devices/0000:97:01.0/class", "0x060400\n");
    put_config("sys/bus/pci/devices/0000:97:01.0/config", 64, 0);
    put("proc/modules", "nvidia_uvm 1 0 - Live 0x0\n");
    n = gd_net_sysfs_read(&r, false);
    assert_false(n->acs_read);
    assert_int_equal(n->acs_count, 0);
    assert_non_null(strstr(n->acs_source, "needs root"));
    assert_int_equal(n->peermem, GD_PEERMEM_ABSENT);
    gd_net_facts_free(n);
    remove_tree();
}

static void a_node_without_rdma_devices(void **state)
{
    (void)state;
    strcpy(root, "/tmp/gd-net-sysfs-XXXXXX");
    assert_non_null(mkdtemp(root));
    put("sys/class/net/eth0/operstate", "up\n");
    gd_roots r = roots_of();
    gd_net_facts *n = gd_net_sysfs_read(&r, false);
    assert_non_null(n);
    assert_true(n->devices_read); /* none is a fact: an Ethernet-only node */
    assert_int_equal(n->dev_count, 0);
    assert_int_equal(n->peermem, GD_PEERMEM_UNKNOWN); /* no /proc/modules */
    gd_net_facts_free(n);
    /* No sysfs at all: nothing read. */
    snprintf(r.sys, sizeof r.sys, "%s/none", root);
    n = gd_net_sysfs_read(&r, false);
    assert_false(n->devices_read);
    assert_false(n->ifaces_read);
    assert_false(n->acs_read);
    gd_net_facts_free(n);
    remove_tree();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(devices_ports_gids_and_counters),
        cmocka_unit_test(interfaces_peermem_and_acs),
        cmocka_unit_test(a_node_without_rdma_devices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
