/* SPDX-License-Identifier: Apache-2.0 */
/* Power: power.limit_lowered, power.brake, power.hw_slowdown, power.capped. */
#include "analysis/window_acc.h"
#include "checks_internal.h"
#include "core/stats.h"

#include <stdlib.h>

/* The enforced limit is the lowest of every limiter. Where the limit asked
 * for (nvidia-smi -pl, else the default) is the default or more and the
 * enforced one lower, no software limit set on this machine holds it down:
 * the platform does (a module's shared budget on Grace Hopper, a BMC or an
 * out-of-band cap), and 'nvidia-smi -pl' cannot raise it. */
static bool held_by_platform(const gd_gpu *gpu)
{
    gd_value req = gpu->power_limit_requested_w;
    return gd_ok(req) && req.v >= gpu->power_limit_default_w.v - GD_POWER_LIMIT_TOLERANCE_W &&
           gpu->power_limit_w.v < req.v - GD_POWER_LIMIT_TOLERANCE_W;
}

static void limit_fix(const gd_gpu *gpu, bool platform, char *fix, size_t len)
{
    double limit = gpu->power_limit_w.v, def = gpu->power_limit_default_w.v;
    if (!platform) {
        snprintf(fix, len,
                 "Restore the default limit: 'sudo nvidia-smi -i %d -pl %.0f'. Then find what lowered it "
                 "(a boot script, a DCGM or cluster power policy, a BMC or datacenter power cap; "
                 "'nvidia-smi -q -d POWER' shows the requested limit) so it is not set again. If the "
                 "cap is deliberate, expect the clocks to drop whenever the GPU reaches %.0f W.",
                 gpu->index, def, limit);
        return;
    }
    bool c2c = gd_ok(gpu->c2c_mode) && gpu->c2c_mode.v == 1;
    snprintf(fix, len,
             "The limit asked for is already %.0f W (the default): 'nvidia-smi -pl' cannot raise it, the platform "
             "holds the GPU at %.0f W. %sLook at the platform's power configuration: the BMC's power capping "
             "or power-steering policy ('ipmitool dcmi power get_limit', the BMC's event log), the system "
             "firmware's GPU power setting, and the rack's power budget; 'nvidia-smi -q -d POWER' shows Requested "
             "against Current Power Limit. If the cap is deliberate, expect the clocks to drop whenever the GPU "
             "reaches %.0f W.",
             gpu->power_limit_requested_w.v, limit,
             c2c ? "On Grace Hopper the CPU and GPU share the module's power budget ('Module Power Readings' in "
                   "'nvidia-smi -q -d POWER') and the platform sets the GPU's share of it. "
                 : "",
             limit);
}

