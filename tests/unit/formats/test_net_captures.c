/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The captures of the node's RDMA NICs (src/formats/capture/ibstat.c,
 * ibstatus.c, ibv_devinfo.c, ibdev2netdev.c, show_gids.c, lsmod.c,
 * ip_brief.c, lspci_acs.c and lspci.c's ACSCtl, paste_parts.c): each
 * reader on literal text, detection, the join of several files by device
 * and port, a paste of several commands cut at its prompts, and every real
 * file of ../shared/realdata/network/{ib,misc} read to the facts it shows
 * (read off the files by hand; skipped without them).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "formats/capture/import.h"
#include "formats/capture/net_readers.h"
#include "gpudoctor/net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REALDATA GD_SOURCE_DIR "/../shared/realdata/network/"

typedef int (*reader)(const char *, const char *, size_t, gd_facts *, char *, size_t);

/* text through one reader into a zeroed f; the reader's return into *rc. */
static gd_facts *read_with(reader r, const char *text, int *rc, char *err, size_t errlen)
{
    gd_facts *f = calloc(1, sizeof *f);
    assert_non_null(f);
    *rc = r("t.txt", text, strlen(text), f, err, errlen);
    return f;
}

/* text through detection, the paste cut and its readers (as --from reads a file). */
static gd_facts *import(const char *text)
{
    gd_facts *f = calloc(1, sizeof *f);
    char err[512] = "";
    assert_non_null(f);
    if (gd_import_buffer("t.txt", text, strlen(text), f, err, sizeof err) != 0)
        fail_msg("import failed: %s", err);
    return f;
}

static void release(gd_facts *f)
{
    gd_facts_free(f);
    free(f);
}

static const gd_net_port *port_of(const gd_facts *f, const char *dev, int port)
{
    assert_non_null(f->net);
    const gd_net_dev *d = gd_net_dev_by_name(f->net, dev);
    if (!d)
        fail_msg("no device %s", dev);
    for (size_t i = 0; i < d->port_count; i++)
        if (d->ports[i].port == port)
            return &d->ports[i];
    fail_msg("%s has no port %d", dev, port);
    return NULL;
}

static void rate_is(const gd_net_port *p, double gbps)
{
    if (gbps < 0) {
        assert_false(gd_ok(p->rate_gbps));
        return;
    }
    assert_true(gd_ok(p->rate_gbps));
    assert_float_equal(p->rate_gbps.v, gbps, 1e-9);
}

static const char ibstat_text[] = "CA 'mlx5_0'\n"
                                  "\tCA type: MT4123\n"
                                  "\tNumber of ports: 2\n"
                                  "\tFirmware version: 20.31.1014\n"
                                  "\tPort 1:\n"
                                  "\t\tState: Active\n"
                                  "\t\tPhysical state: LinkUp\n"
                                  "\t\tRate: 200\n"
                                  "\t\tPort GUID: 0x1070fd03008eb580\n"
                                  "\t\tLink layer: InfiniBand\n"
                                  "\tPort 2:\n"
                                  "\t\tState: Down\n"
                                  "\t\tPhysical state: Polling\n"
                                  "\t\tRate: 10\n"
                                  "\t\tLink layer: InfiniBand\n"
                                  "CA 'mlx5_1'\n"
                                  "\tCA type: MT4129\n"
                                  "\tPort 1:\n"
                                  "\t\tState: Initializing\n";

static void ibstat_blocks_and_ports(void **state)
{
    (void)state;
    char err[256];
    int rc;
    gd_facts *f = read_with(gd_import_ibstat, ibstat_text, &rc, err, sizeof err);
    assert_int_equal(rc, 0);
    assert_true(f->net->devices_read);
    assert_int_equal(f->net->dev_count, 2);
    const gd_net_dev *d = gd_net_dev_by_name(f->net, "mlx5_0");
    assert_string_equal(d->ca_type, "MT4123");
    assert_string_equal(d->firmware, "20.31.1014");
    assert_int_equal(d->port_count, 2);
    const gd_net_port *p = port_of(f, "mlx5_0", 1);
    assert_int_equal(p->state, GD_PORT_ACTIVE);
    assert_int_equal(p->phys, GD_PORT_PHYS_LINKUP);
    assert_int_equal(p->link_layer, GD_LINK_INFINIBAND);
    rate_is(p, 200);
    assert_int_equal(p->netdev_up, -1); /* ibstat does not say */
    p = port_of(f, "mlx5_0", 2);
    assert_int_equal(p->state, GD_PORT_DOWN);
    assert_int_equal(p->phys, GD_PORT_PHYS_POLLING);
    p = port_of(f, "mlx5_1", 1); /* cut inside its block: what it shows */
    assert_int_equal(p->state, GD_PORT_INIT);
    assert_int_equal(p->phys, GD_PORT_PHYS_UNKNOWN);
    rate_is(p, -1);
    assert_int_equal(p->link_layer, GD_LINK_UNKNOWN);
    assert_string_equal(f->net->source, "ibstat:t.txt");
    release(f);
}

