/* SPDX-License-Identifier: Apache-2.0 */
/* Literal training-network facts for the network checks' tests: a node's
 * RDMA devices as sysfs or ibstat would give them. */
#ifndef GD_TEST_NET_FIXTURE_H
#define GD_TEST_NET_FIXTURE_H

#include "gpudoctor/net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* f->net, empty but read (an Ethernet-only node until devices are added). */
static inline gd_net_facts *nx_net(gd_facts *f, const char *source)
{
    gd_net_facts *n = calloc(1, sizeof *n);
    snprintf(n->source, sizeof n->source, "%s", source);
    n->devices_read = true;
    f->net = n;
    return n;
}

/* Adds device name (model ca, bus address bdf or NULL) with one port in
 * state/phys at rate Gb/s (<= 0: not read) on link layer ll. */
static inline gd_net_dev *nx_dev(gd_net_facts *n, const char *name, const char *ca, const char *bdf, gd_link_layer ll,
                                 gd_port_state st, gd_port_phys ph, double rate)
{
    gd_net_dev *d = &n->devs[n->dev_count++];
    snprintf(d->name, sizeof d->name, "%s", name);
    snprintf(d->ca_type, sizeof d->ca_type, "%s", ca ? ca : "");
    snprintf(d->bdf, sizeof d->bdf, "%s", bdf ? bdf : "");
    d->numa_node = -1;
    d->port_count = 1;
    gd_net_port *p = &d->ports[0];
    p->port = 1;
    p->state = st;
    p->phys = ph;
    p->link_layer = ll;
    p->rate_gbps = rate > 0 ? gd_val(rate) : gd_missing(GD_ST_UNREAD);
    p->netdev_up = -1;
    for (int c = 0; c < GD_PC_COUNT; c++)
        p->counters_first[c] = p->counters_last[c] = gd_missing(GD_ST_UNREAD);
    return d;
}

/* n rail NICs mlx5_0.. of model ca, active at rate on link layer ll, bus 0x1a + 0x10 * i. */
static inline void nx_rails(gd_net_facts *n, size_t count, const char *ca, gd_link_layer ll, double rate)
{
    for (size_t i = 0; i < count; i++) {
        char name[16], bdf[16];
        snprintf(name, sizeof name, "mlx5_%zu", n->dev_count);
        snprintf(bdf, sizeof bdf, "0000:%02x:00.0", (unsigned)(0x1a + 0x10 * i) & 0xffu);
        nx_dev(n, name, ca, bdf, ll, GD_PORT_ACTIVE, GD_PORT_PHYS_LINKUP, rate);
    }
}

static inline void nx_gid(gd_net_port *p, int index, const char *gid, const char *type, const char *ipv4)
{
    gd_net_gid *g = &p->gids[p->gid_count++];
    g->index = index;
    snprintf(g->gid, sizeof g->gid, "%s", gid);
    snprintf(g->type, sizeof g->type, "%s", type);
    snprintf(g->ipv4, sizeof g->ipv4, "%s", ipv4);
}

static inline void nx_iface(gd_net_facts *n, const char *name, int up, bool loopback, bool bridge)
{
    n->ifaces_read = true;
    gd_net_iface *i = &n->ifaces[n->iface_count++];
    snprintf(i->name, sizeof i->name, "%s", name);
    i->up = up;
    i->loopback = loopback;
    i->bridge = bridge;
}

#endif
