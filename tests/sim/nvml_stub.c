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
 */
#include "gpudoctor/nvml_api.h"

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
#endif
