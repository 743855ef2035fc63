/* Layer 1: dlopen libnvidia-ml.so.1 and resolve the functions gpudoctor uses. */
#include "nvml_loader.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sym {
    size_t offset;
    bool required;
    const char *names[4]; /* newest first, NULL-terminated */
} sym;

#define AT(field) offsetof(gd_nvml_api, field)

/* Versioned names first: nvml.h maps the plain names to these. */
static const sym syms[] = {
    {AT(Init), true, {"nvmlInit_v2", "nvmlInit", NULL}},
    {AT(Shutdown), true, {"nvmlShutdown", NULL}},
    {AT(ErrorString), false, {"nvmlErrorString", NULL}},
    {AT(SystemGetDriverVersion), false, {"nvmlSystemGetDriverVersion", NULL}},
    {AT(SystemGetNVMLVersion), false, {"nvmlSystemGetNVMLVersion", NULL}},
    {AT(SystemGetCudaDriverVersion), false,
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
    {AT(DeviceGetTemperatureThreshold), false, {"nvmlDeviceGetTemperatureThreshold", NULL}},
    {AT(DeviceGetFieldValues), false, {"nvmlDeviceGetFieldValues", NULL}},
    {AT(DeviceGetClockInfo), false, {"nvmlDeviceGetClockInfo", NULL}},
    {AT(DeviceGetMaxClockInfo), false, {"nvmlDeviceGetMaxClockInfo", NULL}},
    {AT(DeviceGetApplicationsClock), false, {"nvmlDeviceGetApplicationsClock", NULL}},
    {AT(DeviceGetDefaultApplicationsClock), false, {"nvmlDeviceGetDefaultApplicationsClock", NULL}},
    {AT(DeviceGetPowerUsage), false, {"nvmlDeviceGetPowerUsage", NULL}},
    {AT(DeviceGetEnforcedPowerLimit), false, {"nvmlDeviceGetEnforcedPowerLimit", NULL}},
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
    {AT(DeviceGetCurrentClocksEventReasons), false,
     {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons", NULL}},
    {AT(DeviceGetViolationStatus), false, {"nvmlDeviceGetViolationStatus", NULL}},
    {AT(DeviceGetPersistenceMode), false, {"nvmlDeviceGetPersistenceMode", NULL}},
    {AT(DeviceGetComputeMode), false, {"nvmlDeviceGetComputeMode", NULL}},
    {AT(DeviceGetMigMode), false, {"nvmlDeviceGetMigMode", NULL}},
    {AT(DeviceGetEccMode), false, {"nvmlDeviceGetEccMode", NULL}},
    {AT(DeviceGetTotalEccErrors), false, {"nvmlDeviceGetTotalEccErrors", NULL}},
    {AT(DeviceGetRetiredPages), false, {"nvmlDeviceGetRetiredPages", NULL}},
    {AT(DeviceGetRemappedRows), false, {"nvmlDeviceGetRemappedRows", NULL}},
    {AT(DeviceGetNvLinkState), false, {"nvmlDeviceGetNvLinkState", NULL}},
    {AT(DeviceGetNvLinkRemotePciInfo), false, {"nvmlDeviceGetNvLinkRemotePciInfo_v2", NULL}},
    /* v3 and v2 share nvmlProcessInfo_t's layout; the plain name is v1. */
    {AT(DeviceGetComputeRunningProcesses), false,
     {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2", NULL}},
    {AT(DeviceGetComputeRunningProcesses_v1), false, {"nvmlDeviceGetComputeRunningProcesses", NULL}},
    {AT(DeviceGetPerformanceState), false, {"nvmlDeviceGetPerformanceState", NULL}},
    {AT(SimLastError), false, {"gdsim_last_error", NULL}},
    {AT(SimClockSet), false, {"gdsim_clock_set", NULL}},
};

int gd_nvml_load(gd_nvml_api *api, const char *path, char *err, size_t errlen)
{
    memset(api, 0, sizeof *api);
    if (!path || !*path)
        path = getenv("GPUDOCTOR_NVML_LIBRARY");
    if (!path || !*path)
        path = "libnvidia-ml.so.1";
    snprintf(api->path, sizeof api->path, "%s", path);
    dlerror();
    api->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!api->handle) {
        const char *why = dlerror();
        /* dlerror() already names the file. */
        snprintf(err, errlen, "%s", why ? why : "cannot load the NVML library");
        return -1;
    }
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *fn = NULL;
        for (const char *const *name = syms[i].names; *name && !fn; name++)
            fn = dlsym(api->handle, *name);
        if (!fn && syms[i].required) {
            snprintf(err, errlen, "%s lacks the required function %s", path, syms[i].names[0]);
            gd_nvml_unload(api);
            return -1;
        }
        memcpy((char *)api + syms[i].offset, &fn, sizeof fn);
    }
    return 0;
}

void gd_nvml_unload(gd_nvml_api *api)
{
    if (api->handle)
        dlclose(api->handle);
    memset(api, 0, sizeof *api);
}

size_t gd_nvml_missing_count(const gd_nvml_api *api)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *fn;
        memcpy(&fn, (const char *)api + syms[i].offset, sizeof fn);
        n += fn == NULL && syms[i].offset != AT(SimLastError) && syms[i].offset != AT(SimClockSet);
    }
    return n;
}
