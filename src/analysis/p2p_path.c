/* SPDX-License-Identifier: Apache-2.0 */
/* What the path between two GPUs allows (p2p_path.h). */
#include "analysis/p2p_path.h"

#include "analysis/cpu_link.h"
#include "analysis/topology.h"
#include "core/pcie_util.h"
#include "gpudoctor/nvlink.h"
#include "gpudoctor/pcie.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *gd_p2p_route_name(gd_p2p_route r)
{
    switch (r) {
    case GD_P2P_ROUTE_NVLINK: return "NVLink";
    case GD_P2P_ROUTE_SWITCH: return "PCIe switch";
    case GD_P2P_ROUTE_HOST: return "PCIe host bridge";
    case GD_P2P_ROUTE_SYS: return "CPU interconnect";
    default: return "unknown";
    }
}

double gd_p2p_route_efficiency(gd_p2p_route r)
{
    (void)r; /* the same share today; a route of its own when measurements say otherwise */
    return 0.8;
}

double gd_p2p_path_expected(const gd_p2p_path *p, bool now)
{
    double links = (now && !isnan(p->gbps_now) ? p->gbps_now : p->gbps) * gd_p2p_route_efficiency(p->route);
    return !isnan(p->cpu_gbps) && (isnan(links) || p->cpu_gbps < links) ? p->cpu_gbps : links;
}

double gd_p2p_path_rate(const gd_p2p_path *p, bool now)
{
    double links = now && !isnan(p->gbps_now) ? p->gbps_now : p->gbps;
    return !isnan(p->cpu_gbps) && (isnan(links) || p->cpu_gbps < links) ? p->cpu_gbps : links;
}

bool gd_p2p_path_cpu_limited(const gd_p2p_path *p)
{
    return !isnan(p->cpu_gbps) && !(p->gbps * gd_p2p_route_efficiency(p->route) <= p->cpu_gbps);
}

static const gd_pcie_gpu *place_of(const gd_pcie_facts *p, size_t g, size_t *pos)
{
    for (size_t k = 0; p && k < p->gpu_count; k++)
        if (p->gpus[k].matched && p->gpus[k].gpu >= 0 && (size_t)p->gpus[k].gpu == g) {
            *pos = k;
            return &p->gpus[k];
        }
    return NULL;
}

/* One link's rate per direction: NVML's common speed, else the version's. */
static double link_rate(const gd_gpu *g)
{
    if (gd_ok(g->nvlink_speed_mbps) && g->nvlink_speed_mbps.v > 0)
        return g->nvlink_speed_mbps.v / 1000.0;
    double r = 0;
    for (size_t l = 0; l < g->nvlink_count; l++)
        if (gd_ok(g->nvlink[l].version) && gd_nvlink_version_gbps((long long)g->nvlink[l].version.v) > 0)
            r = gd_nvlink_version_gbps((long long)g->nvlink[l].version.v);
    return r;
}

static const char *version_of(const gd_gpu *g)
{
    for (size_t l = 0; l < g->nvlink_count; l++)
        if (gd_ok(g->nvlink[l].version) && *gd_nvlink_version_name((long long)g->nvlink[l].version.v))
            return gd_nvlink_version_name((long long)g->nvlink[l].version.v);
    return "";
}

static int nvlink_path(const gd_facts *f, size_t a, size_t b, gd_p2p_path *out)
{
    out->nvlinks = gd_topo_pair_nvlinks(f, a, b);
    if (out->nvlinks <= 0)
        return -1;
    int best = out->nvlinks;
    for (size_t x = 0; x < f->gpu_count; x++)
        for (size_t y = x + 1; y < f->gpu_count; y++) {
            int n = gd_topo_pair_nvlinks(f, x, y);
            best = n > best ? n : best;
        }
    out->nvlinks_healthy = best;
    out->route = GD_P2P_ROUTE_NVLINK;
    double ra = link_rate(&f->gpus[a]), rb = link_rate(&f->gpus[b]);
    double r = ra > 0 && rb > 0 ? fmin(ra, rb) : ra > 0 ? ra : rb;
    bool guessed = !(r > 0);
    out->link_gbps = guessed ? 25.0 : r; /* NVLink 2.0-4.0's rate when neither says */
    out->gbps = best * out->link_gbps;
    out->gbps_now = out->nvlinks * out->link_gbps;
    const char *v = version_of(&f->gpus[a]);
    /* The rate is the active links' (17 x 25 = 425), the healthy pair's beside it. */
    if (out->nvlinks < best)
        snprintf(out->limit, sizeof out->limit,
                 "%d of %d NVLink%s%s links active on this pair x %.4g GB/s = %.1f GB/s (%.1f with all %d)%s",
                 out->nvlinks, best, *v ? " " : "", v, out->link_gbps, out->gbps_now, out->gbps, best,
                 guessed ? "; rate assumed: no version or speed read" : "");
    else
        snprintf(out->limit, sizeof out->limit, "%d NVLink%s%s links x %.4g GB/s = %.1f GB/s%s", best, *v ? " " : "",
                 v, out->link_gbps, out->gbps, guessed ? " (rate assumed: no version or speed read)" : "");
    return 0;
}

