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
 *
 * Each call is an ioctl on a real driver, so a sample asks the driver only
 * what it can answer (bench_nvml_calls counts them: at most 10 per GPU):
 * whatever field values carry comes in one nvmlDeviceGetFieldValues call;
 * a getter the GPU answered "cannot" (NOT_SUPPORTED, DEPRECATED) is asked
 * again only every GD_HEALTH_REREAD_S (gd_nvml_ask), its answer holding in
 * between; and the readings that move with the performance state are read
 * when it moves (sample_slow).
 */
#include "nvml_pcie_poll.h"
#include "nvml_read.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define INSTANT_POWER_BELOW_S 1.0 /* intervals shorter than the 1 s average use the instant reading */

/* The field values of one sample, asked in one call (nvml.h's ids). */
enum {
    F_MEM_TEMP,
    F_POWER_INSTANT,
    F_POWER_AVERAGE, /* what nvmlDeviceGetPowerUsage gives on Ampere (but GA100) and newer */
    F_PCIE_TX,
    F_PCIE_RX,
    F_PCIE_REPLAYS, /* nvmlDeviceGetPcieReplayCounter's counter */
    F_ENERGY, /* nvmlDeviceGetTotalEnergyConsumption's counter (mJ) */
    F_SW_THERM, /* the clock event reason counters (ns) of R570 and later */
    F_HW_THERM,
    F_POWER_BRAKE,
    F_VIOL, /* six policies from here, in the order of `violations` */
    F_NVLINK_TX = F_VIOL + 6, /* the NVLink data counters (KiB, all links), where a GPU has links */
    F_NVLINK_RX,
    F_COUNT
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

/* Whether the sample reads GPU g's NVLink data counters: a GPU with links,
 * not in MIG mode, whose driver did not say it lacks them. */
static bool wants_nvlink_data(const gd_nvml_session *s, const gd_gpu *gpu)
{
    return s->api.DeviceGetFieldValues && gpu->nvlink_count > 0 && !(gd_ok(gpu->mig_mode) && gpu->mig_mode.v != 0) &&
           gpu->nvlink_data_kib.status != GD_ST_NOT_SUPPORTED; /* asked once: this driver or board lacks them */
}

/* Every field of the sample in one call: n is F_COUNT with the NVLink
 * counters, F_NVLINK_TX without. A failed call is each field's answer. */
static void read_fields(gd_nvml_reader *r, nvmlDevice_t d, nvmlFieldValue_t *fv, int n)
{
    static const unsigned int ids[F_COUNT] = {
        [F_MEM_TEMP] = NVML_FI_DEV_MEMORY_TEMP,
        [F_POWER_INSTANT] = NVML_FI_DEV_POWER_INSTANT,
        [F_POWER_AVERAGE] = NVML_FI_DEV_POWER_AVERAGE,
        [F_PCIE_TX] = NVML_FI_DEV_PCIE_COUNT_TX_BYTES,
        [F_PCIE_RX] = NVML_FI_DEV_PCIE_COUNT_RX_BYTES,
        [F_PCIE_REPLAYS] = NVML_FI_DEV_PCIE_REPLAY_COUNTER,
        [F_ENERGY] = NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION,
        [F_SW_THERM] = NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN,
        [F_HW_THERM] = NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN,
        [F_POWER_BRAKE] = NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN,
        [F_NVLINK_TX] = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX,
        [F_NVLINK_RX] = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX,
    };
    memset(fv, 0, F_COUNT * sizeof *fv);
    for (int k = 0; k < F_COUNT; k++)
        fv[k].fieldId = k >= F_VIOL && k < F_NVLINK_TX ? violations[k - F_VIOL].field : ids[k];
    fv[F_NVLINK_TX].scopeId = fv[F_NVLINK_RX].scopeId = UINT_MAX; /* summed over the links */
    nvmlReturn_t rc = NVCALL(r->s, DeviceGetFieldValues, d, n, fv);
    for (int k = 0; k < F_COUNT; k++)
        if (rc != NVML_SUCCESS || k >= n)
            fv[k].nvmlReturn = rc != NVML_SUCCESS ? rc : NVML_ERROR_NOT_SUPPORTED;
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
    nvmlReturn_t rc = NVASK(r, DeviceGetViolationStatus, NVML_PERF_POLICY_THERMAL, d, NVML_PERF_POLICY_THERMAL, &vt);
    if (rc == NVML_SUCCESS)
        snprintf(f->thermal_counter, sizeof f->thermal_counter, "nvmlDeviceGetViolationStatus(THERMAL)");
    return gd_nvml_take(r, "nvmlDeviceGetViolationStatus", rc, (double)vt.violationTime);
}

/* NVML_FI_DEV_POWER_INSTANT where it answers and the interval is shorter
 * than the 1 s average nvmlDeviceGetPowerUsage gives on Ampere and newer;
 * else that average, as the field NVML_FI_DEV_POWER_AVERAGE (the same
 * reading, in the sample's one call), or the call itself where the field
 * does not answer (GA100 and older, whose call gives the instant draw). */
static void sample_power(gd_nvml_reader *r, nvmlDevice_t d, const nvmlFieldValue_t *fv, gd_value *row, gd_facts *f)
{
    const nvmlFieldValue_t *inst = &fv[F_POWER_INSTANT], *avg = &fv[F_POWER_AVERAGE];
    bool short_interval = r->s->interval_s > 0 && r->s->interval_s < INSTANT_POWER_BELOW_S;
    if (short_interval && inst->nvmlReturn == NVML_SUCCESS) {
        row[GD_M_POWER_W] = gd_val(gd_nvml_field_number(inst) * 1e-3);
        snprintf(f->power_reading, sizeof f->power_reading, "instant (nvml:nvmlDeviceGetFieldValues(POWER_INSTANT))");
        return;
    }
    if (avg->nvmlReturn == NVML_SUCCESS) {
        row[GD_M_POWER_W] = gd_val(gd_nvml_field_number(avg) * 1e-3);
        snprintf(f->power_reading, sizeof f->power_reading,
                 "nvml:nvmlDeviceGetFieldValues(POWER_AVERAGE) (a 1 s average, as nvmlDeviceGetPowerUsage's)");
        return;
    }
    row[GD_M_POWER_W] = gd_nvml_read_uint(r, "nvmlDeviceGetPowerUsage", r->s->api.DeviceGetPowerUsage, d, 1e-3);
    if (gd_ok(row[GD_M_POWER_W]))
        snprintf(f->power_reading, sizeof f->power_reading,
                 "nvml:nvmlDeviceGetPowerUsage (a 1 s average on Ampere and newer)");
}

/* A counter of the sample's field values where it answers, else its own
 * getter (through the GPU's memory of what it cannot answer). */
static gd_value counter(gd_nvml_reader *r, const nvmlFieldValue_t *fv, const char *call, nvml_DeviceGetUInt_fn fn,
                        nvmlDevice_t d)
{
    if (fv->nvmlReturn == NVML_SUCCESS)
        return field(r, fv);
    return gd_nvml_read_uint(r, call, fn, d, 1);
}

/* The total energy (mJ): its field, else nvmlDeviceGetTotalEnergyConsumption. */
static gd_value energy(gd_nvml_reader *r, const nvmlFieldValue_t *fv, nvmlDevice_t d)
{
    if (fv->nvmlReturn == NVML_SUCCESS)
        return field(r, fv);
    unsigned long long mj = 0;
    nvmlReturn_t rc = NVASK(r, DeviceGetTotalEnergyConsumption, 0, d, &mj);
    return gd_nvml_take(r, "nvmlDeviceGetTotalEnergyConsumption", rc, (double)mj);
}

/* Whether two readings say the same (a status, or a value). */
static bool same(gd_value a, gd_value b)
{
    return a.status == b.status && (!gd_ok(a) || a.v == b.v);
}

/* A reading that may hold until the next: a value, or a "cannot". */
static bool holds(gd_value v)
{
    return gd_ok(v) || gd_not_reported(v) || v.status == GD_ST_UNAVAILABLE;
}

/* The idle clock event reason (nvmlClocksEventReasonGpuIdle) of a reading. */
static gd_value idle_reason(gd_value reasons)
{
    return gd_ok(reasons) ? gd_val(((unsigned long long)reasons.v & nvmlClocksThrottleReasonGpuIdle) != 0) : reasons;
}

/*
 * The memory clock and the PCIe link's generation and width move with the
 * performance state: the GPU lowers them when it idles and raises them for
 * work. Asked every sample, they were three of a sample's calls; they are
 * read again when the P-state or the idle clock event reason changed since
 * they were read, when one of them did not answer a value or a "cannot"
 * (an error is asked again at the next sample), and every
 * GD_HEALTH_REREAD_S (a link that retrains narrower or slower with no
 * change of state is seen within 5 s, as a health counter is). In between,
 * their last reading holds.
 */
static void sample_slow(gd_nvml_reader *r, nvmlDevice_t d, gd_value *row)
{
    gd_nvml_session *s = r->s;
    gd_nvml_memo *m = r->memo;
    gd_value idle = idle_reason(row[GD_M_EVENT_REASONS]);
    bool due = !m->slow_read || r->t_s + 1e-9 >= m->slow_t + GD_HEALTH_REREAD_S || !same(m->pstate, row[GD_M_PSTATE]) ||
               !same(m->idle, idle) || !holds(m->mem_clock) || !holds(m->pcie_gen) || !holds(m->pcie_width);
    if (due) {
        m->mem_clock = gd_nvml_read_clock(r, "nvmlDeviceGetClockInfo", s->api.DeviceGetClockInfo, d, NVML_CLOCK_MEM);
        m->pcie_gen =
            gd_nvml_read_uint(r, "nvmlDeviceGetCurrPcieLinkGeneration", s->api.DeviceGetCurrPcieLinkGeneration, d, 1);
        m->pcie_width = gd_nvml_read_uint(r, "nvmlDeviceGetCurrPcieLinkWidth", s->api.DeviceGetCurrPcieLinkWidth, d, 1);
        m->slow_read = true;
        m->slow_t = r->t_s;
        m->pstate = row[GD_M_PSTATE];
        m->idle = idle;
    }
    row[GD_M_MEM_CLOCK_MHZ] = m->mem_clock;
    row[GD_M_PCIE_GEN] = m->pcie_gen;
    row[GD_M_PCIE_WIDTH] = m->pcie_width;
}

/* The NVLink data rate since the previous read, from the sample's counters
 * (cumulative KiB over all links). A counter that is not supported, or that
 * went back (a reset), leaves the rate unread until two reads agree. */
static void nvlink_data(gd_gpu *gpu, const nvmlFieldValue_t *fv, double t)
{
    const nvmlFieldValue_t *tx = &fv[F_NVLINK_TX], *rx = &fv[F_NVLINK_RX];
    nvmlReturn_t rc = tx->nvmlReturn != NVML_SUCCESS ? tx->nvmlReturn : rx->nvmlReturn;
    gd_value kib = rc == NVML_SUCCESS ? gd_val(gd_nvml_field_number(tx) + gd_nvml_field_number(rx))
                   : rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_INVALID_ARGUMENT
                       ? gd_missing(GD_ST_NOT_SUPPORTED)
                       : gd_missing(GD_ST_ERROR); /* asked again next sample */
    gd_value before = gpu->nvlink_data_kib;
    double dt = t - gpu->nvlink_data_t;
    gpu->nvlink_data_kibps = gd_ok(before) && gd_ok(kib) && dt > 0 && kib.v >= before.v
                                 ? gd_val((kib.v - before.v) / dt)
                                 : gd_missing(gd_ok(kib) ? GD_ST_UNREAD : kib.status);
    gpu->nvlink_data_kib = kib;
    gpu->nvlink_data_t = t;
}

static void sample_gpu(gd_nvml_reader *r, size_t g, nvmlDevice_t d, gd_value *row, gd_facts *f)
{
    gd_nvml_session *s = r->s;
    bool links = wants_nvlink_data(s, r->gpu);
    nvmlFieldValue_t fv[F_COUNT];
    read_fields(r, d, fv, links ? F_COUNT : F_NVLINK_TX);
    row[GD_M_TEMP_C] = gd_nvml_read_temp(r, d);
    row[GD_M_SM_CLOCK_MHZ] =
        gd_nvml_read_clock(r, "nvmlDeviceGetClockInfo", r->s->api.DeviceGetClockInfo, d, NVML_CLOCK_SM);
    sample_power(r, d, fv, row, f);
    nvmlUtilization_t util = {0, 0};
    nvmlReturn_t rc = NVASK(r, DeviceGetUtilizationRates, 0, d, &util);
    row[GD_M_UTIL_GPU_PCT] = gd_nvml_take(r, "nvmlDeviceGetUtilizationRates", rc, util.gpu);
    row[GD_M_UTIL_MEM_PCT] = gd_nvml_take(r, "nvmlDeviceGetUtilizationRates", rc, util.memory);

    nvmlMemory_v2_t m2;
    memset(&m2, 0, sizeof m2);
    m2.version = nvmlMemory_v2;
    rc = NVASK(r, DeviceGetMemoryInfo_v2, 0, d, &m2);
    if (rc == NVML_SUCCESS) {
        row[GD_M_MEM_USED_MIB] = gd_val((double)m2.used / (1024.0 * 1024.0));
        row[GD_M_MEM_RESERVED_MIB] = gd_val((double)m2.reserved / (1024.0 * 1024.0));
    } else {
        row[GD_M_MEM_RESERVED_MIB] = gd_nvml_take(r, "nvmlDeviceGetMemoryInfo_v2", rc, 0);
        nvmlMemory_t m1;
        memset(&m1, 0, sizeof m1);
        rc = NVASK(r, DeviceGetMemoryInfo, 0, d, &m1);
        row[GD_M_MEM_USED_MIB] = gd_nvml_take(r, "nvmlDeviceGetMemoryInfo", rc, (double)m1.used / (1024.0 * 1024.0));
    }

    nvmlPstates_t ps = NVML_PSTATE_UNKNOWN;
    rc = NVASK(r, DeviceGetPerformanceState, 0, d, &ps);
    row[GD_M_PSTATE] = rc == NVML_SUCCESS && ps == NVML_PSTATE_UNKNOWN
                           ? gd_missing(GD_ST_NOT_SUPPORTED)
                           : gd_nvml_take(r, "nvmlDeviceGetPerformanceState", rc, ps);
    unsigned long long reasons = 0;
    rc = NVASK(r, DeviceGetCurrentClocksEventReasons, 0, d, &reasons);
    row[GD_M_EVENT_REASONS] = gd_nvml_take(r, "nvmlDeviceGetCurrentClocksEventReasons", rc, (double)reasons);
    sample_slow(r, d, row);
    sample_pcie(r, g, fv, row, f);
    row[GD_M_PCIE_REPLAYS] =
        counter(r, &fv[F_PCIE_REPLAYS], "nvmlDeviceGetPcieReplayCounter", s->api.DeviceGetPcieReplayCounter, d);
    if (gd_ok(row[GD_M_PCIE_REPLAYS]))
        snprintf(f->replay_counter, sizeof f->replay_counter, "nvml:%s",
                 fv[F_PCIE_REPLAYS].nvmlReturn == NVML_SUCCESS ? "nvmlDeviceGetFieldValues(PCIE_REPLAY_COUNTER)"
                                                               : "nvmlDeviceGetPcieReplayCounter");
    row[GD_M_FAN_PCT] = gd_nvml_read_uint(r, "nvmlDeviceGetFanSpeed", s->api.DeviceGetFanSpeed, d, 1);
    row[GD_M_ENERGY_MJ] = energy(r, &fv[F_ENERGY], d);
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
        rc = NVASK(r, DeviceGetViolationStatus, violations[k].policy, d, violations[k].policy, &vt);
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
    if (links && !r->gpu->lost)
        nvlink_data(r->gpu, fv, r->t_s);
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
        gd_nvml_reader r = {.s = s, .gpu = gpu, .t_s = t, .memo = &s->memo[g]};
        sample_gpu(&r, g, s->devices[g], row, f);
        if (gpu->lost) { /* answers after the loss are not trusted */
            for (int m = 0; m < GD_M_COUNT; m++)
                row[m] = gd_missing(GD_ST_GPU_LOST);
            s->memo[g].slow_read = false; /* a GPU that comes back is read afresh */
        }
    }
    gd_nvml_pcie_after_sample(s, f, i);
}
