/* SPDX-License-Identifier: Apache-2.0 */
/* The path between the GPUs and the RDMA NICs (f->net joined with f->pcie):
 * a RoCE port without a v2 GID where NCCL looks, a GPU whose nearest NIC is
 * across the CPU while its peers have one on their own switch, GPUDirect
 * RDMA's kernel module missing, PCIe ACS redirecting peer traffic.
 * Sources: NCCL's environment variables (NCCL_IB_GID_INDEX: -1, NCCL picks a
 * RoCE v2 GID itself since 2.21; NCCL_NET_GDR_LEVEL) and troubleshooting
 * guide (ACS, GPUDirect RDMA); NCCL issues 214, 304, 523 (ACS on: "vendor
 * err 81", hangs), 1510 and 769 (a GID index on RoCE v1 or link-local). */
#include "checks_internal.h"
#include "core/strf.h"
#include "gpudoctor/net.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"
#include "net_ports.h"

#include <stdlib.h>
#include <strings.h>

static bool gid_is_v2(const gd_net_gid *g)
{
    return strstr(g->type, "v2") || strstr(g->type, "V2");
}

/* Whether a port's GID rows say their types: ibstatus gives only the
 * default GID, untyped, which is no table to judge RoCE's version by. */
static bool gids_typed(const gd_net_port *p)
{
    for (size_t g = 0; g < p->gid_count; g++)
        if (p->gids[g].type[0])
            return true;
    return false;
}

/* NCCL_IB_GID_INDEX as the job sets it; -1 unset (or NCCL's own -1). */
static long gid_index_env(const gd_facts *f, const char **raw)
{
    *raw = f->stack && f->stack->env_read ? gd_stack_getenv(f->stack, "NCCL_IB_GID_INDEX") : NULL;
    char *end;
    long v = *raw && **raw ? strtol(*raw, &end, 10) : -1;
    return *raw && **raw && *end == '\0' ? v : -1;
}

/* What is wrong with one RoCE port's GID table for NCCL. */
typedef enum { GID_FINE, GID_V1, GID_MISSING, GID_NO_V2 } gid_problem;

static gid_problem port_gid_problem(const gd_net_port *p, long want, const gd_net_gid **at)
{
    bool any_v2 = false;
    *at = NULL;
    for (size_t g = 0; g < p->gid_count; g++) {
        any_v2 |= gid_is_v2(&p->gids[g]);
        if (p->gids[g].index == want)
            *at = &p->gids[g];
    }
    if (want >= 0)
        return !*at ? GID_MISSING : gid_is_v2(*at) ? GID_FINE : GID_V1;
    return any_v2 ? GID_FINE : GID_NO_V2; /* NCCL 2.21 and newer pick the RoCE v2 GID themselves */
}

/* The ports of one kind of problem: the finding's evidence and title. */
typedef struct gid_group {
    json_t *ports;
    char first[96], first_gid[96];
    const char *source;
} gid_group;

static void gid_group_add(gid_group *g, const gd_facts *f, const gd_net_dev *d, const gd_net_port *p,
                          const gd_net_gid *at)
{
    json_t *e = json_object();
    json_object_set_new(e, "device", json_string(d->name));
    json_object_set_new(e, "port", json_integer(p->port));
    if (at) {
        json_object_set_new(e, "gid", json_string(at->gid));
        json_object_set_new(e, "gid_type", json_string(at->type));
    }
    if (!g->ports)
        g->ports = json_array();
    json_array_append_new(g->ports, e);
    if (g->first[0])
        return;
    snprintf(g->first, sizeof g->first, "%s port %d", d->name, p->port);
    if (at)
        snprintf(g->first_gid, sizeof g->first_gid, "%s%s%s", at->gid, at->ipv4[0] ? ", " : "", at->ipv4);
    g->source = gd_net_dev_source(f, d);
}

/* One finding per kind of problem, naming every port that has it: one
 * variable set on the node is one cause, however many ports it touches. */