static void ibstatus_blocks(void **state)
{
    (void)state;
    static const char text[] = "Infiniband device 'mlx5_0' port 1 status:\n"
                               "        default gid:     fe80:0000:0000:0000:043f:7203:00f8:03ce\n"
                               "        base lid:        0x81\n"
                               "        state:           4: ACTIVE\n"
                               "        phys state:      5: LinkUp\n"
                               "        rate:            200 Gb/sec (4X HDR)\n"
                               "        link_layer:      InfiniBand\n"
                               "\n"
                               "Infiniband device 'mlx5_1' port 1 status:\n"
                               "        state:           2: INIT\n"
                               "        phys state:      6: LinkErrorRecovery\n"
                               "        rate:            100 Gb/sec (4X EDR)\n"
                               "        link_layer:      Ethernet\n";
    char err[256];
    int rc;
    gd_facts *f = read_with(gd_import_ibstatus, text, &rc, err, sizeof err);
    assert_int_equal(rc, 0);
    const gd_net_port *p = port_of(f, "mlx5_0", 1);
    assert_int_equal(p->state, GD_PORT_ACTIVE);
    assert_int_equal(p->phys, GD_PORT_PHYS_LINKUP);
    rate_is(p, 200);
    assert_string_equal(p->rate_text, "200 Gb/sec (4X HDR)");
    assert_int_equal(p->gid_count, 1);
    assert_int_equal(p->gids[0].index, 0);
    assert_string_equal(p->gids[0].gid, "fe80:0000:0000:0000:043f:7203:00f8:03ce");
    assert_string_equal(p->gids[0].type, ""); /* ibstatus does not say */
    p = port_of(f, "mlx5_1", 1);
    assert_int_equal(p->state, GD_PORT_INIT);
    assert_int_equal(p->phys, GD_PORT_PHYS_ERROR_RECOVERY);
    assert_int_equal(p->link_layer, GD_LINK_ETHERNET);
    release(f);
}

static void ibv_devinfo_plain_and_verbose(void **state)
{
    (void)state;
    static const char text[] = "hca_id:\tmlx5_0\n"
                               "\ttransport:\t\t\tInfiniBand (0)\n"
                               "\tfw_ver:\t\t\t\t20.31.1014\n"
                               "\tphys_port_cnt:\t\t\t1\n"
                               "\t\tport:\t1\n"
                               "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"
                               "\t\t\tmax_mtu:\t\t4096 (5)\n"
                               "\t\t\tactive_width:\t\t4X (2)\n"
                               "\t\t\tactive_speed:\t\t50.0 Gbps (64)\n"
                               "\t\t\tphys_state:\t\tLINK_UP (5)\n"
                               "\t\t\tlink_layer:\t\tEthernet\n"
                               "\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:0e42:a1ff:fe5d:3b8c, RoCE v1\n"
                               "\t\t\tGID[  3]:\t\t0000:0000:0000:0000:0000:ffff:0a0c:0015, RoCE v2\n"
                               "\n"
                               "hca_id:\tmlx5_1\n"
                               "\tfw_ver:\t\t\t\t20.31.1014\n"
                               "\t\tport:\t1\n"
                               "\t\t\tstate:\t\t\tPORT_DOWN (1)\n"
                               "\t\t\tlink_layer:\t\tInfiniBand\n";
    char err[256];
    int rc;
    gd_facts *f = read_with(gd_import_ibv_devinfo, text, &rc, err, sizeof err);
    assert_int_equal(rc, 0);
    assert_int_equal(f->net->dev_count, 2);
    assert_string_equal(gd_net_dev_by_name(f->net, "mlx5_0")->firmware, "20.31.1014");
    const gd_net_port *p = port_of(f, "mlx5_0", 1);
    assert_int_equal(p->state, GD_PORT_ACTIVE);
    assert_int_equal(p->phys, GD_PORT_PHYS_LINKUP);
    assert_int_equal(p->link_layer, GD_LINK_ETHERNET);
    rate_is(p, 200); /* 4X x 50.0 Gbps */
    assert_int_equal(p->gid_count, 2);
    assert_int_equal(p->gids[1].index, 3);
    assert_string_equal(p->gids[1].type, "RoCE v2");
    assert_string_equal(p->gids[0].type, "RoCE v1");
    p = port_of(f, "mlx5_1", 1); /* plain ibv_devinfo: no width, speed or phys_state */
    assert_int_equal(p->state, GD_PORT_DOWN);
    assert_int_equal(p->phys, GD_PORT_PHYS_UNKNOWN);
    rate_is(p, -1);
    release(f);

    /* Every line at one indent, as a pod's shell showed it. */
    f = read_with(gd_import_ibv_devinfo,
                  "hca_id: mlx5_7\n    transport:    InfiniBand (0)\n    fw_ver:    28.39.3004\n    port: 1\n"
                  "    state:    PORT_INIT (2)\n    port_lid:    65535\n    link_layer:    InfiniBand\n",
                  &rc, err, sizeof err);
    assert_int_equal(rc, 0);
    assert_int_equal(port_of(f, "mlx5_7", 1)->state, GD_PORT_INIT);
    assert_int_equal(port_of(f, "mlx5_7", 1)->link_layer, GD_LINK_INFINIBAND);
    release(f);

    f = read_with(gd_import_ibv_devinfo, "No IB devices found\n", &rc, err, sizeof err);
    assert_int_equal(rc, 0); /* a node without RDMA devices: a fact, not an error */
    assert_true(f->net->devices_read);
    assert_int_equal(f->net->dev_count, 0);
    release(f);
}

