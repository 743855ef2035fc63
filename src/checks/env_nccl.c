/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL's network variables in the job's environment, judged against the
 * node's interfaces and RDMA devices (f->net). Syntax from NCCL's
 * environment variable documentation: NCCL_SOCKET_IFNAME and NCCL_IB_HCA
 * are comma-separated prefixes, '^' before the list excludes them, '=' before
 * the list makes each an exact name, NCCL_IB_HCA entries may end in ":PORT";
 * NCCL_NET_GDR_LEVEL takes LOC, PIX, PXB, PHB, SYS (or 0..5, 0 never). */
#include "checks_internal.h"
#include "gpudoctor/net.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"
#include "net_ports.h"

#include <stdlib.h>
#include <strings.h>

/* A parsed NCCL interface or device list. */
typedef struct name_list {
    bool exclude, exact;
    size_t n;
    char item[16][GD_NET_NAME];
    int port[16]; /* NCCL_IB_HCA's ":PORT", 0 none */
} name_list;

static void parse_list(const char *v, name_list *l)
{
    memset(l, 0, sizeof *l);
    if (*v == '^')
        l->exclude = true, v++;
    if (*v == '=')
        l->exact = true, v++;
    while (*v && l->n < 16) {
        size_t len = strcspn(v, ",");
        if (len) {
            snprintf(l->item[l->n], sizeof l->item[l->n], "%.*s", (int)len, v);
            char *colon = strchr(l->item[l->n], ':');
            if (colon) {
                l->port[l->n] = atoi(colon + 1);
                *colon = '\0';
            }
            l->n++;
        }
        v += len + (v[len] == ',');
    }
}

static bool list_matches(const name_list *l, size_t i, const char *name)
{
    return l->exact ? strcmp(name, l->item[i]) == 0 : strncmp(name, l->item[i], strlen(l->item[i])) == 0;
}

/* lo, docker0, virbr0 and their like: never a path to another node. */
static bool local_only(const char *name, const gd_net_iface *ifc)
{
    if (ifc && (ifc->loopback || ifc->bridge))
        return true;
    return strcmp(name, "lo") == 0 || strncmp(name, "docker", 6) == 0 || strncmp(name, "virbr", 5) == 0;
}

static json_t *env_evidence(const gd_facts *f, const char *var, const char *val)
{
    json_t *ev = json_object();
    json_object_set_new(ev, "variable", json_string(var));
    json_object_set_new(ev, "value", json_string(val));
    char src[300];
    snprintf(src, sizeof src, "environment: %.140s%s%.140s", f->stack->env_source, f->net ? "; " : "",
             f->net ? f->net->source : "");
    json_object_set_new(ev, "source", json_string(src));
    return ev;
}

