/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One sample of every GPU. The calls on this path must not block:
 * nvmlDeviceGetPcieThroughput samples for 20 ms per call (NVML's
 * documentation), so on eight GPUs two calls each would spend 320 ms of a
 * 100 ms interval. The driver's PCIe byte counters (field values) are read
 * instead where they answer; otherwise the throughput call is made off
 * this path (nvml_pcie_poll.c), so that a sample's readings of every GPU
 * are taken together; a single snapshot (info) asks every GPU once, after
 * the readings, and where the counters answer it has no rate.
 */
#include "nvml_pcie_poll.h"
#include "nvml_read.h"

#include <stdio.h>
#include <string.h>

#define INSTANT_POWER_BELOW_S 1.0 /* intervals shorter than the 1 s average use the instant reading */

/* The field values of one sample, asked in one call. */
enum {
    F_MEM_TEMP,
    F_POWER_INSTANT,
    F_PCIE_TX,
    F_PCIE_RX,
    F_SW_THERM, /* the clock event reason counters (ns) of R570 and later */
    F_HW_THERM,
    F_POWER_BRAKE,
    F_VIOL, /* six policies from here, in the order of `violations` */
    F_COUNT = F_VIOL + 6
};

/* Cumulative time each policy held the clocks back (catches what falls
 * between polls): field values, the successors of the deprecated
 * nvmlDeviceGetViolationStatus, which answers where they do not. Thermal
 * has newer successors still (thermal_ns). */
static const struct {
    unsigned int field;
    nvmlPerfPolicyType_t policy;
    gd_metric metric;
} violations[] = {
    {NVML_FI_DEV_PERF_POLICY_POWER, NVML_PERF_POLICY_POWER, GD_M_VIOL_POWER_NS},
    {NVML_FI_DEV_PERF_POLICY_THERMAL, NVML_PERF_POLICY_THERMAL, GD_M_VIOL_THERMAL_NS},
    {NVML_FI_DEV_PERF_POLICY_SYNC_BOOST, NVML_PERF_POLICY_SYNC_BOOST, GD_M_VIOL_SYNC_BOOST_NS},
    {NVML_FI_DEV_PERF_POLICY_BOARD_LIMIT, NVML_PERF_POLICY_BOARD_LIMIT, GD_M_VIOL_BOARD_LIMIT_NS},
    {NVML_FI_DEV_PERF_POLICY_LOW_UTILIZATION, NVML_PERF_POLICY_LOW_UTILIZATION, GD_M_VIOL_LOW_UTIL_NS},
    {NVML_FI_DEV_PERF_POLICY_RELIABILITY, NVML_PERF_POLICY_RELIABILITY, GD_M_VIOL_RELIABILITY_NS},
};

static void read_fields(gd_nvml_reader *r, nvmlDevice_t d, nvmlFieldValue_t *fv)
{
    static const unsigned int ids[F_VIOL] = {NVML_FI_DEV_MEMORY_TEMP,
                                             NVML_FI_DEV_POWER_INSTANT,
                                             NVML_FI_DEV_PCIE_COUNT_TX_BYTES,
                                             NVML_FI_DEV_PCIE_COUNT_RX_BYTES,
                                             NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN,
                                             NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN,
                                             NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN};
    memset(fv, 0, F_COUNT * sizeof *fv);
    for (int k = 0; k < F_COUNT; k++)
        fv[k].fieldId = k < F_VIOL ? ids[k] : violations[k - F_VIOL].field;
    nvmlReturn_t rc = NVCALL(r->s, DeviceGetFieldValues, d, F_COUNT, fv);
    if (rc != NVML_SUCCESS)
        for (int k = 0; k < F_COUNT; k++)
            fv[k].nvmlReturn = rc;
}

static gd_value field(gd_nvml_reader *r, const nvmlFieldValue_t *fv)
{
    return gd_nvml_take(r, "nvmlDeviceGetFieldValues", fv->nvmlReturn, gd_nvml_field_number(fv));
}

/* PCIe throughput in KB/s (1000 bytes, as the byte counters are turned into
 * NVML's unit): the counters' growth, else the throughput call's latest answer. */
