/* SPDX-License-Identifier: Apache-2.0 */
/* Identity and configuration: names, ids, PCI info, modes; and the small helpers they share. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nvml_sim.h"

nvmlReturn_t gdsim_copy_string(const char *s, char *buf, unsigned length)
{
    if (!s)
        return NVML_ERROR_NOT_SUPPORTED;
    size_t n = strlen(s);
    if (n + 1 > length)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(buf, s, n + 1);
    return NVML_SUCCESS;
}

nvmlReturn_t gdsim_field_uint(const gdsim_call *call, gd_scenario_field field, unsigned *out)
{
    gd_scenario_value v = gd_scenario_value_at(call->gpu, field, call->t);
    if (v.status != GD_SCENARIO_SET)
        return NVML_ERROR_NOT_SUPPORTED;
    *out = (unsigned)lround(v.value); /* the parser bounds every field below UINT_MAX */
    return NVML_SUCCESS;
}

unsigned long long gdsim_to_ull(double v)
{
    if (!(v > 0))
        return 0;
    return v >= 18446744073709551615.0 ? ~0ULL : (unsigned long long)(v + 0.5);
}

nvmlReturn_t gdsim_int_uint(gd_scenario_int v, unsigned *out)
{
    if (!v.present)
        return NVML_ERROR_NOT_SUPPORTED;
    *out = (unsigned)v.value;
    return NVML_SUCCESS;
}

/* A made-up but stable PCI device id per board name: 0xXXXX10DE, NVIDIA's vendor id below. */
static unsigned device_id(const char *name)
{
    unsigned h = 2166136261u;
    for (const char *c = name ? name : ""; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    return ((h & 0xffffu) << 16) | 0x10deu;
}

nvmlReturn_t gdsim_fill_pci(const char *bus_id, const char *gpu_name, nvmlPciInfo_t *pci)
{
    unsigned domain, bus, device, function;
    if (!bus_id || !gd_scenario_parse_bus_id(bus_id, &domain, &bus, &device, &function))
        return NVML_ERROR_NOT_SUPPORTED;
    memset(pci, 0, sizeof *pci);
    pci->domain = domain;
    pci->bus = bus;
    pci->device = device;
    pci->pciDeviceId = device_id(gpu_name);
    pci->pciSubSystemId = 0;
    snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.%X", domain, bus, device, function);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.%X", domain & 0xffffu, bus, device, function);
    return NVML_SUCCESS;
}

enum device_text { TEXT_NAME, TEXT_UUID, TEXT_SERIAL, TEXT_VBIOS };

static const char *text_of(const gd_scenario_gpu *gpu, enum device_text which)
{
    switch (which) {
    case TEXT_NAME: return gpu->name;
    case TEXT_UUID: return gpu->uuid;
    case TEXT_SERIAL: return gpu->serial;
    case TEXT_VBIOS: return gpu->vbios_version;
    }
    return NULL;
}

static nvmlReturn_t device_string(nvmlDevice_t device, const char *fn, enum device_text which, char *buf,
                                  unsigned length)
{
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, fn, &call);
    if (rc)
        return rc;
    if (!buf)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (call.mig && which == TEXT_NAME) { /* as the driver names one: "NVIDIA H100 80GB HBM3 MIG 1g.10gb" */
        char name[256];
        if (!call.gpu->name || !call.mig->profile)
            return NVML_ERROR_NOT_SUPPORTED;
        snprintf(name, sizeof name, "%s MIG %s", call.gpu->name, call.mig->profile);
        return gdsim_copy_string(name, buf, length);
    }
    return gdsim_copy_string(call.mig ? call.mig->uuid : text_of(call.gpu, which), buf, length);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    GDSIM_COUNTED();
    return device_string(device, __func__, TEXT_NAME, name, length);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    GDSIM_COUNTED();
    return device_string(device, __func__, TEXT_UUID, uuid, length);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length)
{
    GDSIM_COUNTED();
    return device_string(device, __func__, TEXT_SERIAL, serial, length);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char *version, unsigned int length)
{
    GDSIM_COUNTED();
    return device_string(device, __func__, TEXT_VBIOS, version, length);
}

