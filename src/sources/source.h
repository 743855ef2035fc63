/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A source of facts behind one small interface: open (and take the
 * snapshot), sample (fill sample i at session time t), close. The machine's
 * source gives the GPUs (NVML real or simulated, or captured files and
 * recordings); the host's and the job's /proc sample beside it, each into
 * its own series. A new source is one file with one of these tables.
 */
#ifndef GD_SOURCES_SOURCE_H
#define GD_SOURCES_SOURCE_H

#include "gpudoctor/session.h"

#include <stdbool.h>

typedef struct gd_source_ops {
    const char *name;
    size_t size; /* bytes of the source's own state, allocated by the session */
    /* Static facts into f. 0; 1 when the source has nothing to give (no
     * driver: f says why, not an error); -1 with a message. `roots` holds
     * the context's roots; a source that describes another machine (a
     * scenario, captures) replaces them with that machine's. */
    int (*open)(void *self, const gd_session_opts *o, gd_facts *f, gd_roots *roots, char *err, size_t errlen);
    /* True when the source takes samples on the clock (a capture brings its own). */
    bool (*samples)(const void *self);
    /* The clock the source runs on (virtual for a simulated machine). */
    void (*clock)(const void *self, const gd_session_opts *o, int *mode, double *pace);
    /* Fills sample i, taken at session time t. */
    void (*sample)(void *self, gd_facts *f, size_t i, double t);
    /* Optional: scenario seconds the last sample's calls took on a simulated
     * machine (its clock is virtual, so the session moves it on). */
    double (*spent)(void *self);
    /* Optional: the window's end, after its last sample (taken at session
     * time t): what is read only now and then is read once more, so that
     * what changed in the window's last seconds is seen. */
    void (*finish)(void *self, gd_facts *f, double t);
    void (*close)(void *self);
} gd_source_ops;

extern const gd_source_ops gd_source_nvml; /* source_nvml.c: NVML, or the simulated one under --sim */
extern const gd_source_ops gd_source_capture; /* source_capture.c: --from files */
extern const gd_source_ops gd_source_proc; /* source_proc.c: the job's /proc, sampled beside the GPUs */
extern const gd_source_ops gd_source_host; /* source_host.c: the host's CPU, pressure and swap */
extern const gd_source_ops gd_source_kernel_log; /* source_kernel_log.c: new kernel log lines, as Xid events */

/* The session's side sources, in the order they sample (session.c): the
 * k-th, or NULL past the last. */
const gd_source_ops *gd_session_side_source(size_t k);

#endif
