/* SPDX-License-Identifier: Apache-2.0 */
/* Clocks: clocks.low, clocks.locked, clocks.outlier. */
#include "analysis/window_acc.h"
#include "checks_internal.h"

void gd_check_clocks_low(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (!gd_ok(gpu->clock_max_sm_mhz)) {
            if (!gpu->lost)
                gd_skip_add(out, "clocks.low", gpu->index, "maximum SM clock not readable (%s)",
                            gd_status_name((gd_status)gpu->clock_max_sm_mhz.status));
            continue;
        }
        if (!gd_reasons_read(f, g, "clocks.low", out))
            continue;
        /* Loaded samples with no event reason at all, and a low clock
         * (below GD_CLOCK_LOW_FRACTION of the maximum): the window's stream. */
        gd_window_acc *tmp;
        const gd_window_acc *acc = gd_window_acc_get(f, &tmp);
        gd_window_picks p = {0};
        size_t loaded = acc ? gd_window_acc_loaded(acc, g) : 0;
        if (acc)
            gd_window_acc_stream(acc, f, g, GD_WS_CLOCK_LOW, &p);
        gd_window_acc_free(tmp);
        size_t low = p.n;
        double first = p.first_s, sum = p.sum;
        if (low == 0 || (double)low < GD_CLOCK_LOW_MIN_SHARE * (double)loaded)
            continue;
        double mean = sum / (double)low, share = (double)low / (double)loaded;
        double impact = 100.0 * share * (1.0 - mean / gpu->clock_max_sm_mhz.v);
        json_t *ev = json_object();
        json_object_set_new(ev, "low_clock_pct", gd_json_number(round(share * 1000) / 10));
        json_object_set_new(ev, "sm_clock_mhz_mean", gd_json_number(round(mean)));
        json_object_set_new(ev, "sm_clock_max_mhz", gd_json_value(gpu->clock_max_sm_mhz));
        json_object_set_new(ev, "event_reasons", json_array());
        json_object_set_new(ev, "started_at_s", gd_json_number(first));
        json_object_set_new(ev, "source",
                            json_string("nvml:nvmlDeviceGetClockInfo(SM),nvmlDeviceGetCurrentClocksEventReasons"));
        char fix[768];
        snprintf(fix, sizeof fix,
                 "No reason is reported, which points at a clock limit set by hand: reset locked clocks "
                 "with 'sudo nvidia-smi -i %d -rgc' and 'sudo nvidia-smi -i %d -rmc', application clocks "
                 "with 'sudo nvidia-smi -i %d -rac'. Check 'nvidia-smi -q -d PERFORMANCE,CLOCK', the "
                 "BIOS power profile, and update the driver if it persists.",
                 gpu->index, gpu->index, gpu->index);
        gd_finding *x = gd_finding_add(out, "clocks.low", gd_loss_severity(impact, share), gpu->index, ev, impact, fix,
                                       "GPU %d SM clock at %.0f of %.0f MHz under load with no reason reported",
                                       gpu->index, mean, gpu->clock_max_sm_mhz.v);
        if (x)
            snprintf(x->timeline, sizeof x->timeline,
                     "from %.1f s: SM %.0f MHz with no event reason, %.0f%% of the loaded time", first, mean,
                     100.0 * share);
    }
}

