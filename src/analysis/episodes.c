/* SPDX-License-Identifier: Apache-2.0 */
/* Time in state over the window. */
#include "episodes.h"
#include "core/stats.h"
#include "window.h"
#include "window_acc.h"
#include "gpudoctor/abi/nvml_api.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double gd_loaded_median(const gd_facts *f, size_t g, gd_metric m)
{
    gd_window_acc *tmp;
    const gd_window_acc *a = gd_window_acc_get(f, &tmp);
    double med = a ? gd_window_acc_loaded_median(a, g, m) : NAN;
    gd_window_acc_free(tmp);
    return med;
}

double gd_loaded_clock_median(const gd_facts *f, size_t g)
{
    return gd_loaded_median(f, g, GD_M_SM_CLOCK_MHZ);
}

/* Violation counter matching the mask, if any. */
static int counter_metric(unsigned long long mask)
{
    const unsigned long long thermal =
        nvmlClocksThrottleReasonSwThermalSlowdown | nvmlClocksThrottleReasonHwThermalSlowdown;
    if (mask == nvmlClocksThrottleReasonSwPowerCap)
        return GD_M_VIOL_POWER_NS;
    if (mask == nvmlClocksThrottleReasonHwPowerBrakeSlowdown)
        return GD_M_VIOL_POWER_BRAKE_NS;
    if ((mask & ~thermal) == 0)
        return GD_M_VIOL_THERMAL_NS;
    return -1;
}

/* The counter's growth between its first and last reading in the window. */
static bool counter_share_of(const gd_window_acc *a, const gd_facts *f, size_t g, gd_metric m, double *share)
{
    const gd_series *s = &f->series;
    uint64_t first, last;
    if (s->n < 2 || !gd_window_acc_valid_span(a, g, m, &first, &last) || last <= first)
        return false;
    size_t ia = (size_t)(first - s->dropped), ib = (size_t)(last - s->dropped);
    double dt = gd_series_t(s, ib) - gd_series_t(s, ia);
    double dv = gd_series_at(s, ib, g, m).v - gd_series_at(s, ia, g, m).v;
    if (dt <= 0 || dv < 0)
        return false;
    *share = fmin(1.0, dv / (dt * 1e9));
    return true;
}

bool gd_counter_share(const gd_facts *f, size_t g, gd_metric m, double *share)
{
    gd_window_acc *tmp;
    const gd_window_acc *a = gd_window_acc_get(f, &tmp);
    bool ok = a && counter_share_of(a, f, g, m, share);
    gd_window_acc_free(tmp);
    return ok;
}

void gd_episode_of(const gd_facts *f, size_t g, unsigned long long mask, gd_episode *out)
{
    gd_window_acc *tmp;
    const gd_window_acc *a = gd_window_acc_get(f, &tmp);
    gd_episode e = {.first_s = NAN,
                    .last_s = NAN,
                    .temp_first_c = NAN,
                    .temp_max_c = NAN,
                    .mem_temp_max_c = NAN,
                    .clock_median_mhz = NAN,
                    .clock_free_mhz = NAN,
                    .power_median_w = NAN};
    if (a && gd_window_acc_episode(a, f, g, mask, &e) == 0) {
        int m = counter_metric(mask);
        if (m >= 0)
            e.counter = counter_share_of(a, f, g, (gd_metric)m, &e.counter_share);
    }
    gd_window_acc_free(tmp);
    *out = e;
}

void gd_runs_of(const gd_facts *f, size_t g, unsigned long long mask, unsigned long long exclude, gd_runs *out)
{
    gd_window_acc *tmp;
    const gd_window_acc *a = gd_window_acc_get(f, &tmp);
    gd_runs r = {0};
    if (a)
        gd_window_acc_runs(a, f, g, mask, exclude, &r);
    gd_window_acc_free(tmp);
    *out = r;
}

double gd_episode_impact_pct(const gd_episode *e, double ref_mhz)
{
    if (e->hit == 0 || isnan(e->clock_median_mhz) || !(ref_mhz > 0))
        return NAN;
    double deficit = 1.0 - e->clock_median_mhz / ref_mhz;
    if (deficit < 0)
        deficit = 0;
    return 100.0 * e->share * deficit;
}

void gd_episode_timeline(const gd_episode *e, const char *what, char *buf, size_t len)
{
    int n = snprintf(buf, len, "from %.1f s: %s", e->first_s, what);
    if (n < 0 || (size_t)n >= len)
        return;
    size_t used = (size_t)n;
    if (!isnan(e->temp_first_c))
        used += (size_t)snprintf(buf + used, len - used, " with the GPU at %.0f C", e->temp_first_c);
    if (used < len && !isnan(e->clock_median_mhz))
        used += (size_t)snprintf(buf + used, len - used, ", SM %.0f MHz", e->clock_median_mhz);
    if (used < len && !isnan(e->clock_free_mhz))
        used += (size_t)snprintf(buf + used, len - used, " (%.0f MHz before)", e->clock_free_mhz);
    if (used < len)
        snprintf(buf + used, len - used, ", for %.1f s (%.0f%% of the loaded time)", e->span_s, 100.0 * e->share);
}
