/* SPDX-License-Identifier: Apache-2.0 */
/* The history plots' scale (watch_scale.h). */
#include "watch_scale.h"

#include <math.h>

double gd_watch_limit(const gd_gpu *gpu, gd_metric m, const char **name)
{
    gd_value v = gd_missing(GD_ST_UNREAD);
    *name = "";
    switch (m) {
    case GD_M_TEMP_C: v = gpu->temp_slowdown_c, *name = "slowdown"; break;
    case GD_M_MEM_TEMP_C: v = gpu->temp_mem_max_c, *name = "max"; break;
    case GD_M_SM_CLOCK_MHZ: v = gpu->clock_max_sm_mhz, *name = "max"; break;
    case GD_M_POWER_W: v = gpu->power_limit_w, *name = "limit"; break;
    case GD_M_UTIL_GPU_PCT: return *name = "full", 100.0;
    case GD_M_MEM_USED_MIB: v = gpu->mem_total_mib, *name = "total"; break;
    default: return NAN;
    }
    if (!gd_ok(v) || !isfinite(v.v) || v.v <= 0) {
        *name = "";
        return NAN;
    }
    return v.v;
}

static const char *unit_of(gd_metric m)
{
    switch (m) {
    case GD_M_TEMP_C:
    case GD_M_MEM_TEMP_C: return "C";
    case GD_M_SM_CLOCK_MHZ:
    case GD_M_MEM_CLOCK_MHZ: return "MHz";
    case GD_M_POWER_W: return "W";
    case GD_M_UTIL_GPU_PCT:
    case GD_M_UTIL_MEM_PCT: return "%";
    case GD_M_MEM_USED_MIB: return "MiB";
    case GD_M_PCIE_TX_KBPS:
    case GD_M_PCIE_RX_KBPS: return "KB/s";
    default: return "";
    }
}

gd_watch_scale gd_watch_scale_of(const gd_facts *f, size_t from, size_t to, gd_metric m)
{
    gd_watch_scale s = {.lo = 0, .hi = 0, .limit = NAN, .limit_name = "", .unit = unit_of(m)};
    double lo = INFINITY, hi = -INFINITY;
    size_t gpus = f->series.gpus < f->gpu_count ? f->series.gpus : f->gpu_count;
    for (size_t g = 0; g < gpus; g++) {
        const char *name;
        double lim = gd_watch_limit(&f->gpus[g], m, &name);
        if (isfinite(lim) && !(lim <= s.limit))
            s.limit = lim, s.limit_name = name;
        for (size_t i = from; i < to && i < f->series.n; i++) {
            gd_value v = gd_series_at(&f->series, i, g, m);
            if (gd_ok(v) && isfinite(v.v))
                lo = fmin(lo, v.v), hi = fmax(hi, v.v);
        }
    }
    if (!isfinite(lo))
        return s; /* nothing to plot */
    bool swing = m == GD_M_TEMP_C || m == GD_M_MEM_TEMP_C || m == GD_M_SM_CLOCK_MHZ || m == GD_M_MEM_CLOCK_MHZ;
    s.lo = swing ? floor(lo / 10.0) * 10.0 : fmin(0.0, lo);
    s.hi = isfinite(s.limit) ? fmax(s.limit, hi) : hi;
    if (s.hi <= s.lo)
        s.hi = s.lo + 1; /* a flat line at zero is drawn at the bottom */
    return s;
}

int gd_watch_level(const gd_watch_scale *s, gd_value v, int levels)
{
    if (!gd_ok(v) || !isfinite(v.v) || levels < 1)
        return -1;
    if (s->hi <= s->lo)
        return 0;
    double r = (v.v - s->lo) / (s->hi - s->lo);
    int level = (int)floor(r * (levels - 1) + 0.5);
    return level < 0 ? 0 : level >= levels ? levels - 1 : level;
}
