/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where the CUDA libraries that come with the toolkit and NVIDIA's Python
 * wheels (cuBLASLt, NCCL) are looked for: one candidate list, in order, and
 * the first candidate that opens.
 */
#ifndef GPUDOCTOR_LIB_SEARCH_H
#define GPUDOCTOR_LIB_SEARCH_H

#include <stddef.h>

#include "dl_table.h"

/* Where to look: `path` alone when given (a user's choice or the simulated
 * library); else each environment's wheels, the loader's search path by
 * soname, and the CUDA toolkit's lib64 directories. */
typedef struct gd_lib_where {
    const char *path;
    const char *const *site_packages; /* each environment's site-packages */
    size_t site_count;
    const char *toolkit; /* a toolkit root ($CUDA_HOME); NULL: /usr/local/cuda only */
} gd_lib_where;

/* What one library is called there. */
typedef struct gd_lib_names {
    const char *const *wheel_dirs; /* under site-packages, e.g. "nvidia/nccl/lib" */
    size_t wheel_dir_count;
    const char *const *sonames; /* newest first */
    size_t soname_count;
} gd_lib_names;

/* path alone when given; else every wheel directory of every environment
 * with every soname, the sonames alone (the loader's search path), then the
 * toolkit's lib64 and targets/<arch>-linux/lib (the given root, then
 * /usr/local/cuda). Returns how many were written to buf (at most cap). */
size_t gd_lib_search_candidates(const gd_lib_where *w, const gd_lib_names *n, char buf[][512], size_t cap);

/* Opens the first candidate that dlopen accepts and resolves the table into
 * fns (gd_dl_open). 0, or its negative errno with a message naming what was
 * tried. */
int gd_lib_search_open(gd_dl_lib *lib, const gd_dl_table *table, const gd_lib_where *w, const gd_lib_names *n,
                       void *fns, char *err, size_t errlen);

#endif
