/* SPDX-License-Identifier: Apache-2.0 */
/* cuBLASLt as a dl_table (../dl_table.h); every entry is required. */
#include "cublaslt_loader.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define GD_CUBLASLT_SYMBOL(t, sym) {offsetof(struct gd_cublaslt_api, sym), true, {#sym}},
static const gd_dl_sym gd_cublaslt_symbols[] = {
#include "gpudoctor/abi/cublaslt_symbols.h"
};
#undef GD_CUBLASLT_SYMBOL

static const gd_dl_table gd_cublaslt_table = {"the cuBLASLt library", gd_cublaslt_symbols,
                                              sizeof gd_cublaslt_symbols / sizeof gd_cublaslt_symbols[0]};

/* The wheels a PyTorch or JAX environment installs: nvidia-cublas-cu12
 * (nvidia/cublas/lib) and CUDA 13's nvidia-cublas (nvidia/cu13/lib). */
static const char *const sonames[] = GD_CUBLASLT_SONAMES;
static const char *const wheel_dirs[] = {"nvidia/cu13/lib", "nvidia/cublas/lib"};
static const gd_lib_names names = {wheel_dirs, 2, sonames, sizeof sonames / sizeof sonames[0]};

size_t gd_cublaslt_candidates(const gd_cublaslt_search *s, char buf[][512], size_t cap)
{
    return gd_lib_search_candidates(s, &names, buf, cap);
}

int gd_cublaslt_load(struct gd_cublaslt_api *api, const gd_cublaslt_search *s, char *err, size_t errlen)
{
    if (!api) {
        if (err && errlen)
            snprintf(err, errlen, "gd_cublaslt_load: no table given");
        return -EINVAL;
    }
    memset(api, 0, sizeof *api);
    return gd_lib_search_open(&api->lib, &gd_cublaslt_table, s, &names, api, err, errlen);
}

void gd_cublaslt_unload(struct gd_cublaslt_api *api)
{
    if (!api)
        return;
    gd_dl_close(&api->lib);
    memset(api, 0, sizeof *api);
}

const char *gd_cublas_status_name(cublasStatus_t st)
{
    switch (st) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "CUBLAS_STATUS_<unrecognised>";
}