void gd_check_net_roce_gid(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    if (!gd_net_devices_read(f, self->id, out))
        return;
    const char *raw;
    long want = gid_index_env(f, &raw);
    size_t roce = 0, tables = 0;
    gid_group groups[GID_NO_V2 + 1] = {{0}};
    for (size_t i = 0; i < f->net->dev_count; i++)
        for (size_t k = 0; k < f->net->devs[i].port_count; k++) {
            const gd_net_dev *d = &f->net->devs[i];
            const gd_net_port *p = &d->ports[k];
            if (p->link_layer != GD_LINK_ETHERNET || gd_net_port_dead(p))
                continue;
            roce++;
            if (!gids_typed(p))
                continue;
            tables++;
            const gd_net_gid *at;
            gid_problem kind = port_gid_problem(p, want, &at);
            if (kind != GID_FINE)
                gid_group_add(&groups[kind], f, d, p, at);
        }
    for (int kind = GID_V1; kind <= GID_NO_V2; kind++) {
        gid_group *g = &groups[kind];
        if (!g->ports)
            continue;
        size_t n = json_array_size(g->ports);
        char who[160], title[320], fix[640];
        if (n == 1)
            snprintf(who, sizeof who, "%s", g->first);
        else
            snprintf(who, sizeof who, "%zu RoCE ports (%s and %zu more)", n, g->first, n - 1);
        json_t *ev = json_object();
        json_object_set_new(ev, "variable", json_string("NCCL_IB_GID_INDEX"));
        json_object_set_new(ev, "value", raw ? json_string(raw) : json_null());
        json_object_set_new(ev, "ports", g->ports);
        json_object_set_new(ev, "source", json_string(g->source ? g->source : f->net->source));
        if (kind == GID_V1)
            gd_strf(title, sizeof title,
                    "NCCL_IB_GID_INDEX=%ld points %s at a RoCE v1 GID%s%s%s: not routable across subnets", want, who,
                    n == 1 ? " (" : "", n == 1 ? g->first_gid : "", n == 1 ? ")" : "");
        else if (kind == GID_MISSING)
            snprintf(title, sizeof title, "NCCL_IB_GID_INDEX=%ld names no GID of %s", want, who);
        else
            snprintf(title, sizeof title, "%s %s no RoCE v2 GID: RoCE runs as v1, within one subnet only", who,
                     n == 1 ? "has" : "have");
        snprintf(fix, sizeof fix,
                 "%s NCCL needs a RoCE v2 GID (UDP/IP, routable) on every node: list the table with 'show_gids' (or "
                 "'ibv_devinfo -v'); each IP address has a v1 and a v2 row, the v2 row with the IPv4 address the job "
                 "uses is the one. Unset NCCL_IB_GID_INDEX on NCCL 2.21 and newer (it picks a v2 GID itself), or set "
                 "it to that v2 row's index on every node; a port without any v2 row needs its IP address configured "
                 "and the RoCE mode set to v2 ('cma_roce_mode').",
                 want >= 0 ? "The index NCCL is told to use is wrong here." : "No GID NCCL could use is routable.");
        gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, fix, "%s", title);
    }
    if (roce > 0 && tables == 0)
        gd_skip_add(out, self->id, GD_NO_GPU,
                    "the GID tables of the %zu RoCE port%s were not read (sysfs gids/, "
                    "show_gids or ibv_devinfo -v)",
                    roce, roce == 1 ? "" : "s");
}

/* The topology level between GPU entry pg and the NIC at nic (a tree path),
 * as nvidia-smi topo -m names it: PIX/PXB when they share a switch port
 * above them, PHB under one host bridge, NODE/SYS by NUMA node. */
static int tree_level(const gd_pcie_gpu *pg, const gd_pcie_gpu *nic)
{
    for (size_t a = 1; a < pg->hop_count; a++)
        for (size_t b = 1; b < nic->hop_count; b++)
            if (strcmp(pg->hops[a].bdf, nic->hops[b].bdf) == 0 && strcmp(pg->hops[a].role, "root_port") != 0)
                return a == 1 && b == 1 ? GD_TOPO_PIX : GD_TOPO_PXB;
    if (pg->host_bridge[0] && strcmp(pg->host_bridge, nic->host_bridge) == 0)
        return GD_TOPO_PHB;
    if (gd_ok(pg->numa_node) && gd_ok(nic->numa_node))
        return pg->numa_node.v == nic->numa_node.v ? GD_TOPO_NODE : GD_TOPO_SYS;
    return GD_TOPO_UNKNOWN;
}

/* The RDMA device with an active port that NIC place np is (by bus
 * address, device name or netdev name), or NULL. */
