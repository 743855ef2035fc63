/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A streaming reader of Chrome trace JSON, written for the one shape that
 * profilers write: {"traceEvents": [ {...}, ... ], other members} or a bare
 * array of events. It keeps one bounded buffer (the largest single value it
 * accepts is GD_TRACE_MAX_ITEM), pulls out the few fields the analyses use
 * and skips the rest without building anything. Why a tokenizer of our own
 * and not yajl or json-c: bench/README.md has the measurement.
 *
 * Each unit (one event, one top-level member, one separator) is parsed from
 * its first byte; when the buffer ends inside it, the buffer is refilled and
 * the unit parsed again. The tokenizer under it is json_scan.h.
 */
#include "json_scan.h"
#include "trace_input.h"
#include "trace_read.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_START (1u << 20)
#define READ_CHUNK (1u << 20)
/* Times beyond this many microseconds are not times (about 127 years). */
#define MAX_US 4000000000000000LL

/* A number as a count of thousandths (ns from us), exactly for plain
 * decimals; *frac when it has a fraction or an exponent. false when it is
 * out of range or not a number (the field is then left out). */
static bool number_milli(const char *s, size_t n, int64_t *out, bool *frac)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && s[i] == '-')
        neg = true, i++;
    int64_t ip = 0;
    size_t digits = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
        if (ip > MAX_US)
            return false;
        ip = ip * 10 + (s[i] - '0');
    }
    if (!digits || ip > MAX_US)
        return false;
    int64_t fp = 0;
    int fd = 0;
    *frac = false;
    if (i < n && s[i] == '.') {
        *frac = true;
        i++;
        size_t start = i;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            if (fd < 3)
                fp = fp * 10 + (s[i] - '0'), fd++;
        if (i == start)
            return false;
        while (fd < 3)
            fp *= 10, fd++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        char tmp[64];
        if (n >= sizeof tmp)
            return false;
        memcpy(tmp, s, n);
        tmp[n] = 0;
        char *e = NULL;
        double v = strtod(tmp, &e);
        if (e != tmp + n || !(v > -(double)MAX_US && v < (double)MAX_US))
            return false;
        *out = (int64_t)(v * 1000.0);
        *frac = true;
        return true;
    }
    if (i != n)
        return false;
    int64_t v = ip * 1000 + fp;
    *out = neg ? -v : v;
    return true;
}

/* A plain decimal integer of at most 18 digits at P->p (the common case of
 * ts, dur, pid, tid and ids): true with its value; false, consuming
 * nothing, for anything else (a fraction, an exponent, too long, the buffer's
 * end), which the general path takes. */
static inline bool plain_int(parser *P, int64_t *out)
{
    const char *q = P->p, *end = P->end;
    bool neg = q < end && *q == '-';
    q += neg;
    const char *d = q;
    int64_t v = 0;
    while (q < end && (unsigned)(*q - '0') < 10 && q - d < 18)
        v = v * 10 + (*q++ - '0');
    if (q == d || q == end || num_byte[(unsigned char)*q])
        return false;
    P->p = q;
    *out = neg ? -v : v;
    return true;
}

/* An integer field (stream, correlation, bytes): a number, or a string of
 * digits (pandas' to_numeric); else -1. */
static int64_t int_field(parser *P)
{
    char c = peek(P);
    const char *s;
    size_t n;
    bool frac;
    int64_t v;
    if (c == '"') {
        string_raw(P, &s, &n, NULL);
        if (n == 0 || n > 18)
            return -1;
        for (size_t i = 0; i < n; i++)
            if (s[i] < '0' || s[i] > '9')
                return -1;
        return number_milli(s, n, &v, &frac) ? v / 1000 : -1;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        if (plain_int(P, &v))
            return v > -MAX_US && v < MAX_US ? v : -1;
        number_raw(P, &s, &n);
        return number_milli(s, n, &v, &frac) ? v / 1000 : -1;
    }
    skip_value(P);
    return -1;
}

