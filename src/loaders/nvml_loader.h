/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NVML's functions as a table of pointers, filled by dl_table
 * (../dl_table.h) from the table in nvml_loader.c. A function missing from
 * the library stays NULL: the collector reports the metric as unavailable
 * instead of crashing.
 */
#ifndef GD_NVML_LOADER_H
#define GD_NVML_LOADER_H

#include "gpudoctor/abi/nvml_api.h"
#include "dl_table.h"

#include <stdbool.h>
#include <stddef.h>

/* The environment variable that names the library to load in place of
 * libnvidia-ml.so.1, when no path is given. */
#define GD_NVML_LIBRARY_ENV "GPUDOCTOR_NVML_LIBRARY"
#define GD_NVML_LIBRARY_DEFAULT "libnvidia-ml.so.1"

typedef struct gd_nvml_api {
    gd_dl_lib lib; /* handle and the path that opened */
    /* DeviceGetPciInfo is the unversioned v1 nvmlDeviceGetPciInfo of old
     * drivers: it fills the 16-byte busIdLegacy only (its struct had busId[16]
     * first and reserved words where today's busId is). */
    bool pci_info_v1;
    nvml_Init_fn Init;
    nvml_Shutdown_fn Shutdown;
    nvml_ErrorString_fn ErrorString;
    nvml_SystemGetDriverVersion_fn SystemGetDriverVersion;
    nvml_SystemGetNVMLVersion_fn SystemGetNVMLVersion;
    nvml_SystemGetCudaDriverVersion_fn SystemGetCudaDriverVersion;
    nvml_SystemGetProcessName_fn SystemGetProcessName;
    nvml_DeviceGetCount_fn DeviceGetCount;
    nvml_DeviceGetHandleByIndex_fn DeviceGetHandleByIndex;
    nvml_DeviceGetString_fn DeviceGetName;
    nvml_DeviceGetString_fn DeviceGetUUID;
    nvml_DeviceGetString_fn DeviceGetSerial;
    nvml_DeviceGetString_fn DeviceGetVbiosVersion;
    nvml_DeviceGetPciInfo_fn DeviceGetPciInfo;
    nvml_DeviceGetCudaComputeCapability_fn DeviceGetCudaComputeCapability;
    nvml_DeviceGetMemoryInfo_v2_fn DeviceGetMemoryInfo_v2;
    nvml_DeviceGetMemoryInfo_fn DeviceGetMemoryInfo;
    nvml_DeviceGetTemperature_fn DeviceGetTemperature;
    nvml_DeviceGetTemperatureV_fn DeviceGetTemperatureV; /* successor of DeviceGetTemperature */
    nvml_DeviceGetMarginTemperature_fn DeviceGetMarginTemperature;
    nvml_DeviceGetTemperatureThreshold_fn DeviceGetTemperatureThreshold;
    nvml_DeviceGetFieldValues_fn DeviceGetFieldValues;
    nvml_DeviceGetClockInfo_fn DeviceGetClockInfo;
    nvml_DeviceGetClockInfo_fn DeviceGetMaxClockInfo;
    nvml_DeviceGetClockInfo_fn DeviceGetApplicationsClock;
    nvml_DeviceGetClockInfo_fn DeviceGetDefaultApplicationsClock;
    nvml_DeviceGetUInt_fn DeviceGetPowerUsage;
    nvml_DeviceGetUInt_fn DeviceGetEnforcedPowerLimit;
    nvml_DeviceGetUInt_fn DeviceGetPowerManagementLimit;
    nvml_DeviceGetUInt_fn DeviceGetPowerManagementDefaultLimit;
    nvml_DeviceGetPowerManagementLimitConstraints_fn DeviceGetPowerManagementLimitConstraints;
    nvml_DeviceGetULongLong_fn DeviceGetTotalEnergyConsumption;
    nvml_DeviceGetUtilizationRates_fn DeviceGetUtilizationRates;
    nvml_DeviceGetUInt_fn DeviceGetFanSpeed;
    nvml_DeviceGetUInt_fn DeviceGetCurrPcieLinkGeneration;
    nvml_DeviceGetUInt_fn DeviceGetCurrPcieLinkWidth;
    nvml_DeviceGetUInt_fn DeviceGetMaxPcieLinkGeneration;
    nvml_DeviceGetUInt_fn DeviceGetGpuMaxPcieLinkGeneration;
    nvml_DeviceGetUInt_fn DeviceGetMaxPcieLinkWidth;
    nvml_DeviceGetPcieThroughput_fn DeviceGetPcieThroughput;
    nvml_DeviceGetUInt_fn DeviceGetPcieReplayCounter;
    nvml_DeviceGetULongLong_fn DeviceGetCurrentClocksEventReasons;
    nvml_DeviceGetViolationStatus_fn DeviceGetViolationStatus;
    nvml_DeviceGetEnableState_fn DeviceGetPersistenceMode;
    nvml_DeviceGetComputeMode_fn DeviceGetComputeMode;
    nvml_DeviceGetMigMode_fn DeviceGetMigMode;
    nvml_DeviceGetUInt_fn DeviceGetMaxMigDeviceCount;
    nvml_DeviceGetMigDeviceHandleByIndex_fn DeviceGetMigDeviceHandleByIndex;
    nvml_DeviceGetUInt_fn DeviceGetGpuInstanceId;
    nvml_DeviceGetEccMode_fn DeviceGetEccMode;
    nvml_DeviceGetTotalEccErrors_fn DeviceGetTotalEccErrors;
    nvml_DeviceGetRetiredPages_fn DeviceGetRetiredPages;
    nvml_DeviceGetEnableState_fn DeviceGetRetiredPagesPendingStatus;
    nvml_DeviceGetRemappedRows_fn DeviceGetRemappedRows;
    nvml_DeviceGetNvLinkState_fn DeviceGetNvLinkState;
    nvml_DeviceGetNvLinkRemotePciInfo_fn DeviceGetNvLinkRemotePciInfo;
    nvml_DeviceGetNvLinkErrorCounter_fn DeviceGetNvLinkErrorCounter;
    nvml_DeviceGetGpuFabricInfo_fn DeviceGetGpuFabricInfo;
    nvml_DeviceGetP2PStatus_fn DeviceGetP2PStatus;
    nvml_DeviceGetNvLinkVersion_fn DeviceGetNvLinkVersion;
    nvml_DeviceGetComputeRunningProcesses_fn DeviceGetComputeRunningProcesses;
    nvml_DeviceGetComputeRunningProcesses_v1_fn DeviceGetComputeRunningProcesses_v1;
    nvml_DeviceGetPerformanceState_fn DeviceGetPerformanceState;
    /* Events (Xid) and GPU performance monitoring: optional, nvml_events.c. */
    nvml_EventSetCreate_fn EventSetCreate;
    nvml_EventSetFree_fn EventSetFree;
    nvml_DeviceRegisterEvents_fn DeviceRegisterEvents;
    nvml_EventSetWait_v2_fn EventSetWait_v2;
    nvml_GpmQueryDeviceSupport_fn GpmQueryDeviceSupport;
    nvml_GpmSampleAlloc_fn GpmSampleAlloc;
    nvml_GpmSampleFree_fn GpmSampleFree;
    nvml_GpmSampleGet_fn GpmSampleGet;
    nvml_GpmMetricsGet_fn GpmMetricsGet;
    /* The simulator's own error text, when the library is gpudoctor's simulator. */
    const char *(*SimLastError)(void);
    /* The simulator only: its scenario time is the session clock's. */
    void (*SimClockSet)(double scenario_s);
    /* The simulator only: scenario seconds its calls blocked since the last
     * SimClockSet (nvmlDeviceGetPcieThroughput samples for 20 ms). */
    double (*SimClockSpent)(void);
    void (*SimScenarioSet)(const char *path);
} gd_nvml_api;

/*
 * Loads NVML from `path` (the context's nvml_library), else libnvidia-ml.so.1.
 * Returns 0, or gd_dl_open's negative errno with a message in err: -ENOENT
 * (the library did not open: the path and dlopen's reason) or -ENOSYS (the
 * library and the missing required symbol). Does not call nvmlInit.
 */
int gd_nvml_load(gd_nvml_api *api, const char *path, char *err, size_t errlen);

/* dlcloses the library; the table is zeroed. */
void gd_nvml_unload(gd_nvml_api *api);

/* Number of optional functions the library lacks. */
size_t gd_nvml_missing_count(const gd_nvml_api *api);

#endif
