/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CUDA fatbin containers: which architectures a library carries code for.
 * Pure functions over buffers (no I/O), unit-tested and fuzzed directly.
 * Inputs need not be NUL-terminated; outputs are always NUL-terminated.
 */
#ifndef GD_FATBIN_H
#define GD_FATBIN_H

#include "gpudoctor/stack.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Walks CUDA fatbin containers (magic 0xBA55ED50) in buf: every entry's
 * kind (PTX or ELF cubin) and SM. Containers are found by their magic, so
 * buf may be a whole .nv_fatbin section. Adds each distinct arch to archs.
 * Returns the number of entries seen.
 */
size_t gd_fatbin_scan(const unsigned char *buf, size_t len, gd_arch *archs, size_t max, size_t *narchs);

/* The same over any source. view returns the bytes at off: at least need
 * of them, *got how many follow in one piece (it may hand back fewer than
 * want, never fewer than need), or NULL when the source has fewer than need
 * there or stops. Containers are searched within each piece in memory, and
 * a search asks for ever larger pieces (from 256 bytes, doubling); headers
 * ask for what they hold. For a library's .nv_fatbin section read in blocks. */
typedef const unsigned char *(*gd_fatbin_view_fn)(void *ud, uint64_t off, size_t need, size_t want, size_t *got);
size_t gd_fatbin_walk(gd_fatbin_view_fn view, void *ud, uint64_t start, uint64_t end, gd_arch *archs, size_t max,
                      size_t *narchs);

/* Adds an arch unless it is there already; false when full. */
bool gd_arch_add(gd_arch *archs, size_t max, size_t *n, int sm, bool ptx);

#endif
