/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every function the simulated libnvidia-ml.so.1 exports, declared with
 * default visibility (the library builds with -fvisibility=hidden), and
 * checked at compile time against the prototype typedefs of nvml_api.h, so
 * a signature that drifts from NVML's fails the build.
 */
#ifndef GPUDOCTOR_SIM_NVML_EXPORTS_H
#define GPUDOCTOR_SIM_NVML_EXPORTS_H

#include "gpudoctor/abi/nvml_api.h"

#include <stddef.h>

#define GDSIM_EXPORT __attribute__((visibility("default")))

/* Not NVML: the full message behind nvmlInit's last failure ("" if none). */
GDSIM_EXPORT const char *gdsim_last_error(void);
/* The caller's clock (gpudoctor's session): from the first call on, the
 * scenario time is the value given, not wall time x timescale, and
 * cumulative counters are in scenario seconds. */
GDSIM_EXPORT void gdsim_clock_set(double scenario_s);
/* Scenario seconds the calls since the last gdsim_clock_set blocked (the
 * 20 ms of each nvmlDeviceGetPcieThroughput): the caller's clock moves on. */
GDSIM_EXPORT double gdsim_clock_spent(void);
/* The scenario file to play, before nvmlInit (the caller's context); without
 * it, $GPUDOCTOR_SIM_SCENARIO. */
GDSIM_EXPORT void gdsim_scenario_set(const char *path);
/* Not NVML: the i-th NVML function called so far in this process (NULL past
 * the last) and, in *calls, how many times it was called (sim_count.c). */
GDSIM_EXPORT const char *gdsim_nvml_calls(size_t i, unsigned long long *calls);

GDSIM_EXPORT const char *nvmlErrorString(nvmlReturn_t result);
GDSIM_EXPORT nvmlReturn_t nvmlInit(void);
GDSIM_EXPORT nvmlReturn_t nvmlInit_v2(void);
GDSIM_EXPORT nvmlReturn_t nvmlShutdown(void);
GDSIM_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
GDSIM_EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length);
GDSIM_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion);
GDSIM_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion);
GDSIM_EXPORT nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char *version, unsigned int length);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType,
                                                   unsigned int *temp);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_t *temperature);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMarginTemperature(nvmlDevice_t device, nvmlMarginTemperature_t *marginTempInfo);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t *isPending);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device,
                                                            nvmlTemperatureThresholds_t thresholdType,
                                                            unsigned int *temp);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t device, nvmlClockType_t clockType,
                                                         unsigned int *clockMHz);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetDefaultApplicationsClock(nvmlDevice_t device, nvmlClockType_t clockType,
                                                                unsigned int *clockMHz);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetClock(nvmlDevice_t device, nvmlClockType_t clockType, nvmlClockId_t clockId,
                                             unsigned int *clockMHz);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned int *defaultLimit);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device, unsigned int *minLimit,
                                                                       unsigned int *maxLimit);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *currLinkGen);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *maxLinkWidth);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGenDevice);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter,
                                                      unsigned int *value);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device,
                                                                 unsigned long long *clocksEventReasons);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device,
                                                                    unsigned long long *clocksThrottleReasons);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device, nvmlPerfPolicyType_t perfPolicyType,
                                                       nvmlViolationTime_t *violTime);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t *mode);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode,
                                               unsigned int *pendingMode);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current,
                                               nvmlEnableState_t *pending);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                                      nvmlEccCounterType_t counterType, unsigned long long *eccCounts);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause,
                                                    unsigned int *pageCount, unsigned long long *addresses);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows,
                                                    unsigned int *isPending, unsigned int *failureOccurred);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t *isActive);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
                                                              nvmlPciInfo_t *pci);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link,
                                                          nvmlNvLinkErrorCounter_t counter,
                                                          unsigned long long *counterValue);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *gpuFabricInfo);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link, unsigned int *version);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2,
                                                 nvmlGpuP2PCapsIndex_t p2pIndex, nvmlGpuP2PStatus_t *p2pStatus);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
                                                               nvmlProcessInfo_v1_t *infos);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
                                                                  nvmlProcessInfo_v2_t *infos);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                                  nvmlProcessInfo_t *infos);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *pState);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
                                                              nvmlDevice_t *migDevice);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice);

