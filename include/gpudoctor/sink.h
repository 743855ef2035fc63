/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What watches a session (include/gpudoctor/session.h): the progress line,
 * the recorder, watch's lines, the live view. A sink is told the facts; it
 * never steers the session, so the renderers that are sinks need nothing of
 * the session itself.
 */
#ifndef GPUDOCTOR_SINK_H
#define GPUDOCTOR_SINK_H

#include "gpudoctor/model.h"

#include <stddef.h>

/* Sees the session's facts; every callback may be NULL. */
typedef struct gd_sink {
    void (*on_snapshot)(void *ud, const gd_facts *f); /* static facts read, before the first sample */
    void (*on_sample)(void *ud, const gd_facts *f, size_t i); /* sample i of f->series is complete */
    void (*on_end)(void *ud, const gd_facts *f); /* the window is over, host areas read */
    void *ud;
} gd_sink;

#endif