/* Whether the n bytes at s are the literal lit (its length known when compiled). */
#define key_is(s, n, lit) ((n) == sizeof(lit) - 1 && memcmp((s), (lit), sizeof(lit) - 1) == 0)

static gd_tcat category(const char *s, size_t n)
{
    static const struct {
        const char *name;
        size_t len;
        gd_tcat cat;
    } map[] = {
#define CAT(lit, c) {lit, sizeof(lit) - 1, c}
        CAT("kernel", GD_TCAT_KERNEL),
        CAT("Kernel", GD_TCAT_KERNEL),
        CAT("gpu_memcpy", GD_TCAT_MEMCPY),
        CAT("Memcpy", GD_TCAT_MEMCPY),
        CAT("gpu_memset", GD_TCAT_MEMSET),
        CAT("Memset", GD_TCAT_MEMSET),
        CAT("cuda_runtime", GD_TCAT_RUNTIME),
        CAT("Runtime", GD_TCAT_RUNTIME),
        CAT("cuda_driver", GD_TCAT_DRIVER),
        CAT("cpu_op", GD_TCAT_CPU_OP),
        CAT("Operator", GD_TCAT_CPU_OP),
        CAT("user_annotation", GD_TCAT_USER_ANNOTATION),
        CAT("gpu_user_annotation", GD_TCAT_GPU_USER_ANNOTATION),
        CAT("python_function", GD_TCAT_PYTHON),
        CAT("cuda_sync", GD_TCAT_CUDA_SYNC),
        CAT("Trace", GD_TCAT_TRACE),
#undef CAT
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (n == map[i].len && memcmp(s, map[i].name, n) == 0)
            return map[i].cat;
    if (n > 8 && memcmp(s + n - 8, "_runtime", 8) == 0)
        return GD_TCAT_RUNTIME;
    return GD_TCAT_OTHER;
}

static void time_field(parser *P, int64_t *v, bool *has, bool *frac)
{
    char c = peek(P);
    if (c == '-' || (c >= '0' && c <= '9')) {
        const char *s;
        size_t n;
        bool f = false;
        int64_t i;
        if (plain_int(P, &i)) { /* out of range: not a time, as number_milli says */
            *has = i > -MAX_US && i < MAX_US;
            *v = *has ? i * 1000 : 0;
            return;
        }
        number_raw(P, &s, &n);
        *has = number_milli(s, n, v, &f);
        *frac = *frac || (*has && f);
        return;
    }
    skip_value(P);
    *has = false;
}

static void arg_member(parser *P, const char *k, size_t kn, void *ctx)
{
    gd_trace_event *e = ctx;
    if (key_is(k, kn, "stream"))
        e->stream = int_field(P);
    else if (key_is(k, kn, "correlation"))
        e->correlation = int_field(P);
    else if (key_is(k, kn, "bytes"))
        e->bytes = int_field(P);
    else if (kn == 4 && memcmp(k, "name", 4) == 0 && peek(P) == '"') {
        string_raw(P, &e->arg_name, &e->arg_name_len, NULL);
    } else
        skip_value(P);
}

typedef struct event_ctx {
    gd_trace_event *e;
    const char *name;
    size_t name_len;
    bool name_esc;
} event_ctx;

static void event_member(parser *P, const char *k, size_t kn, void *ctx)
{
    event_ctx *x = ctx;
    gd_trace_event *e = x->e;
    const char *s;
    size_t n;
    char c = peek(P);
    if (kn == 2 && k[0] == 'p' && k[1] == 'h' && c == '"') {
        string_raw(P, &s, &n, NULL);
        e->ph = n ? s[0] : 0;
    } else if (kn == 3 && memcmp(k, "cat", 3) == 0 && c == '"') {
        string_raw(P, &s, &n, NULL);
        e->cat = category(s, n);
        e->has_cat = true;
    } else if (kn == 4 && memcmp(k, "name", 4) == 0 && c == '"') {
        string_raw(P, &x->name, &x->name_len, &x->name_esc);
    } else if (kn == 2 && k[0] == 't' && k[1] == 's') {
        time_field(P, &e->ts_ns, &e->has_ts, &e->fractional);
    } else if (kn == 3 && memcmp(k, "dur", 3) == 0) {
        time_field(P, &e->dur_ns, &e->has_dur, &e->fractional);
    } else if (kn == 3 && k[0] == 'p' && k[1] == 'i' && k[2] == 'd') {
        e->pid = int_field(P);
    } else if (kn == 3 && k[0] == 't' && k[1] == 'i' && k[2] == 'd') {
        e->tid = int_field(P);
    } else if (kn == 4 && memcmp(k, "args", 4) == 0 && c == '{') {
        members(P, arg_member, e, "args");
    } else {
        skip_value(P);
    }
}

/* One event object at P->p; false when it is not an object (skipped). */
static bool parse_event(parser *P, gd_trace_event *e)
{
    memset(e, 0, sizeof *e);
    e->stream = e->correlation = e->bytes = e->pid = e->tid = -1;
    if (peek(P) != '{') {
        skip_value(P);
        return false;
    }
    event_ctx x = {e, NULL, 0, false};
    members(P, event_member, &x, "an event");
    if (x.name) {
        if (x.name_esc) {
            e->name_len = unescape(P, x.name, x.name_len);
            e->name = P->name;
        } else {
            e->name = x.name;
            e->name_len = x.name_len;
        }
    }
    return true;
}

/* A small whole number for the metadata (rank, world size, compute capability), else -1. */
static int small_int(parser *P, int64_t below)
{
    int64_t v = int_field(P);
    return v >= 0 && v < below ? (int)v : -1;
}

/* distributedInfo: {"rank": N, "world_size": W, ...} */
static void distributed_member(parser *P, const char *k, size_t kn, void *ctx)
{
    gd_trace_meta *m = ctx;
    if (key_is(k, kn, "rank"))
        m->rank = small_int(P, 1000000);
    else if (key_is(k, kn, "world_size"))
        m->world_size = small_int(P, 10000000);
    else
        skip_value(P);
}

static void device_member(parser *P, const char *k, size_t kn, void *ctx)
{
    gd_trace_meta *m = ctx;
    if (key_is(k, kn, "computeMajor"))
        m->compute_major = small_int(P, 100);
    else
        skip_value(P);
}

/* deviceProperties: [{"computeMajor": 8, ...}, ...]: the first device's. */
static void parse_devices(parser *P, gd_trace_meta *m)
{
    if (peek(P) != '[') {
        skip_value(P);
        return;
    }
    P->p++;
    if (peek(P) == ']') {
        P->p++;
        return;
    }
    for (int idx = 0;; idx++) {
        if (peek(P) == '{' && idx == 0)
            members(P, device_member, m, "deviceProperties");
        else
            skip_value(P);
        char c = peek(P);
        P->p++;
        if (c == ']')
            return;
        if (c != ',')
            fail(P, "expected ',' or ']' in deviceProperties");
    }
}

/* Where the reader stands between units. */
enum state { ST_START, ST_MEMBER, ST_MEMBER_SEP, ST_EVENT, ST_EVENT_SEP, ST_AFTER_EVENTS, ST_END };

typedef struct reader {
    parser P;
    enum state st;
    bool top_array, events_seen;
    gd_trace_acc *acc;
    gd_trace_meta *meta;
    int oom;
    size_t done;
} reader;

/* Parses one unit from P->p; on return the unit is done and its effect applied. */
static void unit(reader *R)
{
    parser *P = &R->P;
    gd_trace_event ev;
    char c;
    switch (R->st) {
    case ST_START:
        c = peek(P);
        if (c == '{') {
            P->p++;
            R->st = ST_MEMBER;
        } else if (c == '[') {
            P->p++;
            R->top_array = true;
            R->meta->legacy = true;
            R->events_seen = true;
            R->st = ST_EVENT;
        } else {
            fail(P, "not a Chrome trace: it does not start with '{' or '['");
        }
        return;
    case ST_MEMBER: {
        c = peek(P);
        if (c == '}') {
            P->p++;
            R->st = ST_END;
            return;
        }
        if (c != '"')
            fail(P, "expected a member name at the top level");
        const char *k;
        size_t kn;
        string_raw(P, &k, &kn, NULL);
        expect(P, ':', "expected ':' after a member name");
        if (key_is(k, kn, "traceEvents")) {
            if (peek(P) != '[')
                fail(P, "traceEvents is not a list");
            P->p++;
            R->events_seen = true;
            R->st = ST_EVENT;
            return;
        }
        if (key_is(k, kn, "distributedInfo") && peek(P) == '{')
            members(P, distributed_member, R->meta, "distributedInfo");
        else if (key_is(k, kn, "deviceProperties"))
            parse_devices(P, R->meta);
        else
            skip_value(P);
        R->st = ST_MEMBER_SEP;
        return;
    }
    case ST_MEMBER_SEP:
        c = peek(P);
        P->p++;
        if (c == ',')
            R->st = ST_MEMBER;
        else if (c == '}')
            R->st = ST_END;
        else
            fail(P, "expected ',' or '}' at the top level");
        return;
    case ST_EVENT:
        if (peek(P) == ']') { /* an empty list, or a trailing comma */
            P->p++;
            R->st = R->top_array ? ST_END : ST_AFTER_EVENTS;
            return;
        }
        {
            bool ok = parse_event(P, &ev);
            R->meta->events++;
            if (!ok)
                R->meta->skipped++;
            else if (gd_trace_acc_add(R->acc, &ev))
                R->oom = 1;
        }
        R->st = ST_EVENT_SEP;
        return;
    case ST_EVENT_SEP:
        c = peek(P);
        P->p++;
        if (c == ',')
            R->st = ST_EVENT;
        else if (c == ']')
            R->st = R->top_array ? ST_END : ST_AFTER_EVENTS;
        else
            fail(P, "expected ',' or ']' between events");
        return;
    case ST_AFTER_EVENTS: R->st = ST_MEMBER_SEP; return;
    case ST_END: ws(P); fail(P, "unexpected bytes after the end of the trace");
    }
}

/* Parses units from buf[0..len) until one needs more bytes or fails; R->done
 * is where the last finished unit ends. Returns JMP_MORE, JMP_ERROR or JMP_OOM. */
static int parse_some(reader *R, char *buf, size_t len)
{
    R->P.base = buf;
    R->P.p = buf;
    R->P.end = buf + len;
    R->done = 0;
    int j = setjmp(R->P.jb);
    if (j == 0) {
        for (;;) {
            unit(R);
            R->done = (size_t)(R->P.p - buf);
            if (R->oom)
                return JMP_OOM;
        }
    }
    return j;
}

static int run(gd_tsrc *src, gd_trace_acc *acc, gd_trace_meta *meta, char *err, size_t errlen)
{
    memset(meta, 0, sizeof *meta);
    meta->rank = meta->world_size = meta->compute_major = -1;
    reader *R = calloc(1, sizeof *R);
    size_t cap = BUF_START, len = 0;
    size_t done = 0;
    uint64_t consumed = 0; /* bytes before buf[0] */
    char *buf = malloc(cap);
    int rc = -1;
    if (!R || !buf) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    R->acc = acc;
    R->meta = meta;
    R->st = ST_START;
    for (;;) {
        /* Refill: keep the unfinished unit [done, len), read more after it. */
        if (done > 0) {
            memmove(buf, buf + done, len - done);
            consumed += done;
            len -= done;
            done = 0;
        }
        if (!R->P.eof) {
            if (len > GD_TRACE_MAX_ITEM) { /* the unfinished unit alone */
                snprintf(err, errlen, "a single JSON value at byte %llu is larger than %u MiB: not a trace event",
                         (unsigned long long)consumed, GD_TRACE_MAX_ITEM >> 20);
                goto out;
            }
            if (cap - len < READ_CHUNK / 4) {
                char *nb = realloc(buf, cap * 2);
                if (!nb) {
                    snprintf(err, errlen, "out of memory");
                    goto out;
                }
                buf = nb;
                cap *= 2;
            }
            char rerr[256] = "";
            size_t want = cap - len > READ_CHUNK ? READ_CHUNK : cap - len;
            long n = src->read(src, buf + len, want, rerr, sizeof rerr);
            if (n < 0) {
                if (meta->events > 0 && R->events_seen && R->st != ST_END) {
                    meta->truncated = true;
                    snprintf(meta->note, sizeof meta->note, "%.180s after %llu bytes: the events before are analyzed",
                             rerr, (unsigned long long)(consumed + len));
                    rc = 0;
                } else {
                    snprintf(err, errlen, "%s", rerr);
                }
                goto out;
            }
            if (n == 0)
                R->P.eof = true;
            len += (size_t)n;
        }
        int j = parse_some(R, buf, len);
        done = R->done;
        if (j == JMP_OOM) {
            snprintf(err, errlen, "out of memory after %llu events", (unsigned long long)meta->events);
            goto out;
        }
        if (j == JMP_ERROR) {
            snprintf(err, errlen, "not a valid trace: %s at byte %llu", R->P.msg,
                     (unsigned long long)(consumed + (size_t)(R->P.p - buf)));
            goto out;
        }
        /* JMP_MORE: read on, unless the input is over. */
        if (R->P.eof) {
            meta->bytes = consumed + len;
            if (R->st == ST_END) {
                rc = 0;
            } else if (R->events_seen && meta->events > 0) {
                meta->truncated = true;
                snprintf(meta->note, sizeof meta->note,
                         "the trace ends early at byte %llu (a truncated file): the %llu events before are analyzed",
                         (unsigned long long)(consumed + len), (unsigned long long)meta->events);
                rc = 0;
            } else if (len == 0 && consumed == 0) {
                snprintf(err, errlen, "the file is empty");
            } else {
                snprintf(err, errlen, "not a complete trace: it ends at byte %llu before any event",
                         (unsigned long long)(consumed + len));
            }
            goto out;
        }
    }
out:
    if (meta->bytes == 0)
        meta->bytes = consumed + len;
    free(buf);
    free(R);
    return rc;
}

int gd_trace_read_mem(const void *data, size_t len, gd_trace_acc *acc, gd_trace_meta *meta, char *err, size_t errlen)
{
    gd_tsrc *src = gd_tsrc_mem(data, len);
    if (!src) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const unsigned char *b = data;
    if (len >= 2 && b[0] == 0x1f && b[1] == 0x8b && !(src = gd_tsrc_gzip(src, 0, err, errlen)))
        return -1;
    int rc = run(src, acc, meta, err, errlen);
    src->close(src);
    return rc;
}

int gd_trace_read_file(const char *path, gd_trace_acc *acc, gd_trace_meta *meta, char *err, size_t errlen)
{
    int gz = 0;
    gd_tsrc *src = gd_tsrc_file(path, &gz, err, errlen);
    if (!src)
        return -1;
    if (gz && !(src = gd_tsrc_gzip(src, 1, err, errlen)))
        return -1;
    int rc = run(src, acc, meta, err, errlen);
    src->close(src);
    return rc;
}

const char *gd_trace_inflater(void)
{
#ifdef GD_HAVE_ISAL
    return "isa-l";
#else
    return "zlib";
#endif
}
