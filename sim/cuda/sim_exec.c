/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Simulated streams, events, modules and kernel launches (see sim_cuda.h
 * for the GEMM timing convention).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpudoctor/abi/nvml_api.h"
#include "sim_cuda.h"

#define SIM_MAX_KERNEL_NAME 256

struct CUstream_st {
    uint32_t magic;
    int device;
};

struct CUevent_st {
    uint32_t magic;
    unsigned int flags;
    bool recorded;
    struct timespec when;
};

struct CUfunc_st {
    uint32_t magic;
    int device;
    char name[SIM_MAX_KERNEL_NAME];
};

struct CUmod_st {
    uint32_t magic;
    size_t n_funcs;
    struct CUfunc_st *funcs;
};

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    int dev;
    CUresult r = sim_current_device(&dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!phStream || (Flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
        return CUDA_ERROR_INVALID_VALUE;
    CUstream s = calloc(1, sizeof *s);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *s = (struct CUstream_st){.magic = SIM_MAGIC_STREAM, .device = dev};
    *phStream = s;
    return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream hStream)
{
    if (!hStream || hStream->magic != SIM_MAGIC_STREAM)
        return CUDA_ERROR_INVALID_HANDLE;
    hStream->magic = 0;
    free(hStream);
    return CUDA_SUCCESS;
}

/* NULL is the default stream; other handles must be live streams. */
static CUresult check_stream(CUstream hStream)
{
    int dev;
    CUresult r = sim_current_device(&dev);
    if (r != CUDA_SUCCESS)
        return r;
    return !hStream || hStream->magic == SIM_MAGIC_STREAM ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuStreamSynchronize(CUstream hStream)
{
    return check_stream(hStream); /* work on it has completed already */
}

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    int dev;
    CUresult r = sim_current_device(&dev);
    if (r != CUDA_SUCCESS)
        return r;
    unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
    if (!phEvent || (Flags & ~known))
        return CUDA_ERROR_INVALID_VALUE;
    CUevent e = calloc(1, sizeof *e);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *e = (struct CUevent_st){.magic = SIM_MAGIC_EVENT, .flags = Flags};
    *phEvent = e;
    return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    CUresult r = check_stream(hStream);
    if (r != CUDA_SUCCESS)
        return r;
    if (!hEvent || hEvent->magic != SIM_MAGIC_EVENT)
        return CUDA_ERROR_INVALID_HANDLE;
    hEvent->when = sim_stream_now();
    hEvent->recorded = true;
    return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent hEvent)
{
    if (!hEvent || hEvent->magic != SIM_MAGIC_EVENT)
        return CUDA_ERROR_INVALID_HANDLE;
    return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    if (!pMilliseconds)
        return CUDA_ERROR_INVALID_VALUE;
    if (!hStart || hStart->magic != SIM_MAGIC_EVENT || !hEnd || hEnd->magic != SIM_MAGIC_EVENT)
        return CUDA_ERROR_INVALID_HANDLE;
    /* As the driver does: never-recorded or timing-disabled events have no time. */
    if (!hStart->recorded || !hEnd->recorded || ((hStart->flags | hEnd->flags) & CU_EVENT_DISABLE_TIMING))
        return CUDA_ERROR_INVALID_HANDLE;
    *pMilliseconds = (float)sim_elapsed_ms(hStart->when, hEnd->when);
    return CUDA_SUCCESS;
}

/* The pre-CUDA-13 export, same signature. */
CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}

CUresult cuEventDestroy_v2(CUevent hEvent)
{
    if (!hEvent || hEvent->magic != SIM_MAGIC_EVENT)
        return CUDA_ERROR_INVALID_HANDLE;
    hEvent->magic = 0;
    free(hEvent);
    return CUDA_SUCCESS;
}

static bool is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/*
 * Finds the next ".entry NAME" in the PTX text from *pos; copies NAME and
 * advances *pos. Returns false when there is none.
 */
static bool next_entry(const char **pos, char *name, size_t namelen)
{
    const char *p = *pos;
    while ((p = strstr(p, ".entry")) != NULL) {
        p += strlen(".entry");
        if (!isspace((unsigned char)*p))
            continue;
        while (isspace((unsigned char)*p))
            p++;
        size_t n = 0;
        while (is_ident_char(p[n]) && n + 1 < namelen) {
            name[n] = p[n];
            n++;
        }
        name[n] = '\0';
        p += n;
        if (n > 0) {
            *pos = p;
            return true;
        }
    }
    return false;
}

