/*
 * What a ring edge of the simulated NCCL carries (gdsim_nccl_edge_gbps,
 * sim_private.h): the scenario's peer-to-peer rate of the pair, or the rate
 * of staging through host memory where P2P is unavailable or disabled: half
 * the slower of a's device-to-host and b's host-to-device pinned rate.
 */
#include <math.h>
#include <stdbool.h>

#include "sim_cuda.h"

/* TEMPORARY until sim/scenario's gd_scenario_p2p_gbps lands: NVLink pairs
 * at the fewer active links of the two x 25 GB/s (50 from NVLink 5), else
 * PCIe at the slower pinned copy rate of the two. *p2p_ok: always. */
static double pair_gbps(const gd_scenario *s, size_t a, size_t b, bool *p2p_ok)
{
    const gd_scenario_gpu *g[2] = {&s->gpus[a], &s->gpus[b]};
    size_t links[2] = {0, 0};
    double per_link = 25.0;
    for (int k = 0; k < 2; k++)
        for (size_t l = 0; l < g[k]->nvlink_count; l++)
            if (g[k]->nvlink[l].active.present && g[k]->nvlink[l].active.value) {
                links[k]++;
                if (g[k]->nvlink[l].version.present && g[k]->nvlink[l].version.value >= 7)
                    per_link = 50.0;
            }
    *p2p_ok = true;
    if (links[0] && links[1])
        return (double)(links[0] < links[1] ? links[0] : links[1]) * per_link;
    gd_scenario_num x = g[0]->bandwidth_gbps.h2d_pinned, y = g[1]->bandwidth_gbps.h2d_pinned;
    if (!x.present || !y.present)
        return 0;
    return fmin(x.value, y.value);
}

double gdsim_nccl_edge_gbps(int a, int b, int p2p_disabled)
{
    double gbps = 0;
    sim_lock();
    const gd_scenario *s = sim_cuda_state.scenario;
    if (s && a >= 0 && b >= 0 && (size_t)a < s->gpu_count && (size_t)b < s->gpu_count) {
        bool ok = false;
        gbps = pair_gbps(s, (size_t)a, (size_t)b, &ok);
        if (p2p_disabled) { /* staged as the scenario stages a pair without P2P */
            gd_scenario_num out = s->gpus[a].bandwidth_gbps.d2h_pinned, in = s->gpus[b].bandwidth_gbps.h2d_pinned;
            gbps = out.present && in.present ? fmin(out.value, in.value) / 2 : 0;
        }
    }
    sim_unlock();
    return gbps > 0 ? gbps : 0;
}
