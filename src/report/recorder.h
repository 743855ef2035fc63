/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recorder (--record FILE.jsonl): a session sink writing a header line
 * (schema_version, metric keys, sources, static facts), one line per sample
 * with each value's status, and an end line with the PCIe and stack facts.
 * Each line is one write(2), so a kill leaves whole lines only; the file is
 * synced to disk at most once a second. A write that fails (a full disk)
 * cuts the file back to its last whole line, ends the recording with a
 * message through `log` and leaves the session running.
 */
#ifndef GD_RECORDER_H
#define GD_RECORDER_H

#include "gpudoctor/sink.h"

#include <stdbool.h>

typedef struct gd_recorder gd_recorder;

/* Creates (truncates) path. NULL with a message when it cannot be opened. */
gd_recorder *gd_recorder_open(const char *path, void (*log)(void *ud, const char *msg), void *log_ud, char *err,
                              size_t errlen);

/* The sink to add to the session; r stays owned by the caller. */
gd_sink gd_recorder_sink(gd_recorder *r);

/* Syncs and closes the file, frees r (may be NULL). False when the
 * recording ended early (the message was logged). */
bool gd_recorder_close(gd_recorder *r);

#endif
