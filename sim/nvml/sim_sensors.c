/* SPDX-License-Identifier: Apache-2.0 */
/* Sensors and limits: temperature, clocks, power, utilization, fan, PCIe link, memory. */
#include <math.h>

#include "nvml_sim.h"

#define MIB 1048576ULL

/* The common shape: enter, check the out pointer, read one timeline field. */
static nvmlReturn_t timeline_uint(nvmlDevice_t device, const char *fn, gd_scenario_field field, unsigned *out)
{
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, fn, &call);
    if (rc)
        return rc;
    if (!out)
        return NVML_ERROR_INVALID_ARGUMENT;
    return gdsim_field_uint(&call, field, out);
}

/* Same for a static integer of the GPU, picked after entering. */
static nvmlReturn_t static_uint(nvmlDevice_t device, const char *fn, gd_scenario_int (*pick)(const gd_scenario_gpu *),
                                unsigned *out)
{
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, fn, &call);
    if (rc)
        return rc;
    if (!out)
        return NVML_ERROR_INVALID_ARGUMENT;
    return gdsim_int_uint(pick(call.gpu), out);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType,
                                                   unsigned int *temp)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!temp || sensorType != NVML_TEMPERATURE_GPU)
        return NVML_ERROR_INVALID_ARGUMENT;
    return gdsim_field_uint(&call, GD_SCENARIO_TEMP_C, temp);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device,
                                                            nvmlTemperatureThresholds_t thresholdType,
                                                            unsigned int *temp)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!temp)
        return NVML_ERROR_INVALID_ARGUMENT;
    const gd_scenario_gpu *g = call.gpu;
    switch (thresholdType) {
    case NVML_TEMPERATURE_THRESHOLD_SHUTDOWN: return gdsim_int_uint(g->temperature_thresholds_c.shutdown, temp);
    case NVML_TEMPERATURE_THRESHOLD_SLOWDOWN: return gdsim_int_uint(g->temperature_thresholds_c.slowdown, temp);
    case NVML_TEMPERATURE_THRESHOLD_GPU_MAX: return gdsim_int_uint(g->temperature_thresholds_c.gpu_max, temp);
    case NVML_TEMPERATURE_THRESHOLD_MEM_MAX: return gdsim_int_uint(g->temperature_thresholds_c.mem_max, temp);
    case NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MIN:
    case NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR:
    case NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MAX: return NVML_ERROR_NOT_SUPPORTED;
    case NVML_TEMPERATURE_THRESHOLD_COUNT: break;
    }
    return NVML_ERROR_INVALID_ARGUMENT;
}

/* --- clocks ------------------------------------------------------------- */

/* Which clock of a {sm, mem} pair a clock type names: graphics and SM share one value. */
static nvmlReturn_t pick_clock(const gd_scenario_clocks *pair, nvmlClockType_t type, unsigned *out)
{
    switch (type) {
    case NVML_CLOCK_GRAPHICS:
    case NVML_CLOCK_SM: return gdsim_int_uint(pair->sm, out);
    case NVML_CLOCK_MEM: return gdsim_int_uint(pair->mem, out);
    case NVML_CLOCK_VIDEO: return NVML_ERROR_NOT_SUPPORTED;
    case NVML_CLOCK_COUNT: break;
    }
    return NVML_ERROR_INVALID_ARGUMENT;
}

/* The current clocks as a pair; a null or absent field is not present. */
static gd_scenario_clocks current_clocks(const gdsim_call *call)
{
    gd_scenario_value sm = gd_scenario_value_at(call->gpu, GD_SCENARIO_SM_CLOCK_MHZ, call->t);
    gd_scenario_value mem = gd_scenario_value_at(call->gpu, GD_SCENARIO_MEM_CLOCK_MHZ, call->t);
    return (gd_scenario_clocks){{sm.status == GD_SCENARIO_SET, llround(sm.value)},
                                {mem.status == GD_SCENARIO_SET, llround(mem.value)}};
}

enum clock_kind { CLOCK_CURRENT, CLOCK_MAX, CLOCK_APP, CLOCK_DEFAULT_APP };

