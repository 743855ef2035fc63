/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `gpudoctor watch` off a terminal (or --format csv|jsonl): one line per GPU
 * per sample, like nvidia-smi dmon, flushed after each sample so that
 * `watch | tee` and pipelines see it at once. CSV starts with its header;
 * a value that is not valid is an empty field (CSV) or its status (JSONL).
 */
#ifndef GD_WATCH_LINES_H
#define GD_WATCH_LINES_H

#include "gpudoctor/session.h"

#include <stdbool.h>
#include <stdio.h>

typedef enum gd_watch_format { GD_WATCH_CSV, GD_WATCH_JSONL } gd_watch_format;

typedef struct gd_watch_lines {
    FILE *out;
    gd_watch_format format;
    bool failed; /* a write failed (a closed pipe, a full disk) */
} gd_watch_lines;

/* The sink over w (which the caller keeps). */
gd_sink gd_watch_lines_sink(gd_watch_lines *w);

/* The CSV header line, without its newline. */
extern const char gd_watch_csv_header[];

#endif
