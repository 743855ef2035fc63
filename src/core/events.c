/* SPDX-License-Identifier: Apache-2.0 */
/* The session's health events (model.h). */
#include "event_sums.h"

#include <math.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int gd_event_add(gd_events *ev, const gd_event *e)
{
    ev->total++;
    (void)gd_event_sum_add(ev, e, ev->total); /* a key it cannot keep is counted in sums_dropped */
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

void gd_log_when(const char *when, char *buf, size_t len)
{
    if (!len)
        return;
    const char *p = when + strspn(when, " [");
    size_t digits = strspn(p, "0123456789"), n = digits;
    if (digits && p[n] == '.')
        n += 1 + strspn(p + n + 1, "0123456789");
    bool since_boot = digits && p[n + strspn(p + n, " ]")] == '\0';
    if (since_boot)
        snprintf(buf, len, "%.*s s after boot", (int)n, p);
    else
        snprintf(buf, len, "%s", when);
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

int gd_utc_parse(const char *s, double *unix_s)
{
    int y, mo, d, h, mi, sec, ms = 0, n = 0;
    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 || n != 19)
        return -1;
    const char *p = s + n;
    if (*p == '.') {
        int k = 0;
        if (sscanf(p, ".%3d%n", &ms, &k) != 1 || k != 4 || ms < 0)
            return -1;
        p += k;
    }
    if (strcmp(p, "Z") != 0 || y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || h < 0 ||
        mi > 59 || mi < 0 || sec > 60 || sec < 0)
        return -1;
    struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi, .tm_sec = sec};
    time_t t = timegm(&tm);
    if (t == (time_t)-1)
        return -1;
    *unix_s = (double)t + ms / 1000.0;
    return 0;
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
