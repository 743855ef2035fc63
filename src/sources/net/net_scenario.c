/* SPDX-License-Identifier: Apache-2.0 */
/* The training network of a simulated machine: its scenario's "nics" and
 * "network" (docs/scenarios.md), never this machine's. */
#include "net_collect.h"

#include "scenario/scenario.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void fill_port(gd_net_port *p, const gd_scenario_nic_port *s)
{
    *p = (gd_net_port){.port = (int)s->port,
                       .state = (gd_port_state)s->state,
                       .phys = (gd_port_phys)s->phys_state,
                       .link_layer = s->link_layer == 1   ? GD_LINK_INFINIBAND
                                     : s->link_layer == 2 ? GD_LINK_ETHERNET
                                                          : GD_LINK_UNKNOWN,
                       .netdev_up = s->netdev_up.present ? s->netdev_up.value : -1};
    if (s->rate_gbps.present) {
        p->rate_gbps = gd_val(s->rate_gbps.value);
        snprintf(p->rate_text, sizeof p->rate_text, "%g Gb/sec", s->rate_gbps.value);
    }
    snprintf(p->netdev, sizeof p->netdev, "%s", s->netdev);
    for (size_t g = 0; g < s->gid_count && g < GD_NET_MAX_GIDS; g++) {
        gd_net_gid *x = &p->gids[p->gid_count++];
        x->index = s->gids[g].index;
        snprintf(x->gid, sizeof x->gid, "%s", s->gids[g].gid);
        snprintf(x->type, sizeof x->type, "%s", s->gids[g].type);
        snprintf(x->netdev, sizeof x->netdev, "%s", s->gids[g].netdev);
    }
    if (!p->netdev[0])
        for (size_t g = 0; g < p->gid_count && !p->netdev[0]; g++)
            snprintf(p->netdev, sizeof p->netdev, "%s", p->gids[g].netdev);
    for (size_t k = 0; k < GD_SCENARIO_PORT_COUNTERS; k++) {
        gd_port_counter c = gd_port_counter_by_name(gd_scenario_port_counter_names[k]);
        double v;
        if (c < GD_PC_COUNT && gd_scenario_nic_counter_at(s, k, 0, &v))
            p->counters_first[c] = p->counters_last[c] = gd_val(v);
        else if (c < GD_PC_COUNT) /* a counter the scenario does not give: not reported by this port */
            p->counters_first[c] = p->counters_last[c] = gd_missing(GD_ST_NOT_SUPPORTED);
    }
}

static void fill_network(gd_net_facts *n, const gd_scenario_net *s, const char *name)
{
    if (s->has_ifaces) {
        n->ifaces_read = true;
        for (size_t i = 0; i < s->iface_count && i < GD_NET_MAX_IFACES; i++) {
            const gd_scenario_iface *x = &s->ifaces[i];
            gd_net_iface *y = &n->ifaces[n->iface_count++];
            *y = (gd_net_iface){.up = x->up.present ? x->up.value : -1,
                                .loopback = x->loopback,
                                .bridge = x->bridge,
                                .virtual_dev = x->virtual_dev};
            snprintf(y->name, sizeof y->name, "%s", x->name);
            snprintf(y->ipv4, sizeof y->ipv4, "%s", x->ipv4);
        }
    }
    if (s->peermem != GD_SCENARIO_PEERMEM_ABSENT) {
        n->peermem = s->peermem == GD_SCENARIO_PEERMEM_NONE ? GD_PEERMEM_ABSENT : GD_PEERMEM_LOADED;
        snprintf(n->peermem_module, sizeof n->peermem_module, "%s",
                 s->peermem == GD_SCENARIO_PEERMEM_NVIDIA     ? "nvidia_peermem"
                 : s->peermem == GD_SCENARIO_PEERMEM_MELLANOX ? "nv_peer_mem"
                                                              : "");
        snprintf(n->peermem_source, sizeof n->peermem_source, "sim:%.120s", name);
    }
    if (s->has_acs) {
        n->acs_read = true;
        snprintf(n->acs_source, sizeof n->acs_source, "sim:%.120s", name);
        for (size_t i = 0; i < s->acs_count && i < GD_NET_MAX_ACS; i++) {
            const gd_scenario_acs *x = &s->acs[i];
            gd_net_acs *y = &n->acs[n->acs_count++];
            *y = (gd_net_acs){.src_valid = x->src_valid,
                              .trans_blk = x->trans_blk,
                              .req_redir = x->req_redir,
                              .cmplt_redir = x->cmplt_redir,
                              .upstream_fwd = x->upstream_fwd,
                              .egress_ctrl = x->egress_ctrl,
                              .direct_trans = x->direct_trans};
            snprintf(y->bdf, sizeof y->bdf, "%s", x->bdf);
        }
    }
}

