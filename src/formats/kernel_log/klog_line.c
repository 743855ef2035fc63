/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One kernel log line, in every style dmesg and journalctl print it, split
 * into its timestamp (as written) and its message. The styles:
 *   [    5.123456] msg                          dmesg (classic, ctime off)
 *   [Tue Mar  5 10:00:00 2024] msg              dmesg -T
 *   2024-03-05T10:00:00,123456+00:00 msg        dmesg --time-format iso
 *   [Mar 5 10:00] msg / [  +0.000123] msg       dmesg --time-format reltime (-e)
 *   [<    0.000123>] msg                        dmesg --time-format delta
 *   [    5.123456 <    0.000123>] msg           dmesg -d (--show-delta)
 *   msg                                         dmesg -t (notime), continuation lines
 *   kern  :warn  : <any of the above> msg       dmesg --decode (-x)
 *   <4>[    5.123456] msg                       dmesg -r (raw)
 *   Mar 05 10:00:00 host kernel: msg            journalctl -k (short, syslog)
 *   Mar 05 10:00:00.123456 host kernel: msg     journalctl -k -o short-precise
 *   11月 05 10:00:00 host kernel: msg           the same in another language: the time kept as text
 *   2024-03-05T10:00:00+0000 host kernel: msg   journalctl -k -o short-iso (-precise)
 *   [    5.123456] host kernel: msg             journalctl -k -o short-monotonic
 *   Tue 2024-03-05 10:00:00 UTC host kernel: m  journalctl -k -o short-full
 *   1709632800.123456 host kernel: msg          journalctl -k -o short-unix
 *   4,1234,5678901,-;msg                        /dev/kmsg
 */
#include "klog_parse.h"
#include "core/text_safe.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cur {
    const char *p, *end;
} cur;

static size_t span(const cur *c, const char *set)
{
    size_t n = 0;
    while (c->p + n < c->end && strchr(set, c->p[n]) && c->p[n])
        n++;
    return n;
}

static size_t digits(const cur *c)
{
    return span(c, "0123456789");
}

static bool lit(cur *c, const char *s)
{
    size_t n = strlen(s);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n) != 0)
        return false;
    c->p += n;
    return true;
}

static void skip_spaces(cur *c)
{
    c->p += span(c, " ");
}

/* One of the three-letter names packed in `names`, consumed. */
static bool name3(cur *c, const char *names)
{
    if (c->end - c->p < 3)
        return false;
    for (size_t i = 0; names[i]; i += 3)
        if (memcmp(c->p, names + i, 3) == 0) {
            c->p += 3;
            return true;
        }
    return false;
}

static bool month(cur *c)
{
    return name3(c, "JanFebMarAprMayJunJulAugSepOctNovDec");
}

static bool weekday(cur *c)
{
    return name3(c, "MonTueWedThuFriSatSun");
}

/* n digits exactly, then (when sep) that character. */
static bool num(cur *c, size_t n, char sep)
{
    if (digits(c) != n)
        return false;
    c->p += n;
    return !sep || lit(c, (char[]){sep, '\0'});
}

/* HH:MM:SS, or HH:MM when !seconds. */
static bool clock_time(cur *c, bool seconds)
{
    if (!num(c, 2, ':') || !num(c, 2, 0))
        return false;
    return !seconds || (lit(c, ":") && num(c, 2, 0));
}

/* ".123456" or ",123456", optional. */
static void fraction(cur *c)
{
    if (c->p < c->end && (*c->p == '.' || *c->p == ',') && c->p + 1 < c->end && isdigit((unsigned char)c->p[1])) {
        c->p++;
        c->p += digits(c);
    }
}

/* "[   5.123456" digits and a fraction after spaces (and a sign when sign). */
static bool seconds_number(cur *c, bool sign)
{
    skip_spaces(c);
    if (sign && c->p < c->end && (*c->p == '+' || *c->p == '-'))
        c->p++;
    size_t n = digits(c);
    if (n == 0)
        return false;
    c->p += n;
    if (!lit(c, "."))
        return false;
    n = digits(c);
    c->p += n;
    return n > 0;
}

/* YYYY-MM-DDTHH:MM:SS[,.ffffff][+HH:MM|+HHMM|Z], or with a space for the T
 * when space_t (short-full). */
static bool iso_stamp(cur *c, bool space_t)
{
    if (!num(c, 4, '-') || !num(c, 2, '-') || !num(c, 2, 0))
        return false;
    if (!lit(c, space_t ? " " : "T"))
        return false;
    if (!clock_time(c, true))
        return false;
    fraction(c);
    if (c->p < c->end && (*c->p == '+' || *c->p == '-')) {
        c->p++;
        if (digits(c) == 4) /* +0000 */
            c->p += 4;
        else if (!num(c, 2, ':') || !num(c, 2, 0)) /* +00:00 */
            return false;
    } else {
        lit(c, "Z");
    }
    return true;
}

