/* SPDX-License-Identifier: Apache-2.0 */
/* glibc's /etc/ld.so.cache. */
#include "ldcache.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The cache is written in the machine's byte order: little-endian on every
 * machine a GPU server runs. */
static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

long gd_ldcache_parse(const unsigned char *buf, size_t len, const char *prefix, void (*fn)(void *ud, const char *path),
                      void *ud)
{
    static const char magic[] = "glibc-ld.so.cache1.1";
    size_t m = sizeof magic - 1, start = (size_t)-1;
    /* New format alone, or after the old table: look for its magic. */
    for (size_t i = 0; i + m <= len && i < 1u << 20; i += 4)
        if (memcmp(buf + i, magic, m) == 0) {
            start = i;
            break;
        }
    if (start == (size_t)-1 || len - start < 48)
        return -1;
    const unsigned char *h = buf + start;
    size_t avail = len - start;
    uint32_t nlibs = rd32(h + 20);
    if (nlibs > (avail - 48) / 24)
        return -1;
    size_t plen = strlen(prefix);
    for (uint32_t k = 0; k < nlibs; k++) {
        const unsigned char *e = h + 48 + (size_t)k * 24;
        uint32_t key = rd32(e + 4), value = rd32(e + 8);
        if (key >= avail || value >= avail)
            continue;
        const char *name = (const char *)h + key, *path = (const char *)h + value;
        if (!memchr(name, '\0', avail - key) || !memchr(path, '\0', avail - value))
            continue;
        if (strncmp(name, prefix, plen) == 0)
            fn(ud, path);
    }
    return (long)nlibs;
}
