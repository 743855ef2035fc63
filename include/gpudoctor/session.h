/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A diagnosis session: the facts of one machine (real, simulated or
 * captured), sampled one step at a time on the session clock, with sinks
 * that see the snapshot, every sample and the end. `check` is a loop over
 * gd_session_step; a live view, a recorder or an exporter is a sink.
 *
 *     gd_session *s = gd_session_open(&opts, &facts, err, sizeof err);
 *     gd_session_add_sink(s, &progress);
 *     while ((rc = gd_session_step(s, err, sizeof err)) > 0)
 *         ;
 *     gd_session_close(s, err, sizeof err);   (host areas, on_end)
 */
#ifndef GPUDOCTOR_SESSION_H
#define GPUDOCTOR_SESSION_H

#include "gpudoctor/context.h"
#include "gpudoctor/model.h"
#include "gpudoctor/sink.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* What to examine and how long (the CLI fills it from the command line). */
typedef struct gd_session_opts {
    const gd_ctx *ctx; /* roots, libraries, the simulated clock's pace; NULL: defaults */
    const char *sim_scenario; /* NULL: this machine */
    const char *const *from; /* --from FILE (repeatable): captured evidence instead of a machine */
    size_t from_count;
    double duration_s; /* 0: one sample (a snapshot); scenario seconds under --sim */
    double interval_s; /* > 0 */
    /* Seconds of samples the series keep: what the command reads (the
     * exporter's --window, the live view's span). 0: the whole window, at
     * most GD_RETENTION_S. */
    double retain_s;
    /* Seconds of samples the window's running statistics keep as samples
     * come (f->acc, src/analysis/window_acc.h): what the command judges at
     * every tick (the exporter's --window, the live view's last minute).
     * 0: none kept live; the whole series' are built at close, for a
     * command that judges once at the end. */
    double judge_s;
    volatile sig_atomic_t *stop; /* set asynchronously (a signal) to end the window early; may be NULL */
    long pid; /* the job (--pid), or -1 */
    bool job_live; /* the job is a process of this machine even under --sim (run COMMAND) */
    const char *const *python; /* --python PATH (repeatable) */
    size_t python_count;
} gd_session_opts;

typedef struct gd_session gd_session;

/* Opens the sources and takes the snapshot into f (zeroed here). NULL with
 * a message when the machine cannot be examined at all (bad scenario,
 * unreadable capture): exit code 3. No driver is not an error: f says so. */
gd_session *gd_session_open(const gd_session_opts *o, gd_facts *f, char *err, size_t errlen);

/* Where the session reads host facts (resolved at open; valid until close). */
const gd_roots *gd_session_roots(const gd_session *s);

/* Adds a sink (copied); it is told the snapshot at once. 0, or -1 (full). */
int gd_session_add_sink(gd_session *s, const gd_sink *sink);

/* Waits for the next sample's time on the session clock and takes it from
 * every source. 1: a sample was taken; 0: the window is over (its end, a
 * stop request, or nothing to sample); -1 with a message (no memory). */
int gd_session_step(gd_session *s, char *err, size_t errlen);

/* Reads what is read once at the end (PCIe, the software stack), tells the
 * sinks, frees the session (s may be NULL). 0, or -1 with a message. */
int gd_session_close(gd_session *s, char *err, size_t errlen);

#endif
