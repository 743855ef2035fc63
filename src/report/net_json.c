/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON report's "network" object (net_json.h). Values a source did not
 * give are null, never 0 or "": an ibdev2netdev paste says nothing of a
 * port's rate. */
#include "net_json.h"
#include "core/json_util.h"
#include "gpudoctor/net.h"

#include <stdio.h>
#include <string.h>

static json_t *state_json(gd_port_state s)
{
    static const char *const names[] = {NULL, "down", "init", "armed", "active", "active_defer"};
    return s > 0 && (size_t)s < sizeof names / sizeof names[0] ? json_string(names[s]) : json_null();
}

static json_t *phys_json(gd_port_phys p)
{
    static const char *const names[] = {
        NULL, "sleep", "polling", "disabled", "training", "link_up", "link_error_recovery", "phy_test"};
    return p > 0 && (size_t)p < sizeof names / sizeof names[0] ? json_string(names[p]) : json_null();
}

static json_t *link_json(gd_link_layer l)
{
    return l == GD_LINK_INFINIBAND ? json_string("infiniband")
           : l == GD_LINK_ETHERNET ? json_string("ethernet")
                                   : json_null();
}

static json_t *tri_json(int v)
{
    return v < 0 ? json_null() : json_boolean(v);
}

/* The counters a source read (sysfs): each as {first, last}, with the span. */
static json_t *counters_json(const gd_net_port *p)
{
    json_t *c = NULL;
    for (size_t i = 0; i < GD_PC_COUNT; i++) {
        if (!gd_ok(p->counters_last[i]))
            continue;
        if (!c)
            c = json_object();
        json_t *one = json_object();
        json_object_set_new(one, "first", gd_json_value(p->counters_first[i]));
        json_object_set_new(one, "last", gd_json_value(p->counters_last[i]));
        json_object_set_new(c, gd_port_counter_name((gd_port_counter)i), one);
    }
    if (c)
        json_object_set_new(c, "span_s", gd_json_number(p->counter_span_s));
    return c ? c : json_null();
}

static json_t *port_json(const gd_net_port *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "port", json_integer(p->port));
    json_object_set_new(o, "state", state_json(p->state));
    json_object_set_new(o, "phys", phys_json(p->phys));
    json_object_set_new(o, "rate_gbps", gd_json_value(p->rate_gbps));
    json_object_set_new(o, "rate_text", gd_json_text(p->rate_text));
    json_object_set_new(o, "link_layer", link_json(p->link_layer));
    json_object_set_new(o, "netdev", gd_json_text(p->netdev));
    json_object_set_new(o, "netdev_up", tri_json(p->netdev_up));
    json_t *gids = json_array();
    for (size_t i = 0; i < p->gid_count && i < GD_NET_MAX_GIDS; i++) {
        const gd_net_gid *g = &p->gids[i];
        json_t *r = json_object();
        json_object_set_new(r, "index", json_integer(g->index));
        json_object_set_new(r, "gid", gd_json_text(g->gid));
        json_object_set_new(r, "type", gd_json_text(g->type));
        json_object_set_new(r, "ipv4", gd_json_text(g->ipv4));
        json_object_set_new(r, "netdev", gd_json_text(g->netdev));
        json_array_append_new(gids, r);
    }
    json_object_set_new(o, "gids", gids);
    json_object_set_new(o, "counters", counters_json(p));
    return o;
}

/* The capture file a device came from, by its base name; null live. */
static json_t *file_json(const gd_facts *f, const gd_net_dev *d)
{
    if (!f->captured || d->file >= f->capture_file_count || d->file >= GD_CAPTURE_FILES)
        return json_null();
    const char *name = f->capture_files[d->file], *slash = strrchr(name, '/');
    return json_string(slash ? slash + 1 : name);
}

static json_t *devices_json(const gd_facts *f, const gd_net_facts *n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n->dev_count && i < GD_NET_MAX_DEVS; i++) {
        const gd_net_dev *d = &n->devs[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(d->name));
        json_object_set_new(o, "ca_type", gd_json_text(d->ca_type));
        json_object_set_new(o, "firmware", gd_json_text(d->firmware));
        json_object_set_new(o, "bdf", gd_json_text(d->bdf));
        json_object_set_new(o, "numa_node", d->numa_node >= 0 ? json_integer(d->numa_node) : json_null());
        json_object_set_new(o, "file", file_json(f, d));
        json_t *ports = json_array();
        for (size_t k = 0; k < d->port_count && k < GD_NET_MAX_PORTS; k++)
            json_array_append_new(ports, port_json(&d->ports[k]));
        json_object_set_new(o, "ports", ports);
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *ifaces_json(const gd_net_facts *n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n->iface_count && i < GD_NET_MAX_IFACES; i++) {
        const gd_net_iface *x = &n->ifaces[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(x->name));
        json_object_set_new(o, "up", tri_json(x->up));
        json_object_set_new(o, "ipv4", gd_json_text(x->ipv4));
        json_object_set_new(o, "loopback", json_boolean(x->loopback));
        json_object_set_new(o, "bridge", json_boolean(x->bridge));
        json_object_set_new(o, "virtual", json_boolean(x->virtual_dev));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *peermem_json(const gd_net_facts *n)
{
    json_t *o = json_object();
    json_object_set_new(o, "state",
                        n->peermem == GD_PEERMEM_LOADED   ? json_string("loaded")
                        : n->peermem == GD_PEERMEM_ABSENT ? json_string("absent")
                                                          : json_null());
    json_object_set_new(o, "module", gd_json_text(n->peermem_module));
    json_object_set_new(o, "source", gd_json_text(n->peermem_source));
    return o;
}

static json_t *acs_json(const gd_net_facts *n)
{
    static const char *const bits[] = {"SrcValid",    "TransBlk",   "ReqRedir",   "CmpltRedir",
                                       "UpstreamFwd", "EgressCtrl", "DirectTrans"};
    json_t *o = json_object(), *rows = json_array();
    json_object_set_new(o, "read", json_boolean(n->acs_read));
    json_object_set_new(o, "source", gd_json_text(n->acs_source));
    for (size_t i = 0; i < n->acs_count && i < GD_NET_MAX_ACS; i++) {
        const gd_net_acs *a = &n->acs[i];
        const bool on[] = {a->src_valid,    a->trans_blk,   a->req_redir,   a->cmplt_redir,
                           a->upstream_fwd, a->egress_ctrl, a->direct_trans};
        json_t *r = json_object(), *enabled = json_array();
        json_object_set_new(r, "bdf", gd_json_text(a->bdf));
        for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++)
            if (on[b])
                json_array_append_new(enabled, json_string(bits[b]));
        json_object_set_new(r, "enabled", enabled);
        json_array_append_new(rows, r);
    }
    json_object_set_new(o, "rows", rows);
    return o;
}

json_t *gd_report_network_json(const gd_facts *f)
{
    const gd_net_facts *n = f->net;
    if (!n)
        return NULL;
    json_t *o = json_object();
    json_object_set_new(o, "source", gd_json_text(n->source));
    json_object_set_new(o, "devices_read", json_boolean(n->devices_read));
    json_object_set_new(o, "devices", devices_json(f, n));
    json_object_set_new(o, "interfaces_read", json_boolean(n->ifaces_read));
    json_object_set_new(o, "interfaces", ifaces_json(n));
    json_object_set_new(o, "peermem", peermem_json(n));
    json_object_set_new(o, "acs", acs_json(n));
    return o;
}
