/* SPDX-License-Identifier: Apache-2.0 */
/* One kernel log line's event: Xid, SXid, PCIe AER. */
#include "klog_parse.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The timestamp of a kernel log line, as written; "" when none. */
static void line_when(const char *line, size_t len, char *when, size_t wlen)
{
    gd_klog_line kl;
    gd_klog_split(line, len, &kl);
    snprintf(when, wlen, "%s", kl.when);
}

/* Where tag first occurs in line[0, len), or NULL. */
static const char *find_tag(const char *line, size_t len, const char *tag)
{
    size_t n = strlen(tag);
    for (const char *s = line; s + n <= line + len; s++)
        if (memcmp(s, tag, n) == 0)
            return s;
    return NULL;
}

/* A PCI address token ("0000:3b:00.0") at p, copied into out; its length, 0 when none. */
static size_t bdf_token(const char *p, const char *end, char *out, size_t cap)
{
    size_t n = 0;
    while (p + n < end && (isxdigit((unsigned char)p[n]) || p[n] == ':' || p[n] == '.'))
        n++;
    if (n < 7 || n >= cap || !memchr(p, ':', n) || !memchr(p, '.', n))
        return 0;
    memcpy(out, p, n);
    out[n] = '\0';
    return n;
}

bool gd_aer_line_parse(const char *line, size_t len, gd_aer_event *ev)
{
    const char *end = line + len;
    const char *p = find_tag(line, len, "AER: ");
    if (!p)
        return false;
    memset(ev, 0, sizeof *ev);
    const char *q = p + 5;
    if (end - q > 9 && memcmp(q, "Multiple ", 9) == 0)
        q += 9;
    static const struct {
        const char *word;
        gd_aer_severity sev;
    } kinds[] = {
        {"Corrected ", GD_AER_CORRECTED},
        {"Correctable ", GD_AER_CORRECTED},
        {"Uncorrected (Non-Fatal) ", GD_AER_NONFATAL},
        {"Uncorrectable (Non-Fatal) ", GD_AER_NONFATAL},
        {"Uncorrected (Fatal) ", GD_AER_FATAL},
        {"Uncorrectable (Fatal) ", GD_AER_FATAL},
    };
    size_t k = 0, nk = sizeof kinds / sizeof kinds[0];
    while (k < nk &&
           !((size_t)(end - q) > strlen(kinds[k].word) && memcmp(q, kinds[k].word, strlen(kinds[k].word)) == 0))
        k++;
    if (k == nk)
        return false;
    ev->severity = kinds[k].sev;
    q += strlen(kinds[k].word);
    const char *recv = find_tag(q, (size_t)(end - q), "received");
    if (!recv || !find_tag(q, (size_t)(recv - q), "error"))
        return false;
    /* The reporting port: the token before ": AER:". */
    if (p - line >= 2 && p[-2] == ':' && p[-1] == ' ') {
        const char *b = p - 2;
        while (b > line && b[-1] != ' ')
            b--;
        if (bdf_token(b, p - 2, ev->port, sizeof ev->port) != (size_t)(p - 2 - b))
            ev->port[0] = '\0';
    }
    /* The device with the error: named after "received: " or "received from ". */
    q = recv + 8;
    if (end - q >= 2 && q[0] == ':' && q[1] == ' ')
        q += 2;
    else if (end - q >= 6 && memcmp(q, " from ", 6) == 0)
        q += 6;
    unsigned dom = 0, id = 0;
    if (!bdf_token(q, end, ev->dev, sizeof ev->dev) && end - q > 3 && memcmp(q, "id=", 3) == 0 && ev->port[0] &&
        sscanf(ev->port, "%x:", &dom) == 1) {
        /* Old kernels: the requester id, bus << 8 | device << 3 | function, in the port's domain. */
        char hex[8];
        snprintf(hex, sizeof hex, "%.*s", (int)(end - q - 3 < 4 ? end - q - 3 : 4), q + 3);
        if (sscanf(hex, "%4x", &id) == 1)
            snprintf(ev->dev, sizeof ev->dev, "%04x:%02x:%02x.%x", dom & 0xffff, id >> 8, (id >> 3) & 0x1f, id & 7);
    }
    if (!ev->dev[0])
        snprintf(ev->dev, sizeof ev->dev, "%s", ev->port);
    if (!ev->dev[0])
        return false;
    line_when(line, len, ev->when, sizeof ev->when);
    size_t n = (size_t)(end - p);
    while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r'))
        n--;
    snprintf(ev->text, sizeof ev->text, "%.*s", (int)n, p);
    return true;
}

