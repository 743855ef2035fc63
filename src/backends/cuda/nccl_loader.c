/* NCCL as a dl_table (../dl_table.h); every entry is required. */
#include "nccl_loader.h"

#include "lib_search.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define GD_NCCL_SYMBOL(t, sym) {offsetof(struct gd_nccl_api, sym), true, {#sym}},
static const gd_dl_sym gd_nccl_symbols[] = {
#include "nccl_symbols.h"
};
#undef GD_NCCL_SYMBOL

static const gd_dl_table gd_nccl_table = {"the NCCL library", gd_nccl_symbols,
                                          sizeof gd_nccl_symbols / sizeof gd_nccl_symbols[0]};

size_t gd_nccl_candidates(const gd_nccl_search *s, char buf[][512], size_t cap)
{
    static const char *const sonames[] = {GD_NCCL_SONAME};
    /* nvidia-nccl-cu12 and nvidia-nccl-cu13 (PyTorch's dependency) put
     * libnccl.so.2 in nvidia/nccl/lib of site-packages. */
    static const char *const wheel_dirs[] = {"nvidia/nccl/lib"};
    gd_lib_search_spec spec = {.wheel_dirs = wheel_dirs, .wheel_dir_count = 1, .sonames = sonames, .soname_count = 1};
    if (s) {
        spec.path = s->path;
        spec.site_packages = s->site_packages;
        spec.site_count = s->site_count;
        spec.toolkit = s->toolkit;
    }
    return gd_lib_search_candidates(&spec, buf, cap);
}

int gd_nccl_load(struct gd_nccl_api *api, const gd_nccl_search *s, char *err, size_t errlen)
{
    if (!api) {
        if (err && errlen)
            snprintf(err, errlen, "gd_nccl_load: no table given");
        return -EINVAL;
    }
    memset(api, 0, sizeof *api);
    char buf[GD_NCCL_MAX_CANDIDATES][512];
    const char *paths[GD_NCCL_MAX_CANDIDATES];
    size_t n = gd_nccl_candidates(s, buf, GD_NCCL_MAX_CANDIDATES);
    for (size_t i = 0; i < n; i++)
        paths[i] = buf[i];
    return gd_dl_open(&api->lib, &gd_nccl_table, paths, n, api, NULL, err, errlen);
}

void gd_nccl_unload(struct gd_nccl_api *api)
{
    if (!api)
        return;
    gd_dl_close(&api->lib);
    memset(api, 0, sizeof *api);
}

const char *gd_nccl_result_name(ncclResult_t r)
{
    switch (r) {
    case ncclSuccess: return "ncclSuccess";
    case ncclUnhandledCudaError: return "ncclUnhandledCudaError";
    case ncclSystemError: return "ncclSystemError";
    case ncclInternalError: return "ncclInternalError";
    case ncclInvalidArgument: return "ncclInvalidArgument";
    case ncclInvalidUsage: return "ncclInvalidUsage";
    case ncclRemoteError: return "ncclRemoteError";
    case ncclInProgress: return "ncclInProgress";
    case ncclNumResults: break;
    }
    return "ncclResult_<unrecognised>";
}
