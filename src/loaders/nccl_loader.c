/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL as a dl_table (../dl_table.h); every entry is required. */
#include "nccl_loader.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define GD_NCCL_SYMBOL(t, sym) {offsetof(struct gd_nccl_api, sym), true, {#sym}},
static const gd_dl_sym gd_nccl_symbols[] = {
#include "gpudoctor/abi/nccl_symbols.h"
};
#undef GD_NCCL_SYMBOL

static const gd_dl_table gd_nccl_table = {"the NCCL library", gd_nccl_symbols,
                                          sizeof gd_nccl_symbols / sizeof gd_nccl_symbols[0]};

/* nvidia-nccl-cu12 and nvidia-nccl-cu13 (PyTorch's dependency) put
 * libnccl.so.2 in nvidia/nccl/lib of site-packages. */
static const char *const sonames[] = {GD_NCCL_SONAME};
static const char *const wheel_dirs[] = {"nvidia/nccl/lib"};
static const gd_lib_names names = {wheel_dirs, 1, sonames, 1};

size_t gd_nccl_candidates(const gd_nccl_search *s, char buf[][512], size_t cap)
{
    return gd_lib_search_candidates(s, &names, buf, cap);
}

int gd_nccl_load(struct gd_nccl_api *api, const gd_nccl_search *s, char *err, size_t errlen)
{
    if (!api) {
        if (err && errlen)
            snprintf(err, errlen, "gd_nccl_load: no table given");
        return -EINVAL;
    }
    memset(api, 0, sizeof *api);
    return gd_lib_search_open(&api->lib, &gd_nccl_table, s, &names, api, err, errlen);
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