#define GDSIM_SIGNATURE(fn, type)                                                                                      \
    _Static_assert(_Generic(&fn, type : 1, default : 0), #fn " must have the signature of " #type)

GDSIM_SIGNATURE(nvmlErrorString, nvml_ErrorString_fn);
GDSIM_SIGNATURE(nvmlInit, nvml_Init_fn);
GDSIM_SIGNATURE(nvmlInit_v2, nvml_Init_fn);
GDSIM_SIGNATURE(nvmlShutdown, nvml_Shutdown_fn);
GDSIM_SIGNATURE(nvmlSystemGetDriverVersion, nvml_SystemGetDriverVersion_fn);
GDSIM_SIGNATURE(nvmlSystemGetNVMLVersion, nvml_SystemGetNVMLVersion_fn);
GDSIM_SIGNATURE(nvmlSystemGetCudaDriverVersion, nvml_SystemGetCudaDriverVersion_fn);
GDSIM_SIGNATURE(nvmlSystemGetCudaDriverVersion_v2, nvml_SystemGetCudaDriverVersion_fn);
GDSIM_SIGNATURE(nvmlSystemGetProcessName, nvml_SystemGetProcessName_fn);
GDSIM_SIGNATURE(nvmlDeviceGetCount, nvml_DeviceGetCount_fn);
GDSIM_SIGNATURE(nvmlDeviceGetCount_v2, nvml_DeviceGetCount_fn);
GDSIM_SIGNATURE(nvmlDeviceGetHandleByIndex, nvml_DeviceGetHandleByIndex_fn);
GDSIM_SIGNATURE(nvmlDeviceGetHandleByIndex_v2, nvml_DeviceGetHandleByIndex_fn);
GDSIM_SIGNATURE(nvmlDeviceGetName, nvml_DeviceGetString_fn);
GDSIM_SIGNATURE(nvmlDeviceGetUUID, nvml_DeviceGetString_fn);
GDSIM_SIGNATURE(nvmlDeviceGetSerial, nvml_DeviceGetString_fn);
GDSIM_SIGNATURE(nvmlDeviceGetVbiosVersion, nvml_DeviceGetString_fn);
GDSIM_SIGNATURE(nvmlDeviceGetPciInfo, nvml_DeviceGetPciInfo_fn);
GDSIM_SIGNATURE(nvmlDeviceGetPciInfo_v2, nvml_DeviceGetPciInfo_fn);
GDSIM_SIGNATURE(nvmlDeviceGetPciInfo_v3, nvml_DeviceGetPciInfo_fn);
GDSIM_SIGNATURE(nvmlDeviceGetCudaComputeCapability, nvml_DeviceGetCudaComputeCapability_fn);
GDSIM_SIGNATURE(nvmlDeviceGetMemoryInfo, nvml_DeviceGetMemoryInfo_fn);
GDSIM_SIGNATURE(nvmlDeviceGetMemoryInfo_v2, nvml_DeviceGetMemoryInfo_v2_fn);
GDSIM_SIGNATURE(nvmlDeviceGetTemperature, nvml_DeviceGetTemperature_fn);
GDSIM_SIGNATURE(nvmlDeviceGetTemperatureThreshold, nvml_DeviceGetTemperatureThreshold_fn);
GDSIM_SIGNATURE(nvmlDeviceGetTemperatureV, nvml_DeviceGetTemperatureV_fn);
GDSIM_SIGNATURE(nvmlDeviceGetMarginTemperature, nvml_DeviceGetMarginTemperature_fn);
GDSIM_SIGNATURE(nvmlDeviceGetRetiredPagesPendingStatus, nvml_DeviceGetEnableState_fn);
GDSIM_SIGNATURE(nvmlDeviceGetFieldValues, nvml_DeviceGetFieldValues_fn);
GDSIM_SIGNATURE(nvmlDeviceGetClockInfo, nvml_DeviceGetClockInfo_fn);
GDSIM_SIGNATURE(nvmlDeviceGetMaxClockInfo, nvml_DeviceGetClockInfo_fn);
GDSIM_SIGNATURE(nvmlDeviceGetApplicationsClock, nvml_DeviceGetClockInfo_fn);
GDSIM_SIGNATURE(nvmlDeviceGetDefaultApplicationsClock, nvml_DeviceGetClockInfo_fn);
GDSIM_SIGNATURE(nvmlDeviceGetClock, nvml_DeviceGetClock_fn);
GDSIM_SIGNATURE(nvmlDeviceGetPowerUsage, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceGetEnforcedPowerLimit, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceGetPowerManagementLimit, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceGetPowerManagementDefaultLimit, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceGetPowerManagementLimitConstraints, nvml_DeviceGetPowerManagementLimitConstraints_fn);
GDSIM_SIGNATURE(nvmlDeviceGetTotalEnergyConsumption, nvml_DeviceGetULongLong_fn);
GDSIM_SIGNATURE(nvmlDeviceGetUtilizationRates, nvml_DeviceGetUtilizationRates_fn);
GDSIM_SIGNATURE(nvmlDeviceGetFanSpeed, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceGetCurrPcieLinkGeneration, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceGetCurrPcieLinkWidth, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceGetMaxPcieLinkGeneration, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceGetMaxPcieLinkWidth, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceGetGpuMaxPcieLinkGeneration, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceGetPcieThroughput, nvml_DeviceGetPcieThroughput_fn);
GDSIM_SIGNATURE(nvmlDeviceGetPcieReplayCounter, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceGetCurrentClocksEventReasons, nvml_DeviceGetULongLong_fn);
GDSIM_SIGNATURE(nvmlDeviceGetCurrentClocksThrottleReasons, nvml_DeviceGetULongLong_fn);
GDSIM_SIGNATURE(nvmlDeviceGetViolationStatus, nvml_DeviceGetViolationStatus_fn);
GDSIM_SIGNATURE(nvmlDeviceGetPersistenceMode, nvml_DeviceGetEnableState_fn);
GDSIM_SIGNATURE(nvmlDeviceGetComputeMode, nvml_DeviceGetComputeMode_fn);
GDSIM_SIGNATURE(nvmlDeviceGetMigMode, nvml_DeviceGetMigMode_fn);
GDSIM_SIGNATURE(nvmlDeviceGetEccMode, nvml_DeviceGetEccMode_fn);
GDSIM_SIGNATURE(nvmlDeviceGetTotalEccErrors, nvml_DeviceGetTotalEccErrors_fn);
GDSIM_SIGNATURE(nvmlDeviceGetRetiredPages, nvml_DeviceGetRetiredPages_fn);
GDSIM_SIGNATURE(nvmlDeviceGetRemappedRows, nvml_DeviceGetRemappedRows_fn);
GDSIM_SIGNATURE(nvmlDeviceGetNvLinkState, nvml_DeviceGetNvLinkState_fn);
GDSIM_SIGNATURE(nvmlDeviceGetNvLinkRemotePciInfo_v2, nvml_DeviceGetNvLinkRemotePciInfo_fn);
GDSIM_SIGNATURE(nvmlDeviceGetNvLinkErrorCounter, nvml_DeviceGetNvLinkErrorCounter_fn);
GDSIM_SIGNATURE(nvmlDeviceGetGpuFabricInfo, nvml_DeviceGetGpuFabricInfo_fn);
GDSIM_SIGNATURE(nvmlDeviceGetNvLinkVersion, nvml_DeviceGetNvLinkVersion_fn);
GDSIM_SIGNATURE(nvmlDeviceGetP2PStatus, nvml_DeviceGetP2PStatus_fn);
GDSIM_SIGNATURE(nvmlDeviceGetComputeRunningProcesses, nvml_DeviceGetComputeRunningProcesses_v1_fn);
GDSIM_SIGNATURE(nvmlDeviceGetComputeRunningProcesses_v3, nvml_DeviceGetComputeRunningProcesses_fn);
GDSIM_SIGNATURE(nvmlDeviceGetPerformanceState, nvml_DeviceGetPerformanceState_fn);
GDSIM_SIGNATURE(nvmlDeviceGetIndex, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceGetMinorNumber, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceGetMaxMigDeviceCount, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceGetMigDeviceHandleByIndex, nvml_DeviceGetMigDeviceHandleByIndex_fn);
GDSIM_SIGNATURE(nvmlDeviceGetGpuInstanceId, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceGetComputeInstanceId, nvml_DeviceGetUInt_fn);
GDSIM_SIGNATURE(nvmlDeviceIsMigDeviceHandle, nvml_DeviceGetUInt_fn);
GDSIM_EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set);
GDSIM_EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes);
GDSIM_EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes,
                                                   nvmlEventSet_t set);
