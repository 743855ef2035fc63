/* SPDX-License-Identifier: Apache-2.0 */
/* The network checks' shared reading of f->net (net_ports.h). */
#include "net_ports.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool gd_net_port_active(const gd_net_port *p)
{
    if (p->state == GD_PORT_ACTIVE || p->state == GD_PORT_ACTIVE_DEFER)
        return true;
    return p->state == GD_PORT_STATE_UNKNOWN && p->phys == GD_PORT_PHYS_UNKNOWN && p->link_layer == GD_LINK_ETHERNET &&
           p->netdev_up == 1;
}

bool gd_net_port_dead(const gd_net_port *p)
{
    if (p->state == GD_PORT_DOWN || p->phys == GD_PORT_PHYS_POLLING || p->phys == GD_PORT_PHYS_DISABLED)
        return true;
    /* Init / Armed: the link trained, no subnet manager made it active. */
    if (p->state == GD_PORT_INIT || p->state == GD_PORT_ARMED)
        return true;
    /* A RoCE port is its netdev: down there is down. */
    return p->state == GD_PORT_STATE_UNKNOWN && p->phys == GD_PORT_PHYS_UNKNOWN && p->link_layer == GD_LINK_ETHERNET &&
           p->netdev_up == 0;
}

const char *gd_net_port_state_text(const gd_net_port *p, char *buf, size_t len)
{
    static const char *const phys[] = {"",         "Sleep",  "Polling",           "Disabled",
                                       "Training", "LinkUp", "LinkErrorRecovery", "PhyTest"};
    static const char *const state[] = {"", "Down", "Init", "Armed", "Active", "ActiveDefer"};
    const char *s = (size_t)p->state < sizeof state / sizeof *state ? state[p->state] : "";
    const char *ph = (size_t)p->phys < sizeof phys / sizeof *phys ? phys[p->phys] : "";
    if (!*s && !*ph)
        s = p->netdev_up == 0 ? "Down" : p->netdev_up == 1 ? "Up" : "unknown";
    snprintf(buf, len, "%s%s%s", s, *s && *ph ? "/" : "", ph);
    return buf;
}

/* The number after the last `key` in name followed by digits ("f1" in
 * "enp27s0f1np1"), or -1. */
static int number_after(const char *name, char key)
{
    int found = -1;
    for (const char *c = name; *c; c++)
        if (*c == key && isdigit((unsigned char)c[1]) && c > name && isdigit((unsigned char)c[-1]))
            found = atoi(c + 1);
    return found;
}

int gd_net_port_position(const gd_net_dev *d, const gd_net_port *p)
{
    if (p->port > 1)
        return p->port - 1;
    const char *dot = strrchr(d->bdf, '.');
    if (dot && isdigit((unsigned char)dot[1]))
        return atoi(dot + 1);
    /* Predictable names carry the PCI function: enp27s0f1np1, rocep1s0f1. */
    int fn = p->netdev[0] ? number_after(p->netdev, 'f') : -1;
    if (fn < 0)
        fn = number_after(d->name, 'f');
    return fn > 0 ? fn : 0;
}

bool gd_net_same_kind(const gd_net_dev *da, const gd_net_port *pa, const gd_net_dev *db, const gd_net_port *pb)
{
    if (pa->link_layer != pb->link_layer)
        return false;
    if (da->ca_type[0] && db->ca_type[0] && strcmp(da->ca_type, db->ca_type) != 0)
        return false;
    return (gd_net_port_position(da, pa) > 0) == (gd_net_port_position(db, pb) > 0);
}

const char *gd_net_dev_source(const gd_facts *f, const gd_net_dev *d)
{
    if (f->captured && d->file < f->capture_file_count && f->capture_files[d->file][0])
        return f->capture_files[d->file];
    return f->net ? f->net->source : "";
}

size_t gd_net_active_ports(const gd_facts *f)
{
    size_t n = 0;
    for (size_t i = 0; f->net && i < f->net->dev_count; i++)
        for (size_t k = 0; k < f->net->devs[i].port_count; k++)
            n += gd_net_port_active(&f->net->devs[i].ports[k]);
    return n;
}

bool gd_net_devices_read(const gd_facts *f, const char *id, gd_findings *out)
{
    if (f->net && f->net->devices_read)
        return true;
    gd_skip_add(out, id, GD_NO_GPU, "%s",
                f->net ? "the node's RDMA devices were not listed (no /sys/class/infiniband, no ibstat, ibstatus, "
                         "ibv_devinfo or ibdev2netdev capture)"
                       : "the training network was not read (no /sys/class/infiniband, no capture of ibstat or "
                         "the like)");
    return false;
}
