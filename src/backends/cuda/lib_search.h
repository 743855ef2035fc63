/*
 * Where the CUDA libraries that come with the toolkit and NVIDIA's Python
 * wheels (cuBLASLt, NCCL) are looked for: one candidate list, in order.
 */
#ifndef GPUDOCTOR_LIB_SEARCH_H
#define GPUDOCTOR_LIB_SEARCH_H

#include <stddef.h>

typedef struct gd_lib_search_spec {
    const char *path; /* given: the only candidate */
    const char *const *site_packages; /* each environment's site-packages */
    size_t site_count;
    const char *const *wheel_dirs; /* under site-packages, e.g. "nvidia/nccl/lib" */
    size_t wheel_dir_count;
    const char *const *sonames; /* newest first */
    size_t soname_count;
    const char *toolkit; /* a toolkit root ($CUDA_HOME); NULL: /usr/local/cuda only */
} gd_lib_search_spec;

/* path alone when given; else every wheel directory of every environment
 * with every soname, the sonames alone (the loader's search path), then the
 * toolkit's lib64 and targets/<arch>-linux/lib (the given root, then
 * /usr/local/cuda). Returns how many were written to buf (at most cap). */
size_t gd_lib_search_candidates(const gd_lib_search_spec *s, char buf[][512], size_t cap);

#endif
