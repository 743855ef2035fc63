/* SPDX-License-Identifier: Apache-2.0 */
/* GPU-to-GPU copies of the simulated machine: what the driver allows and how fast they go. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "gpudoctor/nvlink.h"
#include "scenario_internal.h"

static bool same_bus(const char *x, const char *y)
{
    unsigned a[4], b[4];
    return x && y && gd_scenario_parse_bus_id(x, &a[0], &a[1], &a[2], &a[3]) &&
           gd_scenario_parse_bus_id(y, &b[0], &b[1], &b[2], &b[3]) && memcmp(a, b, sizeof a) == 0;
}

static bool allowed(const gd_scenario_gpu *g)
{
    return !g->p2p.supported.present || g->p2p.supported.value;
}

int gd_scenario_p2p_status(const gd_scenario *sc, size_t a, size_t b)
{
    const gd_scenario_gpu *x = &sc->gpus[a], *y = &sc->gpus[b];
    /* A GPU's own status speaks for every pair it is in; the worse of two. */
    int sx = x->p2p.status >= 0 ? x->p2p.status : allowed(x) ? 0 : 5;
    int sy = y->p2p.status >= 0 ? y->p2p.status : allowed(y) ? 0 : 5;
    return sx ? sx : sy;
}

/* Active links of g to peer (direct) and to what is no GPU of the machine (NVSwitch). */
static void links(const gd_scenario *sc, const gd_scenario_gpu *g, const gd_scenario_gpu *peer, int *direct,
                  int *to_switch, double *gbps)
{
    *direct = *to_switch = 0;
    *gbps = 0;
    for (size_t l = 0; l < g->nvlink_count; l++) {
        const gd_scenario_nvlink *nl = &g->nvlink[l];
        if (nl->active.present && !nl->active.value)
            continue;
        bool to_gpu = false;
        for (size_t k = 0; k < sc->gpu_count && !to_gpu; k++)
            to_gpu = same_bus(nl->remote_pci_bus_id, sc->gpus[k].pci_bus_id);
        if (!to_gpu)
            (*to_switch)++;
        else if (same_bus(nl->remote_pci_bus_id, peer->pci_bus_id))
            (*direct)++;
        double r = g->nvlink_speed_mbps.present ? (double)g->nvlink_speed_mbps.value / 1000.0
                                                : gd_nvlink_version_gbps(nl->version.present ? nl->version.value : 0);
        if (r > 0 && (*gbps == 0 || r < *gbps))
            *gbps = r;
    }
    if (*gbps == 0)
        *gbps = 25.0;
}

static double peer_rate(const gd_scenario_gpu *g, const gd_scenario_gpu *peer)
{
    for (size_t i = 0; i < g->p2p.peer_count; i++)
        if (same_bus(g->p2p.peers[i].bus_id, peer->pci_bus_id))
            return g->p2p.peers[i].gbps;
    return NAN;
}

static double lower(double x, double y)
{
    return isnan(x) ? y : isnan(y) ? x : x < y ? x : y;
}

static double num(gd_scenario_num n)
{
    return n.present ? n.value : NAN;
}

double gd_scenario_p2p_gbps(const gd_scenario *sc, size_t a, size_t b, bool *p2p_ok)
{
    const gd_scenario_gpu *x = &sc->gpus[a], *y = &sc->gpus[b];
    bool ok = gd_scenario_p2p_status(sc, a, b) == 0;
    if (p2p_ok)
        *p2p_ok = ok;
    /* A per-peer rate is the pair's truth either way (a staged copy across CPUs is slower too). */
    double r = lower(peer_rate(x, y), peer_rate(y, x));
    if (!isnan(r))
        return r;
    if (!ok) {
        r = lower(num(x->bandwidth_gbps.d2h_pinned), num(y->bandwidth_gbps.h2d_pinned));
        return isnan(r) ? 10.0 : r / 2;
    }
    r = lower(num(x->p2p.gbps), num(y->p2p.gbps));
    if (!isnan(r))
        return r;
    int dx, sx, dy, sy;
    double rx, ry;
    links(sc, x, y, &dx, &sx, &rx);
    links(sc, y, x, &dy, &sy, &ry);
    int n = (dx > dy ? dx : dy) + (sx < sy ? sx : sy);
    if (n > 0)
        return 0.86 * n * (rx < ry ? rx : ry);
    r = lower(num(x->bandwidth_gbps.h2d_pinned), num(y->bandwidth_gbps.h2d_pinned));
    return isnan(r) ? 20.0 : 0.8 * r;
}
