/* SPDX-License-Identifier: Apache-2.0 */
/* The node's training network in a scenario: "nics" (RDMA devices and their
 * ports) and "network" (interfaces, GPUDirect RDMA's module, PCIe ACS). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"

const char *const gd_scenario_port_counter_names[GD_SCENARIO_PORT_COUNTERS] = {
    "link_downed",
    "link_error_recovery",
    "symbol_error",
    "port_rcv_errors",
    "port_xmit_discards",
    "local_link_integrity_errors",
    "excessive_buffer_overrun_errors",
    "port_rcv_remote_physical_errors",
    "out_of_buffer",
    "out_of_sequence",
    "packet_seq_err",
    "local_ack_timeout_err",
};

/* IBTA names, in their numbers' order from 1 (sysfs "4: ACTIVE", "5: LinkUp"). */
static const char *const port_states[] = {"down", "init", "armed", "active", "active_defer"};
static const char *const phys_states[] = {"sleep",  "polling",        "disabled", "training",
                                          "linkup", "error_recovery", "phy_test"};
static const char *const link_layers[] = {"infiniband", "ethernet"};

/* An optional string key copied into a fixed field; longer ones are refused. */
static bool fixed_string(gd_parser *p, json_t *obj, const char *key, const char *at, char *out, size_t cap)
{
    char *s = NULL;
    if (!gdp_string(p, obj, key, at, &s))
        return false;
    if (!s)
        return true;
    size_t n = strlen(s);
    if (n >= cap) {
        char path[GD_SCENARIO_PATH_MAX];
        gdp_key(path, at, key);
        free(s);
        return gdp_fail(p, path, "longer than %zu characters", cap - 1);
    }
    memcpy(out, s, n + 1);
    free(s);
    return true;
}

