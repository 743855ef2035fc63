/* SPDX-License-Identifier: Apache-2.0 */
/* Heat: thermal.throttling, thermal.hot and thermal.outlier. */
#include "analysis/window_acc.h"
#include "checks_internal.h"

#include <string.h>

#define THERMAL_REASONS (nvmlClocksThrottleReasonSwThermalSlowdown | nvmlClocksThrottleReasonHwThermalSlowdown)

bool gd_thermal_throttled_under_load(const gd_facts *f, size_t g)
{
    gd_episode e;
    gd_episode_of(f, g, THERMAL_REASONS, &e);
    return e.hit > 0 || (e.counter && e.counter_share >= GD_COUNTER_MIN_SHARE && e.loaded > 0);
}

double gd_reference_clock_mhz(const gd_facts *f, size_t g, const gd_episode *e)
{
    double ref = e ? e->clock_free_mhz : NAN;
    double best = NAN;
    double peers = gd_peer_median(f, g, GD_M_SM_CLOCK_MHZ, &best);
    if (!isnan(peers) && (isnan(ref) || peers > ref))
        ref = peers;
    if (isnan(ref) && gd_ok(f->gpus[g].clock_max_sm_mhz))
        ref = f->gpus[g].clock_max_sm_mhz.v;
    return ref;
}

bool gd_reasons_read(const gd_facts *f, size_t g, const char *id, gd_findings *out)
{
    if (gd_stats_of(f, g, GD_M_EVENT_REASONS, NULL) > 0)
        return true;
    if (!f->gpus[g].lost) {
        gd_status st =
            f->series.n ? (gd_status)gd_series_at(&f->series, 0, g, GD_M_EVENT_REASONS).status : GD_ST_UNREAD;
        gd_skip_add(out, id, f->gpus[g].index, "clock event reasons not readable (%s)", gd_status_name(st));
    }
    return false;
}

/* The temperature from which a sensor counts as hot: 80 C, or 5 C under its limit. */
double gd_hot_threshold_c(gd_value limit)
{
    double t = GD_HOT_ABS_C;
    if (gd_ok(limit) && limit.v - GD_HOT_MARGIN_C < t)
        t = limit.v - GD_HOT_MARGIN_C;
    return t;
}

static void add_peer_temp(json_t *ev, const gd_facts *f, size_t g)
{
    double peers = gd_peer_median(f, g, GD_M_TEMP_C, NULL);
    if (!isnan(peers))
        json_object_set_new(ev, "peer_median_temp_c", gd_json_number(round(peers)));
}

/* The memory's maximum operating temperature: the driver's, else the
 * typical HBM board's where the board reports a memory temperature at all
 * (*typical set); NAN when neither. */
static double mem_limit_c(const gd_gpu *gpu, double mem_temp_c, bool *typical)
{
    *typical = false;
    if (gd_ok(gpu->temp_mem_max_c))
        return gpu->temp_mem_max_c.v;
    /* A typical figure only where the memory came near it: elsewhere it says nothing of this board. */
    if (isnan(mem_temp_c) || mem_temp_c < GD_HBM_MEM_MAX_TYPICAL_C - GD_HBM_NEAR_C)
        return NAN;
    *typical = true;
    return GD_HBM_MEM_MAX_TYPICAL_C;
}

/* The board's limits in words, each with what happens there: the GPU's
 * maximum operating temperature (software slowdown from there), its
 * slowdown (hardware) and shutdown temperatures, the memory's maximum
 * operating temperature. "" when none is known. */
