/* SPDX-License-Identifier: Apache-2.0 */
/* Byte sources for the trace parser: a file, memory, and gzip over either. */
#ifndef GD_TRACE_INPUT_H
#define GD_TRACE_INPUT_H

#include <stddef.h>

typedef struct gd_tsrc gd_tsrc;
struct gd_tsrc {
    /* Fills up to cap bytes; returns the count, 0 at the end, -1 on error (message in err). */
    long (*read)(gd_tsrc *s, char *buf, size_t cap, char *err, size_t errlen);
    void (*close)(gd_tsrc *s);
};

/* A file (also a pipe or a FIFO: opened and read as core/input.h reads
 * streams, never blocking for ever) or memory; NULL with a message when it
 * cannot be opened. *gzip: whether the file starts as gzip (its first bytes,
 * read to tell, stay in the stream). */
gd_tsrc *gd_tsrc_file(const char *path, int *gzip, char *err, size_t errlen);
gd_tsrc *gd_tsrc_mem(const void *data, size_t len);

/* Gzip over `raw` (taken over). threaded: inflate on a thread of its own,
 * ahead of the parser. */
gd_tsrc *gd_tsrc_gzip(gd_tsrc *raw, int threaded, char *err, size_t errlen);

#endif
