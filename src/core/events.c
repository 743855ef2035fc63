/* SPDX-License-Identifier: Apache-2.0 */
/* The session's health events (model.h). */
#include "gpudoctor/model.h"

#include <ctype.h>
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

const char *const gd_nvlink_counter_names[GD_NVLINK_COUNTERS] = {"replay", "recovery", "crc_flit", "crc_data"};

bool gd_nvlink_event_parse(const gd_event *e, unsigned *link, int *counter)
{
    if (e->kind != GD_EV_COUNTER || strncmp(e->what, "nvlink_", 7) != 0)
        return false;
    const char *colon = strchr(e->what, ':');
    if (!colon || !colon[1])
        return false;
    for (int k = 0; k < GD_NVLINK_COUNTERS; k++) {
        size_t n = strlen(gd_nvlink_counter_names[k]);
        if ((size_t)(colon - e->what - 7) != n || strncmp(e->what + 7, gd_nvlink_counter_names[k], n) != 0)
            continue;
        char *end;
        unsigned long l = strtoul(colon + 1, &end, 10);
        if (*end || l > 255 || !isdigit((unsigned char)colon[1]))
            return false;
        *link = (unsigned)l;
        *counter = k;
        return true;
    }
    return false;
}
