/* SPDX-License-Identifier: Apache-2.0 */
/* Parsers of the software stack's files: versions, Xid lines, fatbins, ld cache. */
#include "stack_parse.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Finds `key` at the start of a line (after spaces) in buf; returns the rest
 * of that line in out (trimmed). */
static bool line_after(const char *buf, size_t len, const char *key, char *out, size_t olen)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && buf[e] != '\n')
            e++;
        size_t s = i;
        while (s < e && (buf[s] == ' ' || buf[s] == '\t'))
            s++;
        if (e - s >= klen && memcmp(buf + s, key, klen) == 0) {
            s += klen;
            while (s < e && isspace((unsigned char)buf[s]))
                s++;
            size_t t = e;
            while (t > s && isspace((unsigned char)buf[t - 1]))
                t--;
            snprintf(out, olen, "%.*s", (int)(t - s), buf + s);
            return true;
        }
        i = e + 1;
    }
    return false;
}

/* The first quoted string in s ('x' or "x"), or "" (for None). */
static void first_quoted(const char *s, char *out, size_t olen)
{
    out[0] = '\0';
    const char *q = strpbrk(s, "'\"");
    if (!q)
        return;
    const char *e = strchr(q + 1, *q);
    if (!e)
        return;
    snprintf(out, olen, "%.*s", (int)(e - q - 1), q + 1);
}

bool gd_torch_version_parse(const char *buf, size_t len, char *version, size_t vlen, char *cuda, size_t clen)
{
    char line[256];
    version[0] = cuda[0] = '\0';
    if (!line_after(buf, len, "__version__", line, sizeof line) || line[0] != '=')
        return false;
    first_quoted(line, version, vlen);
    /* `cuda: Optional[str] = '12.8'` (typed, 1.10+) or `cuda = '11.3'`. */
    if (line_after(buf, len, "cuda:", line, sizeof line) || line_after(buf, len, "cuda =", line, sizeof line) ||
        line_after(buf, len, "cuda=", line, sizeof line)) {
        const char *eq = strchr(line, '=');
        first_quoted(eq ? eq : line, cuda, clen);
        if (!gd_cuda_version_parse(cuda))
            cuda[0] = '\0';
    }
    return version[0] != '\0';
}

/* After `key` (quoted) in buf: the value that follows the next ':' or ','. */
static const char *after_key(const char *buf, size_t len, const char *key)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i + klen + 2 <= len; i++) {
        if ((buf[i] == '\'' || buf[i] == '"') && memcmp(buf + i + 1, key, klen) == 0 && buf[i + 1 + klen] == buf[i]) {
            size_t j = i + klen + 2;
            while (j < len && (isspace((unsigned char)buf[j]) || buf[j] == ':' || buf[j] == ','))
                j++;
            return buf + j;
        }
    }
    return NULL;
}

bool gd_tf_build_info_parse(const char *buf, size_t len, char *cuda, size_t clen, gd_arch *archs, size_t max,
                            size_t *narchs)
{
    *narchs = 0;
    cuda[0] = '\0';
    const char *end = buf + len;
    const char *v = after_key(buf, len, "cuda_version");
    if (!v || v >= end || (*v != '\'' && *v != '"'))
        return false;
    const char *q = memchr(v + 1, *v, (size_t)(end - v - 1));
    if (!q)
        return false;
    /* Windows wheels write '64_112' for 11.2. */
    char raw[32];
    snprintf(raw, sizeof raw, "%.*s", (int)(q - v - 1), v + 1);
    const char *num = strncmp(raw, "64_", 3) == 0 ? raw + 3 : raw;
    if (num != raw && strlen(num) >= 3 && !strchr(num, '.'))
        snprintf(cuda, clen, "%.*s.%s", (int)strlen(num) - 1, num, num + strlen(num) - 1);
    else
        snprintf(cuda, clen, "%s", num);
    const char *caps = after_key(buf, len, "cuda_compute_capabilities");
    if (caps && caps < end && *caps == '[') {
        const char *close = memchr(caps, ']', (size_t)(end - caps));
        for (const char *p = caps; close && p < close; p++) {
            bool ptx = (size_t)(close - p) > 8 && memcmp(p, "compute_", 8) == 0;
            bool sass = (size_t)(close - p) > 3 && memcmp(p, "sm_", 3) == 0;
            if (!ptx && !sass)
                continue;
            p += ptx ? 8 : 3;
            int sm = atoi(p);
            if (sm > 0 && sm < 1000)
                gd_arch_add(archs, max, narchs, sm, ptx);
        }
    }
    return cuda[0] != '\0';
}

bool gd_metadata_version_parse(const char *buf, size_t len, char *version, size_t vlen)
{
    return line_after(buf, len, "Version:", version, vlen) && version[0];
}

