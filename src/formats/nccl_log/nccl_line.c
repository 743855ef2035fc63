/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NCCL's prefix is "%s:%d:%d [%d]" (hostname, pid, tid, cudaDev: NCCL's
 * src/debug.cc), then "NCCL INFO " or, for a warning, the source location
 * and "NCCL WARN ". Launchers glue their own tag to the front ("[1,0]<stdout>:
 * host:..." without a blank), so the line is read from its NCCL marker
 * backwards rather than from its start.
 */
#include "nccl_line.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The marker, or NULL: " NCCL INFO " / "NCCL WARN " at a word start. */
static const char *find_marker(const char *line, gd_nccl_level *level)
{
    static const struct {
        const char *text;
        gd_nccl_level level;
    } marks[] = {{"NCCL INFO ", GD_NCCL_LINE_INFO}, {"NCCL WARN ", GD_NCCL_LINE_WARN}};
    const char *best = NULL;
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
        for (const char *p = line; (p = strstr(p, marks[i].text)) != NULL; p++) {
            if (p == line || p[-1] == ' ' || p[-1] == ']' || p[-1] == ':') {
                if (!best || p < best) {
                    best = p;
                    *level = marks[i].level;
                }
                break;
            }
        }
    }
    return best;
}

/* The token that ends at `end` (exclusive), after blanks: [*start, end). */
static const char *token_before(const char *line, const char *end, const char **start)
{
    while (end > line && end[-1] == ' ')
        end--;
    const char *s = end;
    while (s > line && s[-1] != ' ')
        s--;
    *start = s;
    return end;
}

static bool all_digits(const char *s, const char *e)
{
    if (s >= e)
        return false;
    for (; s < e; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* A launcher's tag glued before the host: what follows its last "]:" or ">:". */
static const char *after_launcher_tag(const char *s, const char *e)
{
    const char *from = s;
    for (const char *p = s; p + 1 < e; p++)
        if ((p[0] == ']' || p[0] == '>') && p[1] == ':')
            from = p + 2;
    return from;
}

/* "host:pid:tid" in [s, e). */
static bool parse_who(const char *s, const char *e, gd_nccl_prefix *p)
{
    const char *c2 = e;
    while (c2 > s && c2[-1] != ':')
        c2--;
    if (c2 == s || !all_digits(c2, e))
        return false;
    const char *c1 = c2 - 1;
    while (c1 > s && c1[-1] != ':')
        c1--;
    if (c1 == s || !all_digits(c1, c2 - 1))
        return false;
    p->tid = strtol(c2, NULL, 10);
    p->pid = strtol(c1, NULL, 10);
    const char *h = after_launcher_tag(s, c1 - 1);
    size_t n = (size_t)(c1 - 1 - h);
    if (n >= sizeof p->host)
        n = sizeof p->host - 1;
    memcpy(p->host, h, n);
    p->host[n] = '\0';
    return true;
}

bool gd_nccl_line_split(const char *line, gd_nccl_prefix *p)
{
    memset(p, 0, sizeof *p);
    p->pid = -1;
    p->tid = -1;
    p->dev = -1;
    gd_nccl_level level = GD_NCCL_LINE_INFO;
    const char *m = find_marker(line, &level);
    if (!m) {
        /* Older NCCLs print the version bare, on rank 0's stdout. */
        const char *v = strstr(line, "NCCL version ");
        if (!v || !isdigit((unsigned char)v[13]))
            return false;
        p->level = GD_NCCL_LINE_VERSION;
        p->msg = v;
        return true;
    }
    p->level = level;
    p->msg = m + 10;
    const char *s, *e = token_before(line, m, &s);
    /* A warning's source location: "misc/socket.cc:484". */
    if (level == GD_NCCL_LINE_WARN && e > s && memchr(s, '.', (size_t)(e - s)) && isdigit((unsigned char)e[-1]))
        e = token_before(line, s, &s);
    if (e - s >= 3 && s[0] == '[' && e[-1] == ']' && all_digits(s + 1, e - 1)) {
        p->dev = atoi(s + 1);
        e = token_before(line, s, &s);
    }
    /* Some prefix, or none (a message copied without it): the message still counts. */
    if (e > s && !parse_who(s, e, p)) {
        p->pid = -1;
        p->tid = -1;
        p->host[0] = '\0';
    }
    return true;
}