static void limits_words(const gd_gpu *gpu, double mem_c, bool mem_typical, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
#define PUT(...) (used < len ? used += (size_t)snprintf(buf + used, len - used, __VA_ARGS__) : 0)
    if (gd_ok(gpu->temp_gpu_max_c))
        PUT("GPU %.0f C max operating (software slowdown)", gpu->temp_gpu_max_c.v);
    if (gd_ok(gpu->temp_slowdown_c))
        PUT("%s%.0f C hardware slowdown", used ? ", " : "GPU ", gpu->temp_slowdown_c.v);
    if (gd_ok(gpu->temp_shutdown_c))
        PUT("%s%.0f C shutdown", used ? ", " : "GPU ", gpu->temp_shutdown_c.v);
    if (!isnan(mem_c))
        PUT("%smemory %.0f C max operating (software slowdown%s)", used ? "; " : "", mem_c,
            mem_typical ? "; typical of HBM boards: the driver gives none" : "");
#undef PUT
}

/* Each limit under its own name, and the words that say what each does. */
static void add_limits(json_t *ev, const gd_gpu *gpu, double mem_c, bool mem_typical)
{
    json_object_set_new(ev, "gpu_max_operating_c", gd_json_value(gpu->temp_gpu_max_c));
    json_object_set_new(ev, "gpu_slowdown_c", gd_json_value(gpu->temp_slowdown_c));
    json_object_set_new(ev, "gpu_shutdown_c", gd_json_value(gpu->temp_shutdown_c));
    json_object_set_new(ev, "mem_max_operating_c", gd_json_number(mem_c));
    char words[400];
    limits_words(gpu, mem_c, mem_typical, words, sizeof words);
    if (words[0])
        json_object_set_new(ev, "limits", json_string(words));
}

/* Which sensor drives a thermal slowdown: the one at its limit (the GPU's
 * maximum operating temperature for the software slowdown, its slowdown
 * temperature for the hardware one; the memory's maximum operating
 * temperature), "GPU and memory" when both are, NULL when neither reading
 * says (the limits unknown, or the heat between samples). */
static const char *driving_sensor(const gd_gpu *gpu, const gd_episode *e, bool hw, double mem_c)
{
    gd_value core_limit = hw && gd_ok(gpu->temp_slowdown_c) ? gpu->temp_slowdown_c : gpu->temp_gpu_max_c;
    bool core = !isnan(e->temp_max_c) && gd_ok(core_limit) && e->temp_max_c >= core_limit.v - GD_THERMAL_AT_LIMIT_C;
    bool mem = !isnan(e->mem_temp_max_c) && !isnan(mem_c) && e->mem_temp_max_c >= mem_c - GD_THERMAL_AT_LIMIT_C;
    return core && mem ? "GPU and memory" : core ? "GPU" : mem ? "memory" : NULL;
}

/* A reading against its limit: "over", "at" or "near" (within GD_THERMAL_AT_LIMIT_C). */
static const char *where_to(double reading, double limit)
{
    return reading > limit + 0.5 ? "over" : reading >= limit - 0.5 ? "at" : "near";
}

/* Throttling that only the violation counter saw: how long, not when. */
static void counter_timeline(const gd_facts *f, size_t g, const gd_episode *e, char *buf, size_t len)
{
    const gd_series *s = &f->series;
    double window = s->n > 1 ? gd_series_t(s, s->n - 1) - gd_series_t(s, 0) : 0;
    gd_stats temp;
    int n = snprintf(buf, len, "between samples (violation counter): thermal slowdown for %.1f s of the %.1f s window",
                     e->counter_share * window, window);
    if (n > 0 && (size_t)n < len && gd_stats_of(f, g, GD_M_TEMP_C, &temp) > 0)
        snprintf(buf + n, len - (size_t)n, ", up to %.0f C, SM median %.0f MHz", temp.max,
                 gd_loaded_clock_median(f, g));
}

/* A window whose thermal slowdown counter did not answer twice judged only
 * its samples' clock event reasons: throttling between them is not seen,
 * and the note says so (the status of the last call tried). */