void gd_check_power_limit_lowered(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (!gd_ok(gpu->power_limit_w) || !gd_ok(gpu->power_limit_default_w)) {
            if (!gpu->lost)
                gd_skip_add(out, "power.limit_lowered", gpu->index, "power limits not readable");
            continue;
        }
        double limit = gpu->power_limit_w.v, def = gpu->power_limit_default_w.v;
        if (limit >= def - GD_POWER_LIMIT_TOLERANCE_W)
            continue;
        gd_episode e;
        gd_episode_of(f, g, nvmlClocksThrottleReasonSwPowerCap, &e);
        double impact = gd_episode_impact_pct(&e, gd_reference_clock_mhz(f, g, &e));
        bool platform = held_by_platform(gpu);
        json_t *ev = json_object();
        json_object_set_new(ev, "power_limit_w", gd_json_number(limit));
        json_object_set_new(ev, "power_limit_requested_w", gd_json_value(gpu->power_limit_requested_w));
        json_object_set_new(ev, "power_limit_default_w", gd_json_number(def));
        json_object_set_new(ev, "power_limit_max_w", gd_json_value(gpu->power_limit_max_w));
        json_object_set_new(ev, "held_by",
                            json_string(platform                              ? "platform"
                                        : gd_ok(gpu->power_limit_requested_w) ? "requested"
                                                                              : "unknown"));
        json_object_set_new(ev, "reduction_pct", gd_json_number(round(1000.0 * (1 - limit / def)) / 10));
        json_object_set_new(ev, "power_draw_median_w", gd_json_number(round(gd_loaded_median(f, g, GD_M_POWER_W))));
        json_object_set_new(ev, "power_capped_pct", gd_json_number(round(e.share * 1000) / 10));
        json_object_set_new(ev, "sm_clock_mhz_median", gd_json_number(e.clock_median_mhz));
        json_object_set_new(ev, "sm_clock_max_mhz", gd_json_value(gpu->clock_max_sm_mhz));
        json_object_set_new(ev, "source",
                            json_string("nvml:nvmlDeviceGetEnforcedPowerLimit,nvmlDeviceGetPowerManagementLimit,"
                                        "nvmlDeviceGetPowerManagementDefaultLimit"));
        char fix[768], what[128];
        limit_fix(gpu, platform, fix, sizeof fix);
        if (platform)
            snprintf(what, sizeof what, "held at %.0f W by the platform (%.0f W requested, default %.0f W)", limit,
                     gpu->power_limit_requested_w.v, def);
        else
            snprintf(what, sizeof what, "lowered to %.0f W (default %.0f W)", limit, def);
        gd_severity sev = gd_loss_severity(impact, e.share);
        gd_finding *x =
            gd_finding_add(out, "power.limit_lowered", sev, gpu->index, ev, impact, fix, "GPU %d power limit %s%s",
                           gpu->index, what, e.hit ? ": clocks held back under load" : "");
        if (x && e.hit)
            gd_episode_timeline(&e, "power cap", x->timeline, sizeof x->timeline);
    }
}

/* Median of metric m over every sample with a reason of `mask`, loaded or
 * not (an idle capture's only sample counts); NAN when none. */
static double median_during(const gd_facts *f, size_t g, unsigned long long mask, gd_metric m)
{
    gd_window_acc *tmp;
    const gd_window_acc *acc = gd_window_acc_get(f, &tmp);
    double med = acc ? gd_window_acc_hit_median(acc, g, mask, m) : NAN;
    gd_window_acc_free(tmp);
    return med;
}

/* A slowdown flag the clocks contradict: the SM clock while it was set is
 * within 5 % of the board's maximum, so nothing was slowed. */
static bool clocks_not_reduced(const gd_gpu *gpu, double clock_mhz)
{
    return !isnan(clock_mhz) && gd_ok(gpu->clock_max_sm_mhz) &&
           clock_mhz >= GD_CLOCK_LOCKED_FRACTION * gpu->clock_max_sm_mhz.v;
}

/* Shared by power.brake and power.hw_slowdown: a hardware slowdown episode.
 * The strongest evidence leads: the clock the GPU was held at. */