void gd_check_clocks_locked(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        bool app_lowered = gd_ok(gpu->clock_app_sm_mhz) && gd_ok(gpu->clock_default_app_sm_mhz) &&
                           gpu->clock_app_sm_mhz.v < gpu->clock_default_app_sm_mhz.v;
        bool mem_lowered = gd_ok(gpu->clock_app_mem_mhz) && gd_ok(gpu->clock_default_app_mem_mhz) &&
                           gpu->clock_app_mem_mhz.v < gpu->clock_default_app_mem_mhz.v;
        /* Either the settings or the reason they leave under load will do. */
        if (!(gd_ok(gpu->clock_app_sm_mhz) && gd_ok(gpu->clock_default_app_sm_mhz)) &&
            !gd_reasons_read(f, g, "clocks.locked", out))
            continue;
        gd_episode e;
        gd_episode_of(f, g, nvmlClocksThrottleReasonApplicationsClocksSetting, &e);
        /* At default application clocks, a board that boosts above them (a K80
         * at 810 MHz over its 562 MHz application clock) still reports the
         * reason: that is its normal behaviour, not a limit someone set. */
        bool default_app = gd_ok(gpu->clock_app_sm_mhz) && gd_ok(gpu->clock_default_app_sm_mhz) &&
                           gpu->clock_app_sm_mhz.v >= gpu->clock_default_app_sm_mhz.v && !isnan(e.clock_median_mhz) &&
                           e.clock_median_mhz >= gpu->clock_app_sm_mhz.v;
        bool limited = e.hit > 0 && gd_ok(gpu->clock_max_sm_mhz) && !isnan(e.clock_median_mhz) &&
                       e.clock_median_mhz < GD_CLOCK_LOCKED_FRACTION * gpu->clock_max_sm_mhz.v && !default_app;
        if (!app_lowered && !mem_lowered && !limited)
            continue;
        double impact = gd_episode_impact_pct(&e, gd_reference_clock_mhz(f, g, &e));
        json_t *ev = json_object();
        json_object_set_new(ev, "app_sm_clock_mhz", gd_json_value(gpu->clock_app_sm_mhz));
        json_object_set_new(ev, "default_app_sm_clock_mhz", gd_json_value(gpu->clock_default_app_sm_mhz));
        json_object_set_new(ev, "app_mem_clock_mhz", gd_json_value(gpu->clock_app_mem_mhz));
        json_object_set_new(ev, "default_app_mem_clock_mhz", gd_json_value(gpu->clock_default_app_mem_mhz));
        json_object_set_new(ev, "sm_clock_mhz_median", gd_json_number(e.clock_median_mhz));
        json_object_set_new(ev, "sm_clock_max_mhz", gd_json_value(gpu->clock_max_sm_mhz));
        json_object_set_new(ev, "limited_pct", gd_json_number(round(e.share * 1000) / 10));
        json_object_set_new(ev, "source",
                            json_string("nvml:nvmlDeviceGetApplicationsClock,nvmlDeviceGetDefaultApplicationsClock"));
        char fix[768];
        snprintf(fix, sizeof fix,
                 "Reset the clocks to their defaults: 'sudo nvidia-smi -i %d -rac' (application clocks), "
                 "'sudo nvidia-smi -i %d -rgc' (locked GPU clocks) and 'sudo nvidia-smi -i %d -rmc' (locked "
                 "memory clocks), then remove whatever sets them at boot.",
                 gpu->index, gpu->index, gpu->index);
        gd_finding *x;
        if (app_lowered || mem_lowered)
            x = gd_finding_add(out, "clocks.locked", gd_loss_severity(impact, 0), gpu->index, ev, impact, fix,
                               "GPU %d application clocks set below the default (SM %.0f of %.0f MHz)", gpu->index,
                               gd_ok(gpu->clock_app_sm_mhz) ? gpu->clock_app_sm_mhz.v : NAN,
                               gd_ok(gpu->clock_default_app_sm_mhz) ? gpu->clock_default_app_sm_mhz.v : NAN);
        else
            x = gd_finding_add(out, "clocks.locked", gd_loss_severity(impact, 0), gpu->index, ev, impact, fix,
                               "GPU %d clocks held at %.0f MHz by a clock setting under load", gpu->index,
                               e.clock_median_mhz);
        if (x && e.hit)
            gd_episode_timeline(&e, "application clock limit", x->timeline, sizeof x->timeline);
    }
}

/* True when GPU g already has a finding that explains slow clocks. */
static bool explained(const gd_findings *fs, int gpu)
{
    static const char *const ids[] = {"thermal.throttling", "power.limit_lowered", "power.brake",
                                      "power.hw_slowdown",  "clocks.low",          "clocks.locked"};
    for (size_t i = 0; i < fs->n; i++)
        for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++)
            if (fs->v[i].gpu == gpu && strcmp(fs->v[i].id, ids[k]) == 0)
                return true;
    return false;
}

void gd_check_clocks_outlier(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    for (size_t g = 0; g < f->gpu_count; g++) {
        double best = NAN;
        double peers = gd_peer_median(f, g, GD_M_SM_CLOCK_MHZ, &best);
        double mine = gd_loaded_clock_median(f, g);
        if (isnan(peers) || isnan(mine) || isnan(best) || mine > (1.0 - GD_PEER_CLOCK_GAP) * best)
            continue;
        if (explained(out, f->gpus[g].index))
            continue;
        json_t *ev = json_object();
        json_object_set_new(ev, "sm_clock_mhz_median", gd_json_number(round(mine)));
        json_object_set_new(ev, "peer_median_mhz", gd_json_number(round(peers)));
        json_object_set_new(ev, "peer_best_mhz", gd_json_number(round(best)));
        json_object_set_new(ev, "gap_pct", gd_json_number(round(1000.0 * (1 - mine / best)) / 10));
        json_object_set_new(ev, "source", json_string("nvml:nvmlDeviceGetClockInfo(SM)"));
        gd_finding_add(out, "clocks.outlier", gd_loss_severity(100.0 * (1 - mine / best), 0), f->gpus[g].index, ev,
                       100.0 * (1 - mine / best),
                       "In a data-parallel job the whole node waits for its slowest GPU. Compare "
                       "'nvidia-smi -q -d PERFORMANCE,CLOCK,POWER' of this GPU with a healthy one, "
                       "then run 'gpudoctor check' under a steady load to see which limit it hits.",
                       "GPU %d runs %.0f%% slower than the best of its peers under the same load (%.0f vs %.0f MHz)",
                       f->gpus[g].index, 100.0 * (1 - mine / best), mine, best);
    }
}