/* What may stand inside "[...]" of a dmesg line; c->p after the ']'. */
static bool bracket(cur *c, gd_klog_style *style)
{
    cur t = *c;
    if (!lit(&t, "["))
        return false;
    cur s = t;
    /* [<   0.000123>]: delta */
    if (lit(&s, "<") && seconds_number(&s, false) && lit(&s, ">]")) {
        *style = GD_KLOG_DELTA;
        *c = s;
        return true;
    }
    s = t;
    /* [  +0.000123]: reltime after the minute's first line */
    skip_spaces(&s);
    if (s.p < s.end && *s.p == '+' && seconds_number(&s, true) && lit(&s, "]")) {
        *style = GD_KLOG_RELTIME;
        *c = s;
        return true;
    }
    s = t;
    /* [    5.123456] and [    5.123456 <    0.000123>] */
    if (seconds_number(&s, false)) {
        cur d = s;
        if (lit(&s, "]")) {
            *style = GD_KLOG_MONOTONIC;
            *c = s;
            return true;
        }
        skip_spaces(&d);
        if (lit(&d, "<") && seconds_number(&d, false) && lit(&d, ">]")) {
            *style = GD_KLOG_DELTA;
            *c = d;
            return true;
        }
        return false;
    }
    s = t;
    /* [Tue Mar  5 10:00:00 2024]: ctime */
    if (weekday(&s) && lit(&s, " ") && month(&s)) {
        skip_spaces(&s);
        size_t n = digits(&s);
        if (n < 1 || n > 2)
            return false;
        s.p += n;
        if (!lit(&s, " ") || !clock_time(&s, true) || !lit(&s, " ") || !num(&s, 4, ']'))
            return false;
        *style = GD_KLOG_CTIME;
        *c = s;
        return true;
    }
    s = t;
    /* [Mar 5 10:00]: reltime, the minute's first line */
    if (month(&s)) {
        skip_spaces(&s);
        size_t n = digits(&s);
        if (n < 1 || n > 2)
            return false;
        s.p += n;
        skip_spaces(&s);
        if (!clock_time(&s, false) || !lit(&s, "]"))
            return false;
        *style = GD_KLOG_RELTIME;
        *c = s;
        return true;
    }
    return false;
}

/* "host kernel: " after a journal timestamp; c->p after it. */
static bool journal_host(cur *c)
{
    if (!lit(c, " "))
        return false;
    size_t n = 0;
    while (c->p + n < c->end && c->p[n] != ' ')
        n++;
    if (n == 0)
        return false;
    c->p += n;
    return lit(c, " kernel:") && (lit(c, " ") || c->p == c->end);
}

/* dmesg --decode: "kern  :warn  : ". */
static bool decode_prefix(cur *c)
{
    static const char *const facilities[] = {"kern",   "user",   "mail",   "daemon",   "auth",   "syslog", "lpr",
                                             "news",   "uucp",   "cron",   "authpriv", "ftp",    "local0", "local1",
                                             "local2", "local3", "local4", "local5",   "local6", "local7"};
    static const char *const levels[] = {"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"};
    cur t = *c;
    bool ok = false;
    for (size_t i = 0; !ok && i < sizeof facilities / sizeof facilities[0]; i++) {
        cur s = t;
        ok = lit(&s, facilities[i]) && (skip_spaces(&s), lit(&s, ":"));
        if (ok)
            t = s;
    }
    if (!ok)
        return false;
    ok = false;
    for (size_t i = 0; !ok && i < sizeof levels / sizeof levels[0]; i++) {
        cur s = t;
        ok = lit(&s, levels[i]) && (skip_spaces(&s), lit(&s, ":"));
        if (ok)
            t = s;
    }
    if (!ok || !lit(&t, " "))
        return false;
    *c = t;
    return true;
}

/* The month of a syslog or journal line: English ("Mar"), or a word in
 * another language (journalctl writes strftime's %b in the locale: "11月",
 * "Dez", "nov.", "ноя"), which is read as text only (*foreign). */
static bool syslog_month(cur *c, bool *foreign)
{
    cur t = *c;
    if (month(&t) && (t.p == t.end || *t.p == ' ')) {
        *c = t;
        return true;
    }
    size_t n = 0;
    bool word = false;
    while (c->p + n < c->end && c->p[n] != ' ' && n <= 16) {
        unsigned char b = (unsigned char)c->p[n++];
        word |= b >= 0x80 || isalpha(b);
    }
    if (n == 0 || n > 16 || !word)
        return false;
    c->p += n;
    *foreign = true;
    return true;
}