static gd_finding *hardware_slowdown(const gd_facts *f, gd_findings *out, size_t g, const gd_episode *e,
                                     unsigned long long mask, const char *id, const char *what, const char *fix,
                                     json_t *ev)
{
    const gd_gpu *gpu = &f->gpus[g];
    double impact = gd_episode_impact_pct(e, gd_reference_clock_mhz(f, g, e));
    double held = median_during(f, g, mask, GD_M_SM_CLOCK_MHZ);
    /* In P0 (full performance) a low clock is the slowdown itself, not an idle GPU's P8. */
    double pstate = median_during(f, g, mask, GD_M_PSTATE);
    json_object_set_new(ev, "sm_clock_mhz", gd_json_number(held));
    json_object_set_new(ev, "sm_clock_max_mhz", gd_json_value(gpu->clock_max_sm_mhz));
    json_object_set_new(ev, "pstate", isnan(pstate) ? json_null() : json_integer((json_int_t)pstate));
    json_object_set_new(ev, "samples", json_integer((json_int_t)e->hit_any));
    json_object_set_new(ev, "started_at_s", gd_json_number(e->first_s));
    if (e->hit) { /* what it cost under load; an idle GPU has nothing to show there */
        json_object_set_new(ev, "slowdown_pct", gd_json_number(round(e->share * 1000) / 10));
        json_object_set_new(ev, "sm_clock_mhz_median", gd_json_number(e->clock_median_mhz));
        json_object_set_new(ev, "power_w_median", gd_json_number(e->power_median_w));
    }
    json_object_set_new(ev, "max_temp_c", gd_json_number(e->temp_max_c));
    json_object_set_new(
        ev, "source",
        json_string("nvml:nvmlDeviceGetCurrentClocksEventReasons,nvmlDeviceGetClockInfo(SM),nvmlDeviceGetMaxClockInfo,"
                    "nvmlDeviceGetPerformanceState"));
    gd_severity sev = e->hit ? gd_loss_severity(impact, e->share) : GD_SEV_WARNING;
    char clock[96] = "";
    if (!isnan(held) && gd_ok(gpu->clock_max_sm_mhz)) {
        char ps[16] = "";
        if (!isnan(pstate))
            snprintf(ps, sizeof ps, " in P%.0f", pstate);
        snprintf(clock, sizeof clock, " at SM %.0f of %.0f MHz%s", held, gpu->clock_max_sm_mhz.v, ps);
    }
    gd_finding *x =
        gd_finding_add(out, id, sev, gpu->index, ev, impact, fix, "GPU %d %s%s %s%s", gpu->index, what, clock,
                       e->hit ? "under load" : "while idle", f->series.n == 1 && f->captured ? " at capture time" : "");
    if (x)
        gd_episode_timeline(e, strcmp(id, "power.brake") == 0 ? "power brake slowdown" : "hardware slowdown",
                            x->timeline, sizeof x->timeline);
    return x;
}

/* A brake no sample saw, which its counter (field 253) says held the GPU for
 * a share of the window: how long, not when. */
static void brake_between_samples(const gd_facts *f, gd_findings *out, size_t g, const gd_episode *e, size_t braked,
                                  size_t judged, const char *fix, json_t *ev)
{
    const gd_gpu *gpu = &f->gpus[g];
    const gd_series *s = &f->series;
    double window = s->n > 1 ? gd_series_t(s, s->n - 1) - gd_series_t(s, 0) : 0;
    json_object_set_new(ev, "violation_counter_pct", gd_json_number(round(e->counter_share * 1000) / 10));
    json_object_set_new(ev, "window_s", gd_json_number(window));
    json_object_set_new(ev, "gpus_braked", json_integer((json_int_t)braked));
    json_object_set_new(ev, "gpus_judged", json_integer((json_int_t)judged));
    json_object_set_new(ev, "source",
                        json_string("nvml:nvmlDeviceGetFieldValues(CLOCKS_EVENT_REASON_HW_POWER_BRAKE_"
                                    "SLOWDOWN),nvmlDeviceGetCurrentClocksEventReasons"));
    gd_finding *x =
        gd_finding_add(out, "power.brake", gd_loss_severity(NAN, e->counter_share), gpu->index, ev, NAN, fix,
                       "GPU %d held by the hardware power brake between samples (%.0f%% of the window)", gpu->index,
                       100.0 * e->counter_share);
    if (x)
        snprintf(x->timeline, sizeof x->timeline,
                 "between samples (violation counter): power brake slowdown for %.1f s of the %.1f s window",
                 e->counter_share * window, window);
}

