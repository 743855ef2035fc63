/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `gpudoctor watch` off a terminal (or --format csv|jsonl): one line per GPU
 * per sample, like nvidia-smi dmon, flushed after each sample so that
 * `watch | tee` and pipelines see it at once. CSV starts with its header;
 * a value that is not valid is an empty field (CSV) or its status (JSONL).
 */
#ifndef GD_WATCH_LINES_H
#define GD_WATCH_LINES_H

#include "gpudoctor/sink.h"

#include <stdbool.h>
#include <stdio.h>

typedef enum gd_watch_format { GD_WATCH_CSV, GD_WATCH_JSONL } gd_watch_format;

#define GD_WATCH_FINDINGS_SPAN_S 60.0 /* findings are judged over the last minute, as in the view */
#define GD_WATCH_MAX_HELD 256

/*
 * Each sample, the checks judge the last minute; a warning or critical
 * finding that was not there at the previous sample is written once with its wall-clock time:
 * in JSONL as a line {"t", "at", "finding": {id, severity, gpu, title}},
 * in CSV (whose lines stay samples) on `notes` (stderr) as
 * "14:02:11 critical health.xid GPU 3: ...".
 */
typedef struct gd_watch_lines {
    FILE *out;
    FILE *notes; /* CSV's new findings; NULL: not written */
    gd_watch_format format;
    bool failed; /* a write failed (a closed pipe, a full disk) */
    size_t held; /* findings of the previous judgement, as "id@gpu" */
    char held_keys[GD_WATCH_MAX_HELD][72];
} gd_watch_lines;

/* The sink over w (which the caller keeps). */
gd_sink gd_watch_lines_sink(gd_watch_lines *w);

/* The CSV header line, without its newline. */
extern const char gd_watch_csv_header[];

#endif
