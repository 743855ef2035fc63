/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nvmlInit / nvmlShutdown, the scenario clock, and the entry checks every
 * other function starts with.
 *
 * NVML is a process-wide library, so this is the one place with file-scope
 * state: the loaded scenario, the init count and the clock origin, under one
 * mutex.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvml_sim.h"

static struct {
    pthread_mutex_t lock;
    unsigned init_count;
    gd_scenario *scenario;
    double timescale;
    bool have_origin;
    struct timespec origin; /* first successful nvmlInit of the process */
    bool external; /* gdsim_clock_set was called: the caller's time rules */
    char scenario_path[4096]; /* gdsim_scenario_set, else $GPUDOCTOR_SIM_SCENARIO */
    double external_s;
    double spent_s; /* scenario seconds the calls blocked since the caller's last gdsim_clock_set */
    char last_error[1024];
} sim = {.lock = PTHREAD_MUTEX_INITIALIZER};

static struct nvmlDevice_st devices[GD_SCENARIO_MAX_GPUS];
static struct nvmlDevice_st mig_devices[GD_SCENARIO_MAX_GPUS][GD_SCENARIO_MAX_MIG];

const char *gdsim_last_error(void)
{
    return sim.last_error;
}

/* Reads GPUDOCTOR_SIM_TIMESCALE when set; false (with a message) when it is not a positive number. */
static bool env_timescale(double *out)
{
    const char *s = getenv("GPUDOCTOR_SIM_TIMESCALE");
    char *end;
    if (!s)
        return true;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno || !(v > 0) || !isfinite(v)) {
        snprintf(sim.last_error, sizeof sim.last_error, "GPUDOCTOR_SIM_TIMESCALE: \"%s\" is not a positive number", s);
        return false;
    }
    *out = v;
    return true;
}

GDSIM_EXPORT void gdsim_scenario_set(const char *path)
{
    pthread_mutex_lock(&sim.lock);
    snprintf(sim.scenario_path, sizeof sim.scenario_path, "%s", path ? path : "");
    pthread_mutex_unlock(&sim.lock);
}

static nvmlReturn_t load_locked(void)
{
    const char *path = sim.scenario_path[0] ? sim.scenario_path : getenv("GPUDOCTOR_SIM_SCENARIO");
    if (!path || !*path) {
        snprintf(sim.last_error, sizeof sim.last_error,
                 "GPUDOCTOR_SIM_SCENARIO is not set: the simulated NVML needs a scenario file");
        return NVML_ERROR_DRIVER_NOT_LOADED;
    }
    gd_scenario *sc = gd_scenario_load(path, sim.last_error, sizeof sim.last_error);
    if (!sc)
        return NVML_ERROR_UNKNOWN;
    double timescale = sc->timescale;
    if (!env_timescale(&timescale)) {
        gd_scenario_free(sc);
        return NVML_ERROR_UNKNOWN;
    }
    int injected = gd_scenario_error_at(&sc->errors, "nvmlInit", 0);
    if (injected) {
        snprintf(sim.last_error, sizeof sim.last_error, "%.900s: nvmlInit fails by the scenario's \"errors\"", path);
        gd_scenario_free(sc);
        return (nvmlReturn_t)injected;
    }
    for (unsigned i = 0; i < GD_SCENARIO_MAX_GPUS; i++) {
        devices[i] = (struct nvmlDevice_st){.index = i, .mig = -1};
        for (int m = 0; m < GD_SCENARIO_MAX_MIG; m++)
            mig_devices[i][m] = (struct nvmlDevice_st){.index = i, .mig = m};
    }
    sim.scenario = sc;
    sim.timescale = timescale;
    sim.last_error[0] = '\0';
    if (!sim.have_origin) {
        clock_gettime(CLOCK_MONOTONIC, &sim.origin);
        sim.have_origin = true;
    }
    return NVML_SUCCESS;
}

static nvmlReturn_t init(void)
{
    nvmlReturn_t rc = NVML_SUCCESS;
    pthread_mutex_lock(&sim.lock);
    if (sim.init_count == 0)
        rc = load_locked();
    if (rc == NVML_SUCCESS)
        sim.init_count++;
    pthread_mutex_unlock(&sim.lock);
    return rc;
}

GDSIM_EXPORT nvmlReturn_t nvmlInit_v2(void)
{
    GDSIM_COUNTED();
    return init();
}

GDSIM_EXPORT nvmlReturn_t nvmlInit(void)
{
    GDSIM_COUNTED();
    return init();
}

