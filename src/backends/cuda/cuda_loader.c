/*
 * dlopen-based loader of the CUDA driver API. One explicit const table lists
 * every entry of struct gd_cuda_api with the exported names to try, newest
 * first, and whether a load without it fails.
 */
#include "cuda_loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GD_CUDA_MAX_NAMES 3

_Static_assert(sizeof(void *) == sizeof(cu_Init_fn), "dlsym results are stored through a void *");

struct gd_cuda_symbol {
    size_t offset;                          /* of the pointer in struct gd_cuda_api */
    const char *names[GD_CUDA_MAX_NAMES];   /* newest first; NULL-terminated when shorter */
    bool required;
};

#define SYM(member, required, ...) {offsetof(struct gd_cuda_api, member), {__VA_ARGS__}, required}
#define REQUIRED true
#define OPTIONAL false

/*
 * Versioned names follow cuda.h's #define table (cuMemAlloc -> cuMemAlloc_v2
 * ...). The unversioned fallbacks of cuDevicePrimaryCtxRelease and
 * cuEventElapsedTime have the same signature; those of the memory calls do
 * not (32-bit sizes), so they are never tried.
 */
static const struct gd_cuda_symbol gd_cuda_symbols[] = {
    SYM(cuGetErrorString, REQUIRED, "cuGetErrorString"),
    SYM(cuGetErrorName, REQUIRED, "cuGetErrorName"),
    SYM(cuInit, REQUIRED, "cuInit"),
    SYM(cuDriverGetVersion, REQUIRED, "cuDriverGetVersion"),
    SYM(cuDeviceGet, REQUIRED, "cuDeviceGet"),
    SYM(cuDeviceGetCount, REQUIRED, "cuDeviceGetCount"),
    SYM(cuDeviceGetName, REQUIRED, "cuDeviceGetName"),
    SYM(cuDeviceGetAttribute, REQUIRED, "cuDeviceGetAttribute"),
    SYM(cuDeviceTotalMem, REQUIRED, "cuDeviceTotalMem_v2"),
    SYM(cuDeviceGetPCIBusId, REQUIRED, "cuDeviceGetPCIBusId"),

    SYM(cuDevicePrimaryCtxRetain, REQUIRED, "cuDevicePrimaryCtxRetain"),
    SYM(cuDevicePrimaryCtxRelease, REQUIRED, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
    SYM(cuCtxCreate_v2, OPTIONAL, "cuCtxCreate_v2"),
    SYM(cuCtxDestroy, OPTIONAL, "cuCtxDestroy_v2"),
    SYM(cuCtxSetCurrent, REQUIRED, "cuCtxSetCurrent"),
    SYM(cuCtxGetCurrent, REQUIRED, "cuCtxGetCurrent"),
    SYM(cuCtxSynchronize, REQUIRED, "cuCtxSynchronize"),

    SYM(cuMemGetInfo, REQUIRED, "cuMemGetInfo_v2"),
    SYM(cuMemAlloc, REQUIRED, "cuMemAlloc_v2"),
    SYM(cuMemFree, REQUIRED, "cuMemFree_v2"),
    SYM(cuMemAllocHost, REQUIRED, "cuMemAllocHost_v2"),
    SYM(cuMemFreeHost, REQUIRED, "cuMemFreeHost"),
    SYM(cuMemHostAlloc, REQUIRED, "cuMemHostAlloc"),
    SYM(cuMemcpyHtoD, REQUIRED, "cuMemcpyHtoD_v2"),
    SYM(cuMemcpyDtoH, REQUIRED, "cuMemcpyDtoH_v2"),
    SYM(cuMemcpyDtoD, REQUIRED, "cuMemcpyDtoD_v2"),
    SYM(cuMemcpyHtoDAsync, REQUIRED, "cuMemcpyHtoDAsync_v2"),
    SYM(cuMemcpyDtoHAsync, REQUIRED, "cuMemcpyDtoHAsync_v2"),
    SYM(cuMemcpyDtoDAsync, REQUIRED, "cuMemcpyDtoDAsync_v2"),
    SYM(cuMemsetD8, REQUIRED, "cuMemsetD8_v2"),
    SYM(cuMemsetD32, REQUIRED, "cuMemsetD32_v2"),
    SYM(cuMemsetD8Async, OPTIONAL, "cuMemsetD8Async"),

    SYM(cuStreamCreate, REQUIRED, "cuStreamCreate"),
    SYM(cuStreamDestroy, REQUIRED, "cuStreamDestroy_v2"),
    SYM(cuStreamSynchronize, REQUIRED, "cuStreamSynchronize"),
    SYM(cuEventCreate, REQUIRED, "cuEventCreate"),
    SYM(cuEventRecord, REQUIRED, "cuEventRecord"),
    SYM(cuEventSynchronize, REQUIRED, "cuEventSynchronize"),
    SYM(cuEventElapsedTime, REQUIRED, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
    SYM(cuEventDestroy, REQUIRED, "cuEventDestroy_v2"),

    SYM(cuModuleLoadData, REQUIRED, "cuModuleLoadData"),
    SYM(cuModuleLoadDataEx, OPTIONAL, "cuModuleLoadDataEx"),
    SYM(cuModuleGetFunction, REQUIRED, "cuModuleGetFunction"),
    SYM(cuModuleUnload, REQUIRED, "cuModuleUnload"),
    SYM(cuLaunchKernel, REQUIRED, "cuLaunchKernel"),
};

#undef SYM
#undef REQUIRED
#undef OPTIONAL

__attribute__((format(printf, 3, 4))) static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static const char *choose_library(const char *path_or_null)
{
    if (path_or_null && path_or_null[0])
        return path_or_null;
    const char *env = getenv(GD_CUDA_LIBRARY_ENV);
    if (env && env[0])
        return env;
    return GD_CUDA_LIBRARY_DEFAULT;
}

/* Resolves the first of sym->names that the library exports, or NULL. */
static void *resolve(void *handle, const struct gd_cuda_symbol *sym)
{
    for (size_t i = 0; i < GD_CUDA_MAX_NAMES && sym->names[i]; i++) {
        dlerror();
        void *p = dlsym(handle, sym->names[i]);
        if (p && !dlerror())
            return p;
    }
    return NULL;
}

int gd_cuda_load(struct gd_cuda_api *api, const char *path_or_null, char *err, size_t errlen)
{
    if (!api) {
        set_err(err, errlen, "gd_cuda_load: no table given");
        return -EINVAL;
    }
    memset(api, 0, sizeof *api);
    const char *lib = choose_library(path_or_null);

    void *handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        set_err(err, errlen, "cannot load the CUDA driver library: %s", why ? why : lib);
        return -ENOENT;
    }

    for (size_t i = 0; i < sizeof gd_cuda_symbols / sizeof gd_cuda_symbols[0]; i++) {
        const struct gd_cuda_symbol *sym = &gd_cuda_symbols[i];
        void *p = resolve(handle, sym);
        if (!p && sym->required) {
            set_err(err, errlen, "%s: missing required symbol %s", lib, sym->names[0]);
            dlclose(handle);
            memset(api, 0, sizeof *api);
            return -ENOSYS;
        }
        /* POSIX guarantees that a dlsym result converts to a function pointer. */
        memcpy((char *)api + sym->offset, &p, sizeof p);
    }

    api->handle = handle;
    snprintf(api->library, sizeof api->library, "%s", lib);
    return 0;
}

void gd_cuda_unload(struct gd_cuda_api *api)
{
    if (!api)
        return;
    if (api->handle)
        dlclose(api->handle);
    memset(api, 0, sizeof *api);
}
