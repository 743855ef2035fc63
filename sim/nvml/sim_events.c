/* SPDX-License-Identifier: Apache-2.0 */
/* NVML's event API (Xid critical errors at the scenario's times) and GPU
 * performance monitoring (GPM: Hopper and newer) of the simulated library. */
#include <stdlib.h>

#include "nvml_sim.h"

/* An event set: which GPUs are registered for Xids, and how many of each
 * GPU's events have been delivered. */
struct nvmlEventSet_st {
    unsigned long long mask[GD_SCENARIO_MAX_GPUS];
    size_t delivered[GD_SCENARIO_MAX_GPUS];
};

GDSIM_EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
    GDSIM_COUNTED();
    const gd_scenario *sc;
    nvmlReturn_t rc = gdsim_enter_system(__func__, &sc);
    if (rc)
        return rc;
    if (!set)
        return NVML_ERROR_INVALID_ARGUMENT;
    *set = calloc(1, sizeof **set);
    return *set ? NVML_SUCCESS : NVML_ERROR_MEMORY;
}

GDSIM_EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
    GDSIM_COUNTED();
    if (!set)
        return NVML_ERROR_INVALID_ARGUMENT;
    free(set);
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!eventTypes)
        return NVML_ERROR_INVALID_ARGUMENT;
    *eventTypes = nvmlEventTypeXidCriticalError;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes,
                                                   nvmlEventSet_t set)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!set)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (eventTypes & ~(unsigned long long)nvmlEventTypeXidCriticalError)
        return NVML_ERROR_NOT_SUPPORTED; /* as NVML does for a type the board lacks */
    unsigned g = device->index;
    set->mask[g] |= eventTypes;
    /* Events before the registration are not delivered. */
    set->delivered[g] = 0;
    while (set->delivered[g] < call.gpu->event_count && call.gpu->events[set->delivered[g]].t < call.t)
        set->delivered[g]++;
    return NVML_SUCCESS;
}

/* Returns the next Xid of the registered GPUs that has happened, oldest
 * first, without waiting (the scenario's clock is the caller's). */
GDSIM_EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
    GDSIM_COUNTED();
    (void)timeoutms;
    if (!set || !data)
        return NVML_ERROR_INVALID_ARGUMENT;
    const gd_scenario *sc;
    nvmlReturn_t rc = gdsim_enter_system(__func__, &sc);
    if (rc)
        return rc;
    int best = -1;
    double best_t = 0;
    for (unsigned g = 0; g < sc->gpu_count && g < GD_SCENARIO_MAX_GPUS; g++) {
        if (!(set->mask[g] & nvmlEventTypeXidCriticalError))
            continue;
        gdsim_call call;
        nvmlDevice_t dev;
        if (gdsim_enter_index(g, __func__, &call, &dev) == NVML_ERROR_UNINITIALIZED)
            return NVML_ERROR_UNINITIALIZED;
        const gd_scenario_gpu *gpu = &sc->gpus[g];
        while (set->delivered[g] < gpu->event_count && !gpu->events[set->delivered[g]].xid)
            set->delivered[g]++;
        if (set->delivered[g] >= gpu->event_count)
            continue;
        const gd_scenario_event *e = &gpu->events[set->delivered[g]];
        if (e->t <= call.t && (best < 0 || e->t < best_t)) {
            best = (int)g;
            best_t = e->t;
            data->device = dev;
        }
    }
    if (best < 0)
        return NVML_ERROR_TIMEOUT;
    const gd_scenario_event *e = &sc->gpus[best].events[set->delivered[best]++];
    data->eventType = nvmlEventTypeXidCriticalError;
    data->eventData = (unsigned long long)e->xid;
    data->gpuInstanceId = data->computeInstanceId = 0xFFFFFFFFu;
    return NVML_SUCCESS;
}

/* GPM: a sample is the GPU and the scenario time it was taken at. */
struct nvmlGpmSample_st {
    unsigned gpu;
    double t;
    bool taken;
};

static bool gpm_supported(const gd_scenario_gpu *gpu)
{
    return gpu->has_compute_capability && gpu->compute_capability[0] >= 9;
}