static void counter_not_read(const gd_facts *f, size_t g, gd_findings *out)
{
    gd_window_acc *tmp;
    const gd_window_acc *acc = gd_window_acc_get(f, &tmp);
    gd_value last = acc ? gd_window_acc_tried(acc, f, g, GD_M_VIOL_THERMAL_NS) : gd_missing(GD_ST_UNREAD);
    gd_window_acc_free(tmp);
    if (f->captured)
        gd_skip_add(out, "thermal.throttling", f->gpus[g].index,
                    "throttling between samples: the capture holds no thermal slowdown counter, so only its "
                    "samples' clock event reasons were judged");
    else
        gd_skip_add(out, "thermal.throttling", f->gpus[g].index,
                    "throttling between samples: no thermal slowdown counter answered twice "
                    "(nvmlDeviceGetFieldValues CLOCKS_EVENT_REASON_SW/HW_THERM_SLOWDOWN and PERF_POLICY_THERMAL, "
                    "nvmlDeviceGetViolationStatus(THERMAL): %s), so only the samples' clock event reasons were judged",
                    gd_status_name((gd_status)last.status));
}

void gd_check_thermal_throttling(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        /* The violation counter alone can tell (it needs two readings). */
        bool counter = gd_stats_of(f, g, GD_M_VIOL_THERMAL_NS, NULL) >= 2;
        if (!counter && !gd_reasons_read(f, g, "thermal.throttling", out))
            continue;
        if (!counter && f->series.n >= 2 && !gpu->lost)
            counter_not_read(f, g, out);
        if (!gd_thermal_throttled_under_load(f, g))
            continue;
        gd_episode e, hw;
        gd_episode_of(f, g, THERMAL_REASONS, &e);
        gd_episode_of(f, g, nvmlClocksThrottleReasonHwThermalSlowdown, &hw);
        double share = e.hit ? e.share : e.counter_share;
        double ref = gd_reference_clock_mhz(f, g, &e);
        double impact = gd_episode_impact_pct(&e, ref);
        bool typical;
        double mem_c = mem_limit_c(gpu, e.mem_temp_max_c, &typical);
        const char *sensor = driving_sensor(gpu, &e, hw.hit > 0, mem_c);
        bool hbm = sensor && strcmp(sensor, "memory") == 0;
        /* Hardware thermal slowdown is the board protecting itself: critical at any loss. */
        gd_severity sev = hw.hit > 0 ? GD_SEV_CRITICAL : gd_loss_severity(impact, share);
        json_t *ev = json_object();
        json_object_set_new(ev, "throttled_pct", gd_json_number(round(share * 1000) / 10));
        json_object_set_new(ev, "hw_thermal_slowdown", json_boolean(hw.hit > 0));
        json_object_set_new(ev, "driven_by", sensor ? json_string(sensor) : json_null());
        json_object_set_new(ev, "max_temp_c", gd_json_number(e.temp_max_c));
        json_object_set_new(ev, "max_mem_temp_c", gd_json_number(e.mem_temp_max_c));
        add_limits(ev, gpu, mem_c, typical);
        json_object_set_new(ev, "sm_clock_mhz_median", gd_json_number(e.clock_median_mhz));
        json_object_set_new(ev, "sm_clock_unthrottled_mhz", gd_json_number(ref));
        json_object_set_new(ev, "sm_clock_max_mhz", gd_json_value(gpu->clock_max_sm_mhz));
        json_object_set_new(ev, "started_at_s", gd_json_number(e.first_s));
        if (e.counter)
            json_object_set_new(ev, "violation_counter_pct", gd_json_number(round(e.counter_share * 1000) / 10));
        add_peer_temp(ev, f, g);
        char source[160];
        snprintf(source, sizeof source, "nvml:nvmlDeviceGetCurrentClocksEventReasons,%s",
                 f->thermal_counter[0] ? f->thermal_counter : "nvmlDeviceGetViolationStatus(THERMAL)");
        json_object_set_new(ev, "source", json_string(source));
        char fix[1024];
        if (hbm)
            snprintf(fix, sizeof fix,
                     "The memory (HBM) slows the GPU down, not the GPU core: HBM sits beside the die under the same "
                     "heatsink, so the airflow across it is what to fix: the server's fans and fan profile (full "
                     "speed in the BMC; 'ipmitool sdr type Fan'), inlet temperature, blanking panels and blocked "
                     "intakes. Memory-bound work heats HBM most. A GPU whose memory runs hotter than its "
                     "neighbours' under the same load has poor heatsink contact on the HBM (thermal pads, heatsink "
                     "seating): have the board serviced. Watch the memory's temperature with 'nvidia-smi dmon -s "
                     "p' (mtemp).");
        else
            snprintf(fix, sizeof fix, "%s", self->fix);
        /* One sample (a -q capture, a --duration 0 snapshot) has no share to tell. */
        char when[64];
        if (f->series.n == 1)
            snprintf(when, sizeof when, "%s", f->captured ? "at capture time" : "in the snapshot");
        else
            snprintf(when, sizeof when, "for %.0f%% of the loaded time", 100.0 * share);
        gd_value core_limit = hw.hit && gd_ok(gpu->temp_slowdown_c) ? gpu->temp_slowdown_c : gpu->temp_gpu_max_c;
        char cause[200] = "";
        if (hbm)
            snprintf(cause, sizeof cause,
                     ": its memory (HBM) reached %.0f C, %s its %.0f C limit, while the GPU core "
                     "stayed at %.0f C",
                     e.mem_temp_max_c, where_to(e.mem_temp_max_c, mem_c), mem_c, e.temp_max_c);
        else if (sensor && strcmp(sensor, "GPU") == 0)
            snprintf(cause, sizeof cause, ": the GPU core reached %.0f C, %s its %.0f C %s", e.temp_max_c,
                     where_to(e.temp_max_c, core_limit.v), core_limit.v,
                     hw.hit && gd_ok(gpu->temp_slowdown_c) ? "slowdown temperature" : "maximum operating temperature");
        else if (sensor)
            snprintf(cause, sizeof cause, ": the GPU core (%.0f C) and its memory (%.0f C) both at their limits",
                     e.temp_max_c, e.mem_temp_max_c);
        gd_finding *x =
            gd_finding_add(out, "thermal.throttling", sev, gpu->index, ev, impact, fix,
                           "GPU %d %sthermally throttled %s%s", gpu->index, hw.hit ? "hardware-" : "", when, cause);
        char what[96];
        if (hbm && !isnan(e.mem_temp_max_c))
            snprintf(what, sizeof what, "%sthermal slowdown driven by the memory (HBM, up to %.0f C)",
                     hw.hit ? "hardware " : "", e.mem_temp_max_c);
        else
            snprintf(what, sizeof what, "%s", hw.hit ? "hardware thermal slowdown" : "thermal slowdown");
        if (x && e.hit_any)
            gd_episode_timeline(&e, what, x->timeline, sizeof x->timeline);
        else if (x)
            counter_timeline(f, g, &e, x->timeline, sizeof x->timeline);
    }
}

