/* SPDX-License-Identifier: Apache-2.0 */
/* cuBLASLt as a dl_table (../dl_table.h); every entry is required. */
#include "cublaslt_loader.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#define GD_CUBLASLT_SYMBOL(t, sym) {offsetof(struct gd_cublaslt_api, sym), true, {#sym}},
static const gd_dl_sym gd_cublaslt_symbols[] = {
#include "cublaslt_symbols.h"
};
#undef GD_CUBLASLT_SYMBOL

static const gd_dl_table gd_cublaslt_table = {"the cuBLASLt library", gd_cublaslt_symbols,
                                              sizeof gd_cublaslt_symbols / sizeof gd_cublaslt_symbols[0]};

static void add(char buf[][512], size_t cap, size_t *n, const char *dir, const char *name)
{
    if (*n >= cap)
        return;
    int len = dir ? snprintf(buf[*n], 512, "%s/%s", dir, name) : snprintf(buf[*n], 512, "%s", name);
    if (len > 0 && len < 512)
        (*n)++;
}

size_t gd_cublaslt_candidates(const gd_cublaslt_search *s, char buf[][512], size_t cap)
{
    size_t n = 0;
    if (s && s->path && *s->path) {
        add(buf, cap, &n, NULL, s->path);
        return n;
    }
    static const char *const sonames[] = GD_CUBLASLT_SONAMES;
    const size_t nso = sizeof sonames / sizeof sonames[0];
    /* The wheels a PyTorch or JAX environment installs: nvidia-cublas-cu12
     * (nvidia/cublas/lib) and CUDA 13's nvidia-cublas (nvidia/cu13/lib). */
    for (size_t i = 0; s && i < s->site_count; i++) {
        if (!s->site_packages[i] || !*s->site_packages[i])
            continue;
        char dir[480];
        static const char *const subdirs[] = {"nvidia/cu13/lib", "nvidia/cublas/lib"};
        for (size_t d = 0; d < 2; d++) {
            snprintf(dir, sizeof dir, "%s/%s", s->site_packages[i], subdirs[d]);
            for (size_t k = 0; k < nso; k++)
                add(buf, cap, &n, dir, sonames[k]);
        }
    }
    for (size_t k = 0; k < nso; k++)
        add(buf, cap, &n, NULL, sonames[k]);
    struct utsname u;
    char targets[128] = "";
    if (uname(&u) == 0)
        snprintf(targets, sizeof targets, "targets/%s-linux/lib", u.machine);
    const char *roots[] = {s && s->toolkit && *s->toolkit ? s->toolkit : NULL, "/usr/local/cuda"};
    for (size_t r = 0; r < 2; r++) {
        if (!roots[r] || (r == 1 && roots[0] && strcmp(roots[0], roots[1]) == 0))
            continue;
        const char *subs[] = {"lib64", targets[0] ? targets : NULL};
        for (size_t d = 0; d < 2; d++) {
            if (!subs[d])
                continue;
            char dir[480];
            snprintf(dir, sizeof dir, "%s/%s", roots[r], subs[d]);
            for (size_t k = 0; k < nso; k++)
                add(buf, cap, &n, dir, sonames[k]);
        }
    }
    return n;
}

int gd_cublaslt_load(struct gd_cublaslt_api *api, const gd_cublaslt_search *s, char *err, size_t errlen)
{
    if (!api) {
        if (err && errlen)
            snprintf(err, errlen, "gd_cublaslt_load: no table given");
        return -EINVAL;
    }
    memset(api, 0, sizeof *api);
    char buf[GD_CUBLASLT_MAX_CANDIDATES][512];
    const char *paths[GD_CUBLASLT_MAX_CANDIDATES];
    size_t n = gd_cublaslt_candidates(s, buf, GD_CUBLASLT_MAX_CANDIDATES);
    for (size_t i = 0; i < n; i++)
        paths[i] = buf[i];
    return gd_dl_open(&api->lib, &gd_cublaslt_table, paths, n, api, NULL, err, errlen);
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