gd_net_facts *gd_net_from_scenario(const gd_scenario *sc, const char *name)
{
    const gd_scenario_net *s = &sc->net;
    if (!s->has_nics && !s->has_ifaces && !s->has_acs && s->peermem == GD_SCENARIO_PEERMEM_ABSENT)
        return NULL;
    gd_net_facts *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    if (s->has_nics) {
        n->devices_read = true;
        snprintf(n->source, sizeof n->source, "sim:%s", name);
    }
    for (size_t i = 0; i < s->nic_count && i < GD_NET_MAX_DEVS; i++) {
        const gd_scenario_nic *x = &s->nics[i];
        gd_net_dev *d = &n->devs[n->dev_count++];
        *d = (gd_net_dev){.numa_node = x->numa_node.present ? (int)x->numa_node.value : -1};
        snprintf(d->name, sizeof d->name, "%s", x->name);
        snprintf(d->bdf, sizeof d->bdf, "%s", x->bdf);
        snprintf(d->ca_type, sizeof d->ca_type, "%s", x->ca_type);
        snprintf(d->firmware, sizeof d->firmware, "%s", x->firmware);
        for (size_t k = 0; k < x->port_count && k < GD_NET_MAX_PORTS; k++)
            fill_port(&d->ports[d->port_count++], &x->ports[k]);
    }
    fill_network(n, s, name);
    /* A port's netdev up or down from the interfaces where the port does not say. */
    for (size_t i = 0; i < n->dev_count; i++)
        for (size_t k = 0; k < n->devs[i].port_count; k++) {
            gd_net_port *p = &n->devs[i].ports[k];
            for (size_t j = 0; p->netdev_up < 0 && p->netdev[0] && j < n->iface_count; j++)
                if (strcmp(n->ifaces[j].name, p->netdev) == 0)
                    p->netdev_up = n->ifaces[j].up;
        }
    return n;
}

void gd_net_scenario_at(gd_net_facts *n, const gd_scenario *sc, double t)
{
    if (!n || !sc)
        return;
    for (size_t i = 0; i < n->dev_count && i < sc->net.nic_count; i++)
        for (size_t k = 0; k < n->devs[i].port_count && k < sc->net.nics[i].port_count; k++) {
            gd_net_port *p = &n->devs[i].ports[k];
            const gd_scenario_nic_port *s = &sc->net.nics[i].ports[k];
            for (size_t c = 0; c < GD_SCENARIO_PORT_COUNTERS; c++) {
                gd_port_counter pc = gd_port_counter_by_name(gd_scenario_port_counter_names[c]);
                double v;
                if (pc < GD_PC_COUNT && gd_scenario_nic_counter_at(s, c, t, &v))
                    p->counters_last[pc] = gd_val(v);
            }
            p->counter_span_s = t;
        }
}

int gd_net_scenario_check(const gd_scenario *sc, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    struct stat st;
    if (!sc->host.sysfs || snprintf(dir, sizeof dir, "%s/bus/pci/devices", sc->host.sysfs) >= (int)sizeof dir ||
        stat(dir, &st) != 0)
        return 0; /* no PCI tree to join */
    for (size_t i = 0; i < sc->net.nic_count; i++) {
        const gd_scenario_nic *x = &sc->net.nics[i];
        char path[PATH_MAX + 32];
        if (!x->bdf[0])
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, x->bdf);
        if (stat(path, &st) != 0) {
            snprintf(err, errlen,
                     "%s: nics[%zu].bdf: %s (%s) is not a PCI device of host.sysfs: the NICs and the PCIe tree must "
                     "agree",
                     sc->path, i, x->bdf, x->name);
            return -1;
        }
    }
    return 0;
}
