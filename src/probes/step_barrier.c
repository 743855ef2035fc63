/* SPDX-License-Identifier: Apache-2.0 */
/* gd_step_barrier: see step_barrier.h. */
#include "step_barrier.h"

static void trip_locked(gd_step_barrier *b)
{
    b->waiting = 0;
    b->generation++;
    pthread_cond_broadcast(&b->cond);
}

void gd_step_barrier_wait(gd_step_barrier *b)
{
    pthread_mutex_lock(&b->lock);
    unsigned long gen = b->generation;
    if (++b->waiting >= b->parties)
        trip_locked(b);
    else
        while (gen == b->generation)
            pthread_cond_wait(&b->cond, &b->lock);
    pthread_mutex_unlock(&b->lock);
}

void gd_step_barrier_leave(gd_step_barrier *b)
{
    pthread_mutex_lock(&b->lock);
    if (--b->parties > 0 && b->waiting >= b->parties)
        trip_locked(b);
    pthread_mutex_unlock(&b->lock);
}