void gd_check_power_brake(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const unsigned long long brake = nvmlClocksThrottleReasonHwPowerBrakeSlowdown;
    /* Per GPU, from one pass: its brake episode and the clock it was held at. */
    struct braking {
        gd_episode e;
        double held;
        bool flag, real;
        bool between; /* no sample saw the flag; its counter (R570 and later) did */
    } *b = calloc(f->gpu_count + 1, sizeof *b);
    size_t braked = 0, judged = 0;
    for (size_t g = 0; b && g < f->gpu_count; g++) {
        if (!gd_reasons_read(f, g, "power.brake", out))
            continue;
        judged++;
        gd_episode_of(f, g, brake, &b[g].e);
        if (!b[g].e.hit_any) {
            const gd_episode *e = &b[g].e;
            b[g].between = e->counter && e->counter_share >= GD_COUNTER_MIN_SHARE && e->loaded > 0;
            b[g].flag = b[g].real = b[g].between;
            braked += b[g].between;
            continue;
        }
        b[g].flag = true;
        b[g].held = median_during(f, g, brake, GD_M_SM_CLOCK_MHZ);
        b[g].real = !clocks_not_reduced(&f->gpus[g], b[g].held);
        braked += b[g].real;
    }
    for (size_t g = 0; b && g < f->gpu_count; g++) {
        if (!b[g].flag)
            continue;
        const gd_gpu *gpu = &f->gpus[g];
        const gd_episode *e = &b[g].e;
        json_t *ev = json_object();
        if (b[g].between) {
            brake_between_samples(f, out, g, e, braked, judged, self->fix, ev);
            continue;
        }
        if (!b[g].real) {
            double held = b[g].held;
            gd_episode hw;
            gd_episode_of(f, g, nvmlClocksThrottleReasonHwSlowdown, &hw);
            json_object_set_new(ev, "sm_clock_mhz", gd_json_number(held));
            json_object_set_new(ev, "sm_clock_max_mhz", gd_json_value(gpu->clock_max_sm_mhz));
            json_object_set_new(ev, "hw_slowdown_active", json_boolean(hw.hit_any > 0));
            json_object_set_new(ev, "samples", json_integer((json_int_t)e->hit_any));
            json_object_set_new(
                ev, "source",
                json_string(
                    "nvml:nvmlDeviceGetCurrentClocksEventReasons,nvmlDeviceGetClockInfo(SM),nvmlDeviceGetMaxClockInfo,"
                    "nvmlDeviceGetPerformanceState"));
            gd_finding_add(out, "power.brake", GD_SEV_INFO, gpu->index, ev, NAN,
                           "Nothing slowed this GPU: its clock is at its maximum while the power-brake flag is set. "
                           "Watch whether the clocks drop under load ('nvidia-smi dmon -s pc'); a flag that stays set "
                           "with full clocks is a reporting quirk of the board or driver, not a slowdown.",
                           "GPU %d power-brake flag set, clocks not reduced (SM %.0f MHz%s)", gpu->index, held,
                           hw.hit_any ? "" : ", HW Slowdown not active");
            continue;
        }
        /* Which signal: one asserted for the whole node comes from outside the GPUs. */
        char fix[768];
        if (braked > 1 && braked == judged)
            snprintf(fix, sizeof fix, "All %zu GPUs braked at once: a chassis or power supply signal, not one card. %s",
                     braked, self->fix);
        else if (braked == 1 && judged > 1)
            snprintf(fix, sizeof fix,
                     "Only GPU %d of %zu braked: look at that GPU's power connector or board first (reseat its "
                     "power cables, check for a damaged connector, move it to another slot); if it follows the "
                     "card, it needs service. %s",
                     gpu->index, judged, self->fix);
        else
            snprintf(fix, sizeof fix, "%zu of %zu GPUs braked. %s Reseat the braked GPUs' power cables.", braked,
                     judged, self->fix);
        gd_finding *x =
            hardware_slowdown(f, out, g, e, brake, "power.brake", "held by the hardware power brake", fix, ev);
        if (x)
            json_object_set_new(x->evidence, "gpus_braked", json_integer((json_int_t)braked));
    }
    free(b);
}