static void ibdev2netdev_netdev_state_is_not_the_ports(void **state)
{
    (void)state;
    static const char text[] =
        "mlx5_0   port  1  ==>  ibp26s0        (Down)  # CX-7 1/8 infiniband\n"
        "mlx5_1 port 1 ==> enp27s0f0np0 (Up)\n"
        "0000:1A:00.0 mlx5_2 (MT4123 - MCX653105A-HDAT) ConnectX-6 VPI adapter card fw 20.31.1014 "
        "port 1 (ACTIVE) ==> ib2 (Down)\n";
    char err[256];
    int rc;
    gd_facts *f = read_with(gd_import_ibdev2netdev, text, &rc, err, sizeof err);
    assert_int_equal(rc, 0);
    const gd_net_port *p = port_of(f, "mlx5_0", 1);
    assert_string_equal(p->netdev, "ibp26s0");
    assert_int_equal(p->netdev_up, 0);
    assert_int_equal(p->state, GD_PORT_STATE_UNKNOWN); /* IPoIB down says nothing of the port */
    p = port_of(f, "mlx5_1", 1);
    assert_int_equal(p->netdev_up, 1);
    p = port_of(f, "mlx5_2", 1); /* -v: the port's own state, its function and firmware */
    assert_int_equal(p->state, GD_PORT_ACTIVE);
    assert_int_equal(p->netdev_up, 0);
    const gd_net_dev *d = gd_net_dev_by_name(f->net, "mlx5_2");
    assert_string_equal(d->bdf, "0000:1a:00.0");
    assert_string_equal(d->firmware, "20.31.1014");
    release(f);
}

static void show_gids_rows(void **state)
{
    (void)state;
    static const char text[] =
        "DEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n"
        "---     ----    -----   ---                                     ------------    ---     ---\n"
        "mlx5_0  1       0       fe80:0000:0000:0000:9cbb:b7ff:feb3:937a                 v1      net1\n"
        "mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:0a0c:0015 10.12.0.21      v2      net1\n"
        "mlx5_1  1       1       fe80:0000:0000:0000:9cbb:b7ff:feb3:9999                 v2\n"
        "n_gids_found=3\n";
    char err[256];
    int rc;
    gd_facts *f = read_with(gd_import_show_gids, text, &rc, err, sizeof err);
    assert_int_equal(rc, 0);
    const gd_net_port *p = port_of(f, "mlx5_0", 1);
    assert_int_equal(p->gid_count, 2);
    assert_int_equal(p->gids[0].index, 0);
    assert_string_equal(p->gids[0].type, "v1");
    assert_string_equal(p->gids[0].ipv4, "");
    assert_string_equal(p->gids[0].netdev, "net1");
    assert_int_equal(p->gids[1].index, 3);
    assert_string_equal(p->gids[1].type, "v2");
    assert_string_equal(p->gids[1].ipv4, "10.12.0.21");
    p = port_of(f, "mlx5_1", 1);
    assert_string_equal(p->gids[0].type, "v2");
    assert_string_equal(p->gids[0].netdev, "");
    assert_false(f->net->devices_read); /* GIDs only: not a list of the devices' states */
    release(f);
}

/* lsmod as pasted: the peermem state it gives. */
static gd_peermem_state peermem_of(const char *text, char *module, size_t cap)
{
    gd_facts *f = import(text);
    assert_non_null(f->net);
    gd_peermem_state s = f->net->peermem;
    snprintf(module, cap, "%s", f->net->peermem_module);
    release(f);
    return s;
}

static void lsmod_peermem(void **state)
{
    (void)state;
    char m[GD_NET_NAME];
    /* The whole list, loaded. */
    assert_int_equal(peermem_of("Module                  Size  Used by\n"
                                "nvidia_peermem         16384  0\n"
                                "ib_core               434176  9 rdma_cm,ib_ipoib,nvidia_peermem,mlx5_ib\n",
                                m, sizeof m),
                     GD_PEERMEM_LOADED);
    assert_string_equal(m, "nvidia_peermem");
    /* The whole list: ib_core names it under "Used by" only, which loads nothing. */
    assert_int_equal(peermem_of("Module                  Size  Used by\n"
                                "ib_core               434176  9 rdma_cm,nvidia_peermem\n"
                                "nvidia              56123392  2\n",
                                m, sizeof m),
                     GD_PEERMEM_ABSENT);
    /* Greps that printed nothing: absent, read from the prompts. */
    assert_int_equal(peermem_of("(pytorch) [root@gpu3 ~]# lsmod | grep nvidia_peermem\n"
                                "(pytorch) [root@gpu3 ~]# lsmod | grep nv_peer_mem\n"
                                "(pytorch) [root@gpu3 ~]#\n",
                                m, sizeof m),
                     GD_PEERMEM_ABSENT);
    /* A grep that found it. */
    assert_int_equal(peermem_of("$ sudo lsmod | grep -i PEER\n"
                                "nvidia_peermem         16384  0\n",
                                m, sizeof m),
                     GD_PEERMEM_LOADED);
    /* The old module. */
    assert_int_equal(peermem_of("$ lsmod | grep nv_peer\n"
                                "nv_peer_mem            16384  0\n",
                                m, sizeof m),
                     GD_PEERMEM_LOADED);
    assert_string_equal(m, "nv_peer_mem");
    /* A grep for something else, empty: peermem not known. */
    assert_int_equal(peermem_of("$ lsmod | grep mlx5\n", m, sizeof m), GD_PEERMEM_UNKNOWN);
    /* A grep of nv_peer_mem alone, empty: nvidia_peermem (driver 470+) not looked for. */
    assert_int_equal(peermem_of("$ lsmod | grep nv_peer_mem\n", m, sizeof m), GD_PEERMEM_UNKNOWN);
    /* grep's rows pasted without the prompt: loaded is seen; absent cannot be told (what was grepped?). */
    assert_int_equal(peermem_of("nvidia_uvm           1437696  2\nnvidia_peermem         16384  0\n", m, sizeof m),
                     GD_PEERMEM_LOADED);
    assert_int_equal(peermem_of("nvidia_uvm           1437696  2\nnvidia_drm             77824  0\n", m, sizeof m),
                     GD_PEERMEM_UNKNOWN);
    /* The list's head only: what follows is not known. */
    assert_int_equal(
        peermem_of("$ lsmod | head -3\nModule                  Size  Used by\nnvidia_uvm 1437696 2\n", m, sizeof m),
        GD_PEERMEM_UNKNOWN);
    /* egrep alternatives. */
    assert_int_equal(peermem_of("# lsmod | egrep 'nv_peer_mem|nvidia_peermem'\n", m, sizeof m), GD_PEERMEM_ABSENT);
}