GDSIM_EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms);
GDSIM_EXPORT nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *gpmSupport);
GDSIM_EXPORT nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *gpmSample);
GDSIM_EXPORT nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t gpmSample);
GDSIM_EXPORT nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t gpmSample);
GDSIM_EXPORT nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *metricsGet);
GDSIM_SIGNATURE(nvmlEventSetCreate, nvml_EventSetCreate_fn);
GDSIM_SIGNATURE(nvmlEventSetFree, nvml_EventSetFree_fn);
GDSIM_SIGNATURE(nvmlDeviceGetSupportedEventTypes, nvml_DeviceGetULongLong_fn);
GDSIM_SIGNATURE(nvmlDeviceRegisterEvents, nvml_DeviceRegisterEvents_fn);
GDSIM_SIGNATURE(nvmlEventSetWait_v2, nvml_EventSetWait_v2_fn);
GDSIM_SIGNATURE(nvmlGpmQueryDeviceSupport, nvml_GpmQueryDeviceSupport_fn);
GDSIM_SIGNATURE(nvmlGpmSampleAlloc, nvml_GpmSampleAlloc_fn);
GDSIM_SIGNATURE(nvmlGpmSampleFree, nvml_GpmSampleFree_fn);
GDSIM_SIGNATURE(nvmlGpmSampleGet, nvml_GpmSampleGet_fn);
GDSIM_SIGNATURE(nvmlGpmMetricsGet, nvml_GpmMetricsGet_fn);
/* nvml_api.h has no typedef for the _v2 process list (nvmlProcessInfo_v2_t). */

#endif