void gd_check_power_hw_slowdown(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const unsigned long long explained =
        nvmlClocksThrottleReasonHwThermalSlowdown | nvmlClocksThrottleReasonHwPowerBrakeSlowdown;
    const gd_series *s = &f->series;
    double window = s->n > 1 ? gd_series_t(s, s->n - 1) - gd_series_t(s, 0) : 0;
    for (size_t g = 0; g < f->gpu_count; g++) {
        if (!gd_reasons_read(f, g, self->id, out))
            continue;
        /* Judge time, not samples: nvml.h says HW_SLOWDOWN "may be also
         * reported during PState or clock change", so brief blips are not a
         * finding at any sampling rate. */
        gd_runs r;
        gd_runs_of(f, g, nvmlClocksThrottleReasonHwSlowdown, explained, &r);
        double share = r.window_loaded_s > 0 ? r.loaded_s / r.window_loaded_s : window > 0 ? r.total_s / window : 0;
        if (r.total_s < GD_HW_SLOWDOWN_MIN_S || share < GD_HW_SLOWDOWN_MIN_SHARE)
            continue;
        gd_episode e;
        gd_episode_of(f, g, nvmlClocksThrottleReasonHwSlowdown, &e);
        if (e.hit)
            e.share = share; /* the impact from the time it lasted, not from samples */
        json_t *ev = json_object();
        json_object_set_new(ev, "slowed_s", gd_json_number(round(r.total_s * 10) / 10));
        json_object_set_new(ev, "slowed_loaded_s", gd_json_number(round(r.loaded_s * 10) / 10));
        json_object_set_new(ev, "longest_s", gd_json_number(round(r.longest_s * 10) / 10));
        json_object_set_new(ev, "episodes", json_integer((json_int_t)r.runs));
        json_object_set_new(ev, "share_pct", gd_json_number(round(share * 1000) / 10));
        hardware_slowdown(f, out, g, &e, nvmlClocksThrottleReasonHwSlowdown, self->id, "was held in hardware slowdown",
                          self->fix, ev);
    }
}

void gd_check_power_capped(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    /* One finding for the node: several GPUs at their cap is one fact. */
    json_t *gpus = json_array();
    double share_sum = 0, clock_sum = 0, limit = NAN, clock_max = NAN;
    int first = -1;
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        /* A lowered limit is reported by power.limit_lowered. */
        if (!gd_ok(gpu->power_limit_w) || !gd_ok(gpu->power_limit_default_w) ||
            gpu->power_limit_w.v < gpu->power_limit_default_w.v - GD_POWER_LIMIT_TOLERANCE_W ||
            !gd_ok(gpu->clock_max_sm_mhz))
            continue;
        gd_episode e;
        gd_episode_of(f, g, nvmlClocksThrottleReasonSwPowerCap, &e);
        if (e.share < GD_POWER_CAPPED_SHARE || isnan(e.clock_median_mhz) ||
            e.clock_median_mhz >= GD_POWER_CAPPED_CLOCK_FRACTION * gpu->clock_max_sm_mhz.v)
            continue;
        json_array_append_new(gpus, json_integer(gpu->index));
        share_sum += e.share;
        clock_sum += e.clock_median_mhz;
        limit = gpu->power_limit_w.v;
        clock_max = gpu->clock_max_sm_mhz.v;
        if (first < 0)
            first = gpu->index;
    }
    size_t n = json_array_size(gpus);
    if (n == 0) {
        json_decref(gpus);
        return;
    }
    json_t *ev = json_object();
    json_object_set_new(ev, "gpus", gpus);
    json_object_set_new(ev, "power_capped_pct", gd_json_number(round(share_sum / (double)n * 1000) / 10));
    json_object_set_new(ev, "power_limit_w", gd_json_number(limit));
    json_object_set_new(ev, "sm_clock_mhz_median", gd_json_number(round(clock_sum / (double)n)));
    json_object_set_new(ev, "sm_clock_max_mhz", gd_json_number(clock_max));
    json_object_set_new(ev, "source", json_string("nvml:nvmlDeviceGetCurrentClocksEventReasons"));
    /* One sample has no share of time to tell. */
    char when[64];
    if (f->series.n == 1)
        snprintf(when, sizeof when, "%s", f->captured ? "at capture time" : "in the snapshot");
    else
        snprintf(when, sizeof when, "%.0f%% of the loaded time", 100 * share_sum / (double)n);
    if (n == 1)
        gd_finding_add(out, self->id, GD_SEV_INFO, first, ev, NAN, NULL,
                       "GPU %d runs at its %.0f W power limit %s (SM %.0f of %.0f MHz)", first, limit, when, clock_sum,
                       clock_max);
    else
        gd_finding_add(out, self->id, GD_SEV_INFO, GD_NO_GPU, ev, NAN, NULL,
                       "%zu GPUs run at their power limit %s (SM about %.0f of %.0f MHz)", n, when,
                       clock_sum / (double)n, clock_max);
}
