/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ABI conformance tables: one "side" per header (ours, NVIDIA's), built from
 * the same X-macro list (nvml_abi_list.h, cuda_abi_list.h) by abi_side.inc,
 * so the entries line up index by index.
 */
#ifndef GPUDOCTOR_TESTS_ABI_COMPARE_H
#define GPUDOCTOR_TESTS_ABI_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

struct gd_abi_const {
    const char *name;
    long long value;
};

struct gd_abi_type {
    const char *name;
    size_t size;
    size_t align;
};

struct gd_abi_member {
    const char *type;
    const char *member;
    size_t offset;
    size_t size;
};

struct gd_abi_fn {
    const char *type_name; /* our typedef, e.g. cu_MemAlloc_fn */
    const char *symbol; /* the exported symbol, e.g. cuMemAlloc_v2 */
};

struct gd_abi_side {
    const char *label;
    const struct gd_abi_const *consts;
    size_t n_consts;
    const struct gd_abi_type *types;
    size_t n_types;
    const struct gd_abi_member *members;
    size_t n_members;
    const struct gd_abi_fn *fns;
    size_t n_fns;
};

/* Compares two sides built from the same list. Prints one line per
 * difference, naming the constant, type or member; returns their count. */
int gd_abi_compare(const struct gd_abi_side *ours, const struct gd_abi_side *theirs);

/*
 * Scans a header of ours for what it declares: enumerators, object-like
 * #defines, typedef names and function pointer typedefs. Prints each one that
 * the side does not list (lines marked "newer" and names in `ignored`, a
 * NULL-terminated list, are skipped; "newer" lines count too when
 * with_newer, for a side built against a header that has them); returns
 * their count, or -1 when the header cannot be read. Function pointer
 * typedefs are checked only when the side lists functions.
 */
int gd_abi_check_coverage(const char *header_path, const struct gd_abi_side *side, const char *const *ignored,
                          bool with_newer);

#endif
