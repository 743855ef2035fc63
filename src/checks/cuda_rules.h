/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CUDA compatibility rules, pure and table-driven, so their edges are
 * unit-tested (tests/unit/checks/test_cuda_rules.c). Sources: research/facts.md
 * section 1.2 (NVIDIA's CUDA compatibility guide) and 1.3.
 */
#ifndef GD_CUDA_RULES_H
#define GD_CUDA_RULES_H

#include "core/data_tables.h"
#include "gpudoctor/stack.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum gd_compat {
    GD_COMPAT_NATIVE, /* runtime <= the driver's CUDA version */
    GD_COMPAT_MINOR, /* same major, newer minor, driver >= the family minimum */
    GD_COMPAT_FORWARD, /* a forward-compatibility package supplies a newer libcuda */
    GD_COMPAT_TOO_OLD, /* will fail: cudaErrorInsufficientDriver / UnsupportedPtxVersion */
    GD_COMPAT_UNKNOWN, /* driver's CUDA version or the release not known */
} gd_compat;

typedef struct gd_compat_input {
    int runtime; /* 1000*major + 10*minor */
    int driver_cuda; /* the driver's, same encoding; 0 unknown */
    const char *driver_version; /* "550.54.15"; "" unknown */
    bool needs_ptx_jit; /* the GPU is served only by PTX of this runtime */
    bool forward_package; /* compat/libcuda.so.* for a CUDA >= runtime */
    bool datacenter; /* forward compatibility is for data-center GPUs */
} gd_compat_input;

typedef struct gd_compat_result {
    gd_compat verdict;
    char needed[24]; /* the driver the runtime needs ("" when not known) */
    char rule[200]; /* which rule decided, in words */
} gd_compat_result;

gd_compat_result gd_cuda_compat(const gd_compat_input *in);

/* How a build's architectures serve a GPU of compute capability sm
 * (10*major + minor). SASS runs on the same major with an equal or higher
 * minor (sm_86 code on an sm_89 GPU); PTX is JIT-compiled for any GPU at
 * least as new. */
typedef enum gd_arch_cover { GD_ARCH_SASS, GD_ARCH_PTX_ONLY, GD_ARCH_NONE } gd_arch_cover;
gd_arch_cover gd_arch_coverage(const gd_arch *archs, size_t n, int sm);

/* The oldest and newest compute capability a toolkit compiles for. */
int gd_toolkit_min_sm(int cuda);
int gd_toolkit_max_sm(int cuda);

/* Forward compatibility is supported on data-center GPUs (and select NGC
 * Server Ready RTX SKUs): a heuristic on the board's name. */
bool gd_gpu_is_datacenter(const char *name);

/* "12.8" from 12080 */
void gd_cuda_text(int v, char *buf, size_t len);

#endif
