/* SPDX-License-Identifier: Apache-2.0 */
/* Lines out of a stream of bytes, in bounded memory (line_reader.h). */
#include "line_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES (256u << 10)

int gd_line_next(gd_line_reader *r, const char **line, size_t *n, bool *partial, char *err, size_t errlen)
{
    *partial = false;
    for (;;) {
        const char *nl = r->buf ? memchr(r->buf + r->start, '\n', r->end - r->start) : NULL;
        if (nl) {
            *line = r->buf + r->start;
            *n = (size_t)(nl - *line);
            r->start += *n + 1;
            r->lines++;
            return 1;
        }
        if (r->end - r->start > r->max_line) {
            snprintf(err, errlen, "a line longer than %zu MiB", r->max_line >> 20);
            return -1;
        }
        if (r->eof) {
            *partial = r->end > r->start;
            return 0;
        }
        if (r->start) {
            memmove(r->buf, r->buf + r->start, r->end - r->start);
            r->end -= r->start;
            r->start = 0;
        }
        if (r->cap - r->end < CHUNK_BYTES) {
            size_t cap = r->cap ? r->cap * 2 : 2 * CHUNK_BYTES;
            if (cap > r->max_line + 2 * CHUNK_BYTES)
                cap = r->max_line + 2 * CHUNK_BYTES;
            char *b = cap > r->cap ? realloc(r->buf, cap) : r->buf;
            if (!b) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            r->buf = b;
            r->cap = cap;
        }
        long got = r->read(r->ud, r->buf + r->end, CHUNK_BYTES, err, errlen);
        if (got < 0)
            return -1;
        r->end += (size_t)got;
        r->eof = got == 0;
    }
}

void gd_line_reader_free(gd_line_reader *r)
{
    free(r->buf);
    r->buf = NULL;
    r->cap = r->start = r->end = 0;
}