static nvmlReturn_t clock_of(nvmlDevice_t device, const char *fn, enum clock_kind kind, nvmlClockType_t type,
                             unsigned *out)
{
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, fn, &call);
    if (rc)
        return rc;
    if (!out)
        return NVML_ERROR_INVALID_ARGUMENT;
    switch (kind) {
    case CLOCK_CURRENT: {
        gd_scenario_clocks now = current_clocks(&call);
        return pick_clock(&now, type, out);
    }
    case CLOCK_MAX: return pick_clock(&call.gpu->clocks_max_mhz, type, out);
    case CLOCK_APP: return pick_clock(&call.gpu->clocks_app_mhz, type, out);
    case CLOCK_DEFAULT_APP: return pick_clock(&call.gpu->clocks_default_app_mhz, type, out);
    }
    return NVML_ERROR_INVALID_ARGUMENT;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    GDSIM_COUNTED();
    return clock_of(device, __func__, CLOCK_CURRENT, type, clock);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    GDSIM_COUNTED();
    return clock_of(device, __func__, CLOCK_MAX, type, clock);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t device, nvmlClockType_t clockType,
                                                         unsigned int *clockMHz)
{
    GDSIM_COUNTED();
    return clock_of(device, __func__, CLOCK_APP, clockType, clockMHz);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetDefaultApplicationsClock(nvmlDevice_t device, nvmlClockType_t clockType,
                                                                unsigned int *clockMHz)
{
    GDSIM_COUNTED();
    return clock_of(device, __func__, CLOCK_DEFAULT_APP, clockType, clockMHz);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetClock(nvmlDevice_t device, nvmlClockType_t clockType, nvmlClockId_t clockId,
                                             unsigned int *clockMHz)
{
    GDSIM_COUNTED();
    switch (clockId) {
    case NVML_CLOCK_ID_CURRENT: return clock_of(device, __func__, CLOCK_CURRENT, clockType, clockMHz);
    case NVML_CLOCK_ID_APP_CLOCK_TARGET: return clock_of(device, __func__, CLOCK_APP, clockType, clockMHz);
    case NVML_CLOCK_ID_APP_CLOCK_DEFAULT: return clock_of(device, __func__, CLOCK_DEFAULT_APP, clockType, clockMHz);
    case NVML_CLOCK_ID_CUSTOMER_BOOST_MAX:
    case NVML_CLOCK_ID_COUNT: break;
    }
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!clockMHz)
        return NVML_ERROR_INVALID_ARGUMENT;
    return clockId == NVML_CLOCK_ID_CUSTOMER_BOOST_MAX ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
}

/* --- power -------------------------------------------------------------- */

static nvmlReturn_t watts_to_mw(gd_scenario_num w, unsigned *mw)
{
    if (!w.present)
        return NVML_ERROR_NOT_SUPPORTED;
    *mw = (unsigned)llround(w.value * 1000.0); /* the parser keeps watts below UINT_MAX / 1000 */
    return NVML_SUCCESS;
}

enum power_limit { LIMIT_ENFORCED, LIMIT_REQUESTED, LIMIT_DEFAULT };

static nvmlReturn_t power_limit(nvmlDevice_t device, const char *fn, enum power_limit which, unsigned *mw)
{
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, fn, &call);
    if (rc)
        return rc;
    if (!mw)
        return NVML_ERROR_INVALID_ARGUMENT;
    /* The requested limit is the enforced one unless the scenario caps it elsewhere (a platform limit). */
    const gd_scenario_gpu *g = call.gpu;
    return watts_to_mw(which == LIMIT_DEFAULT                                           ? g->power_limit_default_w
                       : which == LIMIT_REQUESTED && g->power_limit_requested_w.present ? g->power_limit_requested_w
                                                                                        : g->power_limit_w,
                       mw);
}

nvmlReturn_t gdsim_power_mw(const gdsim_call *call, bool average, unsigned *mw)
{
    gd_scenario_value v = gd_scenario_value_at(call->gpu, GD_SCENARIO_POWER_W, call->t);
    if (v.status != GD_SCENARIO_SET)
        return NVML_ERROR_NOT_SUPPORTED;
    double w = v.value, now, before;
    if (average && call->t > 0) {
        double span = call->t < 1.0 ? call->t : 1.0;
        if (gd_scenario_field_integral(call->gpu, GD_SCENARIO_POWER_W, call->t, &now) &&
            gd_scenario_field_integral(call->gpu, GD_SCENARIO_POWER_W, call->t - span, &before))
            w = (now - before) / span;
    }
    *mw = (unsigned)llround(w * 1000.0);
    return NVML_SUCCESS;
}

