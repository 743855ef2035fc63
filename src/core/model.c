/* SPDX-License-Identifier: Apache-2.0 */
/* The collection model: names, series storage. */
#include "gpudoctor/model.h"
#include "gpudoctor/abi/nvml_api.h"

#include <stdlib.h>
#include <string.h>

const char *gd_status_name(gd_status st)
{
    switch (st) {
    case GD_ST_UNREAD: return "not read";
    case GD_ST_OK: return "ok";
    case GD_ST_NOT_SUPPORTED: return "not supported";
    case GD_ST_NO_PERMISSION: return "no permission";
    case GD_ST_UNAVAILABLE: return "not in driver library";
    case GD_ST_ERROR: return "error";
    case GD_ST_GPU_LOST: return "GPU lost";
    case GD_ST_NOT_REPORTED: return "not reported";
    case GD_ST_DEPRECATED: return "deprecated by the driver";
    }
    return "?";
}

const char *gd_nvml_return_name(int rc)
{
    static const char *const names[] = {
        "NVML_SUCCESS",
        "NVML_ERROR_UNINITIALIZED",
        "NVML_ERROR_INVALID_ARGUMENT",
        "NVML_ERROR_NOT_SUPPORTED",
        "NVML_ERROR_NO_PERMISSION",
        "NVML_ERROR_ALREADY_INITIALIZED",
        "NVML_ERROR_NOT_FOUND",
        "NVML_ERROR_INSUFFICIENT_SIZE",
        "NVML_ERROR_INSUFFICIENT_POWER",
        "NVML_ERROR_DRIVER_NOT_LOADED",
        "NVML_ERROR_TIMEOUT",
        "NVML_ERROR_IRQ_ISSUE",
        "NVML_ERROR_LIBRARY_NOT_FOUND",
        "NVML_ERROR_FUNCTION_NOT_FOUND",
        "NVML_ERROR_CORRUPTED_INFOROM",
        "NVML_ERROR_GPU_IS_LOST",
        "NVML_ERROR_RESET_REQUIRED",
        "NVML_ERROR_OPERATING_SYSTEM",
        "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
        "NVML_ERROR_IN_USE",
        "NVML_ERROR_MEMORY",
        "NVML_ERROR_NO_DATA",
        "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED",
        "NVML_ERROR_INSUFFICIENT_RESOURCES",
        "NVML_ERROR_FREQ_NOT_SUPPORTED",
        "NVML_ERROR_ARGUMENT_VERSION_MISMATCH",
        "NVML_ERROR_DEPRECATED",
        "NVML_ERROR_NOT_READY",
        "NVML_ERROR_GPU_NOT_FOUND",
        "NVML_ERROR_INVALID_STATE",
    };
    return rc >= 0 && (size_t)rc < sizeof names / sizeof names[0] ? names[rc] : "NVML_ERROR_UNKNOWN";
}

static const gd_metric_info metric_info[GD_M_COUNT] = {
    [GD_M_TEMP_C] = {"temp_c", "GPU temperature", "C"},
    [GD_M_MEM_TEMP_C] = {"mem_temp_c", "memory temperature", "C"},
    [GD_M_SM_CLOCK_MHZ] = {"sm_clock_mhz", "SM clock", "MHz"},
    [GD_M_MEM_CLOCK_MHZ] = {"mem_clock_mhz", "memory clock", "MHz"},
    [GD_M_POWER_W] = {"power_w", "power draw", "W"},
    [GD_M_UTIL_GPU_PCT] = {"util_gpu_pct", "GPU utilisation", "%"},
    [GD_M_UTIL_MEM_PCT] = {"util_mem_pct", "memory utilisation", "%"},
    [GD_M_MEM_USED_MIB] = {"mem_used_mib", "memory used", "MiB"},
    [GD_M_PCIE_GEN] = {"pcie_gen", "PCIe generation", ""},
    [GD_M_PCIE_WIDTH] = {"pcie_width", "PCIe width", "lanes"},
    [GD_M_PCIE_TX_KBPS] = {"pcie_tx_kbps", "PCIe TX", "KB/s"},
    [GD_M_PCIE_RX_KBPS] = {"pcie_rx_kbps", "PCIe RX", "KB/s"},
    [GD_M_PCIE_REPLAYS] = {"pcie_replays", "PCIe replays", ""},
    [GD_M_FAN_PCT] = {"fan_pct", "fan speed", "%"},
    [GD_M_EVENT_REASONS] = {"event_reasons", "clock event reasons", ""},
    [GD_M_ENERGY_MJ] = {"energy_mj", "energy", "mJ"},
    [GD_M_VIOL_POWER_NS] = {"violation_power_ns", "power violation time", "ns"},
    [GD_M_VIOL_THERMAL_NS] = {"violation_thermal_ns", "thermal violation time", "ns"},
    [GD_M_VIOL_SYNC_BOOST_NS] = {"violation_sync_boost_ns", "sync boost violation time", "ns"},
    [GD_M_VIOL_BOARD_LIMIT_NS] = {"violation_board_limit_ns", "board limit violation time", "ns"},
    [GD_M_VIOL_LOW_UTIL_NS] = {"violation_low_utilization_ns", "low utilisation violation time", "ns"},
    [GD_M_VIOL_RELIABILITY_NS] = {"violation_reliability_ns", "reliability violation time", "ns"},
    [GD_M_PSTATE] = {"pstate", "performance state", ""},
    [GD_M_MEM_RESERVED_MIB] = {"mem_reserved_mib", "memory reserved", "MiB"},
    [GD_M_GR_ENGINE_ACTIVE_PCT] = {"gr_engine_active_pct", "engine active (GPM)", "%"},
    [GD_M_TENSOR_ACTIVE_PCT] = {"tensor_active_pct", "tensor pipes active (GPM)", "%"},
    [GD_M_DRAM_ACTIVE_PCT] = {"dram_active_pct", "DRAM active (GPM)", "%"},
    [GD_M_VIOL_POWER_BRAKE_NS] = {"violation_power_brake_ns", "power brake slowdown time", "ns"},
};