/* The timestamp styles, after any --decode or raw prefix; *unread when the
 * time is there but not one gpudoctor reads as a date. */
static bool stamp(cur *c, gd_klog_style *style, bool *unread)
{
    cur s = *c;
    if (bracket(&s, style)) {
        /* journalctl -o short-monotonic: "[   5.123456] host kernel: msg" */
        cur j = s;
        if (*style == GD_KLOG_MONOTONIC && journal_host(&j))
            *style = GD_KLOG_JOURNAL, s = j;
        else if (!lit(&s, " ") && s.p != s.end)
            return false;
        *c = s;
        return true;
    }
    s = *c;
    if (iso_stamp(&s, false)) {
        cur j = s;
        if (journal_host(&j))
            *style = GD_KLOG_JOURNAL, s = j;
        else if (lit(&s, " ") || s.p == s.end)
            *style = GD_KLOG_ISO;
        else
            return false;
        *c = s;
        return true;
    }
    s = *c;
    /* short, short-precise, syslog: "Mar 05 10:00:00[.123456] host kernel:",
     * the month as the locale writes it ("11月", "Dez", "nov.", "ноя") */
    bool foreign = false;
    if (syslog_month(&s, &foreign) && lit(&s, " ")) {
        skip_spaces(&s);
        size_t n = digits(&s);
        if (n >= 1 && n <= 2) {
            s.p += n;
            if (lit(&s, " ") && clock_time(&s, true)) {
                fraction(&s);
                if (journal_host(&s)) {
                    *style = GD_KLOG_JOURNAL;
                    *unread = foreign;
                    *c = s;
                    return true;
                }
            }
        }
        if (!foreign)
            return false;
    }
    s = *c;
    /* short-full: "Tue 2024-03-05 10:00:00 UTC host kernel:" */
    if (weekday(&s) && lit(&s, " ") && iso_stamp(&s, true) && lit(&s, " ")) {
        while (s.p < s.end && *s.p != ' ')
            s.p++; /* the zone */
        if (journal_host(&s)) {
            *style = GD_KLOG_JOURNAL;
            *c = s;
            return true;
        }
        return false;
    }
    s = *c;
    /* short-unix: "1709632800.123456 host kernel:" */
    if (digits(&s) >= 9 && seconds_number(&s, false) && journal_host(&s)) {
        *style = GD_KLOG_JOURNAL;
        *c = s;
        return true;
    }
    s = *c;
    /* /dev/kmsg: "prio,seq,usec,flags;" */
    size_t n = digits(&s);
    if (n > 0 && n <= 4) {
        s.p += n;
        if (lit(&s, ",") && digits(&s) > 0 && (s.p += digits(&s), lit(&s, ",")) && digits(&s) > 0 &&
            (s.p += digits(&s), lit(&s, ","))) {
            const char *semi = memchr(s.p, ';', (size_t)(s.end - s.p));
            if (semi && semi - s.p < 16) {
                s.p = semi + 1;
                *style = GD_KLOG_KMSG;
                *c = s;
                return true;
            }
        }
    }
    return false;
}

bool gd_klog_split(const char *line, size_t len, gd_klog_line *out)
{
    memset(out, 0, sizeof *out);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    cur c = {line, line + len};
    /* dmesg -r: "<4>" */
    if (c.p < c.end && *c.p == '<') {
        cur s = c;
        s.p++;
        size_t n = digits(&s);
        if (n > 0 && n <= 3 && (s.p += n, lit(&s, ">")))
            c = s;
    }
    bool decoded = decode_prefix(&c);
    const char *ts = c.p;
    gd_klog_style style = GD_KLOG_NONE;
    bool unread = false;
    if (stamp(&c, &style, &unread)) {
        out->style = style;
        out->when_unread = unread;
        const char *te = c.p;
        if (style == GD_KLOG_JOURNAL) {
            /* The time only: up to the host name. */
            te = c.p;
            while (te > ts && te[-1] == ' ')
                te--;
            te -= te - ts >= 7 && memcmp(te - 7, "kernel:", 7) == 0 ? 7 : 0;
            while (te > ts && te[-1] == ' ')
                te--;
            while (te > ts && te[-1] != ' ')
                te--;
        }
        const char *a = ts, *b = te;
        if (style == GD_KLOG_KMSG) {
            /* microseconds since boot, the third field */
            const char *c1 = memchr(ts, ',', (size_t)(te - ts));
            const char *c2 = c1 ? memchr(c1 + 1, ',', (size_t)(te - c1 - 1)) : NULL;
            const char *c3 = c2 ? memchr(c2 + 1, ',', (size_t)(te - c2 - 1)) : NULL;
            if (c3 && c3 - c2 < 24) {
                char numbuf[24];
                snprintf(numbuf, sizeof numbuf, "%.*s", (int)(c3 - c2 - 1), c2 + 1);
                unsigned long long us = strtoull(numbuf, NULL, 10);
                snprintf(out->when, sizeof out->when, "%llu.%06llu", us / 1000000ULL, us % 1000000ULL);
            }
        } else {
            while (b > a && (b[-1] == ' ' || b[-1] == ']'))
                b--;
            while (a < b && (*a == '[' || *a == ' '))
                a++;
            char raw[sizeof out->when];
            snprintf(raw, sizeof raw, "%.*s", (int)(b - a), a);
            gd_text_safe(raw, out->when, sizeof out->when); /* a locale's month may be any bytes */
        }
    } else if (decoded) {
        out->style = GD_KLOG_DECODE;
    }
    skip_spaces(&c);
    out->msg = c.p;
    out->msg_len = (size_t)(c.end - c.p);
    return out->style != GD_KLOG_NONE;
}

