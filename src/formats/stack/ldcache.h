/* SPDX-License-Identifier: Apache-2.0 */
/*
 * glibc's dynamic linker cache.
 * Pure functions over buffers (no I/O), unit-tested and fuzzed directly.
 * Inputs need not be NUL-terminated; outputs are always NUL-terminated.
 */
#ifndef GD_LDCACHE_H
#define GD_LDCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * glibc's /etc/ld.so.cache (format "glibc-ld.so.cache1.1", alone or after
 * the old "ld.so-1.7.0" table): calls fn for each library path whose file
 * name starts with prefix. Returns the number of entries, or -1 when buf
 * is not a cache.
 */
long gd_ldcache_parse(const unsigned char *buf, size_t len, const char *prefix, void (*fn)(void *ud, const char *path),
                      void *ud);

#endif