void gd_check_env_nccl_socket_ifname(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const char *v = gd_stack_getenv(f->stack, "NCCL_SOCKET_IFNAME");
    if (!v || !*v)
        return;
    name_list l;
    parse_list(v, &l);
    const gd_net_facts *n = f->net;
    bool ifaces = n && n->ifaces_read;
    /* Named on purpose: a loopback or bridge carries nothing to another node. */
    size_t local = 0;
    for (size_t i = 0; !l.exclude && i < l.n; i++) {
        const gd_net_iface *ifc = NULL;
        for (size_t k = 0; ifaces && k < n->iface_count && !ifc; k++)
            if (list_matches(&l, i, n->ifaces[k].name))
                ifc = &n->ifaces[k];
        if (!local_only(l.item[i], ifc))
            continue;
        local++;
        json_t *ev = env_evidence(f, "NCCL_SOCKET_IFNAME", v);
        json_object_set_new(ev, "interface", json_string(ifc ? ifc->name : l.item[i]));
        gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN,
                       "Name the interface that reaches the other nodes (the one with the address they know: 'ip -br "
                       "a', the node's management or training network), e.g. NCCL_SOCKET_IFNAME==eth0 or a prefix "
                       "like 'ens', or unset it: NCCL then skips lo and docker* itself. Over lo or a bridge, "
                       "bootstrap fails with \"Connection refused\" or \"No route to host\" once ranks are on other "
                       "nodes.",
                       "NCCL_SOCKET_IFNAME=%.60s: NCCL is told to use %s, a %s that reaches no other node", v,
                       ifc ? ifc->name : l.item[i],
                       ifc && ifc->bridge             ? "bridge"
                       : ifc && ifc->loopback         ? "loopback"
                       : strcmp(l.item[i], "lo") == 0 ? "loopback"
                                                      : "bridge");
    }
    if (!ifaces || local)
        return; /* which interfaces exist was not read, or the list was judged above */
    size_t usable = 0;
    for (size_t k = 0; k < n->iface_count; k++) {
        bool hit = false;
        for (size_t i = 0; i < l.n; i++)
            hit |= list_matches(&l, i, n->ifaces[k].name);
        usable += l.exclude ? !hit && !n->ifaces[k].loopback : hit;
    }
    if (usable > 0)
        return;
    json_t *ev = env_evidence(f, "NCCL_SOCKET_IFNAME", v);
    json_object_set_new(ev, "interfaces", json_integer((json_int_t)n->iface_count));
    gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN,
                   "NCCL finds no interface to bootstrap on (\"Bootstrap : no socket interface found\") and the job "
                   "fails at init. List the interfaces with 'ip -br a' and name one that exists on every node "
                   "(a prefix matches eth0, eth1...; '=' makes a name exact; '^' excludes), or unset it.",
                   "NCCL_SOCKET_IFNAME=%.60s %s none of this node's %zu interfaces", v,
                   l.exclude ? "leaves" : "matches", n->iface_count);
}

void gd_check_env_nccl_ib_hca(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const char *v = gd_stack_getenv(f->stack, "NCCL_IB_HCA");
    if (!v || !*v)
        return;
    if (!gd_net_devices_read(f, self->id, out))
        return;
    name_list l;
    parse_list(v, &l);
    const gd_net_facts *n = f->net;
    char missing[256] = "";
    size_t used = 0, absent = 0, chosen_active = 0;
    for (size_t i = 0; i < l.n; i++) {
        bool found = false;
        for (size_t d = 0; d < n->dev_count; d++)
            if (list_matches(&l, i, n->devs[d].name))
                for (size_t k = 0; k < n->devs[d].port_count; k++)
                    found |= l.port[i] == 0 || n->devs[d].ports[k].port == l.port[i];
        if (!found && !l.exclude) {
            absent++;
            if (used < sizeof missing)
                used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%s", used ? ", " : "", l.item[i]);
        }
    }
    for (size_t d = 0; d < n->dev_count; d++) {
        bool hit = false;
        for (size_t i = 0; i < l.n; i++)
            hit |= list_matches(&l, i, n->devs[d].name);
        for (size_t k = 0; k < n->devs[d].port_count && hit != l.exclude; k++)
            chosen_active += gd_net_port_active(&n->devs[d].ports[k]);
    }
    if (absent == 0 && (chosen_active > 0 || gd_net_active_ports(f) == 0))
        return;
    json_t *ev = env_evidence(f, "NCCL_IB_HCA", v);
    json_object_set_new(ev, "devices", json_integer((json_int_t)n->dev_count));
    json_object_set_new(ev, "active_chosen", json_integer((json_int_t)chosen_active));
    if (absent)
        json_object_set_new(ev, "absent", json_string(missing));
    const char *fix = "List the node's devices with 'ibstat -l' or 'ibv_devinfo -l' and name those (NCCL_IB_HCA=mlx5_0,"
                      "mlx5_1 matches by prefix, '=' exact, ':1' a port), or unset it: NCCL then uses every active "
                      "device. A list naming nothing usable sends NCCL to TCP sockets (\"NET/IB : No device found\").";
    if (chosen_active == 0)
        gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, fix,
                       "NCCL_IB_HCA=%.60s leaves NCCL no active RDMA port (%zu active on the node)%s%s: it falls back "
                       "to TCP sockets",
                       v, gd_net_active_ports(f), absent ? "; absent: " : "", missing);
    else
        gd_finding_add(out, self->id, GD_SEV_INFO, GD_NO_GPU, ev, NAN, fix,
                       "NCCL_IB_HCA=%.60s names device%s this node does not have: %s", v, absent == 1 ? "" : "s",
                       missing);
}

