/* SPDX-License-Identifier: Apache-2.0 */
/* nvmlDeviceGetFieldValues: each requested field answers on its own. */
#include <limits.h>

#include "nvml_sim.h"

static void fill_uint(nvmlFieldValue_t *fv, nvmlReturn_t rc, unsigned v)
{
    fv->nvmlReturn = rc;
    fv->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    if (rc == NVML_SUCCESS)
        fv->value.uiVal = v;
}

static void fill_ull(nvmlFieldValue_t *fv, nvmlReturn_t rc, unsigned long long v)
{
    fv->nvmlReturn = rc;
    fv->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    if (rc == NVML_SUCCESS)
        fv->value.ullVal = v;
}

static void fill_sll(nvmlFieldValue_t *fv, nvmlReturn_t rc, long long v)
{
    fv->nvmlReturn = rc;
    fv->valueType = NVML_VALUE_TYPE_SIGNED_LONG_LONG;
    if (rc == NVML_SUCCESS)
        fv->value.sllVal = v;
}

/* A T.Limit offset ("temperature_tlimit_c"); NOT_SUPPORTED when absent. */
static void tlimit(nvmlFieldValue_t *fv, gd_scenario_int v)
{
    fill_sll(fv, v.present ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED, v.present ? v.value : 0);
}

/* Bytes through PCIe since the start: the integral of the timeline's KB/s
 * (1000 bytes). The byte counter fields came with driver 550's NVML (an
 * assumption of the simulator: older scenarios' drivers answer
 * NOT_SUPPORTED, and the throughput call is used). */
static void pcie_bytes(const gdsim_call *call, nvmlFieldValue_t *fv, gd_scenario_field field)
{
    double kb;
    if (gdsim_driver_major() < 550 || !gd_scenario_field_integral(call->gpu, field, call->t, &kb)) {
        fv->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        return;
    }
    fill_ull(fv, NVML_SUCCESS, gdsim_to_ull(kb * 1000.0 / gdsim_timescale()));
}

/* NVLink data since the start, KiB: each link's "data_tx_kibps" /
 * "data_rx_kibps" times the scenario time, for one link (scopeId) or all
 * (UINT_MAX). NOT_SUPPORTED where no link gives a rate, and on a GPU in MIG
 * mode; a link the GPU does not list is an invalid argument. */
static void nvlink_data(const gdsim_call *call, nvmlFieldValue_t *fv, bool tx)
{
    const gd_scenario_gpu *g = call->gpu;
    double kibps = 0;
    bool listed = false, rate = false;
    for (size_t i = 0; i < g->nvlink_count; i++) {
        const gd_scenario_nvlink *l = &g->nvlink[i];
        if (fv->scopeId != UINT_MAX && l->link != fv->scopeId)
            continue;
        listed = true;
        gd_scenario_num r = tx ? l->data_tx_kibps : l->data_rx_kibps;
        rate |= r.present;
        kibps += r.present ? r.value : 0;
    }
    if (!g->has_nvlink || (g->mig_mode.present && g->mig_mode.value) || (listed && !rate)) {
        fv->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        return;
    }
    if (!listed) {
        fv->nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
        return;
    }
    fill_ull(fv, NVML_SUCCESS, gdsim_to_ull(kibps * call->t / gdsim_timescale()));
}

/* The clock event reason counters (ns), one reason each, that succeed the
 * violation status: from driver 570 (the simulator's assumption: NVML's
 * header lists them from its R570 release; older drivers answer
 * NOT_SUPPORTED). A refusal injected for the field values'
 * "nvmlDeviceGetFieldValues(CLOCKS_EVENT_REASON)" holds for all three. */
static void event_reason_ns(const gdsim_call *call, nvmlFieldValue_t *fv)
{
    unsigned long long mask = fv->fieldId == NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN
                                  ? nvmlClocksThrottleReasonSwThermalSlowdown
                              : fv->fieldId == NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN
                                  ? nvmlClocksThrottleReasonHwThermalSlowdown
                                  : nvmlClocksThrottleReasonHwPowerBrakeSlowdown;
    nvmlReturn_t rc = (nvmlReturn_t)gd_scenario_error_at(&call->gpu->errors,
                                                         "nvmlDeviceGetFieldValues(CLOCKS_EVENT_REASON)", call->t);
    if (!rc && gdsim_driver_major() < 570)
        rc = NVML_ERROR_NOT_SUPPORTED;
    unsigned long long ns = 0;
    if (!rc)
        rc = gdsim_reason_ns(call, mask, &ns);
    fill_ull(fv, rc, ns);
}

/* A field value that carries a getter's counter is that counter: what a
 * scenario injects for the getter (a refusal, an error) holds for the field
 * too, but a getter the driver retired (DEPRECATED) still has its field. */