/* Accepts NUL-terminated PTX text with at least one ".entry NAME". */
CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    int dev;
    CUresult r = sim_current_device(&dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!module || !image)
        return CUDA_ERROR_INVALID_VALUE;
    if (gdsim_fault("kernel_load"))
        return CUDA_ERROR_INVALID_PTX;
    char name[SIM_MAX_KERNEL_NAME];
    size_t count = 0;
    for (const char *pos = image; next_entry(&pos, name, sizeof name);)
        count++;
    if (count == 0)
        return CUDA_ERROR_INVALID_IMAGE;

    CUmodule mod = calloc(1, sizeof *mod);
    struct CUfunc_st *funcs = calloc(count, sizeof *funcs);
    if (!mod || !funcs) {
        free(mod);
        free(funcs);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    const char *pos = image;
    for (size_t i = 0; i < count && next_entry(&pos, funcs[i].name, sizeof funcs[i].name); i++) {
        funcs[i].magic = SIM_MAGIC_FUNC;
        funcs[i].device = dev;
    }
    *mod = (struct CUmod_st){.magic = SIM_MAGIC_MODULE, .n_funcs = count, .funcs = funcs};
    *module = mod;
    return CUDA_SUCCESS;
}

/* JIT options only steer the (absent) compiler, so they are ignored. */
CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions, CUjit_option *options,
                            void **optionValues)
{
    (void)numOptions;
    (void)options;
    (void)optionValues;
    return cuModuleLoadData(module, image);
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    if (!hfunc || !name)
        return CUDA_ERROR_INVALID_VALUE;
    if (!hmod || hmod->magic != SIM_MAGIC_MODULE)
        return CUDA_ERROR_INVALID_HANDLE;
    for (size_t i = 0; i < hmod->n_funcs; i++) {
        if (strcmp(hmod->funcs[i].name, name) == 0) {
            *hfunc = &hmod->funcs[i];
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_NOT_FOUND;
}

CUresult cuModuleUnload(CUmodule hmod)
{
    if (!hmod || hmod->magic != SIM_MAGIC_MODULE)
        return CUDA_ERROR_INVALID_HANDLE;
    for (size_t i = 0; i < hmod->n_funcs; i++)
        hmod->funcs[i].magic = 0;
    free(hmod->funcs);
    hmod->magic = 0;
    free(hmod);
    return CUDA_SUCCESS;
}

/* Seconds a GEMM kernel takes on its device, or -1 with *err set. */
static double gemm_seconds(const struct CUfunc_st *f, void **kernelParams, CUresult *err)
{
    for (int i = 0; i < 3; i++) {
        if (!kernelParams || !kernelParams[i]) {
            *err = CUDA_ERROR_INVALID_VALUE;
            return -1;
        }
    }
    int m = *(const int *)kernelParams[0], n = *(const int *)kernelParams[1], k = *(const int *)kernelParams[2];
    if (m < 0 || n < 0 || k < 0) {
        *err = CUDA_ERROR_INVALID_VALUE;
        return -1;
    }
    sim_lock();
    const gd_scenario_gpu *gpu = sim_cuda_state.devices[f->device].gpu;
    gd_scenario_num tflops = strstr(f->name, "fp8")    ? gpu->gemm_tflops.fp8
                             : strstr(f->name, "fp16") ? gpu->gemm_tflops.fp16
                             : strstr(f->name, "tf32") ? gpu->gemm_tflops.tf32
                             : strstr(f->name, "fp32") ? gpu->gemm_tflops.fp32
                                                       : gpu->gemm_tflops.bf16;
    sim_unlock();
    if (!tflops.present || !(tflops.value > 0)) {
        *err = CUDA_ERROR_NOT_SUPPORTED;
        return -1;
    }
    return 2.0 * (double)m * (double)n * (double)k / (tflops.value * 1e12);
}

/* The read/write kernel of `bench membw`: copies the words (when both
 * buffers have real memory) and takes the time the bytes moved imply. */
static CUresult membw_run(struct timespec start, void **kernelParams)
{
    for (int i = 0; i < 3; i++)
        if (!kernelParams || !kernelParams[i])
            return CUDA_ERROR_INVALID_VALUE;
    CUdeviceptr dst = *(const CUdeviceptr *)kernelParams[0], src = *(const CUdeviceptr *)kernelParams[1];
    unsigned long long words = *(const unsigned long long *)kernelParams[2];
    if (words > SIZE_MAX / 16)
        return CUDA_ERROR_INVALID_VALUE;
    size_t bytes = (size_t)words * 16;
    double gbps = gdsim_memory_gbps();
    if (!(gbps > 0))
        return CUDA_ERROR_NOT_SUPPORTED;
    if (bytes) {
        void *to = gdsim_device_memory(dst, bytes);
        const void *from = gdsim_device_memory(src, bytes);
        if (to && from)
            memmove(to, from, bytes);
    }
    sim_sleep_until(start, 2.0 * (double)bytes / (gbps * 1e9));
    return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                        unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                        unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
{
    struct timespec start = sim_stream_now();
    (void)sharedMemBytes;
    (void)extra;
    CUresult r = check_stream(hStream);
    if (r != CUDA_SUCCESS)
        return r;
    if (!f || f->magic != SIM_MAGIC_FUNC)
        return CUDA_ERROR_INVALID_HANDLE;
    if (gridDimX == 0 || gridDimY == 0 || gridDimZ == 0 || blockDimX == 0 || blockDimY == 0 || blockDimZ == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if ((unsigned long long)blockDimX * blockDimY * blockDimZ > 1024)
        return CUDA_ERROR_INVALID_VALUE;
    if (strstr(f->name, "membw"))
        return membw_run(start, kernelParams);
    if (!strstr(f->name, "gemm"))
        return CUDA_SUCCESS;
    double seconds = gemm_seconds(f, kernelParams, &r);
    if (seconds < 0)
        return r;
    sim_sleep_until(start, seconds);
    return CUDA_SUCCESS;
}

int gdsim_current_device(void)
{
    int dev;
    return sim_current_device(&dev) == CUDA_SUCCESS ? dev : -1;
}

int gdsim_fault(const char *name)
{
    int dev;
    if (!name || sim_current_device(&dev) != CUDA_SUCCESS)
        return 0;
    sim_lock();
    const gd_scenario_gpu *g = sim_cuda_state.devices[dev].gpu;
    int on = strcmp(name, "kernel_load") == 0          ? g->faults.kernel_load.value
             : strcmp(name, "gemm_wrong_results") == 0 ? g->faults.gemm_wrong_results.value
             : strcmp(name, "nccl_wrong_results") == 0 ? g->faults.nccl_wrong_results.value
             : strcmp(name, "nccl_process_exit") == 0  ? g->faults.nccl_process_exit.value
                                                       : 0;
    sim_unlock();
    return on;
}

/* A throttled GPU's share of its multiply rate at scenario time t: its SM
 * clock over the maximum while a slowdown reason holds, else 1. */
static double throttle_factor_locked(const gd_scenario_gpu *g, double t)
{
    const unsigned long long slowdown = nvmlClocksThrottleReasonSwPowerCap | nvmlClocksThrottleReasonHwSlowdown |
                                        nvmlClocksThrottleReasonSwThermalSlowdown |
                                        nvmlClocksThrottleReasonHwThermalSlowdown |
                                        nvmlClocksThrottleReasonHwPowerBrakeSlowdown;
    unsigned long long bits = 0;
    gd_scenario_value clock = gd_scenario_value_at(g, GD_SCENARIO_SM_CLOCK_MHZ, t);
    if (gd_scenario_reasons_at(g, t, &bits) != GD_SCENARIO_SET || !(bits & slowdown) ||
        clock.status != GD_SCENARIO_SET || !g->clocks_max_mhz.sm.present || g->clocks_max_mhz.sm.value <= 0)
        return 1;
    double f = clock.value / (double)g->clocks_max_mhz.sm.value;
    return f > 0 && f < 1 ? f : 1;
}

double gdsim_gemm_tflops(const char *dtype)
{
    int dev;
    if (!dtype || sim_current_device(&dev) != CUDA_SUCCESS)
        return 0;
    sim_lock();
    const gd_scenario_gpu *g = sim_cuda_state.devices[dev].gpu;
    gd_scenario_num n = strcmp(dtype, "fp8") == 0    ? g->gemm_tflops.fp8
                        : strcmp(dtype, "fp16") == 0 ? g->gemm_tflops.fp16
                        : strcmp(dtype, "tf32") == 0 ? g->gemm_tflops.tf32
                        : strcmp(dtype, "fp32") == 0 ? g->gemm_tflops.fp32
                        : strcmp(dtype, "bf16") == 0 ? g->gemm_tflops.bf16
                                                     : (gd_scenario_num){0};
    double factor = sim_cuda_state.clock_set ? throttle_factor_locked(g, sim_cuda_state.clock_t) : 1;
    sim_unlock();
    return n.present && n.value > 0 ? n.value * factor : 0;
}

void gdsim_cuda_clock_follow(double t)
{
    sim_lock();
    sim_cuda_state.clock_set = true;
    sim_cuda_state.clock_t = t;
    sim_unlock();
}

void gdsim_cuda_clock_set(double t)
{
    sim_time_real(); /* the session's clock runs in wall time: so do the GPUs */
    gdsim_cuda_clock_follow(t);
}