typedef struct hot_reading {
    size_t samples, above;
    double max, threshold;
} hot_reading;

static hot_reading measure(const gd_facts *f, size_t g, gd_metric m, gd_value limit)
{
    hot_reading h = {.threshold = gd_hot_threshold_c(limit)};
    gd_window_acc *tmp;
    const gd_window_acc *acc = gd_window_acc_get(f, &tmp);
    gd_stats st;
    if (acc && gd_window_acc_stats(acc, f, g, m, &st) > 0) {
        h.samples = st.n;
        h.max = st.max;
        h.above = isnan(h.threshold) ? 0 : gd_window_acc_at_least(acc, g, m, h.threshold);
    }
    gd_window_acc_free(tmp);
    return h;
}

static bool is_hot(hot_reading h)
{
    return h.samples > 0 && h.above > 0 && (double)h.above >= GD_HOT_MIN_SHARE * (double)h.samples;
}

static json_t *hot_evidence(hot_reading gpu, hot_reading mem, const gd_gpu *g)
{
    json_t *ev = json_object();
    json_object_set_new(ev, "max_temp_c", gpu.samples ? gd_json_number(gpu.max) : json_null());
    json_object_set_new(ev, "max_mem_temp_c", mem.samples ? gd_json_number(mem.max) : json_null());
    json_object_set_new(ev, "hot_from_c", gd_json_number(gpu.threshold));
    bool typical;
    double mem_c = mem_limit_c(g, mem.samples ? mem.max : NAN, &typical);
    add_limits(ev, g, mem_c, typical);
    json_object_set_new(ev, "samples_hot", json_integer((json_int_t)(gpu.above > mem.above ? gpu.above : mem.above)));
    json_object_set_new(ev, "samples",
                        json_integer((json_int_t)(gpu.samples > mem.samples ? gpu.samples : mem.samples)));
    return ev;
}

