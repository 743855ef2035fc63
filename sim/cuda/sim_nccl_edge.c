/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a ring edge of the simulated NCCL carries (gdsim_nccl_edge_gbps,
 * sim_private.h): the scenario's peer-to-peer rate of the pair, or the rate
 * of staging through host memory where P2P is unavailable or disabled: half
 * the slower of a's device-to-host and b's host-to-device pinned rate.
 */
#include <math.h>
#include <stdbool.h>

#include "sim_cuda.h"

double gdsim_nccl_edge_gbps(int a, int b, int p2p_disabled)
{
    double gbps = 0;
    sim_lock();
    const gd_scenario *s = sim_cuda_state.scenario;
    if (s && a >= 0 && b >= 0 && a < sim_cuda_state.device_count && b < sim_cuda_state.device_count) {
        const gd_scenario_gpu *x = sim_cuda_state.devices[a].gpu, *y = sim_cuda_state.devices[b].gpu;
        bool ok = false;
        /* The pair's copy rate, already staged through the host where the
         * pair has no P2P (gd_scenario_p2p_gbps). */
        gbps = gd_scenario_p2p_gbps(s, (size_t)(x - s->gpus), (size_t)(y - s->gpus), &ok);
        if (p2p_disabled && ok) { /* staged as the scenario stages a pair without P2P */
            gd_scenario_num out = x->bandwidth_gbps.d2h_pinned, in = y->bandwidth_gbps.h2d_pinned;
            gbps = out.present && in.present ? fmin(out.value, in.value) / 2 : 0;
        }
    }
    sim_unlock();
    return gbps > 0 ? gbps : 0;
}
