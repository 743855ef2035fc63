/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Loads cuBLASLt (libcublasLt.so.13/.12/.11, or the simulated one) with
 * dlopen and fills a table of function pointers typed like its API.
 */
#ifndef GPUDOCTOR_CUBLASLT_LOADER_H
#define GPUDOCTOR_CUBLASLT_LOADER_H

#include <stddef.h>

#include "gpudoctor/abi/cublaslt_api.h"
#include "dl_table.h"
#include "lib_search.h"

/* The sonames tried, newest first: CUDA 13, 12 and 11 toolkits and wheels. */
#define GD_CUBLASLT_SONAMES                                                                                            \
    {                                                                                                                  \
        "libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"                                                  \
    }
#define GD_CUBLASLT_MAX_CANDIDATES 48

struct gd_cublaslt_api {
    gd_dl_lib lib;
#define GD_CUBLASLT_SYMBOL(t, sym) t sym;
#include "gpudoctor/abi/cublaslt_symbols.h"
#undef GD_CUBLASLT_SYMBOL
};

/* Where to look (lib_search.h): the user's file alone, else each
 * site-packages directory's NVIDIA wheels (nvidia/cublas/lib,
 * nvidia/cu13/lib), the loader's search path by soname, and the CUDA
 * toolkit's lib64 directories. */
typedef gd_lib_where gd_cublaslt_search;

/* The candidate paths of a search into paths[] (storage in buf); returns
 * how many (at most GD_CUBLASLT_MAX_CANDIDATES). */
size_t gd_cublaslt_candidates(const gd_cublaslt_search *s, char buf[][512], size_t cap);

/*
 * Opens the first candidate that dlopen accepts and resolves every entry.
 * 0, or gd_dl_open's negative errno with a message naming what was tried.
 */
int gd_cublaslt_load(struct gd_cublaslt_api *api, const gd_cublaslt_search *s, char *err, size_t errlen);

void gd_cublaslt_unload(struct gd_cublaslt_api *api);

/* "CUBLAS_STATUS_NOT_SUPPORTED", without the library. */
const char *gd_cublas_status_name(cublasStatus_t st);

#endif
