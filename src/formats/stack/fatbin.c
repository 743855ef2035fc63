/* SPDX-License-Identifier: Apache-2.0 */
/* The architectures in CUDA fatbin containers. */
#include "fatbin.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool gd_arch_add(gd_arch *archs, size_t max, size_t *n, int sm, bool ptx)
{
    for (size_t i = 0; i < *n; i++)
        if (archs[i].sm == sm && archs[i].ptx == ptx)
            return true;
    if (*n >= max)
        return false;
    archs[(*n)++] = (gd_arch){.sm = sm, .ptx = ptx};
    return true;
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* Container header: u32 magic, u16 version (1), u16 header size (16), u64
 * size of the entries. Entry: u16 kind (1 PTX, 2 or 0x10 ELF), u16, u32
 * entry header size, u64 payload size, ..., u32 SM at offset 28. Layout as
 * cuobjdump reads it (nvopen-tools fatbin/FORMAT_SPECIFICATION.md). Only
 * headers are read: payloads (compressed code) are skipped. */
static bool is_container(const unsigned char *h)
{
    return rd32(h) == 0xBA55ED50u && h[4] == 1 && h[6] == 16;
}

size_t gd_fatbin_walk(gd_fatbin_view_fn view, void *ud, uint64_t start, uint64_t end, gd_arch *archs, size_t max,
                      size_t *narchs)
{
    size_t entries = 0, want = 256, got;
    uint64_t i = start;
    while (i + 16 <= end) {
        const unsigned char *p = view(ud, i, 16, (size_t)(want < end - i ? want : end - i), &got);
        if (!p)
            break;
        if (got > end - i)
            got = (size_t)(end - i);
        /* containers are aligned in sections; padding between them */
        size_t k = 0;
        while (k + 16 <= got && !is_container(p + k))
            k += 4;
        i += k;
        if (k + 16 > got) { /* none in this piece: go on from where a header would straddle its end */
            want = want < ((size_t)-1) / 2 ? want * 2 : want;
            continue;
        }
        want = 256;
        uint64_t size = rd64(p + k + 8);
        uint64_t cend = size > end - i - 16 ? end : i + 16 + size;
        uint64_t e = i + 16;
        const unsigned char *h;
        while (e + 64 <= cend && (h = view(ud, e, 64, 64, &got))) {
            uint16_t kind = (uint16_t)(h[0] | h[1] << 8);
            uint32_t hsize = rd32(h + 4);
            uint64_t psize = rd64(h + 8);
            uint32_t sm = rd32(h + 28);
            if (hsize < 64 || psize > cend - e || hsize + psize > cend - e)
                break;
            entries++;
            if ((kind == 1 || kind == 2 || kind == 0x10) && sm > 0 && sm < 1000)
                gd_arch_add(archs, max, narchs, (int)sm, kind == 1);
            e += hsize + psize;
        }
        i = (cend + 3) & ~(uint64_t)3;
    }
    return entries;
}

typedef struct mem_src {
    const unsigned char *buf;
    size_t len;
} mem_src;

static const unsigned char *mem_view(void *ud, uint64_t off, size_t need, size_t want, size_t *got)
{
    (void)want;
    const mem_src *m = ud;
    if (off > m->len || need > m->len - off)
        return NULL;
    *got = m->len - (size_t)off;
    return m->buf + off;
}

size_t gd_fatbin_scan(const unsigned char *buf, size_t len, gd_arch *archs, size_t max, size_t *narchs)
{
    mem_src m = {buf, len};
    return gd_fatbin_walk(mem_view, &m, 0, len, archs, max, narchs);
}