bool gd_toolkit_version_parse(const char *buf, size_t len, char *version, size_t vlen)
{
    char line[128];
    if (line_after(buf, len, "CUDA Version", line, sizeof line)) {
        snprintf(version, vlen, "%s", line);
        return gd_cuda_version_parse(version) != 0;
    }
    /* version.json: the "version" inside the "cuda" object. */
    const char *c = after_key(buf, len, "cuda");
    if (!c)
        return false;
    const char *v = after_key(c, len - (size_t)(c - buf), "version");
    if (!v || v >= buf + len || *v != '"')
        return false;
    const char *q = memchr(v + 1, '"', len - (size_t)(v + 1 - buf));
    if (!q)
        return false;
    snprintf(version, vlen, "%.*s", (int)(q - v - 1), v + 1);
    return gd_cuda_version_parse(version) != 0;
}

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

bool gd_arch_add(gd_arch *archs, size_t max, size_t *n, int sm, bool ptx)
{
    for (size_t i = 0; i < *n; i++)
        if (archs[i].sm == sm && archs[i].ptx == ptx)
            return true;
    if (*n >= max)
        return false;
    archs[(*n)++] = (gd_arch){.sm = sm, .ptx = ptx};
    return true;
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* Container header: u32 magic, u16 version (1), u16 header size (16), u64
 * size of the entries. Entry: u16 kind (1 PTX, 2 or 0x10 ELF), u16, u32
 * entry header size, u64 payload size, ..., u32 SM at offset 28. Layout as
 * cuobjdump reads it (nvopen-tools fatbin/FORMAT_SPECIFICATION.md). Only
 * headers are read: payloads (compressed code) are skipped. */
static bool is_container(const unsigned char *h)
{
    return rd32(h) == 0xBA55ED50u && h[4] == 1 && h[6] == 16;
}

size_t gd_fatbin_walk(gd_fatbin_view_fn view, void *ud, uint64_t start, uint64_t end, gd_arch *archs, size_t max,
                      size_t *narchs)
{
    size_t entries = 0, want = 256, got;
    uint64_t i = start;
    while (i + 16 <= end) {
        const unsigned char *p = view(ud, i, 16, (size_t)(want < end - i ? want : end - i), &got);
        if (!p)
            break;
        if (got > end - i)
            got = (size_t)(end - i);
        /* containers are aligned in sections; padding between them */
        size_t k = 0;
        while (k + 16 <= got && !is_container(p + k))
            k += 4;
        i += k;
        if (k + 16 > got) { /* none in this piece: go on from where a header would straddle its end */
            want = want < ((size_t)-1) / 2 ? want * 2 : want;
            continue;
        }
        want = 256;
        uint64_t size = rd64(p + k + 8);
        uint64_t cend = size > end - i - 16 ? end : i + 16 + size;
        uint64_t e = i + 16;
        const unsigned char *h;
        while (e + 64 <= cend && (h = view(ud, e, 64, 64, &got))) {
            uint16_t kind = (uint16_t)(h[0] | h[1] << 8);
            uint32_t hsize = rd32(h + 4);
            uint64_t psize = rd64(h + 8);
            uint32_t sm = rd32(h + 28);
            if (hsize < 64 || psize > cend - e || hsize + psize > cend - e)
                break;
            entries++;
            if ((kind == 1 || kind == 2 || kind == 0x10) && sm > 0 && sm < 1000)
                gd_arch_add(archs, max, narchs, (int)sm, kind == 1);
            e += hsize + psize;
        }
        i = (cend + 3) & ~(uint64_t)3;
    }
    return entries;
}

typedef struct mem_src {
    const unsigned char *buf;
    size_t len;
} mem_src;

static const unsigned char *mem_view(void *ud, uint64_t off, size_t need, size_t want, size_t *got)
{
    (void)want;
    const mem_src *m = ud;
    if (off > m->len || need > m->len - off)
        return NULL;
    *got = m->len - (size_t)off;
    return m->buf + off;
}

size_t gd_fatbin_scan(const unsigned char *buf, size_t len, gd_arch *archs, size_t max, size_t *narchs)
{
    mem_src m = {buf, len};
    return gd_fatbin_walk(mem_view, &m, 0, len, archs, max, narchs);
}

long gd_ldcache_parse(const unsigned char *buf, size_t len, const char *prefix, void (*fn)(void *ud, const char *path),
                      void *ud)
{
    static const char magic[] = "glibc-ld.so.cache1.1";
    size_t m = sizeof magic - 1, start = (size_t)-1;
    /* New format alone, or after the old table: look for its magic. */
    for (size_t i = 0; i + m <= len && i < 1u << 20; i += 4)
        if (memcmp(buf + i, magic, m) == 0) {
            start = i;
            break;
        }
    if (start == (size_t)-1 || len - start < 48)
        return -1;
    const unsigned char *h = buf + start;
    size_t avail = len - start;
    uint32_t nlibs = rd32(h + 20);
    if (nlibs > (avail - 48) / 24)
        return -1;
    size_t plen = strlen(prefix);
    for (uint32_t k = 0; k < nlibs; k++) {
        const unsigned char *e = h + 48 + (size_t)k * 24;
        uint32_t key = rd32(e + 4), value = rd32(e + 8);
        if (key >= avail || value >= avail)
            continue;
        const char *name = (const char *)h + key, *path = (const char *)h + value;
        if (!memchr(name, '\0', avail - key) || !memchr(path, '\0', avail - value))
            continue;
        if (strncmp(name, prefix, plen) == 0)
            fn(ud, path);
    }
    return (long)nlibs;
}
