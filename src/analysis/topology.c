/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The GPU-to-GPU topology matrix of `nvidia-smi topo -m`, derived from the
 * PCIe paths the way NVML classifies them (nvmlGpuTopologyLevel_t): the
 * lowest bridge two devices share decides PIX (one switch) or PXB (several),
 * no shared bridge but one host bridge is PHB, then NODE within a NUMA node
 * and SYS across nodes. NVLinks override the PCIe level as NV#.
 */
#include "gpudoctor/pcie.h"
#include "analysis/topology.h"
#include "core/pcie_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gd_topo_level_name(int level)
{
    switch (level) {
    case GD_TOPO_SELF: return "X";
    case GD_TOPO_PIX: return "PIX";
    case GD_TOPO_PXB: return "PXB";
    case GD_TOPO_PHB: return "PHB";
    case GD_TOPO_NODE: return "NODE";
    case GD_TOPO_SYS: return "SYS";
    default: return "?";
    }
}

void gd_topo_cell_label(gd_topo_cell c, char *buf, size_t len)
{
    if (c.level != GD_TOPO_SELF && c.nvlinks > 0)
        snprintf(buf, len, "NV%d", c.nvlinks);
    else
        snprintf(buf, len, "%s", gd_topo_level_name(c.level));
}

static int numa_level(const gd_pcie_gpu *a, const gd_pcie_gpu *b)
{
    bool ka = gd_ok(a->numa_node), kb = gd_ok(b->numa_node);
    if (ka && kb)
        return a->numa_node.v == b->numa_node.v ? GD_TOPO_NODE : GD_TOPO_SYS;
    /* numa_node -1 on both: a machine without NUMA information, one node. */
    if (!ka && !kb && a->numa_node.status == GD_ST_NOT_SUPPORTED && b->numa_node.status == GD_ST_NOT_SUPPORTED)
        return GD_TOPO_NODE;
    return GD_TOPO_UNKNOWN;
}

int gd_topo_pair_level(const gd_pcie_gpu *a, const gd_pcie_gpu *b)
{
    if (a == b || (a->bdf[0] && strcmp(a->bdf, b->bdf) == 0))
        return GD_TOPO_SELF;
    if (a->hop_count == 0 || b->hop_count == 0)
        return numa_level(a, b);
    /* hops[0] is the device itself; the first shared bridge from below is
     * the lowest common ancestor. */
    for (size_t i = 1; i < a->hop_count; i++) {
        for (size_t j = 1; j < b->hop_count; j++) {
            if (strcmp(a->hops[i].bdf, b->hops[j].bdf) != 0)
                continue;
            /* Below a shared switch's upstream port each side has its own
             * downstream port (i == j == 2): one switch. Deeper: several. */
            if (strcmp(a->hops[i].role, "root_port") == 0)
                return GD_TOPO_PHB;
            return i <= 2 && j <= 2 ? GD_TOPO_PIX : GD_TOPO_PXB;
        }
    }
    if (a->host_bridge[0] && strcmp(a->host_bridge, b->host_bridge) == 0)
        return GD_TOPO_PHB;
    return numa_level(a, b);
}

int gd_topo_add_nic(gd_pcie_facts *p, const gd_pcie_gpu *where, const char *name, const char *model)
{
    gd_pcie_nic_place *v = realloc(p->nics, (p->nic_count + 1) * sizeof *v);
    if (!v)
        return -1;
    p->nics = v;
    gd_pcie_nic_place *x = &v[p->nic_count++];
    memset(x, 0, sizeof *x);
    gd_pcie_copy(x->name, sizeof x->name, name);
    gd_pcie_copy(x->model, sizeof x->model, model);
    x->where = *where;
    for (size_t g = 0; g < p->gpu_count; g++) {
        gd_pcie_gpu *gpu = &p->gpus[g];
        int level = gd_topo_pair_level(gpu, where);
        if ((level != GD_TOPO_PIX && level != GD_TOPO_PXB) || gpu->nic_count == GD_PCIE_MAX_NICS)
            continue;
        gd_pcie_nic *n = &gpu->nics[gpu->nic_count++];
        gd_pcie_copy(n->bdf, sizeof n->bdf, where->bdf);
        gd_pcie_copy(n->name, sizeof n->name, name);
        n->level = level;
    }
    return 0;
}

/* Active NVLinks of GPU g: to GPU `peer` directly, and to something that
 * is no GPU of this machine (an NVSwitch, or a remote not reported). */
static void nvlinks_of(const gd_facts *f, size_t g, const char *peer_bdf, int *direct, int *to_switch)
{
    *direct = *to_switch = 0;
    const gd_gpu *gpu = &f->gpus[g];
    for (size_t l = 0; l < gpu->nvlink_count; l++) {
        const gd_nvlink *nl = &gpu->nvlink[l];
        if (!gd_ok(nl->active) || nl->active.v == 0)
            continue;
        char remote[16] = "";
        bool is_gpu = false;
        if (gd_pcie_norm_bdf(nl->remote_pci_bus_id, remote, sizeof remote) == 0) {
            for (size_t k = 0; k < f->gpu_count && !is_gpu; k++) {
                char b[16];
                is_gpu = gd_pcie_norm_bdf(f->gpus[k].pci_bus_id, b, sizeof b) == 0 && strcmp(b, remote) == 0;
            }
        }
        if (!is_gpu)
            (*to_switch)++;
        else if (strcmp(remote, peer_bdf) == 0)
            (*direct)++;
    }
}

int gd_topo_pair_nvlinks(const gd_facts *f, size_t a, size_t b)
{
    char ba[16] = "", bb[16] = "";
    if (a >= f->gpu_count || b >= f->gpu_count || a == b)
        return 0;
    gd_pcie_norm_bdf(f->gpus[a].pci_bus_id, ba, sizeof ba);
    gd_pcie_norm_bdf(f->gpus[b].pci_bus_id, bb, sizeof bb);
    int da, sa, db, sb;
    nvlinks_of(f, a, bb, &da, &sa);
    nvlinks_of(f, b, ba, &db, &sb);
    /* Through NVSwitches every GPU reaches every other with all its
     * switch links, as nvidia-smi shows (NV18 on HGX H100). */
    return (da > db ? da : db) + (sa < sb ? sa : sb);
}

int gd_topo_derive(gd_pcie_facts *p, const gd_facts *f)
{
    size_t n = p->gpu_count;
    free(p->matrix);
    p->matrix = n ? calloc(n * n, sizeof *p->matrix) : NULL;
    if (n && !p->matrix)
        return -1;
    for (size_t a = 0; a < n; a++) {
        for (size_t b = 0; b < n; b++) {
            gd_topo_cell *c = &p->matrix[a * n + b];
            c->level = a == b ? GD_TOPO_SELF : gd_topo_pair_level(&p->gpus[a], &p->gpus[b]);
            const gd_pcie_gpu *ga = &p->gpus[a], *gb = &p->gpus[b];
            if (a == b || !ga->matched || !gb->matched || (size_t)ga->gpu >= f->gpu_count ||
                (size_t)gb->gpu >= f->gpu_count)
                continue;
            c->nvlinks = gd_topo_pair_nvlinks(f, (size_t)ga->gpu, (size_t)gb->gpu);
        }
    }
    return 0;
}