/* NCCL_NET_GDR_LEVEL as a gd_topo_level: the farthest path on which NCCL
 * uses GPUDirect RDMA; GD_TOPO_SELF for LOC (never), GD_TOPO_UNKNOWN when
 * not a level. The integers are the older form, numbered as NCCL_P2P_LEVEL's
 * (0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 NODE, 5 SYS). */
static int gdr_level(const char *v)
{
    static const struct {
        const char *name;
        int level;
    } names[] = {{"LOC", GD_TOPO_SELF}, {"PIX", GD_TOPO_PIX},   {"PXB", GD_TOPO_PXB},
                 {"PHB", GD_TOPO_PHB},  {"NODE", GD_TOPO_NODE}, {"SYS", GD_TOPO_SYS}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcasecmp(v, names[i].name) == 0)
            return names[i].level;
    char *end;
    long k = strtol(v, &end, 10);
    return *v && *end == '\0' && k >= 0 && k <= 5 ? names[k].level : GD_TOPO_UNKNOWN;
}

void gd_check_env_nccl_gdr_level(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const char *v = gd_stack_getenv(f->stack, "NCCL_NET_GDR_LEVEL");
    int level = v ? gdr_level(v) : GD_TOPO_UNKNOWN;
    if (level == GD_TOPO_UNKNOWN)
        return;
    size_t active = gd_net_active_ports(f);
    if (f->net && f->net->devices_read && active == 0)
        return; /* no RDMA port: GPUDirect RDMA has nothing to use */
    /* GPUs whose nearest NIC NCCL's default (PXB) would allow, and this level does not. */
    int best[GD_PCIE_TOPO_MAX_GPUS];
    const char *nic[GD_PCIE_TOPO_MAX_GPUS];
    size_t joined, cut = 0, n = gd_net_nearest_nics(f, best, nic, GD_PCIE_TOPO_MAX_GPUS, &joined);
    for (size_t g = 0; g < n; g++)
        cut += best[g] > level && best[g] <= GD_TOPO_PXB;
    if (level != GD_TOPO_SELF && cut == 0)
        return;
    json_t *ev = env_evidence(f, "NCCL_NET_GDR_LEVEL", v);
    if (f->net && f->net->devices_read)
        json_object_set_new(ev, "active_rdma_ports", json_integer((json_int_t)active));
    const char *fix = "Unset NCCL_NET_GDR_LEVEL (NCCL allows GPUDirect RDMA for a NIC behind the GPU's PCIe switches, "
                      "PXB, by default) or raise it (PHB, SYS) where the NIC is farther. If GPUDirect RDMA fails, fix "
                      "that instead: load nvidia_peermem, turn ACS off.";
    if (level == GD_TOPO_SELF) {
        gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, fix,
                       "NCCL_NET_GDR_LEVEL=%.20s: NCCL never uses GPUDirect RDMA; every transfer to another node is "
                       "staged through host memory",
                       v);
        return;
    }
    json_object_set_new(ev, "gpus_cut_off", json_integer((json_int_t)cut));
    gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, fix,
                   "NCCL_NET_GDR_LEVEL=%.20s turns GPUDirect RDMA off for %zu GPU%s whose NIC is behind the same "
                   "PCIe switches (PXB), where NCCL's default would use it",
                   v, cut, cut == 1 ? "" : "s");
}