static void ip_brief_interfaces(void **state)
{
    (void)state;
    static const char text[] = "lo               UNKNOWN        127.0.0.1/8 ::1/128 \n"
                               "\033[1;34meth0@if12\033[0m        \033[32mUP             \033[0m10.0.0.2/24 \n"
                               "docker0          DOWN           172.17.0.1/16 \n"
                               "virbr0           UP             192.168.122.1/24 \n"
                               "ib0              UP             fe80::1/64 \n"
                               "enp86s0f0        DOWN           \n";
    char err[256];
    int rc;
    gd_facts *f = read_with(gd_import_ip_brief, text, &rc, err, sizeof err);
    assert_int_equal(rc, 0);
    const gd_net_facts *n = f->net;
    assert_true(n->ifaces_read);
    assert_int_equal(n->iface_count, 6);
    assert_string_equal(n->ifaces[0].name, "lo");
    assert_true(n->ifaces[0].loopback);
    assert_int_equal(n->ifaces[0].up, 1);
    assert_string_equal(n->ifaces[0].ipv4, "127.0.0.1");
    assert_string_equal(n->ifaces[1].name, "eth0"); /* colours gone, "@if12" too */
    assert_int_equal(n->ifaces[1].up, 1);
    assert_true(n->ifaces[1].virtual_dev);
    assert_string_equal(n->ifaces[1].ipv4, "10.0.0.2");
    assert_true(n->ifaces[2].bridge);
    assert_int_equal(n->ifaces[2].up, 0);
    assert_true(n->ifaces[3].bridge);
    assert_string_equal(n->ifaces[4].ipv4, ""); /* IPv6 only */
    assert_false(n->ifaces[5].bridge || n->ifaces[5].virtual_dev || n->ifaces[5].loopback);
    release(f);
}

static void lspci_acs_with_and_without_bdf(void **state)
{
    (void)state;
    static const char full[] =
        "00:01.0 PCI bridge: Intel Corporation Device 09ab (prog-if 00 [Normal decode])\n"
        "\tBus: primary=00, secondary=01, subordinate=01, sec-latency=0\n"
        "\tCapabilities: [148 v1] Access Control Services\n"
        "\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n"
        "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n"
        "01:00.0 3D controller: NVIDIA Corporation GA100 [A100 SXM4 80GB] (rev a1)\n"
        "\tLnkCap:\tPort #0, Speed 16GT/s, Width x16\n"
        "\tLnkSta:\tSpeed 16GT/s, Width x16\n";
    gd_facts *f = import(full);
    assert_true(f->net->acs_read);
    assert_int_equal(f->net->acs_count, 1);
    assert_string_equal(f->net->acs[0].bdf, "0000:00:01.0");
    assert_true(f->net->acs[0].src_valid && f->net->acs[0].req_redir && f->net->acs[0].cmplt_redir &&
                f->net->acs[0].upstream_fwd);
    assert_false(f->net->acs[0].trans_blk || f->net->acs[0].egress_ctrl || f->net->acs[0].direct_trans);
    release(f);

    /* A user's lspci: no capability decoded, ACS not read. */
    f = import("01:00.0 3D controller: NVIDIA Corporation GA100 [A100 SXM4 80GB] (rev a1)\n"
               "\tCapabilities: <access denied>\n");
    assert_true(f->net == NULL || !f->net->acs_read);
    release(f);

    f = import("# lspci -vvv | grep -i acsctl\n"
               "\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-\n"
               "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n");
    assert_true(f->net->acs_read);
    assert_int_equal(f->net->acs_count, 2);
    assert_string_equal(f->net->acs[1].bdf, "");
    assert_false(f->net->acs[0].src_valid || f->net->acs[0].req_redir);
    assert_true(f->net->acs[1].req_redir);
    release(f);
}