static const gd_net_dev *rdma_of(const gd_facts *f, const gd_pcie_nic_place *np)
{
    for (size_t i = 0; i < f->net->dev_count; i++) {
        const gd_net_dev *d = &f->net->devs[i];
        bool same = (d->bdf[0] && strcasecmp(d->bdf, np->where.bdf) == 0) || strcmp(d->name, np->name) == 0;
        bool active = false;
        for (size_t k = 0; k < d->port_count; k++) {
            same |= d->ports[k].netdev[0] && strcmp(d->ports[k].netdev, np->name) == 0;
            active |= gd_net_port_active(&d->ports[k]);
        }
        if (same)
            return active ? d : NULL;
    }
    return NULL;
}

static const char *level_name(int l)
{
    return l == GD_TOPO_PIX    ? "PIX"
           : l == GD_TOPO_PXB  ? "PXB"
           : l == GD_TOPO_PHB  ? "PHB"
           : l == GD_TOPO_NODE ? "NODE"
                               : "SYS";
}

size_t gd_net_nearest_nics(const gd_facts *f, int *best, const char **best_nic, size_t max, size_t *joined)
{
    const gd_pcie_facts *pc = f->pcie;
    *joined = 0;
    if (!pc || !f->net)
        return 0;
    size_t n = pc->gpu_count < max ? pc->gpu_count : max;
    for (size_t g = 0; g < n; g++) {
        best[g] = GD_TOPO_UNKNOWN;
        best_nic[g] = "";
        for (size_t j = 0; j < pc->nic_count; j++) {
            const gd_pcie_nic_place *np = &pc->nics[j];
            const gd_net_dev *d = rdma_of(f, np);
            if (!d)
                continue;
            int l = np->level_count > g ? np->levels[g] : tree_level(&pc->gpus[g], &np->where);
            if (l <= GD_TOPO_SELF)
                continue;
            ++*joined;
            if (best[g] == GD_TOPO_UNKNOWN || l < best[g]) {
                best[g] = l;
                best_nic[g] = d->name;
            }
        }
    }
    return n;
}

void gd_check_net_gpu_nic_far(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    if (!gd_net_devices_read(f, self->id, out))
        return;
    const gd_pcie_facts *pc = f->pcie;
    if (gd_net_active_ports(f) == 0)
        return; /* no RDMA NIC carries traffic: nothing to be near */
    if (!pc || pc->nic_count == 0) {
        gd_skip_add(out, self->id, GD_NO_GPU, "%s", "the NICs' places in the PCIe tree are not known");
        return;
    }
    int best[GD_PCIE_TOPO_MAX_GPUS];
    const char *best_nic[GD_PCIE_TOPO_MAX_GPUS];
    size_t joined, near = 0, n = gd_net_nearest_nics(f, best, best_nic, GD_PCIE_TOPO_MAX_GPUS, &joined);
    for (size_t g = 0; g < n; g++)
        near += best[g] != GD_TOPO_UNKNOWN && best[g] <= GD_TOPO_PXB;
    if (joined == 0) {
        gd_skip_add(out, self->id, GD_NO_GPU, "%s",
                    "no RDMA device could be placed in the PCIe tree (no bus address or name in common)");
        return;
    }
    if (near == 0)
        return; /* a node built without NICs beside its GPUs: every GPU alike */
    for (size_t g = 0; g < n; g++) {
        if (best[g] == GD_TOPO_UNKNOWN || best[g] <= GD_TOPO_PXB)
            continue;
        int gpu = pc->gpus[g].matched ? pc->gpus[g].gpu : GD_NO_GPU;
        json_t *ev = json_object();
        json_object_set_new(ev, "gpu_bdf", json_string(pc->gpus[g].bdf));
        json_object_set_new(ev, "nearest_nic", json_string(best_nic[g]));
        json_object_set_new(ev, "level", json_string(level_name(best[g])));
        json_object_set_new(ev, "gpus_with_a_near_nic", json_integer((json_int_t)near));
        char src[1300];
        snprintf(src, sizeof src, "%s; %s", pc->source, f->net->source);
        json_object_set_new(ev, "source", json_string(src));
        char fix[640];
        snprintf(fix, sizeof fix,
                 "NCCL uses GPUDirect RDMA only for a NIC within NCCL_NET_GDR_LEVEL of the GPU (PXB by default: "
                 "behind the same PCIe switches); this GPU's traffic to other nodes is staged through host memory "
                 "and crosses the CPU, while %zu GPU%s of this node have a NIC beside them. If a NIC should sit "
                 "beside it (a rail-optimised node has one per GPU or pair), look for a NIC Down, missing from "
                 "'ibstat', or in a different slot than its peers ('nvidia-smi topo -m'). Otherwise NCCL's "
                 "NCCL_NET_GDR_LEVEL=PHB (or SYS) allows GPUDirect across the CPU, often faster than staging.",
                 near, near == 1 ? "" : "s");
        gd_finding_add(out, self->id, GD_SEV_WARNING, gpu, ev, NAN, fix,
                       "GPU %s: its nearest RDMA NIC (%s) is %s, across the CPU, while %zu GPU%s %s one on %s own "
                       "switch",
                       pc->gpus[g].bdf, best_nic[g], level_name(best[g]), near, near == 1 ? "" : "s",
                       near == 1 ? "has" : "have", near == 1 ? "its" : "their");
    }
}

