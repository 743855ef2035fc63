/* SPDX-License-Identifier: Apache-2.0 */
/* Time in state over the window. */
#include "episodes.h"
#include "core/stats.h"
#include "window.h"
#include "gpudoctor/abi/nvml_api.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static bool has_mask(const gd_series *s, size_t i, size_t g, unsigned long long mask)
{
    gd_value r = gd_series_at(s, i, g, GD_M_EVENT_REASONS);
    return gd_ok(r) && ((unsigned long long)r.v & mask) != 0;
}

double gd_loaded_median(const gd_facts *f, size_t g, gd_metric m)
{
    const gd_series *s = &f->series;
    double *v = malloc((s->n ? s->n : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; v && i < s->n; i++) {
        gd_value x = gd_series_at(s, i, g, m);
        if (gd_loaded_at(f, i, g) && gd_ok(x))
            v[n++] = x.v;
    }
    double med = v ? gd_median(v, n) : NAN;
    free(v);
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

bool gd_counter_share(const gd_facts *f, size_t g, gd_metric m, double *share)
{
    const gd_series *s = &f->series;
    if (s->n < 2)
        return false;
    long a = -1, b = -1;
    for (size_t i = 0; i < s->n; i++)
        if (gd_ok(gd_series_at(s, i, g, m))) {
            if (a < 0)
                a = (long)i;
            b = (long)i;
        }
    if (a < 0 || b <= a)
        return false;
    double dt = gd_series_t(s, b) - gd_series_t(s, a);
    double dv = gd_series_at(s, (size_t)b, g, m).v - gd_series_at(s, (size_t)a, g, m).v;
    if (dt <= 0 || dv < 0)
        return false;
    *share = fmin(1.0, dv / (dt * 1e9));
    return true;
}

static void counter_share(const gd_facts *f, size_t g, unsigned long long mask, gd_episode *e)
{
    int m = counter_metric(mask);
    if (m >= 0)
        e->counter = gd_counter_share(f, g, (gd_metric)m, &e->counter_share);
}

void gd_episode_of(const gd_facts *f, size_t g, unsigned long long mask, gd_episode *out)
{
    const gd_series *s = &f->series;
    gd_episode e = {.first_s = NAN,
                    .last_s = NAN,
                    .temp_first_c = NAN,
                    .temp_max_c = NAN,
                    .mem_temp_max_c = NAN,
                    .clock_median_mhz = NAN,
                    .clock_free_mhz = NAN,
                    .power_median_w = NAN};
    size_t cap = s->n ? s->n : 1;
    double *clk = malloc(cap * sizeof *clk), *free_clk = malloc(cap * sizeof *free_clk), *pw = malloc(cap * sizeof *pw);
    size_t nclk = 0, nfree = 0, npw = 0;
    for (size_t i = 0; clk && free_clk && pw && i < s->n; i++) {
        bool ld = gd_loaded_at(f, i, g), hit = has_mask(s, i, g, mask);
        gd_value clock = gd_series_at(s, i, g, GD_M_SM_CLOCK_MHZ);
        e.loaded += ld;
        if (ld && !hit && gd_ok(clock))
            free_clk[nfree++] = clock.v;
        if (!hit)
            continue;
        e.hit_any++;
        if (isnan(e.first_s)) {
            e.first_s = gd_series_t(s, i);
            gd_value t = gd_series_at(s, i, g, GD_M_TEMP_C);
            e.temp_first_c = gd_ok(t) ? t.v : NAN;
        }
        e.last_s = gd_series_t(s, i);
        gd_value t = gd_series_at(s, i, g, GD_M_TEMP_C), mt = gd_series_at(s, i, g, GD_M_MEM_TEMP_C);
        if (gd_ok(t) && (isnan(e.temp_max_c) || t.v > e.temp_max_c))
            e.temp_max_c = t.v;
        if (gd_ok(mt) && (isnan(e.mem_temp_max_c) || mt.v > e.mem_temp_max_c))
            e.mem_temp_max_c = mt.v;
        if (!ld)
            continue;
        e.hit++;
        if (gd_ok(clock))
            clk[nclk++] = clock.v;
        gd_value p = gd_series_at(s, i, g, GD_M_POWER_W);
        if (gd_ok(p))
            pw[npw++] = p.v;
    }
    if (clk && free_clk && pw) {
        e.clock_median_mhz = gd_median(clk, nclk);
        e.clock_free_mhz = gd_median(free_clk, nfree);
        e.power_median_w = gd_median(pw, npw);
    }
    free(clk);
    free(free_clk);
    free(pw);
    e.share = e.loaded ? (double)e.hit / (double)e.loaded : 0;
    /* Each hit holds until the next sample (the last one for one average
     * spacing), never longer than the window itself. */
    double window = s->n > 1 ? gd_series_t(s, s->n - 1) - gd_series_t(s, 0) : 0;
    double spacing = s->n > 1 ? window / (double)(s->n - 1) : 0;
    for (size_t i = 0; i < s->n; i++)
        if (has_mask(s, i, g, mask))
            e.span_s += i + 1 < s->n ? gd_series_t(s, i + 1) - gd_series_t(s, i) : spacing;
    if (e.span_s > window)
        e.span_s = window;
    counter_share(f, g, mask, &e);
    *out = e;
}

void gd_runs_of(const gd_facts *f, size_t g, unsigned long long mask, unsigned long long exclude, gd_runs *out)
{
    const gd_series *s = &f->series;
    gd_runs r = {0};
    double run = 0;
    for (size_t i = 0; i < s->n; i++) {
        bool in = has_mask(s, i, g, mask) && !has_mask(s, i, g, exclude);
        bool next = i + 1 < s->n && has_mask(s, i + 1, g, mask) && !has_mask(s, i + 1, g, exclude);
        double dt = i + 1 < s->n ? gd_series_t(s, i + 1) - gd_series_t(s, i) : 0;
        bool loaded = gd_loaded_at(f, i, g) && i + 1 < s->n && gd_loaded_at(f, i + 1, g);
        if (loaded)
            r.window_loaded_s += dt;
        if (!in)
            continue;
        if (run == 0 && (i == 0 || !(has_mask(s, i - 1, g, mask) && !has_mask(s, i - 1, g, exclude))))
            r.runs++;
        if (next) {
            run += dt;
            r.total_s += dt;
            if (loaded)
                r.loaded_s += dt;
        }
        if (!next) {
            if (run > r.longest_s)
                r.longest_s = run;
            run = 0;
        }
    }
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
