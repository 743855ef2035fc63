/* SPDX-License-Identifier: Apache-2.0 */
/* The expected bus bandwidth of bench nccl's ring: see nccl_expect.h. */
#include "nccl_expect.h"

#include "core/pcie_util.h"
#include "gpudoctor/pcie.h"
#include "p2p_path.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int gd_nccl_expect_ring(const gd_nccl_edge *edges, size_t n, gd_nccl_expect *out)
{
    memset(out, 0, sizeof *out);
    out->busbw_gbps = NAN;
    out->edges = n;
    if (n == 0)
        return -1;
    double best = INFINITY, pace = INFINITY;
    for (size_t i = 0; i < n; i++) {
        double v = edges[i].gbps * edges[i].efficiency;
        if (isnan(v)) {
            out->slowest = edges[i];
            return -1;
        }
        double now = isnan(edges[i].now_gbps) || edges[i].now_gbps > v ? v : edges[i].now_gbps;
        best = v < best ? v : best;
        if (now < pace - 1e-9 || (now <= pace + 1e-9 && edges[i].downtrained && !out->slowest.downtrained)) {
            pace = now;
            out->slowest = edges[i];
        }
    }
    out->busbw_gbps = best;
    return 0;
}

/* The f->gpus position of GPU index `gpu`, or -1. */
static long position(const gd_facts *f, int gpu)
{
    for (size_t g = 0; gpu >= 0 && g < f->gpu_count; g++)
        if (f->gpus[g].index == gpu)
            return (long)g;
    return -1;
}

/* nvmlDeviceGetP2PStatus's answer for the pair: 0 ok, > 0 denied, -1 unknown. */
static int p2p_status(const gd_facts *f, size_t a, size_t b)
{
    return f->p2p_status ? f->p2p_status[a * f->gpu_count + b] : -1;
}

/* The slower of the two GPUs' PCIe links, GB/s per direction; NAN unknown. */
static double slower_link(const gd_facts *f, size_t a, size_t b, char *which, size_t len)
{
    double worst = NAN;
    size_t gs[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        int gen = 0, width = 0;
        if (!gd_pcie_expected_link(f, gs[k], &gen, &width))
            return NAN;
        double v = gd_pcie_link_gbps(gen, width);
        if (isnan(worst) || v < worst) {
            worst = v;
            snprintf(which, len, "GPU %d's PCIe Gen%d x%d", f->gpus[gs[k]].index, gen, width);
        }
    }
    return worst;
}

static void edge_of(const gd_facts *f, size_t a, size_t b, gd_nccl_edge *e)
{
    *e = (gd_nccl_edge){
        .gpu_a = f->gpus[a].index,
        .gpu_b = f->gpus[b].index,
        .gbps = NAN,
        .efficiency = NAN,
        .now_gbps = NAN,
        .rate_gbps = NAN};
    gd_p2p_path p;
    bool known = gd_p2p_path_of(f, a, b, &p) == 0 && !isnan(p.gbps);
    int st = p2p_status(f, a, b);
    if (st > 0) {
        char which[64] = "";
        bool sys = known && p.route == GD_P2P_ROUTE_SYS;
        double link = slower_link(f, a, b, which, sizeof which);
        e->host_staged = true;
        e->gbps = link * GD_NCCL_HOST_STAGED_SHARE * (sys ? GD_NCCL_HOST_STAGED_SYS_SHARE : 1);
        e->efficiency = gd_p2p_route_efficiency(GD_P2P_ROUTE_HOST);
        bool cpu = sys && !isnan(p.cpu_gbps) && p.cpu_gbps < e->gbps * e->efficiency;
        if (cpu) { /* the CPUs' link carries less still */
            e->gbps = p.cpu_gbps;
            e->efficiency = 1;
        }
        e->rate_gbps = e->gbps;
        snprintf(e->limit, sizeof e->limit,
                 "the driver denies peer access between GPU %d and GPU %d (P2P status %d): NCCL stages through "
                 "host memory, about %s of %s%s",
                 e->gpu_a, e->gpu_b, st, sys ? "a quarter (across the CPUs)" : "half",
                 which[0] ? which : "the slower PCIe link", cpu ? ", capped by the CPUs' link" : "");
        return;
    }
    if (!known) {
        snprintf(e->limit, sizeof e->limit, "the path between GPU %d and GPU %d is not known", e->gpu_a, e->gpu_b);
        return;
    }
    bool cpu = gd_p2p_path_cpu_limited(&p);
    e->gbps = cpu ? p.cpu_gbps : p.gbps; /* the CPUs' rate is what a copy reaches already */
    e->efficiency = cpu ? 1 : gd_p2p_route_efficiency(p.route);
    e->now_gbps = gd_p2p_path_expected(&p, true);
    e->rate_gbps = gd_p2p_path_rate(&p, true);
    e->downtrained = p.downtrained;
    snprintf(e->limit, sizeof e->limit, "%s", p.limit);
}

int gd_nccl_expect_of(const gd_facts *f, const gd_nccl_bench *b, gd_nccl_expect *out)
{
    gd_nccl_edge edges[GD_NCCL_MAX_RANKS];
    int n = b->ranks > GD_NCCL_MAX_RANKS ? GD_NCCL_MAX_RANKS : b->ranks;
    memset(out, 0, sizeof *out);
    out->busbw_gbps = NAN;
    if (n < 2)
        return -1;
    for (int i = 0; i < n; i++) {
        long a = position(f, b->gpus[i]), c = position(f, b->gpus[(i + 1) % n]);
        if (a < 0 || c < 0) {
            snprintf(out->slowest.limit, sizeof out->slowest.limit, "rank %d's GPU is not matched to NVML's",
                     a < 0 ? i : (i + 1) % n);
            return -1;
        }
        edge_of(f, (size_t)a, (size_t)c, &edges[i]);
    }
    return gd_nccl_expect_ring(edges, (size_t)n, out);
}
