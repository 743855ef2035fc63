/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated driver's state, initialisation, version, error strings,
 * devices and contexts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudoctor/abi/cuda_result_names.h"
#include "sim_cuda.h"

#define SIM_SCENARIO_ENV "GPUDOCTOR_SIM_SCENARIO"
#define SIM_MIB ((size_t)1 << 20)
/* Device d's buffers live at (d + 1) << 44: 16 TiB apart, never reused. */
#define SIM_DEVICE_ADDR_SHIFT 44

struct sim_cuda sim_cuda_state = {.lock = PTHREAD_MUTEX_INITIALIZER};
static _Thread_local CUcontext sim_current_ctx;

void sim_lock(void)
{
    pthread_mutex_lock(&sim_cuda_state.lock);
}

void sim_unlock(void)
{
    pthread_mutex_unlock(&sim_cuda_state.lock);
}

/* Whether cuInit has succeeded, read under the lock. */
static bool sim_initialized(void)
{
    sim_lock();
    bool initialized = sim_cuda_state.initialized;
    sim_unlock();
    return initialized;
}

bool sim_grow(void **items, size_t *cap, size_t count, size_t elem)
{
    if (count < *cap)
        return true;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*items, ncap * elem);
    if (!p)
        return false;
    *items = p;
    *cap = ncap;
    return true;
}

static size_t mib_bytes(gd_scenario_int mib)
{
    return mib.present && mib.value > 0 ? (size_t)mib.value * SIM_MIB : 0;
}

/* The scenario to play, before cuInit (the caller's context); without it,
 * $GPUDOCTOR_SIM_SCENARIO. Not a CUDA function: only gpudoctor calls it. */
SIM_API void gdsim_scenario_set(const char *path);
SIM_API void gdsim_scenario_set(const char *path)
{
    pthread_mutex_lock(&sim_cuda_state.lock);
    snprintf(sim_cuda_state.scenario_path, sizeof sim_cuda_state.scenario_path, "%s", path ? path : "");
    pthread_mutex_unlock(&sim_cuda_state.lock);
}

/* Loads the scenario once; the caller holds the lock. */
static void sim_load_locked(void)
{
    struct sim_cuda *s = &sim_cuda_state;
    if (s->loaded)
        return;
    s->loaded = true;
    s->init_result = CUDA_ERROR_NO_DEVICE;
    const char *path = s->scenario_path[0] ? s->scenario_path : getenv(SIM_SCENARIO_ENV);
    if (!path || !path[0]) {
        fprintf(stderr, "simulated libcuda: %s is not set: no devices\n", SIM_SCENARIO_ENV);
        return;
    }
    char err[512];
    s->scenario = gd_scenario_load(path, err, sizeof err);
    if (!s->scenario) {
        fprintf(stderr, "simulated libcuda: %s\n", err);
        return;
    }
    s->device_count = (int)s->scenario->gpu_count;
    s->devices = calloc(s->scenario->gpu_count ? s->scenario->gpu_count : 1, sizeof *s->devices);
    if (!s->devices) {
        s->init_result = CUDA_ERROR_OUT_OF_MEMORY;
        return;
    }
    for (int i = 0; i < s->device_count; i++) {
        struct sim_device *d = &s->devices[i];
        d->gpu = &s->scenario->gpus[i];
        d->total_bytes = mib_bytes(d->gpu->memory_total_mib);
        for (size_t p = 0; p < d->gpu->process_count; p++)
            d->foreign_bytes += mib_bytes(d->gpu->processes[p].used_mib);
        d->next_addr = (CUdeviceptr)(i + 1) << SIM_DEVICE_ADDR_SHIFT;
        d->primary = (struct CUctx_st){.magic = SIM_MAGIC_CTX, .device = i, .primary = true};
    }
    s->init_result = s->device_count > 0 ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
}

const struct gd_scenario *gdsim_scenario(void)
{
    sim_lock();
    sim_load_locked();
    const gd_scenario *sc = sim_cuda_state.scenario;
    sim_unlock();
    return sc;
}

