/* SPDX-License-Identifier: Apache-2.0 */
/* What "under load" means at one sample (window.h): the window's running
 * statistics judge each sample with it once, as it comes. */
#include "window.h"

bool gd_load_at(const gd_facts *f, size_t i, size_t g, gd_load_signal *why)
{
    gd_load_signal s = GD_LOAD_NONE;
    bool loaded = false;
    gd_value u = gd_series_at(&f->series, i, g, GD_M_UTIL_GPU_PCT);
    gd_value p = gd_series_at(&f->series, i, g, GD_M_POWER_W);
    gd_value sm = gd_series_at(&f->series, i, g, GD_M_SM_CLOCK_MHZ);
    gd_value ps = gd_series_at(&f->series, i, g, GD_M_PSTATE);
    const gd_gpu *gpu = &f->gpus[g];
    gd_value lim = gpu->power_limit_w;
    if (gd_ok(u)) {
        s = GD_LOAD_UTIL;
        loaded = u.v >= GD_LOADED_UTIL_PCT;
    } else if (gd_ok(p) && gd_ok(lim) && lim.v > 0) {
        s = GD_LOAD_POWER;
        loaded = p.v >= GD_LOADED_POWER_SHARE * lim.v;
    } else if (gd_ok(sm) && gd_ok(gpu->clock_max_sm_mhz) && gpu->clock_max_sm_mhz.v > 0 && gd_ok(ps)) {
        s = GD_LOAD_CLOCKS;
        loaded = ps.v == 0 && sm.v >= GD_LOADED_CLOCK_SHARE * gpu->clock_max_sm_mhz.v;
    }
    if (why)
        *why = s;
    return loaded;
}

const char *gd_load_signal_name(gd_load_signal s)
{
    switch (s) {
    case GD_LOAD_UTIL: return "utilisation";
    case GD_LOAD_POWER: return "power draw against its limit";
    case GD_LOAD_CLOCKS: return "SM clock in P0";
    case GD_LOAD_NONE: break;
    }
    return "nothing readable";
}
