/* SPDX-License-Identifier: Apache-2.0 */
/* Health: clock event reasons, violation counters, ECC, retired pages, remapped rows, NVLink. */
#include <math.h>
#include <string.h>

#include "nvml_sim.h"

static nvmlReturn_t event_reasons(nvmlDevice_t device, const char *fn, unsigned long long *reasons)
{
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, fn, &call);
    if (rc)
        return rc;
    if (!reasons)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned long long bits;
    if (gd_scenario_reasons_at(call.gpu, call.t, &bits) != GD_SCENARIO_SET)
        return NVML_ERROR_NOT_SUPPORTED;
    *reasons = bits;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device,
                                                                 unsigned long long *clocksEventReasons)
{
    GDSIM_COUNTED();
    return event_reasons(device, __func__, clocksEventReasons);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device,
                                                                    unsigned long long *clocksThrottleReasons)
{
    GDSIM_COUNTED();
    return event_reasons(device, __func__, clocksThrottleReasons);
}

nvmlReturn_t gdsim_reason_ns(const gdsim_call *call, unsigned long long mask, unsigned long long *ns)
{
    double v;
    if (!gd_scenario_reason_time_ns(call->gpu, mask, call->t, &v))
        return NVML_ERROR_NOT_SUPPORTED;
    *ns = gdsim_to_ull(v / gdsim_timescale());
    return NVML_SUCCESS;
}

nvmlReturn_t gdsim_violation_ns(const gdsim_call *call, nvmlPerfPolicyType_t policy, unsigned long long *ns)
{
    unsigned long long mask;
    switch (policy) {
    case NVML_PERF_POLICY_POWER: mask = nvmlClocksThrottleReasonSwPowerCap; break;
    case NVML_PERF_POLICY_THERMAL:
        mask = nvmlClocksThrottleReasonSwThermalSlowdown | nvmlClocksThrottleReasonHwThermalSlowdown;
        break;
    case NVML_PERF_POLICY_SYNC_BOOST: mask = nvmlClocksThrottleReasonSyncBoost; break;
    /* Board limit, low utilisation and reliability have no reason name in
     * scenarios: not supported, as on boards that lack those counters. */
    default: return NVML_ERROR_NOT_SUPPORTED;
    }
    return gdsim_reason_ns(call, mask, ns);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device, nvmlPerfPolicyType_t perfPolicyType,
                                                       nvmlViolationTime_t *violTime)
{
    GDSIM_COUNTED();
    gdsim_call call;
    unsigned long long ns;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!violTime || (unsigned)perfPolicyType >= NVML_PERF_POLICY_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    rc = gdsim_violation_ns(&call, perfPolicyType, &ns);
    if (rc)
        return rc;
    violTime->referenceTime = gdsim_realtime_us();
    violTime->violationTime = ns;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current,
                                               nvmlEnableState_t *pending)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!current || !pending)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!call.gpu->ecc.enabled.present)
        return NVML_ERROR_NOT_SUPPORTED;
    *current = *pending = call.gpu->ecc.enabled.value ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}

/* Only uncorrected counts are in scenarios; corrected ones are NOT_SUPPORTED. */
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                                      nvmlEccCounterType_t counterType, unsigned long long *eccCounts)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!eccCounts || (unsigned)errorType >= NVML_MEMORY_ERROR_TYPE_COUNT ||
        (unsigned)counterType >= NVML_ECC_COUNTER_TYPE_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (errorType != NVML_MEMORY_ERROR_TYPE_UNCORRECTED)
        return NVML_ERROR_NOT_SUPPORTED;
    gd_scenario_int n =
        counterType == NVML_VOLATILE_ECC ? call.gpu->ecc.volatile_uncorrected : call.gpu->ecc.aggregate_uncorrected;
    if (!n.present)
        return NVML_ERROR_NOT_SUPPORTED;
    *eccCounts = (unsigned long long)(n.value + gd_scenario_event_sum(call.gpu, "ecc_uncorrected", call.t));
    return NVML_SUCCESS;
}

/* retired_pages counts double-bit retirements; addresses are made up, one page apart. */
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause,
                                                    unsigned int *pageCount, unsigned long long *addresses)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!pageCount || (unsigned)cause >= NVML_PAGE_RETIREMENT_CAUSE_COUNT || (*pageCount && !addresses))
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!call.gpu->ecc.retired_pages.present)
        return NVML_ERROR_NOT_SUPPORTED;
    unsigned count =
        cause == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
            ? (unsigned)(call.gpu->ecc.retired_pages.value + gd_scenario_event_sum(call.gpu, "retired_pages", call.t))
            : 0;
    if (*pageCount < count) {
        *pageCount = count;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (unsigned i = 0; i < count; i++)
        addresses[i] = 0x100000ULL + 0x1000ULL * i;
    *pageCount = count;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows,
                                                    unsigned int *isPending, unsigned int *failureOccurred)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!corrRows || !uncRows || !isPending || !failureOccurred)
        return NVML_ERROR_INVALID_ARGUMENT;
    gd_scenario_flag failure = call.gpu->ecc.remap_failure;
    bool has_pending;
    bool p = gd_scenario_remap_pending_at(call.gpu, call.t, &has_pending);
    if (!has_pending && !failure.present)
        return NVML_ERROR_NOT_SUPPORTED;
    bool f = failure.present && failure.value;
    long long rows = gd_scenario_event_sum(call.gpu, "remapped_rows_uncorrectable", call.t);
    *corrRows = 0;
    *uncRows = (unsigned)(rows > 0 ? rows : p || f ? 1 : 0);
    *isPending = p;
    *failureOccurred = f;
    return NVML_SUCCESS;
}

