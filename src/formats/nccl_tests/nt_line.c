/* SPDX-License-Identifier: Apache-2.0 */
/* Plain lines of nccl-tests output and its rows: see nt_line.h. */
#include "nt_line.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "[12]" or "[1,0]" at p: its length, 0 when none. */
static size_t rank_tag(const char *p)
{
    if (*p != '[')
        return 0;
    size_t i = 1, digits = 0;
    while (isdigit((unsigned char)p[i]) || (p[i] == ',' && digits))
        i++, digits++;
    return digits && p[i] == ']' ? i + 1 : 0;
}

void gd_nt_plain(const char *line, size_t len, char *out, size_t olen, const char **launcher)
{
    *launcher = "";
    char buf[1024];
    size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;
    memcpy(buf, line, n);
    buf[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\t' || buf[i] == '\r')
            buf[i] = ' ';
    const char *p = buf;
    while (*p == ' ')
        p++;
    if (p[0] == '>' && (p[1] == ' ' || p[1] == '\0')) /* a Markdown quote */
        p += p[1] ? 2 : 1;
    /* mpirun --tag-output / --timestamp-output: everything up to "<stdout>:". */
    const char *tag = strstr(p, "<stdout>:");
    const char *etag = strstr(p, "<stderr>:");
    if (etag && (!tag || etag < tag))
        tag = etag;
    if (tag) {
        p = tag + 9;
        *launcher = "mpirun";
    } else if (rank_tag(p)) {
        *launcher = "mpirun";
    } else {
        /* srun --label: "12: ". */
        size_t d = 0;
        while (isdigit((unsigned char)p[d]))
            d++;
        if (d && d < 7 && p[d] == ':' && (p[d + 1] == ' ' || p[d + 1] == '\0')) {
            p += d + 1;
            *launcher = "srun";
        }
    }
    /* The tags anywhere (a rank's tag inside another's line), then trimmed. */
    size_t o = 0;
    while (*p && o + 1 < olen) {
        size_t t = rank_tag(p);
        if (t && **launcher == 'm') {
            p += t;
            if (o && out[o - 1] != ' ')
                out[o++] = ' ';
            continue;
        }
        out[o++] = *p++;
    }
    out[o] = '\0';
    while (o && out[o - 1] == ' ')
        out[--o] = '\0';
    size_t lead = 0;
    while (out[lead] == ' ')
        lead++;
    memmove(out, out + lead, o - lead + 1);
}

bool gd_nt_is_header(const char *plain)
{
    return strncmp(plain, "# nThread ", 10) == 0 || strncmp(plain, "nThread ", 8) == 0;
}

bool gd_nt_is_columns(const char *plain)
{
    return (plain[0] == '#' || plain[0] == ' ' || isalpha((unsigned char)plain[0])) && strstr(plain, "size") &&
           strstr(plain, "count") && strstr(plain, "redop") && strstr(plain, "busbw");
}

static const char *const types[] = {"int8",  "uint8",  "int32",    "uint32", "int64",  "uint64",   "half",
                                    "float", "double", "bfloat16", "f8e4m3", "f8e5m2", "fp8_e4m3", "fp8_e5m2"};
static const char *const redops[] = {"sum", "prod", "max", "min", "avg", "none", "mulsum", "premulsum"};

static bool in(const char *w, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(w, list[i]) == 0)
            return true;
    return false;
}

static bool unsigned_of(const char *w, size_t *v)
{
    if (!isdigit((unsigned char)w[0]))
        return false;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(w, &end, 10);
    if (*end || errno)
        return false;
    *v = (size_t)x;
    return true;
}

/* A figure ("1464.2", "N/A" as NAN); false for anything else. */
static bool figure(const char *w, double *v)
{
    if (strcmp(w, "N/A") == 0) {
        *v = NAN;
        return true;
    }
    char *end;
    errno = 0;
    double x = strtod(w, &end);
    if (end == w || *end || errno || !isfinite(x) || x < 0)
        return false;
    *v = x;
    return true;
}

/* The check column: "#wrong" (an integer), or an older "error" (a float), or "N/A". */
static bool check_col(const char *w, bool old, gd_nt_half *h)
{
    h->wrong = -1;
    h->error = NAN;
    if (strcmp(w, "N/A") == 0)
        return true;
    size_t n;
    if (!old && unsigned_of(w, &n)) {
        h->wrong = (long)(n > 0x7fffffff ? 0x7fffffff : n);
        return true;
    }
    double e;
    if (!figure(w, &e))
        return false;
    h->error = e;
    return true;
}

static bool half_of(char *const *w, bool old, gd_nt_half *h)
{
    return figure(w[0], &h->time_us) && figure(w[1], &h->algbw_gbps) && figure(w[2], &h->busbw_gbps) &&
           check_col(w[3], old, h);
}

bool gd_nt_parse_row(const char *plain, gd_nt_row *out)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", plain);
    char *w[16];
    size_t n = 0;
    for (char *s = strtok(buf, " "); s && n < 16; s = strtok(NULL, " "))
        w[n++] = s;
    if (n != 12 && n != 13)
        return false;
    gd_nt_row r;
    memset(&r, 0, sizeof r);
    r.root = -1;
    if (!unsigned_of(w[0], &r.bytes) || !unsigned_of(w[1], &r.count) ||
        !in(w[2], types, sizeof types / sizeof types[0]) || !in(w[3], redops, sizeof redops / sizeof redops[0]))
        return false;
    snprintf(r.type, sizeof r.type, "%s", w[2]);
    snprintf(r.redop, sizeof r.redop, "%s", w[3]);
    size_t at = 4;
    if (n == 13) {
        char *end;
        long root = strtol(w[4], &end, 10);
        if (*end || end == w[4] || root < -1 || root > 1000000)
            return false;
        r.root = (int)root;
        at = 5;
    }
    /* An older table (no root column) prints a max error where #wrong stands; an integer reads as #wrong. */
    bool old = n == 12 && (strchr(w[at + 3], 'e') || strchr(w[at + 3], '.'));
    if (!half_of(w + at, old, &r.oop) || !half_of(w + at + 4, old, &r.ip))
        return false;
    if (out)
        *out = r;
    return true;
}