static nvmlReturn_t getter_refusal(const gdsim_call *call, const char *getter)
{
    nvmlReturn_t rc = (nvmlReturn_t)gd_scenario_error_at(&call->gpu->errors, getter, call->t);
    return rc == NVML_ERROR_DEPRECATED ? NVML_SUCCESS : rc;
}

static void field_value(const gdsim_call *call, nvmlFieldValue_t *fv)
{
    unsigned u = 0;
    unsigned long long ull = 0;
    nvmlReturn_t rc;
    switch (fv->fieldId) {
    case NVML_FI_DEV_MEMORY_TEMP:
        rc = gdsim_field_uint(call, GD_SCENARIO_MEM_TEMP_C, &u);
        fill_uint(fv, rc, u);
        break;
    case NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION:
        rc = getter_refusal(call, "nvmlDeviceGetTotalEnergyConsumption");
        if (!rc)
            rc = gdsim_energy_mj(call, &ull);
        fill_ull(fv, rc, ull);
        break;
    case NVML_FI_DEV_PCIE_REPLAY_COUNTER:
        rc = getter_refusal(call, "nvmlDeviceGetPcieReplayCounter");
        if (!rc)
            rc = gdsim_field_uint(call, GD_SCENARIO_PCIE_REPLAYS, &u);
        fill_ull(fv, rc, u);
        break;
    case NVML_FI_DEV_PERF_POLICY_POWER:
    case NVML_FI_DEV_PERF_POLICY_THERMAL:
    case NVML_FI_DEV_PERF_POLICY_SYNC_BOOST:
    case NVML_FI_DEV_PERF_POLICY_BOARD_LIMIT:
    case NVML_FI_DEV_PERF_POLICY_LOW_UTILIZATION:
    case NVML_FI_DEV_PERF_POLICY_RELIABILITY:
        /* The counters nvmlDeviceGetViolationStatus reads, one per policy
         * in nvmlPerfPolicyType_t's order. */
        rc = getter_refusal(call, "nvmlDeviceGetViolationStatus");
        if (!rc)
            rc = gdsim_violation_ns(
                call, (nvmlPerfPolicyType_t)(NVML_PERF_POLICY_POWER + (fv->fieldId - NVML_FI_DEV_PERF_POLICY_POWER)),
                &ull);
        fill_ull(fv, rc, ull);
        break;
    case NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN:
    case NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN:
    case NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN: event_reason_ns(call, fv); break;
    case NVML_FI_DEV_POWER_INSTANT:
        rc = gdsim_power_mw(call, false, &u);
        fill_uint(fv, rc, u);
        break;
    case NVML_FI_DEV_POWER_AVERAGE:
        /* nvmlDeviceGetPowerUsage's average, "supported on Ampere (except
         * GA100) or newer architectures" (nvml.h); the same sensor. */
        rc = getter_refusal(call, "nvmlDeviceGetPowerUsage");
        if (!rc && !gdsim_power_averaged(call->gpu))
            rc = NVML_ERROR_NOT_SUPPORTED;
        if (!rc)
            rc = gdsim_power_mw(call, true, &u);
        fill_uint(fv, rc, u);
        break;
    case NVML_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT: tlimit(fv, call->gpu->temperature_tlimit_c.shutdown); break;
    case NVML_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT: tlimit(fv, call->gpu->temperature_tlimit_c.slowdown); break;
    case NVML_FI_DEV_TEMPERATURE_MEM_MAX_TLIMIT: tlimit(fv, call->gpu->temperature_tlimit_c.mem_max); break;
    case NVML_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT: tlimit(fv, call->gpu->temperature_tlimit_c.gpu_max); break;
    case NVML_FI_DEV_PCIE_COUNT_TX_BYTES: pcie_bytes(call, fv, GD_SCENARIO_PCIE_TX_KBPS); break;
    case NVML_FI_DEV_PCIE_COUNT_RX_BYTES: pcie_bytes(call, fv, GD_SCENARIO_PCIE_RX_KBPS); break;
    case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX: nvlink_data(call, fv, true); break;
    case NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON:
        rc = call->mig ? NVML_ERROR_NOT_SUPPORTED : gdsim_int_uint(call->gpu->nvlink_speed_mbps, &u);
        fill_uint(fv, rc, u);
        break;
    case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX: nvlink_data(call, fv, false); break;
    default: fv->nvmlReturn = NVML_ERROR_NOT_SUPPORTED; break;
    }
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!values || valuesCount < 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    long long now_us = (long long)gdsim_realtime_us();
    for (int i = 0; i < valuesCount; i++) {
        values[i].timestamp = now_us;
        values[i].latencyUsec = 0;
        field_value(&call, &values[i]);
    }
    return NVML_SUCCESS;
}