static void rdma_link_ports(void **state)
{
    (void)state;
    static const char text[] = "$ rdma link show\n"
                               "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1f0np0 \n"
                               "link mlx5_1/1 state DOWN physical_state DISABLED netdev ens1f1np1 \n"
                               "link mlx5_2/1 subnet_prefix fe80:0000:0000:0000 lid 5 sm_lid 1 lmc 0 state ACTIVE "
                               "physical_state LINK_UP \n";
    gd_facts *f = import(text);
    const gd_net_port *p = port_of(f, "mlx5_0", 1);
    assert_int_equal(p->state, GD_PORT_ACTIVE);
    assert_int_equal(p->phys, GD_PORT_PHYS_LINKUP);
    assert_string_equal(p->netdev, "ens1f0np0");
    assert_int_equal(p->netdev_up, -1); /* the netdev's own state is not in it */
    rate_is(p, -1);
    p = port_of(f, "mlx5_1", 1);
    assert_int_equal(p->state, GD_PORT_DOWN);
    assert_int_equal(p->phys, GD_PORT_PHYS_DISABLED);
    p = port_of(f, "mlx5_2", 1);
    assert_int_equal(p->state, GD_PORT_ACTIVE);
    assert_string_equal(p->netdev, "");
    assert_true(f->net->devices_read);
    release(f);
}

static void detection(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        gd_import_kind kind;
    } cases[] = {
        {"CA 'mlx5_0'\n\tCA type: MT4123\n", GD_IMPORT_IBSTAT},
        {"Infiniband device 'mlx5_0' port 1 status:\n\tstate: 4: ACTIVE\n", GD_IMPORT_IBSTATUS},
        {"hca_id:\tmlx5_0\n\tfw_ver: 1\n", GD_IMPORT_IBV_DEVINFO},
        {"No IB devices found\n", GD_IMPORT_IBV_DEVINFO},
        {"mlx5_0 port 1 ==> ib0 (Up)\n", GD_IMPORT_IBDEV2NETDEV},
        {"DEV PORT INDEX GID IPv4 VER DEV\n", GD_IMPORT_SHOW_GIDS},
        {"Module                  Size  Used by\nnvidia 1 0\n", GD_IMPORT_LSMOD},
        {"nvidia_peermem         16384  0\nnvidia_uvm 1437696 2\n", GD_IMPORT_LSMOD},
        {"0 45 32 10\n1 44 30 12\n", GD_IMPORT_UNKNOWN},
        {"lo UNKNOWN 127.0.0.1/8\neth0 UP 10.0.0.2/24\n", GD_IMPORT_IP_BRIEF},
        {"ACSCtl: SrcValid+ TransBlk-\n", GD_IMPORT_LSPCI_ACS},
        {"link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1\n", GD_IMPORT_RDMA_LINK},
        {"link mlx5_0/1 is here\n", GD_IMPORT_UNKNOWN},
        /* Not ours. */
        {"lo UNKNOWN 127.0.0.1/8\nsomething else entirely\n", GD_IMPORT_UNKNOWN},
        {"CA 'mlx5_0' is the name\n", GD_IMPORT_UNKNOWN},
        {"mlx5_0 port 1 is down\n", GD_IMPORT_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (gd_import_detect(cases[i].text, strlen(cases[i].text)) != cases[i].kind)
            fail_msg("case %zu: '%.30s' detected as %d, want %d", i, cases[i].text,
                     (int)gd_import_detect(cases[i].text, strlen(cases[i].text)), (int)cases[i].kind);
}

/* ibstat's states, ibdev2netdev's netdevs and show_gids' GIDs on the same port, in any order. */
static void files_join_by_device_and_port(void **state)
{
    (void)state;
    static const char gids[] = "DEV PORT INDEX GID IPv4 VER DEV\n"
                               "mlx5_0 1 3 0000:0000:0000:0000:0000:ffff:0a0c:0015 10.12.0.21 v2 eth2\n";
    gd_facts *f = calloc(1, sizeof *f);
    char err[256];
    assert_int_equal(gd_import_buffer("gids.txt", gids, strlen(gids), f, err, sizeof err), 0);
    assert_int_equal(gd_import_buffer("map.txt", "mlx5_0 port 1 ==> eth2 (Up)\n", 28, f, err, sizeof err), 0);
    assert_int_equal(gd_import_buffer("ibstat.txt", ibstat_text, strlen(ibstat_text), f, err, sizeof err), 0);
    assert_int_equal(f->net->dev_count, 2);
    const gd_net_port *p = port_of(f, "mlx5_0", 1);
    assert_int_equal(p->state, GD_PORT_ACTIVE);
    rate_is(p, 200);
    assert_string_equal(p->netdev, "eth2");
    assert_int_equal(p->netdev_up, 1);
    assert_int_equal(p->gid_count, 1);
    assert_string_equal(p->gids[0].type, "v2");
    assert_string_equal(f->net->source, "show_gids:gids.txt, ibdev2netdev:map.txt, ibstat:ibstat.txt");
    /* Each device cites the file that first gave it. */
    assert_string_equal(f->capture_files[gd_net_dev_by_name(f->net, "mlx5_0")->file], "gids.txt");
    assert_string_equal(f->capture_files[gd_net_dev_by_name(f->net, "mlx5_1")->file], "ibstat.txt");
    release(f);
}

/* One paste, three commands of three formats: each reaches its reader, the lines keep their numbers. */
static void paste_cut_at_its_prompts(void **state)
{
    (void)state;
    static const char text[] = "user@node:~$ ip -br a\n"
                               "lo UNKNOWN 127.0.0.1/8\n"
                               "ens1 UP 10.1.0.5/24\n"
                               "user@node:~$ ibdev2netdev\n"
                               "mlx5_0 port 1 ==> ens1 (Up)\n"
                               "user@node:~$ lsmod | grep nvidia_peermem\n"
                               "user@node:~$ uptime\n"
                               " 10:00:00 up 3 days\n"
                               "user@node:~$\n";
    gd_facts *f = import(text);
    assert_int_equal(f->net->iface_count, 2);
    assert_string_equal(port_of(f, "mlx5_0", 1)->netdev, "ens1");
    assert_int_equal(f->net->peermem, GD_PEERMEM_ABSENT);
    assert_non_null(strstr(f->capture_formats, "ip -br a"));
    assert_non_null(strstr(f->capture_formats, "ibdev2netdev"));
    assert_non_null(strstr(f->capture_formats, "lsmod"));
    bool passed_over = false;
    for (size_t i = 0; i < f->capture_note_count; i++)
        passed_over |= strstr(f->capture_notes[i], "t.txt:8: 1 command output") != NULL &&
                       strstr(f->capture_notes[i], "'uptime'") != NULL;
    if (!passed_over)
        fail_msg("no note of uptime's output passed over (first note: %s)",
                 f->capture_note_count ? f->capture_notes[0] : "none");
    release(f);
}

/* Bytes a reader does not know: a message naming the file, never a crash. */
static void malformed_input_is_refused(void **state)
{
    (void)state;
    static const reader readers[] = {gd_import_ibstat,       gd_import_ibstatus,  gd_import_ibv_devinfo,
                                     gd_import_ibdev2netdev, gd_import_show_gids, gd_import_lsmod,
                                     gd_import_ip_brief,     gd_import_lspci_acs, gd_import_rdma_link};
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
        char err[256] = "";
        int rc;
        gd_facts *f = read_with(readers[i], "\x01\x02 garbage ==> (\n\n", &rc, err, sizeof err);
        assert_int_equal(rc, -1);
        if (strncmp(err, "t.txt: ", 7) != 0)
            fail_msg("reader %zu: '%s' does not name the file", i, err);
        release(f);
    }
    /* A line far past the line buffer, and a device table overflowed: read, not crashed. */
    size_t n = 200 * 20 + 70000;
    char *big = malloc(n + 1);
    size_t used = 0;
    for (int d = 0; d < 200; d++)
        used += (size_t)snprintf(big + used, n + 1 - used, "CA 'mlx5_%d'\n", d);
    memset(big + used, 'x', n - used);
    big[n] = '\0';
    char err[256];
    int rc;
    gd_facts *f = read_with(gd_import_ibstat, big, &rc, err, sizeof err);
    assert_int_equal(rc, 0);
    assert_int_equal(f->net->dev_count, GD_NET_MAX_DEVS);
    assert_true(f->capture_note_count > 0);
    release(f);
    free(big);
}