/*
 * Frees the whole state when the library is unloaded (dlclose or exit), as
 * the real driver tears down with the process; buffers the program did not
 * free go with it.
 */
__attribute__((destructor)) static void sim_unload(void)
{
    struct sim_cuda *s = &sim_cuda_state;
    for (size_t i = 0; i < s->n_allocs; i++)
        free(s->allocs[i].backing);
    for (size_t i = 0; i < s->n_pinned; i++)
        free(s->pinned[i].ptr);
    free(s->allocs);
    free(s->pinned);
    free(s->devices);
    free(s->peer_enabled);
    gd_scenario_free(s->scenario);
    pthread_mutex_destroy(&s->lock);
}

CUresult cuInit(unsigned int Flags)
{
    if (Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    sim_load_locked();
    CUresult r = sim_cuda_state.init_result;
    sim_cuda_state.initialized = r == CUDA_SUCCESS;
    if (r == CUDA_SUCCESS && !sim_cuda_state.clock_set)
        sim_time_init();
    sim_unlock();
    return r;
}

CUresult cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    sim_load_locked();
    const gd_scenario *sc = sim_cuda_state.scenario;
    CUresult r = CUDA_ERROR_NOT_SUPPORTED;
    if (sc && sc->cuda_driver_version.present) {
        *driverVersion = (int)sc->cuda_driver_version.value;
        r = CUDA_SUCCESS;
    }
    sim_unlock();
    return r;
}

CUresult cuGetErrorName(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    *pStr = gd_cuda_result_name_or_null(error);
    return *pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char **pStr)
{
    static const struct {
        CUresult code;
        const char *text;
    } texts[] = {
        {CUDA_SUCCESS, "no error"},
        {CUDA_ERROR_INVALID_VALUE, "invalid argument"},
        {CUDA_ERROR_OUT_OF_MEMORY, "out of memory"},
        {CUDA_ERROR_NOT_INITIALIZED, "initialization error"},
        {CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"},
        {CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"},
        {CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"},
        {CUDA_ERROR_INVALID_CONTEXT, "invalid device context"},
        {CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"},
        {CUDA_ERROR_NOT_FOUND, "named symbol not found"},
        {CUDA_ERROR_NOT_SUPPORTED, "operation not supported"},
    };
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        if (texts[i].code == error) {
            *pStr = texts[i].text;
            return CUDA_SUCCESS;
        }
    }
    /* Codes without a text of their own are described by their name. */
    return cuGetErrorName(error, pStr);
}

/* The device, after cuInit; the caller holds the lock. */
static CUresult sim_device_locked(CUdevice dev, struct sim_device **out)
{
    if (!sim_cuda_state.initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (dev < 0 || dev >= sim_cuda_state.device_count)
        return CUDA_ERROR_INVALID_DEVICE;
    *out = &sim_cuda_state.devices[dev];
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count)
{
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    CUresult r = sim_cuda_state.initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
    if (r == CUDA_SUCCESS)
        *count = sim_cuda_state.device_count;
    sim_unlock();
    return r;
}

/* The parts of the GPU's PCI bus id; false when the scenario has none. */
static bool sim_bus_id(const gd_scenario_gpu *gpu, unsigned *domain, unsigned *bus, unsigned *device,
                       unsigned *function)
{
    return gpu->pci_bus_id && gd_scenario_parse_bus_id(gpu->pci_bus_id, domain, bus, device, function);
}

/* The device, after cuInit. Its scenario facts never change once loaded,
 * so they are read without the lock. */
static CUresult sim_device(CUdevice dev, const struct sim_device **out)
{
    struct sim_device *d = NULL;
    sim_lock();
    CUresult r = sim_device_locked(dev, &d);
    sim_unlock();
    *out = d;
    return r;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    const struct sim_device *d;
    CUresult r = device ? sim_device(ordinal, &d) : CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS)
        *device = ordinal;
    return r;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    const struct sim_device *d;
    CUresult r = name && len > 0 ? sim_device(dev, &d) : CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS)
        snprintf(name, (size_t)len, "%s", d->gpu->name ? d->gpu->name : "Simulated GPU");
    return r;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    const struct sim_device *d;
    CUresult r = bytes ? sim_device(dev, &d) : CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS)
        *bytes = d->total_bytes;
    return r;
}

CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    const struct sim_device *d;
    unsigned domain, bus, device, function;
    CUresult r = pciBusId && len > 0 ? sim_device(dev, &d) : CUDA_ERROR_INVALID_VALUE;
    if (r != CUDA_SUCCESS)
        return r;
    if (!sim_bus_id(d->gpu, &domain, &bus, &device, &function))
        return CUDA_ERROR_NOT_SUPPORTED;
    snprintf(pciBusId, (size_t)len, "%04X:%02X:%02X.%X", domain, bus, device, function);
    return CUDA_SUCCESS;
}