static void sample_pcie(gd_nvml_reader *r, size_t g, const nvmlFieldValue_t *fv, gd_value *row, gd_facts *f)
{
    gd_nvml_pcie *p = &r->s->pcie[g];
    const nvmlFieldValue_t *tx = &fv[F_PCIE_TX], *rx = &fv[F_PCIE_RX];
    if (tx->nvmlReturn == NVML_SUCCESS && rx->nvmlReturn == NVML_SUCCESS) {
        unsigned long long ctx = (unsigned long long)gd_nvml_field_number(tx);
        unsigned long long crx = (unsigned long long)gd_nvml_field_number(rx);
        if (p->counters && r->t_s > p->last_t) {
            double dt = r->t_s - p->last_t;
            /* Unsigned differences: a counter that wrapped still gives its growth. */
            row[GD_M_PCIE_TX_KBPS] = gd_val((double)(ctx - p->last_tx) / 1000.0 / dt);
            row[GD_M_PCIE_RX_KBPS] = gd_val((double)(crx - p->last_rx) / 1000.0 / dt);
        } else {
            /* A rate needs two readings: a single snapshot (info) has none. */
            row[GD_M_PCIE_TX_KBPS] = row[GD_M_PCIE_RX_KBPS] = gd_missing(GD_ST_UNREAD);
        }
        p->counters = true;
        p->last_t = r->t_s;
        p->last_tx = ctx;
        p->last_rx = crx;
        f->pcie_throughput.reads++;
        snprintf(f->pcie_throughput.source, sizeof f->pcie_throughput.source,
                 "nvml:nvmlDeviceGetFieldValues(PCIE_COUNT_TX_BYTES,PCIE_COUNT_RX_BYTES)");
        f->pcie_throughput.every_s = f->interval_s;
        return;
    }
    p->counters = false;
    gd_nvml_pcie_take(r, g, row);
}

/* Thermal slowdown time (ns), newest call first. nvml.h says thermal
 * violations are "not supported at this time" by nvmlDeviceGetViolationStatus
 * (and its field, PERF_POLICY_THERMAL); R570 drivers count software and
 * hardware thermal slowdown apart (fields 251, 252). Their union lies between
 * the larger and the sum: the larger is taken, so that the share is never
 * overstated (both flags are often set together). */
static gd_value thermal_ns(gd_nvml_reader *r, nvmlDevice_t d, const nvmlFieldValue_t *fv, gd_facts *f)
{
    const nvmlFieldValue_t *sw = &fv[F_SW_THERM], *hw = &fv[F_HW_THERM];
    if (sw->nvmlReturn == NVML_SUCCESS || hw->nvmlReturn == NVML_SUCCESS) {
        double a = sw->nvmlReturn == NVML_SUCCESS ? gd_nvml_field_number(sw) : 0;
        double b = hw->nvmlReturn == NVML_SUCCESS ? gd_nvml_field_number(hw) : 0;
        snprintf(f->thermal_counter, sizeof f->thermal_counter,
                 "nvmlDeviceGetFieldValues(CLOCKS_EVENT_REASON_SW/HW_THERM_SLOWDOWN)");
        return gd_val(a > b ? a : b);
    }
    const nvmlFieldValue_t *v = &fv[F_VIOL + 1];
    if (v->nvmlReturn == NVML_SUCCESS) {
        snprintf(f->thermal_counter, sizeof f->thermal_counter, "nvmlDeviceGetFieldValues(PERF_POLICY_THERMAL)");
        return field(r, v);
    }
    nvmlViolationTime_t vt = {0, 0};
    nvmlReturn_t rc = NVCALL(r->s, DeviceGetViolationStatus, d, NVML_PERF_POLICY_THERMAL, &vt);
    if (rc == NVML_SUCCESS)
        snprintf(f->thermal_counter, sizeof f->thermal_counter, "nvmlDeviceGetViolationStatus(THERMAL)");
    return gd_nvml_take(r, "nvmlDeviceGetViolationStatus", rc, (double)vt.violationTime);
}

/* NVML_FI_DEV_POWER_INSTANT where it answers and the interval is shorter
 * than the 1 s average nvmlDeviceGetPowerUsage gives on Ampere and newer. */