/* ---- every real file of realdata/network/{ib,misc} ---- */

static char *slurp(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s", REALDATA, rel);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, fp);
    b[got] = '\0';
    fclose(fp);
    return b;
}

static gd_facts *real(const char *rel)
{
    if (access(REALDATA "SOURCES.md", R_OK) != 0)
        skip();
    char *text = slurp(rel);
    if (!text)
        fail_msg("%s%s is missing", REALDATA, rel);
    gd_facts *f = import(text);
    free(text);
    assert_non_null(f->net);
    return f;
}

/* "mlx5_0:active:link_up:200:ib" for each port; -1 rate not read, "?" a layer not read. */
static void ports_are(const gd_facts *f, const char *const *want, size_t n, size_t devs)
{
    assert_int_equal(f->net->dev_count, devs);
    for (size_t i = 0; i < n; i++) {
        char dev[32], st[16], ph[16], ll[8];
        double rate;
        if (sscanf(want[i], "%31[^:]:%15[^:]:%15[^:]:%lf:%7s", dev, st, ph, &rate, ll) != 5)
            fail_msg("bad expectation %s", want[i]);
        const gd_net_port *p = port_of(f, dev, 1);
        gd_port_state s = strcmp(st, "active") == 0 ? GD_PORT_ACTIVE
                          : strcmp(st, "down") == 0 ? GD_PORT_DOWN
                                                    : GD_PORT_STATE_UNKNOWN;
        gd_port_phys ps = strcmp(ph, "link_up") == 0    ? GD_PORT_PHYS_LINKUP
                          : strcmp(ph, "disabled") == 0 ? GD_PORT_PHYS_DISABLED
                                                        : GD_PORT_PHYS_UNKNOWN;
        gd_link_layer l = strcmp(ll, "ib") == 0    ? GD_LINK_INFINIBAND
                          : strcmp(ll, "eth") == 0 ? GD_LINK_ETHERNET
                                                   : GD_LINK_UNKNOWN;
        if (p->state != s || p->phys != ps || p->link_layer != l)
            fail_msg("%s: state %d phys %d layer %d, want %s", dev, p->state, p->phys, p->link_layer, want[i]);
        rate_is(p, rate);
    }
}

