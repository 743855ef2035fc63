/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading what a user points gpudoctor at: once, bounded, never blocking.
 *
 * A path may name a FIFO nobody writes, a directory, /proc/self/mem or a
 * 1 TiB sparse file. open() is non-blocking, the kind of file is checked
 * before a byte is read, sizes are capped, and read errors are errors (a
 * directory is not an empty file). Where a stream is welcome (--from, "-"
 * for standard input, a pipe from a command), it is read once, with a
 * bounded wait for data.
 */
#ifndef GD_CORE_INPUT_H
#define GD_CORE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum gd_input_kind {
    GD_INPUT_FILE, /* a regular file only (scenarios, sysfs attributes, files under a root) */
    GD_INPUT_STREAM, /* also a pipe, a FIFO, a terminal, and "-" for standard input (--from) */
} gd_input_kind;

/* A stream that gives no byte for this long is given up on. */
#define GD_INPUT_STREAM_IDLE_S 60

/*
 * Opens path for reading (O_NONBLOCK, so a FIFO without a writer cannot
 * hang open()) and checks what it is. Returns a descriptor in blocking
 * mode for regular files (non-blocking for streams), or -1 with a message
 * in err ("NAME: is a directory", "NAME: a FIFO, not a regular file") and
 * errno set.
 */
int gd_input_open(const char *path, gd_input_kind kind, char *err, size_t errlen);

/*
 * All of path (standard input for "-" with GD_INPUT_STREAM), read once
 * into a NUL-terminated buffer of at most max bytes. NULL with a message
 * (and errno) when it cannot be opened or read, or is larger than max.
 */
char *gd_input_read(const char *path, gd_input_kind kind, size_t max, size_t *len, char *err, size_t errlen);

/*
 * The newest part of a regular file: all of it when at most max bytes,
 * else its last max bytes from the first line start (*cut set). For logs,
 * where the latest lines matter most.
 */
char *gd_input_read_tail(const char *path, size_t max, size_t *len, bool *cut, char *err, size_t errlen);

/* gd_input_open(path, GD_INPUT_FILE) as a stdio stream ("r"), or NULL:
 * for the small files of a sysfs or proc tree, which may hold a FIFO. */
FILE *gd_input_fopen(const char *path);

/* "-" -> "standard input"; anything else unchanged. */
const char *gd_input_name(const char *path);

#endif
