/* SPDX-License-Identifier: Apache-2.0 */
/* Window statistics over a series. */
#include "window.h"
#include "core/stats.h"

#include <stdlib.h>

size_t gd_stats_of(const gd_facts *f, size_t g, gd_metric m, gd_stats *out)
{
    const gd_series *s = &f->series;
    gd_stats st = {0};
    double *vals = s->n ? malloc(s->n * sizeof *vals) : NULL;
    double sum = 0;
    for (size_t i = 0; i < s->n; i++) {
        gd_value v = gd_series_at(s, i, g, m);
        if (!gd_ok(v))
            continue;
        if (st.n == 0 || v.v < st.min)
            st.min = v.v;
        if (st.n == 0 || v.v > st.max)
            st.max = v.v;
        st.last = v.v;
        sum += v.v;
        if (vals)
            vals[st.n] = v.v;
        st.n++;
    }
    if (st.n) {
        st.mean = sum / (double)st.n;
        if (vals) {
            st.median = gd_median(vals, st.n);
        }
    }
    free(vals);
    if (out)
        *out = st;
    return st.n;
}

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

bool gd_loaded_at(const gd_facts *f, size_t i, size_t g)
{
    return gd_load_at(f, i, g, NULL);
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

size_t gd_loaded_samples(const gd_facts *f, size_t g)
{
    size_t n = 0;
    for (size_t i = 0; i < f->series.n; i++)
        n += gd_loaded_at(f, i, g);
    return n;
}

long gd_last_valid(const gd_facts *f, size_t g, gd_metric m)
{
    for (size_t i = f->series.n; i-- > 0;)
        if (gd_ok(gd_series_at(&f->series, i, g, m)))
            return (long)i;
    return -1;
}