GDSIM_EXPORT nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *gpmSupport)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!gpmSupport)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (gpmSupport->version != NVML_GPM_SUPPORT_VERSION)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    gpmSupport->isSupportedDevice = gpm_supported(call.gpu);
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *gpmSample)
{
    GDSIM_COUNTED();
    if (!gpmSample)
        return NVML_ERROR_INVALID_ARGUMENT;
    *gpmSample = calloc(1, sizeof **gpmSample);
    return *gpmSample ? NVML_SUCCESS : NVML_ERROR_MEMORY;
}

GDSIM_EXPORT nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t gpmSample)
{
    GDSIM_COUNTED();
    if (!gpmSample)
        return NVML_ERROR_INVALID_ARGUMENT;
    free(gpmSample);
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t gpmSample)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!gpmSample)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!gpm_supported(call.gpu))
        return NVML_ERROR_NOT_SUPPORTED;
    *gpmSample = (struct nvmlGpmSample_st){.gpu = device->index, .t = call.t, .taken = true};
    return NVML_SUCCESS;
}

/* One metric between two samples: the timeline's state at the second one
 * (utilisation for the engines, memory utilisation for DRAM, the PCIe
 * throughput in MiB/s); the tensor pipes run the GPU's tensor share of its
 * busy time ("gpm": {"tensor_share": 0.6}, the default). */
static void gpm_metric(const gd_scenario_gpu *gpu, double t, nvmlGpmMetric_t *m)
{
    gdsim_call call = {.gpu = gpu, .t = t};
    unsigned v = 0;
    nvmlReturn_t rc = NVML_ERROR_NOT_SUPPORTED;
    double x = 0;
    switch (m->metricId) {
    case NVML_GPM_METRIC_GRAPHICS_UTIL:
    case NVML_GPM_METRIC_SM_UTIL: rc = gdsim_field_uint(&call, GD_SCENARIO_UTIL_GPU_PCT, &v), x = v; break;
    case NVML_GPM_METRIC_ANY_TENSOR_UTIL:
        rc = gdsim_field_uint(&call, GD_SCENARIO_UTIL_GPU_PCT, &v);
        x = v * (gpu->gpm_tensor_share.present ? gpu->gpm_tensor_share.value : 0.6);
        break;
    case NVML_GPM_METRIC_DRAM_BW_UTIL: rc = gdsim_field_uint(&call, GD_SCENARIO_UTIL_MEM_PCT, &v), x = v; break;
    case NVML_GPM_METRIC_PCIE_TX_PER_SEC:
        rc = gdsim_field_uint(&call, GD_SCENARIO_PCIE_TX_KBPS, &v), x = v / 1024.0;
        break;
    case NVML_GPM_METRIC_PCIE_RX_PER_SEC:
        rc = gdsim_field_uint(&call, GD_SCENARIO_PCIE_RX_KBPS, &v), x = v / 1024.0;
        break;
    default: break;
    }
    m->nvmlReturn = rc;
    m->value = rc == NVML_SUCCESS ? x : 0;
    m->metricInfo.shortName = m->metricInfo.longName = m->metricInfo.unit = NULL;
}

GDSIM_EXPORT nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *metricsGet)
{
    GDSIM_COUNTED();
    const gd_scenario *sc;
    nvmlReturn_t rc = gdsim_enter_system(__func__, &sc);
    if (rc)
        return rc;
    if (!metricsGet)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (metricsGet->version != NVML_GPM_METRICS_GET_VERSION)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    const struct nvmlGpmSample_st *a = metricsGet->sample1, *b = metricsGet->sample2;
    if (!a || !b || !a->taken || !b->taken || a->gpu != b->gpu || a->gpu >= sc->gpu_count ||
        metricsGet->numMetrics > NVML_GPM_METRIC_MAX)
        return NVML_ERROR_INVALID_ARGUMENT;
    for (unsigned i = 0; i < metricsGet->numMetrics; i++)
        gpm_metric(&sc->gpus[a->gpu], b->t, &metricsGet->metrics[i]);
    return NVML_SUCCESS;
}