GDSIM_EXPORT nvmlReturn_t nvmlShutdown(void)
{
    GDSIM_COUNTED();
    nvmlReturn_t rc = NVML_SUCCESS;
    pthread_mutex_lock(&sim.lock);
    if (sim.init_count == 0) {
        rc = NVML_ERROR_UNINITIALIZED;
    } else if (--sim.init_count == 0) {
        gd_scenario_free(sim.scenario);
        sim.scenario = NULL;
    }
    bool last = rc == NVML_SUCCESS && sim.init_count == 0;
    pthread_mutex_unlock(&sim.lock);
    if (last)
        gdsim_count_write();
    return rc;
}

/* Scenario seconds now; the caller holds the lock and init_count > 0. */
static double now_locked(void)
{
    if (sim.external)
        return sim.external_s + sim.spent_s;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double s = (double)(ts.tv_sec - sim.origin.tv_sec) + (double)(ts.tv_nsec - sim.origin.tv_nsec) * 1e-9;
    return s * sim.timescale;
}

GDSIM_EXPORT void gdsim_clock_set(double scenario_s)
{
    pthread_mutex_lock(&sim.lock);
    sim.external = true;
    sim.external_s = scenario_s;
    sim.spent_s = 0;
    pthread_mutex_unlock(&sim.lock);
    gdsim_cpu_marks_at(scenario_s);
}

GDSIM_EXPORT double gdsim_clock_spent(void)
{
    pthread_mutex_lock(&sim.lock);
    double s = sim.spent_s;
    pthread_mutex_unlock(&sim.lock);
    return s;
}

