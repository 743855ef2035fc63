/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A barrier whose party count can shrink (pthread_barrier's cannot), so a
 * thread that could not be started, or a GPU that failed, does not leave the
 * others waiting: the benchmarks start every GPU's measurement together.
 */
#ifndef GD_STEP_BARRIER_H
#define GD_STEP_BARRIER_H

#include <pthread.h>

typedef struct gd_step_barrier {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int parties, waiting;
    unsigned long generation;
} gd_step_barrier;

#define GD_STEP_BARRIER_INIT(n)                                                                                        \
    {                                                                                                                  \
        PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, (n), 0, 0                                                 \
    }

/* Waits until every remaining party has arrived. */
void gd_step_barrier_wait(gd_step_barrier *b);
/* One party leaves for good (a thread not started, or done). */
void gd_step_barrier_leave(gd_step_barrier *b);

#endif
