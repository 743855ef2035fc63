/* SPDX-License-Identifier: Apache-2.0 */
/* System-level calls: versions, the device count and handles. */
#include <stdio.h>

#include "nvml_sim.h"

GDSIM_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    GDSIM_COUNTED();
    const gd_scenario *sc;
    nvmlReturn_t rc = gdsim_enter_system(__func__, &sc);
    if (rc)
        return rc;
    if (!version)
        return NVML_ERROR_INVALID_ARGUMENT;
    return gdsim_copy_string(sc->driver_version, version, length);
}

/* The NVML library's version is "<CUDA major>.<driver version>", e.g. "12.550.54.15". */
GDSIM_EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
    GDSIM_COUNTED();
    const gd_scenario *sc;
    nvmlReturn_t rc = gdsim_enter_system(__func__, &sc);
    if (rc)
        return rc;
    if (!version)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!sc->driver_version || !sc->cuda_driver_version.present)
        return NVML_ERROR_NOT_SUPPORTED;
    char buf[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE + 16];
    snprintf(buf, sizeof buf, "%d.%s", (int)NVML_CUDA_DRIVER_VERSION_MAJOR(sc->cuda_driver_version.value),
             sc->driver_version);
    return gdsim_copy_string(buf, version, length);
}

static nvmlReturn_t cuda_version(const char *fn, int *out)
{
    const gd_scenario *sc;
    nvmlReturn_t rc = gdsim_enter_system(fn, &sc);
    if (rc)
        return rc;
    if (!out)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!sc->cuda_driver_version.present)
        return NVML_ERROR_NOT_SUPPORTED;
    *out = (int)sc->cuda_driver_version.value;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
    GDSIM_COUNTED();
    return cuda_version(__func__, cudaDriverVersion);
}

GDSIM_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
    GDSIM_COUNTED();
    return cuda_version(__func__, cudaDriverVersion);
}

static nvmlReturn_t device_count(const char *fn, unsigned int *count)
{
    const gd_scenario *sc;
    nvmlReturn_t rc = gdsim_enter_system(fn, &sc);
    if (rc)
        return rc;
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    *count = (unsigned)sc->gpu_count;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount)
{
    GDSIM_COUNTED();
    return device_count(__func__, deviceCount);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
    GDSIM_COUNTED();
    return device_count(__func__, deviceCount);
}

static nvmlReturn_t handle_by_index(const char *fn, unsigned int index, nvmlDevice_t *device)
{
    gdsim_call call;
    nvmlDevice_t handle = NULL;
    nvmlReturn_t rc = gdsim_enter_index(index, fn, &call, &handle);
    if (rc)
        return rc;
    if (!device)
        return NVML_ERROR_INVALID_ARGUMENT;
    *device = handle;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
    GDSIM_COUNTED();
    return handle_by_index(__func__, index, device);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    GDSIM_COUNTED();
    return handle_by_index(__func__, index, device);
}
