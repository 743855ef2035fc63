/* SPDX-License-Identifier: Apache-2.0 */
/* Control characters out of strings that reach a terminal. */
#include "text_safe.h"

#include <stdbool.h>
#include <string.h>

/* The bidirectional controls: U+061C, U+200E-U+200F, U+202A-U+202E and
 * U+2066-U+2069 reorder what follows them on a terminal (a hostname holding
 * U+202E prints backwards), so they count as controls. */
static bool is_bidi_control(const unsigned char *p, size_t need)
{
    if (need == 2)
        return p[0] == 0xd8 && p[1] == 0x9c;
    if (need != 3 || p[0] != 0xe2)
        return false;
    return (p[1] == 0x80 && (p[2] == 0x8e || p[2] == 0x8f || (p[2] >= 0xaa && p[2] <= 0xae))) ||
           (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9);
}

/* The length of the printable UTF-8 character at p (at most n bytes), or 0
 * when the byte at p must be replaced. */
static size_t printable(const unsigned char *p, size_t n)
{
    unsigned char c = p[0];
    if (c < 0x20 || c == 0x7f)
        return 0;
    if (c < 0x80)
        return 1;
    size_t need;
    unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (c >= 0xc2 && c <= 0xdf) {
        need = 2;
        if (c == 0xc2)
            lo = 0xa0; /* U+0080-U+009F: the C1 controls */
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        else if (c == 0xed)
            hi = 0x9f; /* UTF-16 surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f; /* beyond U+10FFFF */
    } else {
        return 0; /* a continuation byte alone, 0xc0, 0xc1, 0xf5-0xff */
    }
    if (n < need || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < need; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return is_bidi_control(p, need) ? 0 : need;
}

/* The safe piece at s (n > 0 bytes left) in *piece: the printable
 * character there, or "?" in place of its first byte. Returns how many
 * bytes of s it stands for, which is also its own length. */
static size_t piece_at(const char *s, size_t n, const char **piece)
{
    size_t k = printable((const unsigned char *)s, n);
    *piece = k ? s : "?";
    return k ? k : 1;
}

char *gd_text_safe(const char *s, char *out, size_t len)
{
    size_t used = 0, n = s ? strlen(s) : 0, k;
    const char *piece;
    for (size_t at = 0; at < n && used + (k = piece_at(s + at, n - at, &piece)) < len; at += k) {
        memcpy(out + used, piece, k);
        used += k;
    }
    out[used] = '\0';
    return out;
}

void gd_write_safe(FILE *f, const char *s, size_t n)
{
    const char *piece;
    for (size_t at = 0, k; at < n; at += k) {
        k = piece_at(s + at, n - at, &piece);
        fwrite(piece, 1, k, f);
    }
}
