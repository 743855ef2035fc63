/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A bare NVML library for the loader's tests: it exports only enough to
 * enumerate GPUs, as a very old or stripped-down libnvidia-ml.so.1 might.
 * Built in several variants (tests/sim/CMakeLists.txt):
 *   STUB_V2      exports nvmlInit_v2, nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2
 *   STUB_LEGACY  exports the unversioned nvmlInit, nvmlDeviceGetCount, nvmlDeviceGetHandleByIndex
 * (both: the loader must take the versioned ones); neither: only init and
 * shutdown, so a required function is missing. The versioned names answer
 * STUB_V2_GPUS GPUs and the plain ones STUB_LEGACY_GPUS, so a test can tell
 * which one the loader picked.
 *
 * PCI information: STUB_V2 exports nvmlDeviceGetPciInfo_v3 (buses 1B, 1C...),
 * STUB_LEGACY the unversioned v1 nvmlDeviceGetPciInfo (buses 3B, 3C...),
 * which fills the old nvmlPciInfo_t: a 16-byte busId first and reserved
 * words where today's struct has its 32-byte busId.
 */
#include "gpudoctor/abi/nvml_api.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define STUB_V2_GPUS 2u
#define STUB_LEGACY_GPUS 3u

#define EXPORT __attribute__((visibility("default")))

static int inits;

#if defined(STUB_V2) || defined(STUB_LEGACY)
static struct nvmlDevice_st {
    int unused;
} devices[4];

static nvmlReturn_t count(unsigned int *n, unsigned int gpus)
{
    if (!inits)
        return NVML_ERROR_UNINITIALIZED;
    if (!n)
        return NVML_ERROR_INVALID_ARGUMENT;
    *n = gpus;
    return NVML_SUCCESS;
}

/* The index of d's GPU in *i, for a call that writes to out. */
static nvmlReturn_t gpu_of(nvmlDevice_t d, const void *out, unsigned *i)
{
    if (!inits)
        return NVML_ERROR_UNINITIALIZED;
    for (*i = 0; *i < sizeof devices / sizeof devices[0]; (*i)++)
        if (d == &devices[*i])
            return out ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
    return NVML_ERROR_INVALID_ARGUMENT;
}

static nvmlReturn_t handle(unsigned int i, nvmlDevice_t *d, unsigned int gpus)
{
    if (!inits)
        return NVML_ERROR_UNINITIALIZED;
    if (!d || i >= gpus)
        return NVML_ERROR_INVALID_ARGUMENT;
    *d = &devices[i];
    return NVML_SUCCESS;
}
#endif

EXPORT nvmlReturn_t nvmlShutdown(void)
{
    if (!inits)
        return NVML_ERROR_UNINITIALIZED;
    inits--;
    return NVML_SUCCESS;
}

#if defined(STUB_V2) || !defined(STUB_LEGACY)
EXPORT nvmlReturn_t nvmlInit_v2(void)
{
    inits++;
    return NVML_SUCCESS;
}
#endif

#ifdef STUB_V2
EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n)
{
    return count(n, STUB_V2_GPUS);
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
    return handle(i, d, STUB_V2_GPUS);
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *pci)
{
    unsigned i;
    nvmlReturn_t rc = gpu_of(d, pci, &i);
    if (rc != NVML_SUCCESS)
        return rc;
    memset(pci, 0, sizeof *pci);
    pci->bus = 0x1bu + i;
    snprintf(pci->busId, sizeof pci->busId, "00000000:%02X:00.0", pci->bus);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "0000:%02X:00.0", pci->bus);
    return NVML_SUCCESS;
}
#endif

#ifdef STUB_LEGACY
EXPORT nvmlReturn_t nvmlInit(void)
{
    inits++;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *n)
{
    return count(n, STUB_LEGACY_GPUS);
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int i, nvmlDevice_t *d)
{
    return handle(i, d, STUB_LEGACY_GPUS);
}

/* nvmlPciInfo_t as nvml.h declared it when only the v1 function existed. */
typedef struct pci_info_v1 {
    char busId[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    unsigned int reserved0, reserved1, reserved2, reserved3;
} pci_info_v1;

_Static_assert(offsetof(pci_info_v1, busId) == offsetof(nvmlPciInfo_t, busIdLegacy), "busId[16] comes first");
_Static_assert(offsetof(pci_info_v1, reserved0) == offsetof(nvmlPciInfo_t, busId),
               "the reserved words lie where today's busId is");

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t d, nvmlPciInfo_t *pci)
{
    unsigned i;
    nvmlReturn_t rc = gpu_of(d, pci, &i);
    if (rc != NVML_SUCCESS)
        return rc;
    pci_info_v1 old;
    memset(&old, 0, sizeof old);
    old.bus = 0x3bu + i;
    snprintf(old.busId, sizeof old.busId, "0000:%02X:00.0", old.bus);
    memcpy(pci, &old, sizeof old); /* an old driver writes no further */
    return NVML_SUCCESS;
}
#endif
