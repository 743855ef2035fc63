/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recording's file (--record FILE.jsonl[.gz], docs/interface.md section
 * 6): whole lines appended, gzip-compressed when the name ends in ".gz",
 * synced at most once a second, and, on a regular file, its older samples
 * thinned as they age: past the newest `keep` samples (those the checks of
 * the live run judge), sample lines are folded into buckets of minimum,
 * maximum and mean (record_thin.h). Thinning rewrites the file beside it
 * and renames it over, so the name always holds a whole recording; lines
 * that are not samples (health events, counters) are copied, never folded.
 */
#ifndef GD_RECORD_FILE_H
#define GD_RECORD_FILE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gd_record_file gd_record_file;

/* Creates (truncates) path: a FIFO nobody reads is refused, not waited for.
 * `log` hears what goes wrong with thinning (the recording goes on without
 * it). NULL with a message when it cannot be opened. */
gd_record_file *gd_record_file_open(const char *path, void (*log)(void *ud, const char *msg), void *log_ud, char *err,
                                    size_t errlen);

/* Keep the newest `keep` samples whole and fold older ones into buckets of
 * bucket_s seconds of session time (keep 0: never thin). Only a regular
 * file is thinned. */
void gd_record_file_thin(gd_record_file *w, size_t keep, double bucket_s);

/* How a line is written. */
typedef enum gd_record_line {
    GD_RECORD_SAMPLE, /* may be folded once it is old */
    GD_RECORD_KEEP, /* never folded; written through at once (compressed: flushed) */
} gd_record_line;

/* Appends `line` (n bytes, no newline) of session time t. 0, or -1 with a
 * message: the file is cut back to its last whole line and takes no more. */
int gd_record_file_put(gd_record_file *w, const char *line, size_t n, double t, gd_record_line kind, char *err,
                       size_t errlen);

/* Ends the compressed stream, syncs and closes; frees w (may be NULL). 0, or
 * -1 with a message. */
int gd_record_file_close(gd_record_file *w, char *err, size_t errlen);

#endif