/* True when a GPU's sensor reads exactly 0 C in every valid sample: vGPU
 * guests and some passthrough setups report 0 rather than "not supported". */
bool gd_temp_not_reported(const gd_facts *f, size_t g)
{
    gd_stats t;
    return gd_stats_of(f, g, GD_M_TEMP_C, &t) > 0 && t.min == 0 && t.max == 0;
}

/* The severity of a hot reading (docs/checks.md): a warning only close to
 * what the board itself allows (within 5 C of its slowdown threshold, or at
 * its maximum operating temperature); otherwise context. */
static gd_severity hot_severity(double max_c, gd_value slowdown, gd_value op_max)
{
    if (gd_ok(slowdown) && max_c >= slowdown.v - GD_HOT_MARGIN_C)
        return GD_SEV_WARNING;
    if (gd_ok(op_max) && max_c >= op_max.v)
        return GD_SEV_WARNING;
    return GD_SEV_INFO;
}

/* ", 4 C below its 98 C slowdown threshold" and friends: `slow_name` is
 * what the first limit is called (the GPU's hardware slowdown temperature,
 * or the memory's maximum operating temperature, where its software
 * slowdown begins). */
static void limit_words(char *buf, size_t len, double max_c, gd_value slowdown, gd_value op_max, const char *slow_name,
                        const char *what)
{
    /* The nearest limit still above the reading says how much room is left. */
    bool op_above = gd_ok(op_max) && max_c < op_max.v, slow_above = gd_ok(slowdown) && max_c < slowdown.v;
    if (op_above && (!slow_above || op_max.v <= slowdown.v))
        snprintf(buf, len, ", %.0f C below its %.0f C maximum operating temperature (software slowdown from there)",
                 op_max.v - max_c, op_max.v);
    else if (slow_above)
        snprintf(buf, len, ", %.0f C below its %.0f C %s", slowdown.v - max_c, slowdown.v, slow_name);
    else if (gd_ok(slowdown))
        snprintf(buf, len, ", at or above its %.0f C %s", slowdown.v, slow_name);
    else if (gd_ok(op_max))
        snprintf(buf, len, ", at or above its %.0f C maximum operating temperature", op_max.v);
    else
        snprintf(buf, len, "; the board's %s limits could not be read", what);
}