void gd_check_net_gdr_module(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const gd_net_facts *n = f->net;
    size_t active = gd_net_active_ports(f);
    if (n && n->devices_read && active == 0)
        return; /* no RDMA port in use: GPUDirect RDMA has nothing to carry */
    if (!n || n->peermem == GD_PEERMEM_UNKNOWN) {
        gd_skip_add(out, self->id, GD_NO_GPU, "%s",
                    "the loaded kernel modules were not read (no /proc/modules, no lsmod in the capture)");
        return;
    }
    if (n->peermem == GD_PEERMEM_LOADED)
        return;
    /* GPUDirect RDMA needs both on the node. A capture that looked for the
     * module alone (lsmod | grep nvidia_peermem) was taken where it matters. */
    if (f->gpu_count == 0 && !f->captured)
        return;
    char where[160];
    if (n->devices_read)
        snprintf(where, sizeof where, "on a node with %zu active RDMA port%s and %zu GPU%s", active,
                 active == 1 ? "" : "s", f->gpu_count, f->gpu_count == 1 ? "" : "s");
    else
        snprintf(where, sizeof where, "%s", "(the RDMA devices were not listed: this matters where the node has them)");
    json_t *ev = json_object();
    json_object_set_new(ev, "nvidia_peermem", json_false());
    json_object_set_new(ev, "nv_peer_mem", json_false());
    if (n->devices_read)
        json_object_set_new(ev, "active_rdma_ports", json_integer((json_int_t)active));
    json_object_set_new(ev, "gpus", json_integer((json_int_t)f->gpu_count));
    json_object_set_new(ev, "source", json_string(n->peermem_source[0] ? n->peermem_source : n->source));
    gd_finding_add(
        out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN,
        "Load it: 'modprobe nvidia_peermem' (it ships with the driver since 470; make it load at boot with a file "
        "in /etc/modules-load.d/), and check NCCL_DEBUG=INFO says GDRDMA on its NET/IB channels. Without it NCCL "
        "stages every inter-node transfer through host memory (\"GPU Direct RDMA Disabled\"), unless it uses "
        "DMA-BUF instead (NCCL 2.19+ with the open GPU kernel modules and Linux 5.12+), which NCCL's log says "
        "as \"DMA-BUF is available\".",
        "GPUDirect RDMA's kernel module is not loaded (neither nvidia_peermem nor nv_peer_mem) %s", where);
}

/* ACS bits that send peer-to-peer traffic up to the root complex or block
 * it (DirectTrans+ is the opposite: it lets translated requests go direct). */
static bool acs_on(const gd_net_acs *a)
{
    return a->src_valid || a->req_redir || a->cmplt_redir || a->upstream_fwd || a->egress_ctrl || a->trans_blk;
}

static void acs_bits(const gd_net_acs *a, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s%s%s", a->src_valid ? "SrcValid+ " : "", a->trans_blk ? "TransBlk+ " : "",
             a->req_redir ? "ReqRedir+ " : "", a->cmplt_redir ? "CmpltRedir+ " : "",
             a->upstream_fwd ? "UpstreamFwd+ " : "", a->egress_ctrl ? "EgressCtrl+ " : "");
    size_t n = strlen(buf);
    if (n)
        buf[n - 1] = '\0';
}

/* Whether path p (a GPU's or a NIC's) passes switch port bdf below its root port. */
static bool below_root_has(const gd_pcie_gpu *p, const char *bdf)
{
    for (size_t h = 1; h < p->hop_count; h++)
        if (strcmp(p->hops[h].role, "root_port") != 0 && strcasecmp(p->hops[h].bdf, bdf) == 0)
            return true;
    return false;
}

