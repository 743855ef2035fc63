/* SPDX-License-Identifier: Apache-2.0 */
/* The session's clock (clock.h). */
#include "clock.h"

#include <errno.h>
#include <time.h>

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleeps until wall time `until`; a signal ends the sleep. */
static void sleep_until_wall(double until)
{
    double d = until - wall_s();
    if (d <= 0)
        return;
    struct timespec ts = {.tv_sec = (time_t)d, .tv_nsec = (long)((d - (double)(time_t)d) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        break;
}

void gd_clock_start(gd_clock *c, gd_clock_mode mode, double pace)
{
    *c = (gd_clock){.mode = mode, .pace = pace > 0 ? pace : 1.0, .origin_wall = wall_s()};
}

double gd_clock_now(const gd_clock *c)
{
    return c->mode == GD_CLOCK_WALL ? wall_s() - c->origin_wall : c->t;
}

void gd_clock_wait_until(gd_clock *c, double t)
{
    switch (c->mode) {
    case GD_CLOCK_WALL: sleep_until_wall(c->origin_wall + t); return;
    case GD_CLOCK_PACED: sleep_until_wall(c->origin_wall + t / c->pace); break;
    case GD_CLOCK_FAST: break;
    }
    if (t > c->t)
        c->t = t;
}

void gd_clock_spend(gd_clock *c, double seconds)
{
    if (!(seconds > 0))
        return;
    switch (c->mode) {
    case GD_CLOCK_WALL: return;
    case GD_CLOCK_PACED: sleep_until_wall(wall_s() + seconds / c->pace); break;
    case GD_CLOCK_FAST: break;
    }
    c->t += seconds;
}