/* The rate a hop's link can train to, and the rate it runs now (NAN unknown). */
static void hop_rates(const gd_pcie_hop *h, double *cap, double *now)
{
    int gm = gd_ok(h->gen_max) ? (int)h->gen_max.v : 0, wm = gd_ok(h->width_max) ? (int)h->width_max.v : 0;
    int g = gd_ok(h->gen) ? (int)h->gen.v : 0, w = gd_ok(h->width) ? (int)h->width.v : 0;
    *now = gd_pcie_link_gbps(g, w);
    *cap = gd_pcie_link_gbps(gm ? gm : g, wm ? wm : w);
}

static const char *hop_role(const gd_pcie_hop *h)
{
    return strcmp(h->role, "switch_port") == 0 ? "PCIe switch port"
           : strcmp(h->role, "root_port") == 0 ? "root port"
           : strcmp(h->role, "gpu") == 0       ? "GPU"
                                               : "bridge";
}

/* Over hops [0, n) of x: the least any can carry into out->gbps (what the
 * path allows), and the hop to blame, the slowest as it runs now (*eff). */
static void slowest(const gd_pcie_gpu *x, size_t n, gd_p2p_path *out, const gd_pcie_hop **worst, double *eff)
{
    for (size_t k = 0; k < n && k < x->hop_count; k++) {
        const gd_pcie_hop *h = &x->hops[k];
        double cap, now;
        hop_rates(h, &cap, &now);
        if (k <= 1 && gd_ok(h->width) && gd_ok(h->gen_max))
            /* The GPU's own link (hop 0, and the port above it, which reports the same link) parks
             * at Gen1 when idle: only its width says how it trained. */
            now = gd_pcie_link_gbps((int)h->gen_max.v, (int)h->width.v);
        bool down = !isnan(now) && !isnan(cap) && now < cap - 1e-6;
        double r = down ? now : cap;
        if (isnan(r))
            continue;
        if (isnan(out->gbps) || cap < out->gbps)
            out->gbps = cap;
        if (isnan(*eff) || r < *eff) {
            *eff = r;
            out->downtrained = down;
            out->blame_gpu = k <= 1 && x->matched ? x->gpu : -1;
            *worst = h;
        }
    }
}

static void pcie_path(const gd_pcie_gpu *x, const gd_pcie_gpu *y, gd_p2p_path *out)
{
    size_t nx = x->hop_count, ny = y->hop_count;
    /* Below the lowest bridge they share; without one, every hop of both. */
    for (size_t i = 1; i < x->hop_count && nx == x->hop_count; i++)
        for (size_t j = 1; j < y->hop_count; j++)
            if (strcmp(x->hops[i].bdf, y->hops[j].bdf) == 0) {
                nx = i;
                ny = j;
                break;
            }
    const gd_pcie_hop *worst = NULL;
    double eff = NAN;
    slowest(x, nx, out, &worst, &eff);
    slowest(y, ny, out, &worst, &eff);
    if (!worst)
        return;
    out->gbps_now = eff;
    gd_pcie_copy(out->slowest_bdf, sizeof out->slowest_bdf, worst->bdf);
    int gm = gd_ok(worst->gen_max) ? (int)worst->gen_max.v : 0, wm = gd_ok(worst->width_max) ? (int)worst->width_max.v : 0;
    if (out->downtrained)
        snprintf(out->limit, sizeof out->limit,
                 "the link of %s %s, trained at Gen%d x%d of Gen%d x%d (%.1f GB/s; %.1f when trained fully)",
                 hop_role(worst), worst->bdf,
                 worst == &x->hops[0] || worst == &y->hops[0] || worst == &x->hops[1] || worst == &y->hops[1]
                     ? gm
                     : (int)worst->gen.v,
                 (int)worst->width.v, gm, wm, eff, out->gbps);
    else
        snprintf(out->limit, sizeof out->limit, "Gen%d x%d PCIe links (%.1f GB/s)", gm, wm, out->gbps);
}

