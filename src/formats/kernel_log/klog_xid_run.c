/* SPDX-License-Identifier: Apache-2.0 */
/* Which Xid lines are one event: see klog_xid_run.h. */
#include "klog_xid_run.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

/* "H:MM:SS" or "HH:MM:SS" at s[i], with its length; 0 when none. */
static size_t clock_at(const char *s, size_t i, size_t n, double *sec)
{
    size_t h = 0;
    while (h < 2 && i + h < n && digit(s[i + h]))
        h++;
    if (h == 0 || i + h + 6 > n || s[i + h] != ':' || s[i + h + 3] != ':')
        return 0;
    const char *m = s + i + h + 1, *c = s + i + h + 4;
    if (!digit(m[0]) || !digit(m[1]) || !digit(c[0]) || !digit(c[1]))
        return 0;
    if (i + h + 6 < n && digit(s[i + h + 6]))
        return 0;
    int hh = h == 2 ? (s[i] - '0') * 10 + (s[i + 1] - '0') : s[i] - '0';
    *sec = hh * 3600.0 + ((m[0] - '0') * 10 + (m[1] - '0')) * 60.0 + ((c[0] - '0') * 10 + (c[1] - '0'));
    size_t len = h + 6;
    /* A fraction after '.' or ',' (dmesg --time-format iso writes a comma). */
    if (i + len + 1 < n && (s[i + len] == '.' || s[i + len] == ',') && digit(s[i + len + 1])) {
        double scale = 0.1;
        for (len++; i + len < n && digit(s[i + len]); len++, scale /= 10)
            *sec += (s[i + len] - '0') * scale;
    }
    return len;
}

bool gd_klog_when_seconds(const char *when, char *day, size_t dlen, double *sec)
{
    size_t n = strlen(when);
    day[0] = '\0';
    /* The last time of day in it: a date may come before or after. */
    for (size_t i = n; i-- > 0;) {
        if (i > 0 && digit(when[i - 1]))
            continue;
        size_t len = clock_at(when, i, n, sec);
        if (len) {
            snprintf(day, dlen, "%.*s|%s", (int)i, when, when + i + len);
            return true;
        }
    }
    /* Seconds since boot (dmesg, /dev/kmsg) or since the epoch (short-unix). */
    if (n && digit(when[0])) {
        char *end;
        *sec = strtod(when, &end);
        return end != when && isfinite(*sec);
    }
    return false;
}

/* The pid a line names ("pid=1234, ..."); 0 for '<unknown>' or none. */
static long pid_of(const char *text)
{
    const char *p = strstr(text, "pid=");
    if (!p || p - text > 8)
        return 0;
    p += 4;
    long pid = 0;
    while (digit(*p) && pid < 100000000)
        pid = pid * 10 + (*p++ - '0');
    return pid;
}

static gd_xid_last *slot_of(gd_xid_runs *r, const char *pci, int xid)
{
    for (size_t k = 0; k < r->count; k++)
        if (r->last[k].xid == xid && strcasecmp(r->last[k].pci, pci) == 0)
            return &r->last[k];
    return NULL;
}

/* The place of the last Xid line on pci, any Xid; 0 none remembered. */
static size_t last_on(const gd_xid_runs *r, const char *pci)
{
    size_t seq = 0;
    for (size_t k = 0; k < r->count; k++)
        if (r->last[k].seq > seq && strcasecmp(r->last[k].pci, pci) == 0)
            seq = r->last[k].seq;
    return seq;
}

bool gd_xid_runs_continues(gd_xid_runs *r, const gd_xid_event *ev)
{
    gd_xid_last now = {.xid = ev->xid, .pid = pid_of(ev->text), .seq = ++r->seq};
    snprintf(now.pci, sizeof now.pci, "%s", ev->pci);
    now.timed = gd_klog_when_seconds(ev->when, now.day, sizeof now.day, &now.sec);
    gd_xid_last *was = slot_of(r, ev->pci, ev->xid);
    bool more = false;
    if (was && !(was->pid && now.pid && was->pid != now.pid)) {
        if (was->timed && now.timed)
            more = strcmp(was->day, now.day) == 0 && now.sec >= was->sec && now.sec - was->sec <= GD_XID_EVENT_GAP_S;
        else /* no clock to tell them apart: lines in a row */
            more = !was->timed && !now.timed && was->seq == last_on(r, ev->pci);
        /* A pid stays known for the rest of its event (the first line may say '<unknown>'). */
        if (more && !now.pid)
            now.pid = was->pid;
    }
    if (!was) {
        if (r->count < GD_XID_RUN_SLOTS)
            was = &r->last[r->count++];
        else {
            was = &r->last[r->next];
            r->next = (r->next + 1) % GD_XID_RUN_SLOTS;
        }
    }
    *was = now;
    return more;
}