/* Ampere (except GA100, compute capability 8.0) and newer average over a
 * second (NVML's documentation of nvmlDeviceGetPowerUsage and of
 * NVML_FI_DEV_POWER_AVERAGE); older boards give the instant draw. */
bool gdsim_power_averaged(const gd_scenario_gpu *g)
{
    return g->has_compute_capability &&
           (g->compute_capability[0] > 8 || (g->compute_capability[0] == 8 && g->compute_capability[1] > 0));
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!power)
        return NVML_ERROR_INVALID_ARGUMENT;
    return gdsim_power_mw(&call, gdsim_power_averaged(call.gpu), power);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit)
{
    GDSIM_COUNTED();
    return power_limit(device, __func__, LIMIT_ENFORCED, limit);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit)
{
    GDSIM_COUNTED();
    return power_limit(device, __func__, LIMIT_REQUESTED, limit);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned int *defaultLimit)
{
    GDSIM_COUNTED();
    return power_limit(device, __func__, LIMIT_DEFAULT, defaultLimit);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device, unsigned int *minLimit,
                                                                       unsigned int *maxLimit)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!minLimit || !maxLimit)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!call.gpu->power_limit_min_w.present || !call.gpu->power_limit_max_w.present)
        return NVML_ERROR_NOT_SUPPORTED;
    watts_to_mw(call.gpu->power_limit_min_w, minLimit);
    return watts_to_mw(call.gpu->power_limit_max_w, maxLimit);
}

nvmlReturn_t gdsim_energy_mj(const gdsim_call *call, unsigned long long *mj)
{
    double v;
    if (!gd_scenario_energy_mj(call->gpu, call->t, &v))
        return NVML_ERROR_NOT_SUPPORTED;
    *mj = gdsim_to_ull(v / gdsim_timescale());
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!energy)
        return NVML_ERROR_INVALID_ARGUMENT;
    return gdsim_energy_mj(&call, energy);
}

/* --- utilization, fan, performance state --------------------------------- */

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!utilization)
        return NVML_ERROR_INVALID_ARGUMENT;
    /* NVML has no whole-GPU utilisation in MIG mode (nvidia-smi prints N/A). */
    if (call.gpu->mig_mode.present && call.gpu->mig_mode.value)
        return NVML_ERROR_NOT_SUPPORTED;
    unsigned gpu, mem;
    if (gdsim_field_uint(&call, GD_SCENARIO_UTIL_GPU_PCT, &gpu) ||
        gdsim_field_uint(&call, GD_SCENARIO_UTIL_MEM_PCT, &mem))
        return NVML_ERROR_NOT_SUPPORTED;
    utilization->gpu = gpu;
    utilization->memory = mem;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed)
{
    GDSIM_COUNTED();
    return timeline_uint(device, __func__, GD_SCENARIO_FAN_PCT, speed);
}

/* P0 while the GPU works, P8 (idle) otherwise. */
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *pState)
{
    GDSIM_COUNTED();
    unsigned util;
    nvmlReturn_t rc = timeline_uint(device, __func__, GD_SCENARIO_UTIL_GPU_PCT, pState ? &util : NULL);
    if (rc)
        return rc;
    *pState = util > 0 ? NVML_PSTATE_0 : NVML_PSTATE_8;
    return NVML_SUCCESS;
}

/* --- PCIe link ---------------------------------------------------------- */

/* The card's own maximum; NVML's "Max" is what card and slot reach
 * together: the lower of the card's and the slot's (host_gen / host_width). */
static gd_scenario_int together(gd_scenario_int card, gd_scenario_int slot)
{
    if (card.present && slot.present && slot.value < card.value)
        return slot;
    return card;
}

static gd_scenario_int pcie_max_gen(const gd_scenario_gpu *gpu)
{
    return together(gpu->pcie_max.gen, gpu->pcie_max.host_gen);
}

static gd_scenario_int pcie_max_width(const gd_scenario_gpu *gpu)
{
    return together(gpu->pcie_max.width, gpu->pcie_max.host_width);
}