static nvmlReturn_t pci_info(nvmlDevice_t device, const char *fn, nvmlPciInfo_t *pci)
{
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, fn, &call);
    if (rc)
        return rc;
    if (!pci)
        return NVML_ERROR_INVALID_ARGUMENT;
    return gdsim_fill_pci(call.gpu->pci_bus_id, call.gpu->name, pci);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    GDSIM_COUNTED();
    return pci_info(device, __func__, pci);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    GDSIM_COUNTED();
    return pci_info(device, __func__, pci);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    GDSIM_COUNTED();
    return pci_info(device, __func__, pci);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!major || !minor)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!call.gpu->has_compute_capability)
        return NVML_ERROR_NOT_SUPPORTED;
    *major = call.gpu->compute_capability[0];
    *minor = call.gpu->compute_capability[1];
    return NVML_SUCCESS;
}

/* The index, and the minor number (/dev/nvidiaN), which the simulation makes the same. */
static nvmlReturn_t device_index(nvmlDevice_t device, const char *fn, unsigned *out)
{
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, fn, &call);
    if (rc)
        return rc;
    if (!out)
        return NVML_ERROR_INVALID_ARGUMENT;
    *out = call.gpu->index;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
    GDSIM_COUNTED();
    return device_index(device, __func__, index);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber)
{
    GDSIM_COUNTED();
    return device_index(device, __func__, minorNumber);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!mode)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!call.gpu->persistence_mode.present)
        return NVML_ERROR_NOT_SUPPORTED;
    *mode = call.gpu->persistence_mode.value ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!mode)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!call.gpu->has_compute_mode)
        return NVML_ERROR_NOT_SUPPORTED;
    _Static_assert(GD_SCENARIO_COMPUTE_EXCLUSIVE_PROCESS == (int)NVML_COMPUTEMODE_EXCLUSIVE_PROCESS &&
                       GD_SCENARIO_COMPUTE_PROHIBITED == (int)NVML_COMPUTEMODE_PROHIBITED,
                   "scenario compute modes use NVML's values");
    *mode = (nvmlComputeMode_t)call.gpu->compute_mode;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode,
                                               unsigned int *pendingMode)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!currentMode || !pendingMode)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!call.gpu->mig_mode.present)
        return NVML_ERROR_NOT_SUPPORTED;
    *currentMode = *pendingMode = call.gpu->mig_mode.value ? 1u : 0u; /* NVML_DEVICE_MIG_ENABLE = 1 */
    return NVML_SUCCESS;
}

/* --- MIG devices ---------------------------------------------------------- */

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    /* Zero when MIG is not supported or not enabled (nvml.h). */
    *count = call.gpu->mig_mode.present && call.gpu->mig_mode.value ? GD_SCENARIO_MAX_MIG : 0;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
                                                              nvmlDevice_t *migDevice)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!migDevice || index >= GD_SCENARIO_MAX_MIG)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!call.gpu->mig_mode.present || !call.gpu->mig_mode.value)
        return NVML_ERROR_NOT_SUPPORTED;
    if (index >= call.gpu->mig_count)
        return NVML_ERROR_NOT_FOUND;
    *migDevice = gdsim_mig_handle(call.gpu->index, index);
    return NVML_SUCCESS;
}

static nvmlReturn_t instance_id(nvmlDevice_t device, const char *fn, bool compute, unsigned int *id)
{
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, fn, &call);
    if (rc)
        return rc;
    if (!id || !call.mig)
        return NVML_ERROR_INVALID_ARGUMENT; /* the GPU's own handle is no MIG device's */
    *id = compute ? call.mig->compute_instance_id : call.mig->gpu_instance_id;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
    GDSIM_COUNTED();
    return instance_id(device, __func__, false, id);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
    GDSIM_COUNTED();
    return instance_id(device, __func__, true, id);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice)
{
    GDSIM_COUNTED();
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, __func__, &call);
    if (rc)
        return rc;
    if (!isMigDevice)
        return NVML_ERROR_INVALID_ARGUMENT;
    *isMigDevice = call.mig != NULL;
    return NVML_SUCCESS;
}
