/* SPDX-License-Identifier: Apache-2.0 */
/* NVML's functions as a dl_table over libnvidia-ml.so.1. */
#include "nvml_loader.h"

#include <string.h>

#define AT(field) offsetof(gd_nvml_api, field)

/* Versioned names first: nvml.h maps the plain names to these. */
static const gd_dl_sym syms[] = {
    {AT(Init), true, {"nvmlInit_v2", "nvmlInit", NULL}},
    {AT(Shutdown), true, {"nvmlShutdown", NULL}},
    {AT(ErrorString), false, {"nvmlErrorString", NULL}},
    {AT(SystemGetDriverVersion), false, {"nvmlSystemGetDriverVersion", NULL}},
    {AT(SystemGetNVMLVersion), false, {"nvmlSystemGetNVMLVersion", NULL}},
    {AT(SystemGetCudaDriverVersion),
     false,
     {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion", NULL}},
    {AT(SystemGetProcessName), false, {"nvmlSystemGetProcessName", NULL}},
    {AT(DeviceGetCount), true, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", NULL}},
    {AT(DeviceGetHandleByIndex), true, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex", NULL}},
    {AT(DeviceGetName), false, {"nvmlDeviceGetName", NULL}},
    {AT(DeviceGetUUID), false, {"nvmlDeviceGetUUID", NULL}},
    {AT(DeviceGetSerial), false, {"nvmlDeviceGetSerial", NULL}},
    {AT(DeviceGetVbiosVersion), false, {"nvmlDeviceGetVbiosVersion", NULL}},
    {AT(DeviceGetPciInfo), false, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo", NULL}},
    {AT(DeviceGetCudaComputeCapability), false, {"nvmlDeviceGetCudaComputeCapability", NULL}},
    {AT(DeviceGetMemoryInfo_v2), false, {"nvmlDeviceGetMemoryInfo_v2", NULL}},
    {AT(DeviceGetMemoryInfo), false, {"nvmlDeviceGetMemoryInfo", NULL}},
    {AT(DeviceGetTemperature), false, {"nvmlDeviceGetTemperature", NULL}},
    {AT(DeviceGetTemperatureV), false, {"nvmlDeviceGetTemperatureV", NULL}},
    {AT(DeviceGetMarginTemperature), false, {"nvmlDeviceGetMarginTemperature", NULL}},
    {AT(DeviceGetTemperatureThreshold), false, {"nvmlDeviceGetTemperatureThreshold", NULL}},
    {AT(DeviceGetFieldValues), false, {"nvmlDeviceGetFieldValues", NULL}},
    {AT(DeviceGetClockInfo), false, {"nvmlDeviceGetClockInfo", NULL}},
    {AT(DeviceGetMaxClockInfo), false, {"nvmlDeviceGetMaxClockInfo", NULL}},
    {AT(DeviceGetApplicationsClock), false, {"nvmlDeviceGetApplicationsClock", NULL}},
    {AT(DeviceGetDefaultApplicationsClock), false, {"nvmlDeviceGetDefaultApplicationsClock", NULL}},
    {AT(DeviceGetPowerUsage), false, {"nvmlDeviceGetPowerUsage", NULL}},
    {AT(DeviceGetEnforcedPowerLimit), false, {"nvmlDeviceGetEnforcedPowerLimit", NULL}},
    {AT(DeviceGetPowerManagementLimit), false, {"nvmlDeviceGetPowerManagementLimit", NULL}},
    {AT(DeviceGetPowerManagementDefaultLimit), false, {"nvmlDeviceGetPowerManagementDefaultLimit", NULL}},
    {AT(DeviceGetPowerManagementLimitConstraints), false, {"nvmlDeviceGetPowerManagementLimitConstraints", NULL}},
    {AT(DeviceGetTotalEnergyConsumption), false, {"nvmlDeviceGetTotalEnergyConsumption", NULL}},
    {AT(DeviceGetUtilizationRates), false, {"nvmlDeviceGetUtilizationRates", NULL}},
    {AT(DeviceGetFanSpeed), false, {"nvmlDeviceGetFanSpeed", NULL}},
    {AT(DeviceGetCurrPcieLinkGeneration), false, {"nvmlDeviceGetCurrPcieLinkGeneration", NULL}},
    {AT(DeviceGetCurrPcieLinkWidth), false, {"nvmlDeviceGetCurrPcieLinkWidth", NULL}},
    {AT(DeviceGetMaxPcieLinkGeneration), false, {"nvmlDeviceGetMaxPcieLinkGeneration", NULL}},
    {AT(DeviceGetGpuMaxPcieLinkGeneration), false, {"nvmlDeviceGetGpuMaxPcieLinkGeneration", NULL}},
    {AT(DeviceGetMaxPcieLinkWidth), false, {"nvmlDeviceGetMaxPcieLinkWidth", NULL}},
    {AT(DeviceGetPcieThroughput), false, {"nvmlDeviceGetPcieThroughput", NULL}},
    {AT(DeviceGetPcieReplayCounter), false, {"nvmlDeviceGetPcieReplayCounter", NULL}},
    /* Renamed in newer drivers; same signature and bits. */
    {AT(DeviceGetCurrentClocksEventReasons),
     false,
     {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons", NULL}},
    {AT(DeviceGetViolationStatus), false, {"nvmlDeviceGetViolationStatus", NULL}},
    {AT(DeviceGetPersistenceMode), false, {"nvmlDeviceGetPersistenceMode", NULL}},
    {AT(DeviceGetComputeMode), false, {"nvmlDeviceGetComputeMode", NULL}},
    {AT(DeviceGetMigMode), false, {"nvmlDeviceGetMigMode", NULL}},
    {AT(DeviceGetMaxMigDeviceCount), false, {"nvmlDeviceGetMaxMigDeviceCount", NULL}},
    {AT(DeviceGetMigDeviceHandleByIndex), false, {"nvmlDeviceGetMigDeviceHandleByIndex", NULL}},
    {AT(DeviceGetGpuInstanceId), false, {"nvmlDeviceGetGpuInstanceId", NULL}},
    {AT(DeviceGetEccMode), false, {"nvmlDeviceGetEccMode", NULL}},
    {AT(DeviceGetTotalEccErrors), false, {"nvmlDeviceGetTotalEccErrors", NULL}},
    {AT(DeviceGetRetiredPages), false, {"nvmlDeviceGetRetiredPages", NULL}},
    {AT(DeviceGetRetiredPagesPendingStatus), false, {"nvmlDeviceGetRetiredPagesPendingStatus", NULL}},
    {AT(DeviceGetRemappedRows), false, {"nvmlDeviceGetRemappedRows", NULL}},
    {AT(DeviceGetNvLinkState), false, {"nvmlDeviceGetNvLinkState", NULL}},
    {AT(DeviceGetNvLinkRemotePciInfo), false, {"nvmlDeviceGetNvLinkRemotePciInfo_v2", NULL}},
    {AT(DeviceGetNvLinkErrorCounter), false, {"nvmlDeviceGetNvLinkErrorCounter", NULL}},
    {AT(DeviceGetGpuFabricInfo), false, {"nvmlDeviceGetGpuFabricInfo", NULL}},
    {AT(DeviceGetP2PStatus), false, {"nvmlDeviceGetP2PStatus", NULL}},
    {AT(DeviceGetNvLinkVersion), false, {"nvmlDeviceGetNvLinkVersion", NULL}},
    /* v3 and v2 share nvmlProcessInfo_t's layout; the plain name is v1. */
    {AT(DeviceGetComputeRunningProcesses),
     false,
     {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2", NULL}},
    {AT(DeviceGetComputeRunningProcesses_v1), false, {"nvmlDeviceGetComputeRunningProcesses", NULL}},
    {AT(DeviceGetPerformanceState), false, {"nvmlDeviceGetPerformanceState", NULL}},
    {AT(EventSetCreate), false, {"nvmlEventSetCreate", NULL}},
    {AT(EventSetFree), false, {"nvmlEventSetFree", NULL}},
    {AT(DeviceRegisterEvents), false, {"nvmlDeviceRegisterEvents", NULL}},
    {AT(EventSetWait_v2), false, {"nvmlEventSetWait_v2", NULL}},
    {AT(GpmQueryDeviceSupport), false, {"nvmlGpmQueryDeviceSupport", NULL}},
    {AT(GpmSampleAlloc), false, {"nvmlGpmSampleAlloc", NULL}},
    {AT(GpmSampleFree), false, {"nvmlGpmSampleFree", NULL}},
    {AT(GpmSampleGet), false, {"nvmlGpmSampleGet", NULL}},
    {AT(GpmMetricsGet), false, {"nvmlGpmMetricsGet", NULL}},
    {AT(SimLastError), false, {"gdsim_last_error", NULL}},
    {AT(SimClockSet), false, {"gdsim_clock_set", NULL}},
    {AT(SimScenarioSet), false, {"gdsim_scenario_set", NULL}},
    {AT(SimClockSpent), false, {"gdsim_clock_spent", NULL}},
};

static const gd_dl_table table = {"the NVML library", syms, sizeof syms / sizeof syms[0]};

/* Whether the entry at offset was filled by the export called name. */
static bool took(const char *const *found, size_t offset, const char *name)
{
    for (size_t i = 0; i < table.count; i++)
        if (syms[i].offset == offset)
            return found[i] && strcmp(found[i], name) == 0;
    return false;
}

int gd_nvml_load(gd_nvml_api *api, const char *path, char *err, size_t errlen)
{
    memset(api, 0, sizeof *api);
    path = gd_dl_choose_path(path, GD_NVML_LIBRARY_DEFAULT);
    const char *found[sizeof syms / sizeof syms[0]];
    int rc = gd_dl_open(&api->lib, &table, &path, 1, api, found, err, errlen);
    if (rc == 0)
        api->pci_info_v1 = took(found, AT(DeviceGetPciInfo), "nvmlDeviceGetPciInfo");
    return rc;
}

void gd_nvml_unload(gd_nvml_api *api)
{
    gd_dl_close(&api->lib);
    memset(api, 0, sizeof *api);
}

size_t gd_nvml_missing_count(const gd_nvml_api *api)
{
    /* The simulator's hooks are no NVML functions: a real library lacks them. */
    return gd_dl_missing(&table, api) - (api->SimLastError == NULL) - (api->SimClockSet == NULL) -
           (api->SimScenarioSet == NULL) - (api->SimClockSpent == NULL);
}
