/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The session's clock. On a real machine it is the wall clock. Under --sim
 * it is scenario time: by default it jumps to each sample's time at once
 * (a 60-second story plays in well under a second), or, paced, it runs at
 * N scenario seconds per wall second (demos, the live view, benchmarks that
 * time real work). Sample times, durations and rates are in its seconds.
 */
#ifndef GD_CORE_CLOCK_H
#define GD_CORE_CLOCK_H

#include <stdbool.h>

typedef enum gd_clock_mode {
    GD_CLOCK_WALL, /* real time */
    GD_CLOCK_FAST, /* virtual: waiting is free */
    GD_CLOCK_PACED, /* virtual, at `pace` clock seconds per wall second */
} gd_clock_mode;

typedef struct gd_clock {
    gd_clock_mode mode;
    double pace; /* GD_CLOCK_PACED only, > 0 */
    double origin_wall; /* wall seconds (monotonic) at gd_clock_start */
    double t; /* virtual clocks: seconds since the start */
} gd_clock;

/* A clock of that mode, started now (pace ignored unless GD_CLOCK_PACED). */
void gd_clock_start(gd_clock *c, gd_clock_mode mode, double pace);

/* Seconds since the start. */
double gd_clock_now(const gd_clock *c);

/* Waits until the clock reads t (virtual clocks: jumps, paced after a
 * sleep). A signal may end the wait early; the caller checks its flag. */
void gd_clock_wait_until(gd_clock *c, double t);

/* Time a simulated driver's calls took (scenario seconds: the simulated
 * nvmlDeviceGetPcieThroughput samples for 20 ms like the real one). A fast
 * clock moves on by it, a paced one waits it out; the wall clock has
 * measured it already. */
void gd_clock_spend(gd_clock *c, double seconds);

/* True when the clock is the scenario's, not the wall's. */
static inline bool gd_clock_virtual(const gd_clock *c)
{
    return c->mode != GD_CLOCK_WALL;
}

#endif
