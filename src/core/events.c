/* SPDX-License-Identifier: Apache-2.0 */
/* The session's health events (model.h). */
#include "gpudoctor/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int gd_event_add(gd_events *ev, const gd_event *e)
{
    if (!ev->v) {
        ev->v = calloc(GD_EVENTS_MAX, sizeof *ev->v);
        if (!ev->v)
            return -1;
    }
    if (ev->n == GD_EVENTS_MAX) {
        memmove(ev->v, ev->v + 1, (GD_EVENTS_MAX - 1) * sizeof *ev->v);
        ev->n--;
        ev->dropped++;
    }
    ev->v[ev->n++] = *e;
    return 0;
}

void gd_event_clock(const gd_events *ev, double t, char *buf, size_t len)
{
    if (ev->start_unix <= 0) {
        snprintf(buf, len, "t=%.1f s", t);
        return;
    }
    time_t at = (time_t)(ev->start_unix + t);
    struct tm tm;
    if (!localtime_r(&at, &tm) || strftime(buf, len, "%H:%M:%S", &tm) == 0)
        snprintf(buf, len, "t=%.1f s", t);
}

bool gd_event_utc(const gd_events *ev, double t, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    if (ev->start_unix <= 0 || !isfinite(t))
        return false;
    double at = ev->start_unix + t;
    double whole = floor(at);
    int ms = (int)((at - whole) * 1000.0 + 0.5);
    if (ms == 1000)
        whole += 1, ms = 0;
    time_t s = (time_t)whole;
    struct tm tm;
    char day[32];
    if (!gmtime_r(&s, &tm) || strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        return false;
    return snprintf(buf, len, "%s.%03dZ", day, ms) < (int)len;
}