static void sample_power(gd_nvml_reader *r, nvmlDevice_t d, const nvmlFieldValue_t *fv, gd_value *row, gd_facts *f)
{
    const nvmlFieldValue_t *inst = &fv[F_POWER_INSTANT];
    bool short_interval = r->s->interval_s > 0 && r->s->interval_s < INSTANT_POWER_BELOW_S;
    if (short_interval && inst->nvmlReturn == NVML_SUCCESS) {
        row[GD_M_POWER_W] = gd_val(gd_nvml_field_number(inst) * 1e-3);
        snprintf(f->power_reading, sizeof f->power_reading, "instant (nvml:nvmlDeviceGetFieldValues(POWER_INSTANT))");
        return;
    }
    row[GD_M_POWER_W] = gd_nvml_read_uint(r, "nvmlDeviceGetPowerUsage", r->s->api.DeviceGetPowerUsage, d, 1e-3);
    if (gd_ok(row[GD_M_POWER_W]))
        snprintf(f->power_reading, sizeof f->power_reading,
                 "nvml:nvmlDeviceGetPowerUsage (a 1 s average on Ampere and newer)");
}

static void sample_gpu(gd_nvml_reader *r, size_t g, nvmlDevice_t d, gd_value *row, gd_facts *f)
{
    gd_nvml_session *s = r->s;
    nvmlFieldValue_t fv[F_COUNT];
    read_fields(r, d, fv);
    row[GD_M_TEMP_C] = gd_nvml_read_temp(r, d);
    row[GD_M_SM_CLOCK_MHZ] =
        gd_nvml_read_clock(r, "nvmlDeviceGetClockInfo", r->s->api.DeviceGetClockInfo, d, NVML_CLOCK_SM);
    row[GD_M_MEM_CLOCK_MHZ] =
        gd_nvml_read_clock(r, "nvmlDeviceGetClockInfo", r->s->api.DeviceGetClockInfo, d, NVML_CLOCK_MEM);
    sample_power(r, d, fv, row, f);
    nvmlUtilization_t util = {0, 0};
    nvmlReturn_t rc = NVCALL(s, DeviceGetUtilizationRates, d, &util);
    row[GD_M_UTIL_GPU_PCT] = gd_nvml_take(r, "nvmlDeviceGetUtilizationRates", rc, util.gpu);
    row[GD_M_UTIL_MEM_PCT] = gd_nvml_take(r, "nvmlDeviceGetUtilizationRates", rc, util.memory);

    nvmlMemory_v2_t m2;
    memset(&m2, 0, sizeof m2);
    m2.version = nvmlMemory_v2;
    rc = NVCALL(s, DeviceGetMemoryInfo_v2, d, &m2);
    if (rc == NVML_SUCCESS) {
        row[GD_M_MEM_USED_MIB] = gd_val((double)m2.used / (1024.0 * 1024.0));
        row[GD_M_MEM_RESERVED_MIB] = gd_val((double)m2.reserved / (1024.0 * 1024.0));
    } else {
        row[GD_M_MEM_RESERVED_MIB] = gd_nvml_take(r, "nvmlDeviceGetMemoryInfo_v2", rc, 0);
        nvmlMemory_t m1;
        memset(&m1, 0, sizeof m1);
        rc = NVCALL(s, DeviceGetMemoryInfo, d, &m1);
        row[GD_M_MEM_USED_MIB] = gd_nvml_take(r, "nvmlDeviceGetMemoryInfo", rc, (double)m1.used / (1024.0 * 1024.0));
    }

    row[GD_M_PCIE_GEN] =
        gd_nvml_read_uint(r, "nvmlDeviceGetCurrPcieLinkGeneration", s->api.DeviceGetCurrPcieLinkGeneration, d, 1);
    row[GD_M_PCIE_WIDTH] =
        gd_nvml_read_uint(r, "nvmlDeviceGetCurrPcieLinkWidth", s->api.DeviceGetCurrPcieLinkWidth, d, 1);
    sample_pcie(r, g, fv, row, f);
    row[GD_M_PCIE_REPLAYS] =
        gd_nvml_read_uint(r, "nvmlDeviceGetPcieReplayCounter", s->api.DeviceGetPcieReplayCounter, d, 1);
    row[GD_M_FAN_PCT] = gd_nvml_read_uint(r, "nvmlDeviceGetFanSpeed", s->api.DeviceGetFanSpeed, d, 1);

    nvmlPstates_t ps = NVML_PSTATE_UNKNOWN;
    rc = NVCALL(s, DeviceGetPerformanceState, d, &ps);
    row[GD_M_PSTATE] = rc == NVML_SUCCESS && ps == NVML_PSTATE_UNKNOWN
                           ? gd_missing(GD_ST_NOT_SUPPORTED)
                           : gd_nvml_take(r, "nvmlDeviceGetPerformanceState", rc, ps);
    unsigned long long reasons = 0;
    rc = NVCALL(s, DeviceGetCurrentClocksEventReasons, d, &reasons);
    row[GD_M_EVENT_REASONS] = gd_nvml_take(r, "nvmlDeviceGetCurrentClocksEventReasons", rc, (double)reasons);
    unsigned long long mj = 0;
    rc = NVCALL(s, DeviceGetTotalEnergyConsumption, d, &mj);
    row[GD_M_ENERGY_MJ] = gd_nvml_take(r, "nvmlDeviceGetTotalEnergyConsumption", rc, (double)mj);
    for (size_t k = 0; k < sizeof violations / sizeof violations[0]; k++) {
        const nvmlFieldValue_t *v = &fv[F_VIOL + k];
        if (violations[k].metric == GD_M_VIOL_THERMAL_NS) {
            row[GD_M_VIOL_THERMAL_NS] = thermal_ns(r, d, fv, f);
            continue;
        }
        if (v->nvmlReturn == NVML_SUCCESS) {
            row[violations[k].metric] = field(r, v);
            continue;
        }
        nvmlViolationTime_t vt = {0, 0};
        rc = NVCALL(s, DeviceGetViolationStatus, d, violations[k].policy, &vt);
        row[violations[k].metric] = gd_nvml_take(r, "nvmlDeviceGetViolationStatus", rc, (double)vt.violationTime);
    }
    /* The power brake's time has no older call than its field (R570). */
    row[GD_M_VIOL_POWER_BRAKE_NS] = field(r, &fv[F_POWER_BRAKE]);
    /* Memory temperature only exists as a field value; 0 C means the board
     * does not report it (as nvidia-smi's N/A), never a frozen sensor. */
    row[GD_M_MEM_TEMP_C] = field(r, &fv[F_MEM_TEMP]);
    if (gd_ok(row[GD_M_MEM_TEMP_C]) && row[GD_M_MEM_TEMP_C].v == 0)
        row[GD_M_MEM_TEMP_C] = gd_missing(GD_ST_NOT_SUPPORTED);
    /* GPM's ratios: filled between two samples by nvml_events.c where the GPU supports it. */
    gd_status gpm = s->api.GpmMetricsGet ? GD_ST_NOT_SUPPORTED : GD_ST_UNAVAILABLE;
    row[GD_M_GR_ENGINE_ACTIVE_PCT] = row[GD_M_TENSOR_ACTIVE_PCT] = row[GD_M_DRAM_ACTIVE_PCT] = gd_missing(gpm);
}

void gd_nvml_sample(gd_nvml_session *s, gd_facts *f, size_t i)
{
    double t = gd_series_t(&f->series, i);
    size_t n = f->gpu_count < s->count ? f->gpu_count : s->count;
    for (size_t g = 0; g < n; g++) {
        gd_value *row = gd_series_slot(&f->series, i, g);
        gd_gpu *gpu = &f->gpus[g];
        if (gpu->lost || !s->devices[g]) {
            for (int m = 0; m < GD_M_COUNT; m++)
                row[m] = gd_missing(GD_ST_GPU_LOST);
            continue;
        }
        gd_nvml_reader r = {.s = s, .gpu = gpu, .t_s = t};
        sample_gpu(&r, g, s->devices[g], row, f);
        if (gpu->lost) /* answers after the loss are not trusted */
            for (int m = 0; m < GD_M_COUNT; m++)
                row[m] = gd_missing(GD_ST_GPU_LOST);
    }
    gd_nvml_pcie_after_sample(s, f, i);
}