static void real_ibstat_cx6_one_down_disabled(void **state)
{
    (void)state;
    gd_facts *f = real("ib/ibstat-cx6-hdr200-active-cx6-down-disabled-cx4lx-ncclt128.txt");
    static const char *const want[] = {"mlx5_0:active:link_up:200:ib", "mlx5_1:down:disabled:10:ib",
                                       "mlx5_2:active:link_up:-1:?"}; /* the paste stops inside mlx5_2 */
    ports_are(f, want, 3, 3);
    assert_string_equal(gd_net_dev_by_name(f->net, "mlx5_2")->ca_type, "MT4117");
    release(f);
}

static void real_ibstat_gb10_roce_two_disabled(void **state)
{
    (void)state;
    gd_facts *f = real("ib/ibstat-dgx-spark-gb10-cx7-roce200-two-active-two-disabled-geerling92.txt");
    static const char *const want[] = {"roceP2p1s0f0:active:link_up:200:eth", "roceP2p1s0f1:down:disabled:40:eth",
                                       "rocep1s0f0:active:link_up:200:eth",
                                       "rocep1s0f1:?:?:-1:?"}; /* cut before its port block */
    ports_are(f, want, 3, 4);
    assert_int_equal(gd_net_dev_by_name(f->net, "rocep1s0f1")->port_count, 0);
    assert_int_equal(f->net->dev_count, 4);
    release(f);
}

static void real_ibstat_h100_roce_two_down(void **state)
{
    (void)state;
    gd_facts *f = real("ib/ibstat-h100-8x-cx7-roce400-two-down-disabled-gpud.txt");
    static const char *const want[] = {
        "mlx5_0:active:link_up:400:eth", "mlx5_1:active:link_up:100:eth", "mlx5_10:active:link_up:400:eth",
        "mlx5_11:down:disabled:40:eth",  "mlx5_2:active:link_up:100:eth", "mlx5_3:active:link_up:400:eth",
        "mlx5_4:active:link_up:400:eth", "mlx5_5:down:disabled:40:eth",   "mlx5_6:active:link_up:400:eth",
        "mlx5_7:active:link_up:100:eth", "mlx5_8:active:link_up:100:eth", "mlx5_9:active:link_up:400:eth",
    };
    ports_are(f, want, 12, 12);
    assert_string_equal(gd_net_dev_by_name(f->net, "mlx5_1")->ca_type, "MT4125");
    release(f);
}

static void real_ibstat_h100_ndr_all_active(void **state)
{
    (void)state;
    gd_facts *f = real("ib/ibstat-h100-8x-ndr400-ib-plus-bf3-bond-200-eth-gpud.txt");
    static const char *const want[] = {
        "mlx5_0:active:link_up:400:ib", "mlx5_1:active:link_up:400:ib", "mlx5_4:active:link_up:400:ib",
        "mlx5_5:active:link_up:400:ib", "mlx5_6:active:link_up:400:ib", "mlx5_7:active:link_up:400:ib",
        "mlx5_8:active:link_up:400:ib", "mlx5_9:active:link_up:400:ib", "mlx5_bond_0:active:link_up:200:eth",
    };
    ports_are(f, want, 9, 9);
    release(f);
}

static void real_ibstatus_azure_all_active(void **state)
{
    (void)state;
    gd_facts *f = real("ib/ibstatus-a100-azure-8x-hdr200-all-active-gpud.txt");
    static const char *const want[] = {
        "mlx5_0:active:link_up:200:ib", "mlx5_1:active:link_up:200:ib", "mlx5_2:active:link_up:200:ib",
        "mlx5_3:active:link_up:200:ib", "mlx5_4:active:link_up:200:ib", "mlx5_5:active:link_up:200:ib",
        "mlx5_6:active:link_up:200:ib", "mlx5_7:active:link_up:200:ib", "mlx5_8:active:link_up:40:eth",
    };
    ports_are(f, want, 9, 9);
    release(f);
}

static void real_ibstatus_one_down(void **state)
{
    (void)state;
    gd_facts *f = real("ib/ibstatus-hdr200-one-active-one-down-disabled-nccl489.txt");
    static const char *const want[] = {"mlx5_0:active:link_up:200:ib", "mlx5_1:down:disabled:10:ib"};
    ports_are(f, want, 2, 2);
    assert_string_equal(port_of(f, "mlx5_1", 1)->gids[0].gid, "fe80:0000:0000:0000:043f:7203:00fc:8334");
    release(f);
}

static void real_ibdev2netdev_pure_ib(void **state)
{
    (void)state;
    gd_facts *f = real("ib/ibdev2netdev-h100-8x-cx7-pure-ib-netdev-down-is-normal-imbue4.txt");
    assert_int_equal(f->net->dev_count, 12);
    size_t up = 0;
    for (size_t i = 0; i < f->net->dev_count; i++) {
        const gd_net_port *p = &f->net->devs[i].ports[0];
        assert_int_equal(p->state, GD_PORT_STATE_UNKNOWN); /* the netdev's state, not the port's */
        up += p->netdev_up == 1;
    }
    assert_int_equal(up, 2); /* mlx5_1 and mlx5_7, the Ethernet ports */
    assert_string_equal(port_of(f, "mlx5_0", 1)->netdev, "ibp26s0");
    assert_int_equal(port_of(f, "mlx5_0", 1)->netdev_up, 0);
    assert_string_equal(port_of(f, "mlx5_7", 1)->netdev, "enp157s0f0np0");
    release(f);
}