bool gd_xid_line_parse(const char *line, size_t len, gd_xid_event *ev)
{
    static const char tag[] = "NVRM: Xid (";
    const char *end = line + len;
    const char *p = NULL;
    for (const char *s = line; s + sizeof tag - 1 <= end; s++)
        if (memcmp(s, tag, sizeof tag - 1) == 0) {
            p = s;
            break;
        }
    if (!p)
        return false;
    memset(ev, 0, sizeof *ev);
    ev->gpu = -1;
    line_when(line, len, ev->when, sizeof ev->when);
    p += sizeof tag - 1;
    if (end - p >= 4 && memcmp(p, "PCI:", 4) == 0)
        p += 4;
    const char *pe = p;
    while (pe < end && *pe != ')' && *pe != ' ')
        pe++;
    if (pe == p || pe - p >= (long)sizeof ev->pci)
        return false;
    snprintf(ev->pci, sizeof ev->pci, "%.*s", (int)(pe - p), p);
    while (pe < end && *pe != ')')
        pe++;
    if (end - pe < 3 || pe[1] != ':')
        return false;
    p = pe + 2;
    while (p < end && *p == ' ')
        p++;
    if (p >= end || !isdigit((unsigned char)*p))
        return false;
    long xid = 0;
    while (p < end && isdigit((unsigned char)*p) && xid < 100000)
        xid = xid * 10 + (*p++ - '0');
    if (xid <= 0 || xid >= 100000)
        return false;
    ev->xid = (int)xid;
    while (p < end && (*p == ',' || *p == ' '))
        p++;
    size_t n = (size_t)(end - p);
    while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r'))
        n--;
    snprintf(ev->text, sizeof ev->text, "%.*s", (int)n, p);
    return true;
}

int gd_sxid_line_parse(const char *line, size_t len, gd_sxid_event *ev)
{
    static const char tag[] = ": SXid (";
    const char *end = line + len;
    const char *p = find_tag(line, len, tag);
    if (!p)
        return 0;
    memset(ev, 0, sizeof *ev);
    ev->fatal = -1;
    /* The switch's name: the word before ": SXid". */
    const char *n = p;
    while (n > line && n[-1] != ' ' && n[-1] != ']' && n[-1] != ';')
        n--;
    if (p - n <= 0 || p - n >= (long)sizeof ev->nvswitch)
        return 0;
    for (const char *c = n; c < p; c++)
        if (!isgraph((unsigned char)*c))
            return 0; /* a NUL or a control byte: no switch's name */
    snprintf(ev->nvswitch, sizeof ev->nvswitch, "%.*s", (int)(p - n), n);
    p += sizeof tag - 1;
    if (end - p >= 4 && memcmp(p, "PCI:", 4) == 0)
        p += 4;
    const char *pe = p;
    while (pe < end && *pe != ')' && *pe != ' ')
        pe++;
    if (pe == p || pe - p >= (long)sizeof ev->pci || pe >= end || *pe != ')')
        return 0;
    for (const char *c = p; c < pe; c++)
        if (!isxdigit((unsigned char)*c) && *c != ':' && *c != '.')
            return 0; /* a PCI address is hex digits, ':' and '.' */
    snprintf(ev->pci, sizeof ev->pci, "%.*s", (int)(pe - p), p);
    if (end - pe < 3 || pe[1] != ':')
        return 0;
    p = pe + 2;
    while (p < end && *p == ' ')
        p++;
    if (p >= end || !isdigit((unsigned char)*p))
        return 0;
    long sxid = 0;
    while (p < end && isdigit((unsigned char)*p) && sxid < 1000000)
        sxid = sxid * 10 + (*p++ - '0');
    if (sxid <= 0 || sxid >= 1000000)
        return 0;
    ev->sxid = (int)sxid;
    line_when(line, len, ev->when, sizeof ev->when);
    while (p < end && (*p == ',' || *p == ' '))
        p++;
    size_t rest = (size_t)(end - p);
    while (rest > 0 && (p[rest - 1] == '\n' || p[rest - 1] == '\r'))
        rest--;
    snprintf(ev->text, sizeof ev->text, "%.*s", (int)rest, p);
    if (rest >= 9 && strncasecmp(p, "Non-fatal", 9) == 0)
        ev->fatal = 0;
    else if (rest >= 5 && strncasecmp(p, "Fatal", 5) == 0)
        ev->fatal = 1;
    else if ((rest >= 9 && memcmp(p, "Severity ", 9) == 0) || (rest >= 5 && memcmp(p, "Data ", 5) == 0))
        return 2;
    return 1;
}
