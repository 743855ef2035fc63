/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bounded ring that every series of the model keeps its samples in
 * (src/core/ring.c). Its own header: the model (model.h) and the job's
 * samples (job.h) both build on it, and it needs neither.
 */
#ifndef GPUDOCTOR_RING_H
#define GPUDOCTOR_RING_H

#include <stddef.h>

/*
 * Every series is a bounded ring of samples, one per entity kind, each on
 * its own sample times: the GPUs (gd_series), the job's processes
 * (gd_job_facts, job.h) and the host (gd_host_series). With a limit, a ring
 * keeps the newest `limit` samples: a session that runs for a week keeps
 * flat memory. Sample i counts from the oldest one kept (0) to the newest
 * (n - 1); `dropped` samples fell out. The bookkeeping is one struct,
 * gd_ring, that each series holds as a union with its fields (`s->n`, or
 * `&s->ring` for the functions below).
 */
typedef struct gd_ring {
    size_t n, cap;
    size_t limit; /* most samples kept; 0: no limit */
    size_t head; /* storage row of sample 0 */
    size_t dropped; /* samples that fell out of the ring */
} gd_ring;

#define GD_RING_FIELDS                                                                                                 \
    union {                                                                                                            \
        gd_ring ring;                                                                                                  \
        struct {                                                                                                       \
            size_t n, cap, limit, head, dropped;                                                                       \
        };                                                                                                             \
    }

/* The storage row of sample i. */
static inline size_t gd_ring_row(const gd_ring *r, size_t i)
{
    size_t x = r->head + i;
    return x < r->cap ? x : x - r->cap;
}

/* Makes room for a new newest sample and returns its storage row: at the
 * limit the oldest sample's row; otherwise the next one, after grow(ud, cap)
 * has made the caller's storage hold `cap` rows (0, or -1: no memory, and
 * gd_ring_push returns -1). */
long gd_ring_push(gd_ring *r, int (*grow)(void *ud, size_t cap), void *ud);

/* Samples [from, from + n) of r as a ring of their own over the same
 * storage (a view: never push to it). */
gd_ring gd_ring_window(const gd_ring *r, size_t from, size_t n);

#endif
