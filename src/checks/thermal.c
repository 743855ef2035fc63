/* thermal.hot: high GPU or memory temperature before the GPU throttles. */
#include "checks_internal.h"

#define THERMAL_REASONS (nvmlClocksThrottleReasonSwThermalSlowdown | nvmlClocksThrottleReasonHwThermalSlowdown)

/* True when any sample of GPU g shows a thermal slowdown reason. */
static bool thermal_throttled(const gd_facts *f, size_t g)
{
    for (size_t i = 0; i < f->series.n; i++) {
        gd_value r = gd_series_at(&f->series, i, g, GD_M_EVENT_REASONS);
        if (gd_ok(r) && ((unsigned long long)r.v & THERMAL_REASONS))
            return true;
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

typedef struct hot_reading {
    size_t samples, above;
    double max, threshold;
} hot_reading;

static hot_reading measure(const gd_facts *f, size_t g, gd_metric m, gd_value limit)
{
    hot_reading h = {.threshold = gd_hot_threshold_c(limit)};
    for (size_t i = 0; i < f->series.n; i++) {
        gd_value v = gd_series_at(&f->series, i, g, m);
        if (!gd_ok(v))
            continue;
        h.samples++;
        h.above += v.v >= h.threshold;
        if (h.samples == 1 || v.v > h.max)
            h.max = v.v;
    }
    return h;
}

static bool is_hot(hot_reading h)
{
    return h.samples > 0 && h.above > 0 && (double)h.above >= GD_HOT_MIN_SHARE * (double)h.samples;
}

static json_t *evidence(hot_reading gpu, hot_reading mem, const gd_gpu *g)
{
    json_t *ev = json_object();
    json_object_set_new(ev, "max_temp_c", gpu.samples ? gd_json_number(gpu.max) : json_null());
    json_object_set_new(ev, "max_mem_temp_c", mem.samples ? gd_json_number(mem.max) : json_null());
    json_object_set_new(ev, "hot_from_c", gd_json_number(gpu.threshold));
    json_object_set_new(ev, "slowdown_c", gd_json_value(g->temp_slowdown_c));
    json_object_set_new(ev, "gpu_max_c", gd_json_value(g->temp_gpu_max_c));
    json_object_set_new(ev, "mem_max_c", gd_json_value(g->temp_mem_max_c));
    json_object_set_new(ev, "samples_hot", json_integer((json_int_t)(gpu.above > mem.above ? gpu.above : mem.above)));
    json_object_set_new(ev, "samples", json_integer((json_int_t)(gpu.samples > mem.samples ? gpu.samples : mem.samples)));
    json_object_set_new(ev, "source", json_string("nvml:nvmlDeviceGetTemperature,nvmlDeviceGetFieldValues(MEMORY_TEMP)"));
    return ev;
}

void gd_check_thermal_hot(const gd_facts *f, gd_findings *out)
{
    static const char fix[] =
        "Improve cooling before the GPU starts to throttle: check the server's fans "
        "('ipmitool sdr type Fan') and fan profile, inlet (ambient) temperature, blanking panels "
        "and cable clutter in the airflow path, dust on heatsinks and filters, and spacing "
        "between cards. Watch it with 'nvidia-smi dmon -s pc'.";
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        hot_reading core = measure(f, g, GD_M_TEMP_C, gpu->temp_slowdown_c);
        hot_reading mem = measure(f, g, GD_M_MEM_TEMP_C, gpu->temp_mem_max_c);
        if (core.samples == 0 && !gpu->lost) {
            gd_skip_add(out, "thermal.hot", gpu->index, "GPU temperature not readable");
            continue;
        }
        if (thermal_throttled(f, g))
            continue; /* thermal.throttling reports it */
        bool core_hot = is_hot(core), mem_hot = is_hot(mem);
        if (!core_hot && !mem_hot)
            continue;
        json_t *ev = evidence(core, mem, gpu);
        if (core_hot)
            gd_finding_add(out, "thermal.hot", GD_SEV_WARNING, gpu->index, ev, NAN, fix,
                           "GPU %d runs hot: %.0f C (hot from %.0f C%s)", gpu->index, core.max,
                           core.threshold, gd_ok(gpu->temp_slowdown_c) ? ", close to its slowdown threshold" : "");
        else
            gd_finding_add(out, "thermal.hot", GD_SEV_WARNING, gpu->index, ev, NAN, fix,
                           "GPU %d memory runs hot: %.0f C (hot from %.0f C)", gpu->index, mem.max,
                           mem.threshold);
    }
}