/* The PCI vendor of the root port above x, 0 unknown. */
static int root_vendor(const gd_pcie_gpu *x)
{
    for (size_t k = x ? x->hop_count : 0; k-- > 0;)
        if (strcmp(x->hops[k].role, "root_port") == 0)
            return x->hops[k].vendor;
    return 0;
}

/* Across the CPUs: their link as a hop of its own (cpu_link.h), and its
 * words after the PCIe links'. */
static void cpu_hop(const gd_pcie_gpu *x, const gd_pcie_gpu *y, gd_p2p_path *out)
{
    int va = root_vendor(x), vb = root_vendor(y);
    gd_cpu_link link;
    gd_cpu_link_of(va == vb ? va : 0, &link);
    out->cpu_gbps = link.gbps;
    out->cpu_assumed = link.assumed;
    snprintf(out->cpu_link, sizeof out->cpu_link, "%s", link.name);
    size_t used = strlen(out->limit);
    snprintf(out->limit + used, sizeof out->limit - used, "%s%s at %.0f GB/s a copy (%s)",
             used ? " and, across the CPUs, " : "", link.name, link.gbps, link.source);
}

int gd_p2p_path_of(const gd_facts *f, size_t a, size_t b, gd_p2p_path *out)
{
    memset(out, 0, sizeof *out);
    out->blame_gpu = -1;
    out->level = GD_TOPO_UNKNOWN;
    out->gbps = NAN;
    out->gbps_now = NAN;
    out->cpu_gbps = NAN;
    if (a >= f->gpu_count || b >= f->gpu_count || a == b)
        return -1;
    const gd_pcie_facts *p = f->pcie;
    size_t pa = 0, pb = 0;
    const gd_pcie_gpu *x = place_of(p, a, &pa), *y = place_of(p, b, &pb);
    if (x && y)
        out->level = p->matrix ? p->matrix[pa * p->gpu_count + pb].level : gd_topo_pair_level(x, y);
    if (nvlink_path(f, a, b, out) == 0)
        return 0;
    out->nvlinks = 0;
    out->route = out->level == GD_TOPO_PIX || out->level == GD_TOPO_PXB    ? GD_P2P_ROUTE_SWITCH
                 : out->level == GD_TOPO_PHB || out->level == GD_TOPO_NODE ? GD_P2P_ROUTE_HOST
                 : out->level == GD_TOPO_SYS                               ? GD_P2P_ROUTE_SYS
                                                                           : GD_P2P_ROUTE_UNKNOWN;
    if (x && y)
        pcie_path(x, y, out);
    if (isnan(out->gbps)) {
        /* No tree: the lower of the two GPUs' own links, as NVML reads their maxima. */
        const gd_gpu *ga = &f->gpus[a], *gb = &f->gpus[b];
        double ra = gd_ok(ga->pcie_gen_max) && gd_ok(ga->pcie_width_max)
                        ? gd_pcie_link_gbps((int)ga->pcie_gen_max.v, (int)ga->pcie_width_max.v)
                        : NAN;
        double rb = gd_ok(gb->pcie_gen_max) && gd_ok(gb->pcie_width_max)
                        ? gd_pcie_link_gbps((int)gb->pcie_gen_max.v, (int)gb->pcie_width_max.v)
                        : NAN;
        out->gbps = out->gbps_now = isnan(ra) ? rb : isnan(rb) ? ra : fmin(ra, rb);
        if (!isnan(out->gbps))
            snprintf(out->limit, sizeof out->limit, "the GPUs' own PCIe links (%.1f GB/s; no PCIe tree was read)",
                     out->gbps);
    }
    if (out->route == GD_P2P_ROUTE_SYS)
        cpu_hop(x, y, out);
    return isnan(out->gbps) && out->route == GD_P2P_ROUTE_UNKNOWN ? -1 : 0;
}
