/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading profiler traces (docs/trace.md): Chrome trace JSON as torch.profiler
 * (Kineto) writes it, the legacy bare array, plain or gzip, streamed through
 * a bounded buffer into an accumulator (analysis/trace/trace.h).
 */
#ifndef GD_TRACE_READ_H
#define GD_TRACE_READ_H

#include "analysis/trace/trace.h"

#include <stddef.h>

/* The largest single JSON value (one event, one top-level member) read. */
#define GD_TRACE_MAX_ITEM (16u << 20)

/*
 * Reads one trace file (gzip is recognised by its magic bytes, whatever the
 * name) into acc. Returns 0 (meta->truncated when the input ended inside the
 * event list but some events were read), or -1 with a message in err: not
 * readable, not a trace, gzip data corrupt, a value too large.
 */
int gd_trace_read_file(const char *path, gd_trace_acc *acc, gd_trace_meta *meta, char *err, size_t errlen);

/* The same for bytes in memory (plain or gzip), on the calling thread. */
int gd_trace_read_mem(const void *data, size_t len, gd_trace_acc *acc, gd_trace_meta *meta, char *err, size_t errlen);

/* The name of the inflater built in ("isa-l" or "zlib"). */
const char *gd_trace_inflater(void);

#endif