static void real_paste_ip_ibdev2netdev_topo(void **state)
{
    (void)state;
    gd_facts *f = real("ib/ip-ibdev2netdev-topo-hgx8-roce-12x-mlx5-two-down-slurmv4.txt");
    assert_int_equal(f->net->dev_count, 12);
    assert_int_equal(f->net->iface_count, 17);
    size_t down = 0;
    for (size_t i = 0; i < f->net->dev_count; i++)
        down += f->net->devs[i].ports[0].netdev_up == 0;
    assert_int_equal(down, 2); /* mlx5_10 and mlx5_4 */
    assert_int_equal(port_of(f, "mlx5_10", 1)->netdev_up, 0);
    assert_int_equal(port_of(f, "mlx5_4", 1)->netdev_up, 0);
    assert_string_equal(port_of(f, "mlx5_3", 1)->netdev, "bond0");
    assert_string_equal(port_of(f, "mlx5_9", 1)->netdev, "bond0");
    assert_string_equal(f->net->ifaces[0].name, "lo");
    assert_true(f->net->ifaces[0].loopback);
    const gd_net_iface *bond = &f->net->ifaces[16];
    assert_string_equal(bond->name, "bond0");
    assert_string_equal(bond->ipv4, "10.73.175.137");
    assert_int_equal(bond->up, 1);
    /* nvidia-smi topo -m, the third command, reached its reader too. */
    assert_non_null(strstr(f->capture_formats, "nvidia-smi topo -m"));
    release(f);
}

static void real_show_gids_index_4_v1(void **state)
{
    (void)state;
    gd_facts *f = real("ib/show_gids-roce-mlx5_0-gid-index-4-is-v1-nccl1510.txt");
    assert_int_equal(f->net->dev_count, 1);
    const gd_net_port *p = port_of(f, "mlx5_0", 1);
    assert_int_equal(p->gid_count, 4);
    static const char *const types[] = {"v1", "v2", "v1", "v2"};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(p->gids[i].index, (int)i + 4);
        assert_string_equal(p->gids[i].type, types[i]);
        assert_string_equal(p->gids[i].netdev, "net1");
    }
    assert_string_equal(p->gids[0].ipv4, "10.12.0.21");
    assert_string_equal(p->gids[2].ipv4, "");
    release(f);
}

static void real_lsmod_no_peermem(void **state)
{
    (void)state;
    gd_facts *f = real("misc/lsmod-no-nvidia_peermem-no-nv_peer_mem-a100-ib-nccl988.txt");
    assert_int_equal(f->net->peermem, GD_PEERMEM_ABSENT);
    assert_string_equal(f->net->peermem_module, "");
    assert_int_equal(f->net->dev_count, 0);
    release(f);
}

static void real_lspci_acsctl_grep(void **state)
{
    (void)state;
    gd_facts *f = real("misc/lspci-acsctl-still-enabled-although-bios-off-vendor-err-81-nccl523.txt");
    const gd_net_facts *n = f->net;
    assert_true(n->acs_read);
    assert_int_equal(n->acs_count, 12);
    size_t redir = 0, src = 0;
    for (size_t i = 0; i < n->acs_count; i++) {
        assert_string_equal(n->acs[i].bdf, "");
        redir += n->acs[i].req_redir;
        src += n->acs[i].src_valid;
    }
    assert_int_equal(redir, 5);
    assert_int_equal(src, 5);
    assert_true(n->acs[0].upstream_fwd && n->acs[0].cmplt_redir);
    release(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ibstat_blocks_and_ports),
        cmocka_unit_test(ibstatus_blocks),
        cmocka_unit_test(ibv_devinfo_plain_and_verbose),
        cmocka_unit_test(ibdev2netdev_netdev_state_is_not_the_ports),
        cmocka_unit_test(show_gids_rows),
        cmocka_unit_test(lsmod_peermem),
        cmocka_unit_test(ip_brief_interfaces),
        cmocka_unit_test(lspci_acs_with_and_without_bdf),
        cmocka_unit_test(rdma_link_ports),
        cmocka_unit_test(detection),
        cmocka_unit_test(files_join_by_device_and_port),
        cmocka_unit_test(paste_cut_at_its_prompts),
        cmocka_unit_test(malformed_input_is_refused),
        cmocka_unit_test(real_ibstat_cx6_one_down_disabled),
        cmocka_unit_test(real_ibstat_gb10_roce_two_disabled),
        cmocka_unit_test(real_ibstat_h100_roce_two_down),
        cmocka_unit_test(real_ibstat_h100_ndr_all_active),
        cmocka_unit_test(real_ibstatus_azure_all_active),
        cmocka_unit_test(real_ibstatus_one_down),
        cmocka_unit_test(real_ibdev2netdev_pure_ib),
        cmocka_unit_test(real_paste_ip_ibdev2netdev_topo),
        cmocka_unit_test(real_show_gids_index_4_v1),
        cmocka_unit_test(real_lsmod_no_peermem),
        cmocka_unit_test(real_lspci_acsctl_grep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
