/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NVML_ERROR_DEPRECATED, per call, as the scenario's driver answers it.
 *
 * Sources: the CUDA 13.0 nvml.h marks the temperature, application-clock and
 * violation queries deprecated, to answer NVML_ERROR_DEPRECATED from CUDA
 * 14.0; real R590 and R610 captures (nvidia-smi -q) already print
 * "Requested functionality has been deprecated" for the application clocks;
 * R610's nvidia-smi marks "Driver Version" and "CUDA Version" deprecated
 * ("will be removed in CUDA 14.0. Use KMD Version / CUDA UMD Version").
 * A scenario's "errors" still win over this table.
 */
#include <stdlib.h>
#include <string.h>

#include "nvml_sim.h"

#define CUDA_14 14000 /* cuda_driver_version of a CUDA 14 driver */

static const struct {
    const char *fn;
    int from_driver; /* driver major from which the call answers DEPRECATED; 0: only by CUDA version */
    int from_cuda; /* cuda_driver_version from which it does; 0: only by driver */
} table[] = {
    {"nvmlDeviceGetApplicationsClock", 590, 0},
    {"nvmlDeviceGetDefaultApplicationsClock", 590, 0},
    {"nvmlDeviceGetTemperature", 0, CUDA_14},
    {"nvmlDeviceGetTemperatureThreshold", 0, CUDA_14},
    {"nvmlDeviceGetViolationStatus", 0, CUDA_14},
    {"nvmlSystemGetDriverVersion", 0, CUDA_14},
    {"nvmlSystemGetCudaDriverVersion", 0, CUDA_14},
};

nvmlReturn_t gdsim_deprecated(const gd_scenario *sc, const char *fn)
{
    if (!sc || !fn)
        return NVML_SUCCESS;
    int major = sc->driver_version ? atoi(sc->driver_version) : 0;
    long long cuda = sc->cuda_driver_version.present ? sc->cuda_driver_version.value : 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i].fn, fn) != 0)
            continue;
        if ((table[i].from_driver && major >= table[i].from_driver) || (table[i].from_cuda && cuda >= table[i].from_cuda))
            return NVML_ERROR_DEPRECATED;
    }
    return NVML_SUCCESS;
}