/* An optional name out of `names` into *out (its position + 1; 0 absent). */
static bool named(gd_parser *p, json_t *obj, const char *key, const char *at, const char *const *names, size_t count,
                  int *out)
{
    char buf[32] = "";
    if (!fixed_string(p, obj, key, at, buf, sizeof buf))
        return false;
    *out = 0;
    if (!buf[0])
        return true;
    for (size_t i = 0; i < count; i++)
        if (strcmp(buf, names[i]) == 0) {
            *out = (int)i + 1;
            return true;
        }
    char known[200] = "", path[GD_SCENARIO_PATH_MAX];
    for (size_t i = 0; i < count; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", names[i]);
    gdp_key(path, at, key);
    return gdp_fail(p, path, "unknown value \"%s\" (known: %s)", buf, known);
}

/* "0000:19:00.0" (a PCI function), kept in lower case. */
static bool bdf(gd_parser *p, json_t *obj, const char *key, const char *at, char out[16], bool required)
{
    char path[GD_SCENARIO_PATH_MAX];
    gdp_key(path, at, key);
    if (!fixed_string(p, obj, key, at, out, 16))
        return false;
    if (!out[0])
        return required ? gdp_fail(p, path, "missing (a PCI address such as \"0000:19:00.0\")") : true;
    unsigned d, b, s, f;
    char end;
    if (strlen(out) != 12 || sscanf(out, "%4x:%2x:%2x.%1x%c", &d, &b, &s, &f, &end) != 4)
        return gdp_fail(p, path, "\"%s\" is not a PCI address such as \"0000:19:00.0\"", out);
    for (char *c = out; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    return true;
}

/* "counters": {"symbol_error": 0} or "counters_per_s": {"symbol_error": 2.5}. */
static bool counters(gd_parser *p, json_t *obj, const char *key, const char *at, gd_scenario_nic_port *port,
                     bool growth)
{
    json_t *c;
    if (!gdp_object(p, obj, key, at, &c))
        return false;
    if (!c)
        return true;
    char path[GD_SCENARIO_PATH_MAX];
    gdp_key(path, at, key);
    const char *name;
    json_t *v;
    json_object_foreach(c, name, v)
    {
        size_t k = 0;
        while (k < GD_SCENARIO_PORT_COUNTERS && strcmp(name, gd_scenario_port_counter_names[k]) != 0)
            k++;
        char sub[GD_SCENARIO_PATH_MAX];
        gdp_key(sub, path, name);
        if (k == GD_SCENARIO_PORT_COUNTERS)
            return gdp_fail(p, sub,
                            "unknown counter (known: link_downed, link_error_recovery, symbol_error, "
                            "port_rcv_errors, port_xmit_discards, local_link_integrity_errors, "
                            "excessive_buffer_overrun_errors, port_rcv_remote_physical_errors, "
                            "out_of_buffer, out_of_sequence, packet_seq_err, local_ack_timeout_err)");
        if (growth) {
            gd_scenario_num n;
            if (!gdp_num(p, c, name, path, 0, 1e12, &n))
                return false;
            port->counters_per_s[k] = n.present ? n.value : 0;
        } else if (!gdp_int(p, c, name, path, 0, (long long)1 << 62, &port->counters[k])) {
            return false;
        }
    }
    return true;
}

static bool gids(gd_parser *p, json_t *obj, const char *at, gd_scenario_nic_port *port)
{
    json_t *list;
    if (!gdp_array(p, obj, "gids", at, &list))
        return false;
    if (!list)
        return true;
    char path[GD_SCENARIO_PATH_MAX];
    gdp_key(path, at, "gids");
    if (json_array_size(list) > GD_SCENARIO_MAX_GIDS)
        return gdp_fail(p, path, "more than %d GIDs", GD_SCENARIO_MAX_GIDS);
    for (size_t i = 0; i < json_array_size(list); i++) {
        char sub[GD_SCENARIO_PATH_MAX];
        gdp_index(sub, path, i);
        json_t *g = json_array_get(list, i);
        if (!json_is_object(g))
            return gdp_fail(p, sub, "expected an object");
        gd_scenario_gid *x = &port->gids[port->gid_count++];
        gd_scenario_int index;
        if (!gdp_int(p, g, "index", sub, 0, 65535, &index) || !fixed_string(p, g, "gid", sub, x->gid, sizeof x->gid) ||
            !fixed_string(p, g, "type", sub, x->type, sizeof x->type) ||
            !fixed_string(p, g, "netdev", sub, x->netdev, sizeof x->netdev))
            return false;
        if (!index.present || !x->gid[0])
            return gdp_fail(p, sub, "a GID needs \"index\" and \"gid\"");
        if (x->type[0] && strcmp(x->type, "IB") != 0 && strcmp(x->type, "RoCE v1") != 0 &&
            strcmp(x->type, "RoCE v2") != 0)
            return gdp_fail(p, sub, "type \"%s\" is not one of \"IB\", \"RoCE v1\", \"RoCE v2\"", x->type);
        x->index = (int)index.value;
    }
    return true;
}

static bool nic_port(gd_parser *p, json_t *obj, const char *at, gd_scenario_nic_port *port)
{
    gd_scenario_int num;
    if (!gdp_int(p, obj, "port", at, 1, 255, &num) ||
        !named(p, obj, "state", at, port_states, sizeof port_states / sizeof *port_states, &port->state) ||
        !named(p, obj, "phys_state", at, phys_states, sizeof phys_states / sizeof *phys_states, &port->phys_state) ||
        !named(p, obj, "link_layer", at, link_layers, 2, &port->link_layer) ||
        !gdp_num(p, obj, "rate_gbps", at, 0, 100000, &port->rate_gbps) ||
        !fixed_string(p, obj, "netdev", at, port->netdev, sizeof port->netdev) ||
        !gdp_flag(p, obj, "netdev_up", at, &port->netdev_up) || !counters(p, obj, "counters", at, port, false) ||
        !counters(p, obj, "counters_per_s", at, port, true) || !gids(p, obj, at, port))
        return false;
    if (!num.present)
        return gdp_fail(p, at, "a port needs its number (\"port\": 1)");
    port->port = (unsigned)num.value;
    /* Growth needs a start: a counter that grows starts at 0 unless given. */
    for (size_t k = 0; k < GD_SCENARIO_PORT_COUNTERS; k++)
        if (port->counters_per_s[k] > 0 && !port->counters[k].present)
            port->counters[k] = (gd_scenario_int){true, 0};
    return true;
}

static bool nic(gd_parser *p, json_t *obj, const char *at, gd_scenario_nic *n)
{
    json_t *ports;
    if (!fixed_string(p, obj, "name", at, n->name, sizeof n->name) || !bdf(p, obj, "bdf", at, n->bdf, false) ||
        !fixed_string(p, obj, "ca_type", at, n->ca_type, sizeof n->ca_type) ||
        !fixed_string(p, obj, "firmware", at, n->firmware, sizeof n->firmware) ||
        !gdp_int(p, obj, "numa_node", at, -1, 4095, &n->numa_node) || !gdp_array(p, obj, "ports", at, &ports))
        return false;
    if (!n->name[0])
        return gdp_fail(p, at, "a NIC needs its RDMA device's name (\"name\": \"mlx5_0\")");
    char path[GD_SCENARIO_PATH_MAX];
    gdp_key(path, at, "ports");
    if (!ports || json_array_size(ports) == 0)
        return gdp_fail(p, path, "a NIC needs at least one port");
    if (json_array_size(ports) > GD_SCENARIO_MAX_NIC_PORTS)
        return gdp_fail(p, path, "more than %d ports", GD_SCENARIO_MAX_NIC_PORTS);
    for (size_t i = 0; i < json_array_size(ports); i++) {
        char sub[GD_SCENARIO_PATH_MAX];
        gdp_index(sub, path, i);
        json_t *o = json_array_get(ports, i);
        if (!json_is_object(o))
            return gdp_fail(p, sub, "expected an object");
        if (!nic_port(p, o, sub, &n->ports[n->port_count++]))
            return false;
        for (size_t j = 0; j + 1 < n->port_count; j++)
            if (n->ports[j].port == n->ports[i].port)
                return gdp_fail(p, sub, "port %u is listed twice", n->ports[i].port);
    }
    return true;
}

/* One object of a list into items[i]. */
typedef bool (*item_fn)(gd_parser *p, json_t *o, const char *at, void *items, size_t i);

/* The optional list `key` of obj, each object handed to fn: *has set where
 * the key is there, *items allocated (`size` bytes each), *count the items
 * parsed. */
static bool each_item(gd_parser *p, json_t *obj, const char *key, const char *at, size_t max, size_t size, bool *has,
                      void **items, size_t *count, item_fn fn)
{
    json_t *list;
    char path[GD_SCENARIO_PATH_MAX];
    gdp_key(path, at, key);
    if (!gdp_array(p, obj, key, at, &list))
        return false;
    if (!list)
        return true;
    *has = true;
    size_t n = json_array_size(list);
    if (n > max)
        return gdp_fail(p, path, "%zu entries, more than the limit of %zu", n, max);
    if (n && !(*items = calloc(n, size)))
        return gdp_fail(p, path, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char sub[GD_SCENARIO_PATH_MAX];
        gdp_index(sub, path, i);
        json_t *o = json_array_get(list, i);
        if (!json_is_object(o))
            return gdp_fail(p, sub, "expected an object");
        *count = i + 1;
        if (!fn(p, o, sub, *items, i))
            return false;
    }
    return true;
}

static bool nic_item(gd_parser *p, json_t *o, const char *at, void *items, size_t i)
{
    gd_scenario_nic *list = items;
    if (!nic(p, o, at, &list[i]))
        return false;
    for (size_t j = 0; j < i; j++)
        if (strcmp(list[j].name, list[i].name) == 0)
            return gdp_fail(p, at, "the NIC \"%s\" is listed twice", list[i].name);
    return true;
}

static bool iface_item(gd_parser *p, json_t *o, const char *at, void *items, size_t i)
{
    gd_scenario_iface *x = &((gd_scenario_iface *)items)[i];
    gd_scenario_flag lo, br, virt;
    if (!fixed_string(p, o, "name", at, x->name, sizeof x->name) || !gdp_flag(p, o, "up", at, &x->up) ||
        !gdp_flag(p, o, "loopback", at, &lo) || !gdp_flag(p, o, "bridge", at, &br) ||
        !gdp_flag(p, o, "virtual", at, &virt) || !fixed_string(p, o, "ipv4", at, x->ipv4, sizeof x->ipv4))
        return false;
    if (!x->name[0])
        return gdp_fail(p, at, "an interface needs its \"name\"");
    x->loopback = lo.present ? lo.value : strcmp(x->name, "lo") == 0;
    x->bridge = br.present && br.value;
    x->virtual_dev = virt.present ? virt.value : x->loopback || x->bridge;
    return true;
}

static bool acs_item(gd_parser *p, json_t *o, const char *at, void *items, size_t i)
{
    gd_scenario_acs *x = &((gd_scenario_acs *)items)[i];
    gd_scenario_flag b[7] = {0}; /* an absent key is false */
    static const char *const keys[7] = {"src_valid",    "trans_blk",   "req_redir",   "cmplt_redir",
                                        "upstream_fwd", "egress_ctrl", "direct_trans"};
    if (!bdf(p, o, "bdf", at, x->bdf, true))
        return false;
    for (size_t k = 0; k < 7; k++)
        if (!gdp_flag(p, o, keys[k], at, &b[k]))
            return false;
    x->src_valid = b[0].value, x->trans_blk = b[1].value, x->req_redir = b[2].value;
    x->cmplt_redir = b[3].value, x->upstream_fwd = b[4].value, x->egress_ctrl = b[5].value;
    x->direct_trans = b[6].value;
    return true;
}

bool gdp_net(gd_parser *p, json_t *root, gd_scenario_net *net)
{
    json_t *network;
    if (!each_item(p, root, "nics", "", GD_SCENARIO_MAX_NICS, sizeof *net->nics, &net->has_nics, (void **)&net->nics,
                   &net->nic_count, nic_item) ||
        !gdp_object(p, root, "network", "", &network))
        return false;
    if (!network)
        return true;
    char pm[GD_SCENARIO_NAME] = "";
    if (!each_item(p, network, "interfaces", "network", GD_SCENARIO_MAX_IFACES, sizeof *net->ifaces, &net->has_ifaces,
                   (void **)&net->ifaces, &net->iface_count, iface_item) ||
        !each_item(p, network, "acs", "network", GD_SCENARIO_MAX_ACS, sizeof *net->acs, &net->has_acs,
                   (void **)&net->acs, &net->acs_count, acs_item) ||
        !fixed_string(p, network, "peermem", "network", pm, sizeof pm))
        return false;
    if (!pm[0])
        net->peermem = GD_SCENARIO_PEERMEM_ABSENT;
    else if (strcmp(pm, "none") == 0)
        net->peermem = GD_SCENARIO_PEERMEM_NONE;
    else if (strcmp(pm, "nvidia_peermem") == 0)
        net->peermem = GD_SCENARIO_PEERMEM_NVIDIA;
    else if (strcmp(pm, "nv_peer_mem") == 0)
        net->peermem = GD_SCENARIO_PEERMEM_MELLANOX;
    else
        return gdp_fail(p, "network.peermem", "unknown value \"%s\" (known: nvidia_peermem, nv_peer_mem, none)", pm);
    return true;
}

void gdp_net_free(gd_scenario_net *net)
{
    free(net->nics);
    free(net->ifaces);
    free(net->acs);
    *net = (gd_scenario_net){0};
}

bool gd_scenario_nic_counter_at(const gd_scenario_nic_port *port, size_t c, double t, double *out)
{
    if (c >= GD_SCENARIO_PORT_COUNTERS || !port->counters[c].present)
        return false;
    *out = (double)port->counters[c].value + port->counters_per_s[c] * (t > 0 ? t : 0);
    return true;
}
