/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The successors current drivers answer: nvmlDeviceGetTemperatureV (CUDA
 * 13's replacement of nvmlDeviceGetTemperature), the margin to T.Limit
 * (nvmlDeviceGetMarginTemperature) and the pending page retirement.
 */
#include "nvml_sim.h"

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_t *temperature)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    /* The same sensor: what a scenario injects for the older call holds here too. */
    int code = gd_scenario_error_at(&call.gpu->errors, "nvmlDeviceGetTemperature", call.t);
    if (code && code != NVML_ERROR_DEPRECATED)
        return (nvmlReturn_t)code;
    if (!temperature || temperature->sensorType != NVML_TEMPERATURE_GPU)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (temperature->version != nvmlTemperature_v1)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    unsigned u;
    rc = gdsim_field_uint(&call, GD_SCENARIO_TEMP_C, &u);
    if (rc)
        return rc;
    temperature->temperature = (int)u;
    return NVML_SUCCESS;
}

/* T.Limit minus the temperature; NOT_SUPPORTED without "temperature_limit_c". */
GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMarginTemperature(nvmlDevice_t device, nvmlMarginTemperature_t *marginTempInfo)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!marginTempInfo)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (marginTempInfo->version != nvmlMarginTemperature_v1)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    unsigned u;
    if (!call.gpu->temperature_limit_c.present || gdsim_field_uint(&call, GD_SCENARIO_TEMP_C, &u))
        return NVML_ERROR_NOT_SUPPORTED;
    marginTempInfo->marginTemperature = (int)(call.gpu->temperature_limit_c.value - (long long)u);
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t *isPending)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!isPending)
        return NVML_ERROR_INVALID_ARGUMENT;
    /* Page retirement is pre-Ampere's repair; boards with it report the
     * pending flag when the scenario says (and when they retire pages at all). */
    if (!call.gpu->ecc.retired_pages_pending.present && !call.gpu->ecc.retired_pages.present)
        return NVML_ERROR_NOT_SUPPORTED;
    *isPending = call.gpu->ecc.retired_pages_pending.present && call.gpu->ecc.retired_pages_pending.value
                     ? NVML_FEATURE_ENABLED
                     : NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}
