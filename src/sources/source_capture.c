/* SPDX-License-Identifier: Apache-2.0 */
/* The capture source: --from files, read once; their series is their own. */
#include "source.h"

#include "formats/capture/import.h"

static int capture_open(void *self, const gd_session_opts *o, gd_facts *f, gd_roots *roots, char *err, size_t errlen)
{
    (void)self;
    /* Captured files describe another machine: none of this one's facts. */
    *roots = (gd_roots){0};
    return gd_import_files(o->from, o->from_count, f, err, errlen);
}

static bool capture_samples(const void *self)
{
    (void)self;
    return false;
}

const gd_source_ops gd_source_capture = {
    .name = "capture",
    .size = 1,
    .open = capture_open,
    .samples = capture_samples,
};