/* An attribute's value from the scenario; false when it does not say. */
static bool sim_attribute(const gd_scenario_gpu *gpu, CUdevice_attribute attrib, int *value)
{
    unsigned domain, bus, device;
    bool has_bus = sim_bus_id(gpu, &domain, &bus, &device, NULL);
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
        *value = gpu->compute_capability[attrib == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR];
        return gpu->has_compute_capability;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *value = (int)domain; return has_bus;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *value = (int)bus; return has_bus;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *value = (int)device; return has_bus;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
        *value = (int)(gpu->clocks_max_mhz.sm.value * 1000);
        return gpu->clocks_max_mhz.sm.present;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
        *value = (int)(gpu->clocks_max_mhz.mem.value * 1000);
        return gpu->clocks_max_mhz.mem.present;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: *value = gpu->ecc.enabled.value; return gpu->ecc.enabled.present;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: /* CUcomputemode has nvmlComputeMode_t's values */
        *value = (int)gpu->compute_mode;
        return gpu->has_compute_mode;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; return true;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: *value = 0; return true;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS:
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *value = 1; return true;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: *value = 0; return true;
    default: return false;
    }
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    const struct sim_device *d;
    CUresult r = pi ? sim_device(dev, &d) : CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS && !sim_attribute(d->gpu, attrib, pi))
        r = CUDA_ERROR_NOT_SUPPORTED;
    return r;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_device *d;
    sim_lock();
    CUresult r = sim_device_locked(dev, &d);
    if (r == CUDA_SUCCESS) {
        d->primary_refs++;
        *pctx = &d->primary;
    }
    sim_unlock();
    return r;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    struct sim_device *d;
    sim_lock();
    CUresult r = sim_device_locked(dev, &d);
    if (r == CUDA_SUCCESS) {
        if (d->primary_refs > 0)
            d->primary_refs--;
        else
            r = CUDA_ERROR_INVALID_CONTEXT;
    }
    sim_unlock();
    return r;
}

/* The older export, same signature: drivers keep both. */
CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return cuDevicePrimaryCtxRelease_v2(dev);
}

CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    (void)flags;
    const struct sim_device *d;
    CUresult r = pctx ? sim_device(dev, &d) : CUDA_ERROR_INVALID_VALUE;
    if (r != CUDA_SUCCESS)
        return r;
    CUcontext ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *ctx = (struct CUctx_st){.magic = SIM_MAGIC_CTX, .device = dev, .primary = false};
    sim_current_ctx = ctx;
    *pctx = ctx;
    return CUDA_SUCCESS;
}

CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    if (!ctx || ctx->magic != SIM_MAGIC_CTX || ctx->primary)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (sim_current_ctx == ctx)
        sim_current_ctx = NULL;
    ctx->magic = 0;
    free(ctx);
    return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (ctx && ctx->magic != SIM_MAGIC_CTX)
        return CUDA_ERROR_INVALID_CONTEXT;
    sim_current_ctx = ctx;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    *pctx = sim_current_ctx;
    return CUDA_SUCCESS;
}

CUresult sim_current_device(int *device)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    CUcontext ctx = sim_current_ctx;
    if (!ctx || ctx->magic != SIM_MAGIC_CTX)
        return CUDA_ERROR_INVALID_CONTEXT;
    *device = ctx->device;
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void)
{
    int device;
    return sim_current_device(&device); /* everything has completed already */
}