const gd_metric_info *gd_metric_describe(gd_metric m)
{
    if ((unsigned)m >= GD_M_COUNT)
        return NULL;
    return &metric_info[m];
}

/* Names of NVML's clock event reason bits (docs/interface.md section 5). */
const gd_reason_name gd_reason_names[] = {
    {nvmlClocksThrottleReasonGpuIdle, "gpu_idle"},
    {nvmlClocksThrottleReasonApplicationsClocksSetting, "applications_clocks_setting"},
    {nvmlClocksThrottleReasonSwPowerCap, "sw_power_cap"},
    {nvmlClocksThrottleReasonHwSlowdown, "hw_slowdown"},
    {nvmlClocksThrottleReasonSyncBoost, "sync_boost"},
    {nvmlClocksThrottleReasonSwThermalSlowdown, "sw_thermal_slowdown"},
    {nvmlClocksThrottleReasonHwThermalSlowdown, "hw_thermal_slowdown"},
    {nvmlClocksThrottleReasonHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
    {nvmlClocksThrottleReasonDisplayClockSetting, "display_clock_setting"},
};
const size_t gd_reason_names_count = sizeof gd_reason_names / sizeof gd_reason_names[0];

unsigned long long gd_reason_bit(const char *name)
{
    for (size_t i = 0; i < gd_reason_names_count; i++)
        if (strcmp(gd_reason_names[i].name, name) == 0)
            return gd_reason_names[i].bit;
    return 0;
}

int gd_series_init(gd_series *s, size_t gpus)
{
    memset(s, 0, sizeof *s);
    s->gpus = gpus;
    return 0;
}

bool gd_facts_no_nvidia_gpu(const gd_facts *f)
{
    return !f->driver_loaded && !f->captured && !f->simulated && gd_ok(f->pci_nvidia_gpus) && f->pci_nvidia_gpus.v == 0;
}

gd_series gd_series_window(const gd_series *s, size_t from, size_t n)
{
    gd_series w = *s;
    w.ring = gd_ring_window(&s->ring, from, n);
    return w;
}

gd_series gd_series_last(const gd_series *s, double span_s)
{
    if (s->n == 0)
        return gd_series_window(s, 0, 0);
    double now = gd_series_t(s, s->n - 1);
    size_t k = 0;
    while (k < s->n && now - gd_series_t(s, s->n - 1 - k) <= span_s + 1e-9)
        k++;
    return gd_series_window(s, s->n - k, k);
}

gd_facts gd_facts_window(const gd_facts *f, gd_series w)
{
    gd_facts v = *f;
    v.series = w;
    /* The host's samples over the same time. */
    const gd_host_series *h = &f->host_series;
    size_t from = 0, k = 0;
    if (w.n) {
        double t0 = gd_series_t(&w, 0) - 1e-9, t1 = gd_series_t(&w, w.n - 1) + 1e-9;
        while (from < h->n && gd_host_at(h, from)->t < t0)
            from++;
        while (from + k < h->n && gd_host_at(h, from + k)->t <= t1)
            k++;
    }
    v.host_series.ring = gd_ring_window(&h->ring, from, k);
    v.window_s = w.n > 1 ? gd_series_t(&w, w.n - 1) - gd_series_t(&w, 0) : 0;
    v.pcie = NULL;
    v.stack = NULL;
    v.job = NULL;
    return v;
}

void gd_series_set_limit(gd_series *s, size_t limit)
{
    s->limit = limit;
}

static int series_grow(void *ud, size_t cap)
{
    gd_series *s = ud;
    size_t row = s->gpus * GD_M_COUNT;
    double *t = realloc(s->t, cap * sizeof *t);
    if (!t)
        return -1;
    s->t = t;
    gd_value *v = row ? realloc(s->values, cap * row * sizeof *v) : s->values;
    if (row && !v)
        return -1;
    s->values = v;
    return 0;
}

long gd_series_push(gd_series *s, double t_s)
{
    long r = gd_ring_push(&s->ring, series_grow, s);
    if (r < 0)
        return -1;
    size_t row = s->gpus * GD_M_COUNT;
    s->t[r] = t_s;
    if (row)
        memset(&s->values[(size_t)r * row], 0, row * sizeof(gd_value));
    return (long)(s->n - 1);
}

static int host_grow(void *ud, size_t cap)
{
    gd_host_series *h = ud;
    gd_host_sample *v = realloc(h->v, cap * sizeof *v);
    if (!v)
        return -1;
    h->v = v;
    return 0;
}

gd_host_sample *gd_host_push(gd_host_series *h, double t)
{
    long r = gd_ring_push(&h->ring, host_grow, h);
    if (r < 0)
        return NULL;
    gd_host_sample *x = &h->v[r];
    memset(x, 0, sizeof *x);
    x->t = t;
    return x;
}

gd_value *gd_series_slot(gd_series *s, size_t i, size_t g)
{
    return &s->values[(gd_series_row(s, i) * s->gpus + g) * GD_M_COUNT];
}

double *gd_series_t_slot(gd_series *s, size_t i)
{
    return &s->t[gd_series_row(s, i)];
}

void gd_series_free(gd_series *s)
{
    free(s->t);
    free(s->values);
    memset(s, 0, sizeof *s);
}