void gd_check_thermal_hot(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (gd_temp_not_reported(f, g)) {
            gd_skip_add(out, "thermal.hot", gpu->index,
                        "GPU %d's temperature reads 0 C in every sample: the sensor does not report (a vGPU "
                        "guest or a passthrough that hides it), so heat could not be judged",
                        gpu->index);
            continue;
        }
        hot_reading core = measure(f, g, GD_M_TEMP_C, gpu->temp_slowdown_c);
        hot_reading mem = measure(f, g, GD_M_MEM_TEMP_C, gpu->temp_mem_max_c);
        if (core.samples == 0 && !gpu->lost) {
            gd_status st = f->series.n ? (gd_status)gd_series_at(&f->series, 0, g, GD_M_TEMP_C).status : GD_ST_UNREAD;
            gd_skip_add(out, "thermal.hot", gpu->index, "GPU temperature not readable (%s)", gd_status_name(st));
            continue;
        }
        if (gd_thermal_throttled_under_load(f, g))
            continue; /* thermal.throttling reports it */
        bool core_hot = is_hot(core), mem_hot = is_hot(mem);
        if (!core_hot && !mem_hot)
            continue;
        json_t *ev = hot_evidence(core, mem, gpu);
        add_peer_temp(ev, f, g);
        json_object_set_new(ev, "source",
                            json_string("nvml:nvmlDeviceGetTemperature,nvmlDeviceGetFieldValues(MEMORY_TEMP)"));
        double peers = gd_peer_median(f, g, GD_M_TEMP_C, NULL);
        char gap[64] = "", limits[128];
        if (!isnan(peers) && core.max - peers >= GD_PEER_TEMP_GAP_C)
            snprintf(gap, sizeof gap, ", %.0f C above its peers", core.max - peers);
        gd_value none = gd_missing(GD_ST_NOT_SUPPORTED);
        gd_severity core_sev =
            core_hot ? hot_severity(core.max, gpu->temp_slowdown_c, gpu->temp_gpu_max_c) : GD_SEV_INFO;
        gd_severity mem_sev = mem_hot ? hot_severity(mem.max, gpu->temp_mem_max_c, none) : GD_SEV_INFO;
        json_object_set_new(ev, "limits_read", json_boolean(gd_ok(gpu->temp_slowdown_c) || gd_ok(gpu->temp_gpu_max_c)));
        if (gpu->temp_limits_source[0]) /* absolute thresholds, or T.Limit on current drivers */
            json_object_set_new(ev, "limits_source", json_string(gpu->temp_limits_source));
        /* The reading closer to its limit leads. */
        if (core_hot && (core_sev >= mem_sev || !mem_hot)) {
            limit_words(limits, sizeof limits, core.max, gpu->temp_slowdown_c, gpu->temp_gpu_max_c,
                        "slowdown temperature (hardware slowdown)", "temperature");
            gd_finding_add(out, self->id, core_sev, gpu->index, ev, NAN, NULL, "GPU %d runs hot: %.0f C%s%s",
                           gpu->index, core.max, limits, gap);
        } else {
            limit_words(limits, sizeof limits, mem.max, gpu->temp_mem_max_c, none,
                        "maximum operating temperature (software slowdown from there)", "memory temperature");
            gd_finding_add(out, self->id, mem_sev, gpu->index, ev, NAN, NULL, "GPU %d memory runs hot: %.0f C%s",
                           gpu->index, mem.max, limits);
        }
    }
}

void gd_check_thermal_outlier(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    for (size_t g = 0; g < f->gpu_count; g++) {
        if (gd_temp_not_reported(f, g))
            continue;
        double peers = gd_peer_median(f, g, GD_M_TEMP_C, NULL);
        double mine = gd_loaded_median(f, g, GD_M_TEMP_C);
        if (isnan(peers) || isnan(mine) || mine - peers < GD_PEER_TEMP_GAP_C)
            continue;
        /* Already named by a stronger finding, with the peers in its evidence. */
        const gd_gpu *gpu = &f->gpus[g];
        if (gd_thermal_throttled_under_load(f, g) || is_hot(measure(f, g, GD_M_TEMP_C, gpu->temp_slowdown_c)))
            continue;
        json_t *ev = json_object();
        json_object_set_new(ev, "median_temp_c", gd_json_number(round(mine)));
        json_object_set_new(ev, "peer_median_temp_c", gd_json_number(round(peers)));
        json_object_set_new(ev, "gap_c", gd_json_number(round(mine - peers)));
        json_object_set_new(ev, "source", json_string("nvml:nvmlDeviceGetTemperature"));
        gd_finding_add(out, "thermal.outlier", GD_SEV_WARNING, gpu->index, ev, NAN,
                       "Under the same load this GPU's cooling is worse than its neighbours': check its "
                       "slot's fan, blocked inlets or cables in front of it, its heatsink seating and "
                       "thermal paste. If it keeps running hotter it will be the first to throttle.",
                       "GPU %d runs %.0f C hotter than its peers under the same load (%.0f C vs %.0f C)", gpu->index,
                       mine - peers, mine, peers);
    }
}