void gdsim_block(double scenario_s)
{
    pthread_mutex_lock(&sim.lock);
    bool external = sim.external;
    double timescale = sim.timescale > 0 ? sim.timescale : 1.0;
    if (external)
        sim.spent_s += scenario_s; /* the caller's clock moves on by it (gd_clock_spend) */
    pthread_mutex_unlock(&sim.lock);
    if (external)
        return;
    double wall = scenario_s / timescale;
    struct timespec ts = {.tv_sec = (time_t)wall, .tv_nsec = (long)((wall - (double)(time_t)wall) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

int gdsim_driver_major(void)
{
    pthread_mutex_lock(&sim.lock);
    int major = sim.scenario && sim.scenario->driver_version ? atoi(sim.scenario->driver_version) : 0;
    pthread_mutex_unlock(&sim.lock);
    return major;
}

double gdsim_timescale(void)
{
    if (sim.external)
        return 1.0; /* counters follow the caller's scenario seconds */
    return sim.timescale > 0 ? sim.timescale : 1.0;
}

unsigned long long gdsim_realtime_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000ULL;
}

/* Injection for one GPU: the function's own entry, else a lost GPU is lost for every call. */
static nvmlReturn_t injected(const gd_scenario_gpu *gpu, const char *fn, double t)
{
    int code = gd_scenario_error_at(&gpu->errors, fn, t);
    if (code)
        return (nvmlReturn_t)code;
    if (gd_scenario_code_active(&gpu->errors, NVML_ERROR_GPU_IS_LOST, t))
        return NVML_ERROR_GPU_IS_LOST;
    return gdsim_deprecated(sim.scenario, fn);
}

nvmlReturn_t gdsim_enter_index(unsigned index, const char *fn, gdsim_call *call, nvmlDevice_t *device)
{
    nvmlReturn_t rc = NVML_SUCCESS;
    pthread_mutex_lock(&sim.lock);
    if (sim.init_count == 0) {
        rc = NVML_ERROR_UNINITIALIZED;
    } else if (index >= sim.scenario->gpu_count) {
        rc = NVML_ERROR_INVALID_ARGUMENT;
    } else {
        call->gpu = &sim.scenario->gpus[index];
        call->mig = NULL;
        call->t = now_locked();
        if (device)
            *device = &devices[index];
        rc = injected(call->gpu, fn, call->t);
    }
    pthread_mutex_unlock(&sim.lock);
    return rc;
}

nvmlDevice_t gdsim_mig_handle(unsigned index, unsigned m)
{
    return &mig_devices[index][m];
}

/* Whether fn answers for a MIG device's handle (NVML's documentation of each call). */
static bool mig_call(const char *fn)
{
    static const char *const allowed[] = {
        "nvmlDeviceGetName",           "nvmlDeviceGetUUID",
        "nvmlDeviceGetMemoryInfo",     "nvmlDeviceGetMemoryInfo_v2",
        "nvmlDeviceGetGpuInstanceId",  "nvmlDeviceGetComputeInstanceId",
        "nvmlDeviceIsMigDeviceHandle", "nvmlDeviceGetDeviceHandleFromMigDeviceHandle"};
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (strcmp(fn, allowed[i]) == 0)
            return true;
    return false;
}

/* The handle's table entry, or NULL when the address is not one of ours. */
static const struct nvmlDevice_st *handle_of(nvmlDevice_t device)
{
    uintptr_t at = (uintptr_t)device, first = (uintptr_t)devices, mfirst = (uintptr_t)mig_devices;
    if (at >= first && at < first + sizeof devices && (at - first) % sizeof devices[0] == 0)
        return device;
    if (at >= mfirst && at < mfirst + sizeof mig_devices && (at - mfirst) % sizeof mig_devices[0][0] == 0)
        return device;
    return NULL;
}

nvmlReturn_t gdsim_enter(nvmlDevice_t device, const char *fn, gdsim_call *call)
{
    /* Handles are addresses in `devices` or `mig_devices`; anything else is not ours. */
    const struct nvmlDevice_st *h = handle_of(device);
    if (!h) {
        pthread_mutex_lock(&sim.lock);
        nvmlReturn_t rc = sim.init_count ? NVML_ERROR_INVALID_ARGUMENT : NVML_ERROR_UNINITIALIZED;
        pthread_mutex_unlock(&sim.lock);
        return rc;
    }
    call->mig = NULL;
    nvmlReturn_t rc = gdsim_enter_index(h->index, fn, call, NULL);
    if (rc != NVML_SUCCESS || h->mig < 0)
        return rc;
    if ((size_t)h->mig >= call->gpu->mig_count)
        return NVML_ERROR_INVALID_ARGUMENT; /* a handle of a MIG device the scenario no longer has */
    if (!mig_call(fn))
        return NVML_ERROR_NOT_SUPPORTED;
    call->mig = &call->gpu->mig[h->mig];
    return NVML_SUCCESS;
}

nvmlReturn_t gdsim_enter_system(const char *fn, const gd_scenario **sc)
{
    nvmlReturn_t rc = NVML_SUCCESS;
    pthread_mutex_lock(&sim.lock);
    if (sim.init_count == 0) {
        rc = NVML_ERROR_UNINITIALIZED;
    } else {
        *sc = sim.scenario;
        rc = (nvmlReturn_t)gd_scenario_error_at(&sim.scenario->errors, fn, now_locked());
        if (rc == NVML_SUCCESS)
            rc = gdsim_deprecated(sim.scenario, fn);
    }
    pthread_mutex_unlock(&sim.lock);
    return rc;
}

/* True when the scenario's top-level "errors" make nvmlErrorString fail:
 * it then answers NULL, which nvml.h does not rule out. */
static bool error_string_fails(void)
{
    pthread_mutex_lock(&sim.lock);
    bool fails = sim.scenario && gd_scenario_error_at(&sim.scenario->errors, "nvmlErrorString", 0) != 0;
    pthread_mutex_unlock(&sim.lock);
    return fails;
}

GDSIM_EXPORT const char *nvmlErrorString(nvmlReturn_t result)
{
    GDSIM_COUNTED();
    if (error_string_fails())
        return NULL;
    switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_ALREADY_INITIALIZED: return "Already Initialized";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_INSUFFICIENT_POWER: return "Insufficient External Power";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT: return "Timeout";
    case NVML_ERROR_IRQ_ISSUE: return "Interrupt request issue";
    case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML Shared Library Not Found";
    case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
    case NVML_ERROR_CORRUPTED_INFOROM: return "Corrupted infoROM";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_RESET_REQUIRED: return "GPU requires restart";
    case NVML_ERROR_OPERATING_SYSTEM: return "The operating system has blocked the request.";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "RM has detected an NVML/RM version mismatch.";
    case NVML_ERROR_IN_USE: return "In use by another client";
    case NVML_ERROR_MEMORY: return "Insufficient Memory";
    case NVML_ERROR_NO_DATA: return "No data";
    case NVML_ERROR_VGPU_ECC_NOT_SUPPORTED: return "ECC is not supported on this vGPU";
    case NVML_ERROR_INSUFFICIENT_RESOURCES: return "Insufficient resources";
    case NVML_ERROR_FREQ_NOT_SUPPORTED: return "Frequency not supported";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "Argument version mismatch";
    case NVML_ERROR_DEPRECATED: return "Deprecated";
    case NVML_ERROR_NOT_READY: return "Not ready";
    case NVML_ERROR_GPU_NOT_FOUND: return "GPU not found";
    case NVML_ERROR_INVALID_STATE: return "Invalid state";
    case NVML_ERROR_UNKNOWN: return "Unknown Error";
    }
    return "Unknown Error";
}
