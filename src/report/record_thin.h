/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Thinning a recording's older samples (docs/interface.md, section 6): the
 * sample lines of one bucket of time folded into one line that keeps, for
 * every value, its minimum, maximum and mean (the GPUs' matrix, the job's
 * sample, the host's samples), and what is never thinned (a GPU that was
 * lost, the job's newest summary). Pure: JSON lines in, a JSON line out.
 */
#ifndef GD_RECORD_THIN_H
#define GD_RECORD_THIN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct gd_thin gd_thin;

/* An empty bucket; NULL when out of memory. */
gd_thin *gd_thin_new(void);
void gd_thin_free(gd_thin *b);

/* Folds one sample line ({"t", "gpus", "job", "host", "lost", "job_summary"}).
 * 0, or -1 (out of memory, or no sample line). */
int gd_thin_add(gd_thin *b, const json_t *sample);

/* How many samples the bucket holds. */
size_t gd_thin_samples(const gd_thin *b);

/* The bucket's line, {"t": FIRST, "t_end": LAST, "samples": N, "min": {...},
 * "max": {...}, "mean": {...}, "lost": [...], "job_summary": {...}}; NULL
 * when empty or out of memory. The bucket is emptied. */
json_t *gd_thin_take(gd_thin *b);

#endif