/* The scenario's entry for an NVLink, after the usual checks; *callp (when
 * not NULL) gets the call's GPU and time. */
static nvmlReturn_t nvlink(nvmlDevice_t device, const char *fn, unsigned link, const void *out,
                           const gd_scenario_nvlink **found, bool *mig, gdsim_call *callp)
{
    gdsim_call local, *call = callp ? callp : &local;
    nvmlReturn_t rc = gdsim_enter(device, fn, call);
    if (rc)
        return rc;
    if (!out || link >= NVML_NVLINK_MAX_LINKS)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!call->gpu->has_nvlink)
        return NVML_ERROR_NOT_SUPPORTED;
    for (size_t i = 0; i < call->gpu->nvlink_count; i++) {
        if (call->gpu->nvlink[i].link == link) {
            *found = &call->gpu->nvlink[i];
            *mig = call->gpu->mig_mode.present && call->gpu->mig_mode.value;
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_INVALID_ARGUMENT;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t *isActive)
{
    GDSIM_COUNTED();
    const gd_scenario_nvlink *l;
    bool mig = false;
    nvmlReturn_t rc = nvlink(device, __func__, link, isActive, &l, &mig, NULL);
    if (rc)
        return rc;
    if (!l->active.present)
        return NVML_ERROR_NOT_SUPPORTED;
    /* NVML reports every NVLink of a MIG-enabled GPU as down (DCGM works
     * around exactly this), whatever the link's state. */
    *isActive = l->active.value && !mig ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
                                                              nvmlPciInfo_t *pci)
{
    GDSIM_COUNTED();
    const gd_scenario_nvlink *l;
    bool mig = false;
    nvmlReturn_t rc = nvlink(device, __func__, link, pci, &l, &mig, NULL);
    if (rc)
        return rc;
    return gdsim_fill_pci(l->remote_pci_bus_id, NULL, pci);
}

/* The link's error counters: the scenario's "error_counters" plus its NVLink
 * events up to now; NOT_SUPPORTED for a counter neither gives, and on a GPU
 * in MIG mode (its links are down). */
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link,
                                                          nvmlNvLinkErrorCounter_t counter,
                                                          unsigned long long *counterValue)
{
    GDSIM_COUNTED();
    const gd_scenario_nvlink *l;
    bool mig = false;
    gdsim_call call;
    nvmlReturn_t rc = nvlink(device, __func__, link, counterValue, &l, &mig, &call);
    if (rc)
        return rc;
    if ((unsigned)counter >= NVML_NVLINK_ERROR_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    long long n;
    if (mig || !gd_scenario_nvlink_errors_at(call.gpu, l->link, (gd_scenario_nvlink_counter)counter, call.t, &n))
        return NVML_ERROR_NOT_SUPPORTED;
    *counterValue = (unsigned long long)n;
    return NVML_SUCCESS;
}

/* The GPU's NVLink fabric registration: the scenario's "fabric", else
 * NOT_SUPPORTED (as on PCIe boards and NVLink systems without NVSwitches). */
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *gpuFabricInfo)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!gpuFabricInfo)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!call.gpu->has_fabric)
        return NVML_ERROR_NOT_SUPPORTED;
    memset(gpuFabricInfo, 0, sizeof *gpuFabricInfo);
    gpuFabricInfo->state = (nvmlGpuFabricState_t)call.gpu->fabric_state;
    gpuFabricInfo->status =
        call.gpu->fabric_status.present ? (nvmlReturn_t)call.gpu->fabric_status.value : NVML_SUCCESS;
    return NVML_SUCCESS;
}

/* The link's NVLink version (nvml.h's nvmlNvlinkVersion_t numbering): the
 * scenario's "version"; NOT_SUPPORTED without it, for an inactive link and
 * in MIG mode (its links are down). */
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link, unsigned int *version)
{
    GDSIM_COUNTED();
    const gd_scenario_nvlink *l;
    bool mig = false;
    nvmlReturn_t rc = nvlink(device, __func__, link, version, &l, &mig, NULL);
    if (rc)
        return rc;
    if (mig || !l->version.present || (l->active.present && !l->active.value))
        return NVML_ERROR_NOT_SUPPORTED;
    *version = (unsigned int)l->version.value;
    return NVML_SUCCESS;
}

/* Whether two GPUs reach each other's memory: the scenario's "p2p" of either. */
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2,
                                                 nvmlGpuP2PCapsIndex_t p2pIndex, nvmlGpuP2PStatus_t *p2pStatus)
{
    GDSIM_COUNTED();
    gdsim_call c1, c2;
    const gd_scenario *sc;
    nvmlReturn_t rc = gdsim_enter(device1, __func__, &c1);
    if (rc == NVML_SUCCESS)
        rc = gdsim_enter(device2, __func__, &c2);
    if (rc == NVML_SUCCESS)
        rc = gdsim_enter_system(__func__, &sc);
    if (rc)
        return rc;
    if (!p2pStatus || (unsigned)p2pIndex >= NVML_P2P_CAPS_INDEX_UNKNOWN)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (c1.mig || c2.mig)
        return NVML_ERROR_NOT_SUPPORTED;
    size_t a = (size_t)(c1.gpu - sc->gpus), b = (size_t)(c2.gpu - sc->gpus);
    int st = gd_scenario_p2p_status(sc, a, b);
    /* NVLINK: the pair's NVLink P2P; a pair without links between them has none. */
    if (p2pIndex == NVML_P2P_CAPS_INDEX_NVLINK && st == 0 && !(c1.gpu->nvlink_count && c2.gpu->nvlink_count))
        st = NVML_P2P_STATUS_NOT_SUPPORTED;
    *p2pStatus = (nvmlGpuP2PStatus_t)st;
    return NVML_SUCCESS;
}
