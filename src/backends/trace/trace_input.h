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

/* A plain file or memory; NULL with a message when it cannot be opened. */
gd_tsrc *gd_tsrc_file(const char *path, char *err, size_t errlen);
gd_tsrc *gd_tsrc_mem(const void *data, size_t len);

/* Gzip over `raw` (taken over). threaded: inflate on a thread of its own,
 * ahead of the parser. */
gd_tsrc *gd_tsrc_gzip(gd_tsrc *raw, int threaded, char *err, size_t errlen);

/* Peeks the first bytes of a file: 1 when it starts as gzip, 0 when not, -1 unreadable. */
int gd_tsrc_file_is_gzip(const char *path, char *err, size_t errlen);

#endif