/* Whether GPU g shares a switch (a bridge below the root port) with another
 * GPU or an RDMA NIC: then its peer traffic crosses that switch. */
static bool shares_switch(const gd_facts *f, size_t g, const char **with)
{
    const gd_pcie_facts *pc = f->pcie;
    const gd_pcie_gpu *pg = &pc->gpus[g];
    for (size_t h = 1; h < pg->hop_count; h++) {
        if (strcmp(pg->hops[h].role, "root_port") == 0)
            continue;
        for (size_t o = 0; o < pc->gpu_count; o++)
            if (o != g && below_root_has(&pc->gpus[o], pg->hops[h].bdf)) {
                *with = "another GPU";
                return true;
            }
        for (size_t j = 0; j < pc->nic_count; j++)
            if (rdma_of(f, &pc->nics[j]) && below_root_has(&pc->nics[j].where, pg->hops[h].bdf)) {
                *with = pc->nics[j].name;
                return true;
            }
    }
    return false;
}

static const char gd_fix_acs[] =
    "ACS makes the switch send peer-to-peer requests up to the root complex: GPU-to-GPU and GPUDirect RDMA "
    "traffic slows down or fails (NCCL: \"Got completion with error 4 ... vendor err 81\", hangs). On bare metal "
    "turn it off in the BIOS (PCIe ACS / IOMMU settings) or at each boot for the switch ports, as NCCL's "
    "troubleshooting guide shows ('setpci -s BDF ECAP_ACS+0x6.w=0000', root only); check with 'sudo lspci -vvv "
    "| grep ACSCtl' (every line SrcValid-). In a virtual machine ACS is needed for device assignment: there use "
    "ATS with DirectTrans+ instead.";

void gd_check_net_acs(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    if (!f->net || !f->net->acs_read) {
        gd_skip_add(out, self->id, GD_NO_GPU, "%s",
                    "PCIe ACS was not read (config space needs root; a capture needs 'lspci -vvv')");
        return;
    }
    const gd_net_facts *n = f->net;
    size_t unplaced = 0;
    for (size_t i = 0; i < n->acs_count; i++) {
        const gd_net_acs *a = &n->acs[i];
        if (!acs_on(a))
            continue;
        if (!a->bdf[0] || !f->pcie) {
            unplaced++;
            continue;
        }
        for (size_t g = 0; g < f->pcie->gpu_count; g++) {
            const gd_pcie_gpu *pg = &f->pcie->gpus[g];
            const char *with = NULL;
            if (!below_root_has(pg, a->bdf) || !shares_switch(f, g, &with))
                continue;
            char bits[96];
            acs_bits(a, bits, sizeof bits);
            json_t *ev = json_object();
            json_object_set_new(ev, "bridge", json_string(a->bdf));
            json_object_set_new(ev, "acsctl", json_string(bits));
            json_object_set_new(ev, "gpu_bdf", json_string(pg->bdf));
            json_object_set_new(ev, "shares_switch_with", json_string(with));
            json_object_set_new(ev, "source", json_string(n->acs_source[0] ? n->acs_source : n->source));
            gd_finding_add(out, self->id, GD_SEV_WARNING, pg->matched ? pg->gpu : GD_NO_GPU, ev, NAN, gd_fix_acs,
                           "PCIe ACS is on (%s) at switch port %s above GPU %s, which shares that switch with %s", bits,
                           a->bdf, pg->bdf, with);
            break;
        }
    }
    /* Nothing for ACS to stand between: one GPU at most and no RDMA port in use. */
    if (unplaced == 0 || (n->devices_read && gd_net_active_ports(f) == 0 && f->gpu_count < 2))
        return;
    json_t *ev = json_object();
    json_object_set_new(ev, "ports_with_acs_on", json_integer((json_int_t)unplaced));
    json_object_set_new(ev, "ports_listed", json_integer((json_int_t)n->acs_count));
    json_object_set_new(ev, "source", json_string(n->acs_source[0] ? n->acs_source : n->source));
    gd_finding_add(out, self->id, GD_SEV_INFO, GD_NO_GPU, ev, NAN, gd_fix_acs,
                   "PCIe ACS is on for %zu of %zu port%s listed; which ones is not known (a root port's is harmless, "
                   "a switch port's between GPUs or a GPU and a NIC is not)",
                   unplaced, n->acs_count, n->acs_count == 1 ? "" : "s");
}