static const char *find(const char *s, size_t len, const char *tag)
{
    size_t n = strlen(tag);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(s + i, tag, n) == 0)
            return s + i;
    return NULL;
}

static bool hexes(const char *p, const char *end, size_t n)
{
    if ((size_t)(end - p) < n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)p[i]))
            return false;
    return true;
}

/* The first "dddd:bb:dd.f" (or "bb:dd.f") in s that stands alone. */
static void first_bdf(const char *s, size_t len, char *out, size_t olen)
{
    const char *end = s + len;
    out[0] = '\0';
    for (const char *p = s; p < end; p++) {
        if (p > s && (isxdigit((unsigned char)p[-1]) || p[-1] == ':'))
            continue;
        const char *q = p;
        if (hexes(q, end, 4) && q + 4 < end && q[4] == ':')
            q += 5;
        if (hexes(q, end, 2) && q + 2 < end && q[2] == ':' && hexes(q + 3, end, 2) && q + 5 < end && q[5] == '.' &&
            q + 6 < end && q[6] >= '0' && q[6] <= '7' && (q + 7 == end || !isxdigit((unsigned char)q[7]))) {
            snprintf(out, olen, "%.*s", (int)(q + 7 - p), p);
            return;
        }
    }
}

gd_fatal_kind gd_gpu_fatal_parse(const char *msg, size_t len, char *pci, size_t plen)
{
    pci[0] = '\0';
    if (find(msg, len, "NVRM: Xid") || find(msg, len, "Xid (PCI:"))
        return GD_FATAL_NONE;
    bool nvrm = find(msg, len, "NVRM:") != NULL;
    gd_fatal_kind k = GD_FATAL_NONE;
    if (nvrm && find(msg, len, "fallen off the bus"))
        k = GD_FATAL_OFF_BUS;
    else if (nvrm && (find(msg, len, "RmInitAdapter failed") || find(msg, len, "rm_init_adapter failed")))
        k = GD_FATAL_INIT;
    else if (nvrm && find(msg, len, "probe routine failed"))
        k = GD_FATAL_PROBE;
    else if (find(msg, len, "nvidia") && find(msg, len, "probe of ") && find(msg, len, " failed with error"))
        k = GD_FATAL_PROBE;
    if (k == GD_FATAL_PROBE && !find(msg, len, "probe of ")) {
        return k; /* "for N device(s)": no address */
    }
    const char *from = msg;
    if (k == GD_FATAL_PROBE)
        from = find(msg, len, "probe of ");
    first_bdf(from, len - (size_t)(from - msg), pci, plen);
    if (k == GD_FATAL_NONE && nvrm && pci[0]) {
        const char *h = find(msg, len, "The NVIDIA GPU ");
        /* "The NVIDIA GPU 0000:b3:00.0" ends its line; what it says comes next. */
        if (h && (size_t)(msg + len - h) <= strlen("The NVIDIA GPU ") + strlen(pci) + 2)
            return GD_FATAL_HEADER;
        pci[0] = '\0';
    }
    return k;
}

const char *gd_fatal_kind_text(gd_fatal_kind k)
{
    switch (k) {
    case GD_FATAL_OFF_BUS: return "fell off the bus";
    case GD_FATAL_INIT: return "could not be initialised by the driver (RmInitAdapter failed)";
    case GD_FATAL_PROBE: return "was refused by the driver's probe";
    case GD_FATAL_NONE:
    case GD_FATAL_HEADER: break;
    }
    return "";
}
