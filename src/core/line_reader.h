/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lines out of a stream of bytes in bounded memory: at most one line (up to
 * max_line bytes) and one chunk are held, whatever the stream's length. The
 * bytes come from a read function (a file, a pipe, inflated gzip).
 */
#ifndef GD_CORE_LINE_READER_H
#define GD_CORE_LINE_READER_H

#include <stdbool.h>
#include <stddef.h>

/* Fills up to cap bytes: the count, 0 at the end, -1 with a message. */
typedef long (*gd_line_read_fn)(void *ud, char *buf, size_t cap, char *err, size_t errlen);

typedef struct gd_line_reader {
    gd_line_read_fn read;
    void *ud;
    size_t max_line; /* a longer line is an error */
    size_t lines; /* lines handed out so far */
    /* the reader's own */
    char *buf;
    size_t cap, start, end;
    bool eof;
} gd_line_reader;

/* The next line (without its newline) into *line, *n, valid until the next
 * call: 1; 0 at the end, *partial when bytes without a newline ended the
 * stream (they are not handed out); -1 with a message (a read error, a line
 * longer than max_line, no memory). */
int gd_line_next(gd_line_reader *r, const char **line, size_t *n, bool *partial, char *err, size_t errlen);

/* The buffer; the read function's state is the caller's. */
void gd_line_reader_free(gd_line_reader *r);

#endif
