/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Loads NCCL (libnccl.so.2, or the simulated one) with dlopen and fills a
 * table of function pointers typed like its API.
 */
#ifndef GPUDOCTOR_NCCL_LOADER_H
#define GPUDOCTOR_NCCL_LOADER_H

#include <stddef.h>

#include "gpudoctor/abi/nccl_api.h"
#include "dl_table.h"
#include "lib_search.h"

#define GD_NCCL_SONAME "libnccl.so.2"
#define GD_NCCL_MAX_CANDIDATES 32

struct gd_nccl_api {
    gd_dl_lib lib;
#define GD_NCCL_SYMBOL(t, sym) t sym;
#include "gpudoctor/abi/nccl_symbols.h"
#undef GD_NCCL_SYMBOL
};

/* Where to look (lib_search.h): the user's file alone, else each
 * site-packages directory's NVIDIA wheel (nvidia/nccl/lib: nvidia-nccl-cu12,
 * nvidia-nccl-cu13), the loader's search path by soname, and the CUDA
 * toolkit's lib64 directories. */
typedef gd_lib_where gd_nccl_search;

/* The candidate paths of a search into buf; returns how many (at most cap). */
size_t gd_nccl_candidates(const gd_nccl_search *s, char buf[][512], size_t cap);

/*
 * Opens the first candidate that dlopen accepts and resolves every entry.
 * 0, or gd_dl_open's negative errno with a message naming what was tried.
 */
int gd_nccl_load(struct gd_nccl_api *api, const gd_nccl_search *s, char *err, size_t errlen);

void gd_nccl_unload(struct gd_nccl_api *api);

/* "ncclInvalidUsage", without the library. */
const char *gd_nccl_result_name(ncclResult_t r);

#endif