static gd_scenario_int pcie_gpu_max_gen(const gd_scenario_gpu *gpu)
{
    return gpu->pcie_max.gen;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *currLinkGen)
{
    GDSIM_COUNTED();
    return timeline_uint(device, __func__, GD_SCENARIO_PCIE_GEN, currLinkGen);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth)
{
    GDSIM_COUNTED();
    return timeline_uint(device, __func__, GD_SCENARIO_PCIE_WIDTH, currLinkWidth);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen)
{
    GDSIM_COUNTED();
    return static_uint(device, __func__, pcie_max_gen, maxLinkGen);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *maxLinkWidth)
{
    GDSIM_COUNTED();
    return static_uint(device, __func__, pcie_max_width, maxLinkWidth);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGenDevice)
{
    GDSIM_COUNTED();
    return static_uint(device, __func__, pcie_gpu_max_gen, maxLinkGenDevice);
}

#define PCIE_THROUGHPUT_SAMPLE_S 0.020

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter,
                                                      unsigned int *value)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!value)
        return NVML_ERROR_INVALID_ARGUMENT;
    gd_scenario_field field;
    switch (counter) {
    case NVML_PCIE_UTIL_TX_BYTES: field = GD_SCENARIO_PCIE_TX_KBPS; break;
    case NVML_PCIE_UTIL_RX_BYTES: field = GD_SCENARIO_PCIE_RX_KBPS; break;
    default: return NVML_ERROR_INVALID_ARGUMENT;
    }
    rc = gdsim_field_uint(&call, field, value);
    /* NVML samples the counter for 20 ms before it answers (its documentation). */
    if (rc == NVML_SUCCESS)
        gdsim_block(PCIE_THROUGHPUT_SAMPLE_S);
    return rc;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value)
{
    GDSIM_COUNTED();
    return timeline_uint(device, __func__, GD_SCENARIO_PCIE_REPLAYS, value);
}

/* --- memory ------------------------------------------------------------- */

/* Total and used bytes; NOT_SUPPORTED unless both memory_total_mib and mem_used_mib are known. */
static nvmlReturn_t memory_bytes(nvmlDevice_t device, const char *fn, const void *out, unsigned long long *total,
                                 unsigned long long *used)
{
    gdsim_call call;
    unsigned used_mib;
    nvmlReturn_t rc = gdsim_enter(device, fn, &call);
    if (rc)
        return rc;
    if (!out)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (call.mig) { /* a MIG device: its GPU instance's share of the memory */
        if (!call.mig->memory_total_mib.present || !call.mig->memory_used_mib.present)
            return NVML_ERROR_NOT_SUPPORTED;
        *total = (unsigned long long)call.mig->memory_total_mib.value * MIB;
        *used = (unsigned long long)call.mig->memory_used_mib.value * MIB;
        return NVML_SUCCESS;
    }
    if (!call.gpu->memory_total_mib.present || gdsim_field_uint(&call, GD_SCENARIO_MEM_USED_MIB, &used_mib))
        return NVML_ERROR_NOT_SUPPORTED;
    *total = (unsigned long long)call.gpu->memory_total_mib.value * MIB;
    *used = (unsigned long long)used_mib * MIB;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    GDSIM_COUNTED();
    unsigned long long total, used;
    nvmlReturn_t rc = memory_bytes(device, __func__, memory, &total, &used);
    if (rc)
        return rc;
    memory->total = total;
    memory->used = used;
    memory->free = used < total ? total - used : 0;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
    GDSIM_COUNTED();
    unsigned long long total, used;
    nvmlReturn_t rc = memory_bytes(device, __func__, memory, &total, &used);
    if (rc)
        return rc;
    if (memory->version != nvmlMemory_v2)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    gdsim_call call;
    unsigned long long reserved = 0;
    if (gdsim_enter(device, __func__, &call) == NVML_SUCCESS && !call.mig && call.gpu->memory_reserved_mib.present)
        reserved = (unsigned long long)call.gpu->memory_reserved_mib.value << 20;
    memory->total = total;
    memory->reserved = reserved;
    memory->used = used;
    memory->free = used + reserved < total ? total - used - reserved : 0;
    return NVML_SUCCESS;
}
