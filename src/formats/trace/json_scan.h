/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JSON tokenizer under the trace reader (trace_json.c): strings, numbers
 * and literals as raw bytes, values skipped without building anything, an
 * object's members handed to a callback. It works on a window of a buffer
 * that may end inside a value: "need more bytes" and errors leave through
 * longjmp (JMP_MORE, JMP_ERROR), and nothing is allocated while a value is
 * read. Header-only, for one reader: its hot paths (whitespace, strings)
 * inline into the reader's loops, which is the speed bench/README.md
 * measured against yajl.
 */
#ifndef GD_JSON_SCAN_H
#define GD_JSON_SCAN_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_DEPTH 256
#define NAME_CAP 1024

enum { JMP_MORE = 1, JMP_ERROR = 2, JMP_OOM = 3 };

typedef struct parser {
    const char *base, *p, *end;
    bool eof;
    jmp_buf jb;
    char msg[200];
    char name[NAME_CAP];
} parser;

static _Noreturn void more(parser *P)
{
    longjmp(P->jb, JMP_MORE);
}

static _Noreturn void fail(parser *P, const char *what)
{
    snprintf(P->msg, sizeof P->msg, "%s", what);
    longjmp(P->jb, JMP_ERROR);
}

/* JSON's four whitespace bytes (profilers indent their output: runs of them are common). */
static const unsigned char ws_byte[256] = {[' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1};

static inline void ws(parser *P)
{
    const char *p = P->p, *end = P->end;
    while (p < end && ws_byte[(unsigned char)*p])
        p++;
    P->p = p;
    if (p == end)
        more(P);
}

static inline char peek(parser *P)
{
    ws(P);
    return *P->p;
}

static void expect(parser *P, char c, const char *what)
{
    if (peek(P) != c)
        fail(P, what);
    P->p++;
}

/* The bytes of the 8 in w that equal c, as their top bits; the lowest set bit is always a true one. */
static inline uint64_t bytes_equal(uint64_t w, unsigned char c)
{
    uint64_t y = w ^ (0x0101010101010101ull * c);
    return (y - 0x0101010101010101ull) & ~y & 0x8080808080808080ull;
}

/* A string at P->p (the opening quote): its raw bytes [*s, *s + *n); *esc
 * (when asked for) whether it has escapes. The first 32 bytes (keys,
 * categories, most names) are scanned 8 at a time for a quote or a
 * backslash; longer strings with memchr. */
static inline __attribute__((always_inline)) void string_raw(parser *P, const char **s, size_t *n, bool *esc)
{
    const char *start = P->p + 1, *q = start, *end = P->end;
    bool escaped = false;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const char *stop = end - start > 32 ? start + 32 : end;
    while (stop - q >= 8) {
        uint64_t w;
        memcpy(&w, q, 8);
        uint64_t m = bytes_equal(w, '"') | bytes_equal(w, '\\');
        if (!m) {
            q += 8;
            continue;
        }
        q += __builtin_ctzll(m) >> 3;
        if (*q == '"') {
            *s = start;
            *n = (size_t)(q - start);
            if (esc)
                *esc = escaped;
            P->p = q + 1;
            return;
        }
        escaped = true; /* a backslash: the byte after it is never the end */
        q += 2;
        if (q >= stop)
            break;
    }
#endif
    if (q > end)
        q = end;
    for (;;) {
        const char *e = memchr(q, '"', (size_t)(end - q));
        if (!e)
            more(P);
        /* An odd run of backslashes before the quote escapes it. */
        const char *b = e;
        while (b > start && b[-1] == '\\')
            b--;
        if ((e - b) % 2 == 0) {
            *s = start;
            *n = (size_t)(e - start);
            if (esc)
                *esc = escaped || memchr(start, '\\', *n) != NULL;
            P->p = e + 1;
            return;
        }
        escaped = true;
        q = e + 1;
    }
}

/* Decodes the escapes of a raw string into P->name (truncated, \u as '?'). */
static size_t unescape(parser *P, const char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < NAME_CAP; i++) {
        char c = s[i];
        if (c == '\\' && i + 1 < n) {
            char e = s[++i];
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
            if (e == 'u') {
                c = '?';
                i += (i + 4 < n) ? 4 : n - 1 - i;
            }
        }
        P->name[o++] = c;
    }
    P->name[o] = 0;
    return o;
}

/* The bytes a number is made of (digits, sign, point, exponent). */
static const unsigned char num_byte[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['-'] = 1, ['+'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1};

/* A number's bytes, validated loosely (digits, sign, point, exponent). */
static void number_raw(parser *P, const char **s, size_t *n)
{
    const char *q = P->p;
    while (q < P->end && num_byte[(unsigned char)*q])
        q++;
    if (q == P->end && !P->eof)
        more(P);
    if (q == P->p)
        fail(P, "expected a value");
    *s = P->p;
    *n = (size_t)(q - P->p);
    P->p = q;
}

static void literal(parser *P, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(P->end - P->p) < n) {
        if (memcmp(P->p, lit, (size_t)(P->end - P->p)) == 0)
            more(P);
        fail(P, "invalid literal");
    }
    if (memcmp(P->p, lit, n) != 0)
        fail(P, "invalid literal");
    P->p += n;
}

/* Skips one value of any kind, checking its structure (no recursion). */
static void skip_nested(parser *P)
{
    char stack[MAX_DEPTH];
    int depth = 0;
    for (;;) {
        char c = peek(P);
        const char *s;
        size_t n;
        if (c == '{' || c == '[') {
            if (depth == MAX_DEPTH)
                fail(P, "values nested deeper than 256 levels");
            stack[depth++] = c;
            P->p++;
            if (peek(P) == (c == '{' ? '}' : ']')) {
                P->p++;
                depth--;
                goto after;
            }
            if (c == '{') {
                if (peek(P) != '"')
                    fail(P, "expected a member name");
                string_raw(P, &s, &n, NULL);
                expect(P, ':', "expected ':' after a member name");
            }
            continue;
        }
        if (c == '"')
            string_raw(P, &s, &n, NULL);
        else if (c == 't')
            literal(P, "true");
        else if (c == 'f')
            literal(P, "false");
        else if (c == 'n')
            literal(P, "null");
        else
            number_raw(P, &s, &n);
    after:
        while (depth > 0) {
            char d = peek(P);
            char close = stack[depth - 1] == '{' ? '}' : ']';
            if (d == close) {
                P->p++;
                depth--;
                continue;
            }
            if (d != ',')
                fail(P, "expected ',' or the end of a list or object");
            P->p++;
            if (stack[depth - 1] == '{') {
                if (peek(P) != '"')
                    fail(P, "expected a member name");
                string_raw(P, &s, &n, NULL);
                expect(P, ':', "expected ':' after a member name");
            }
            break;
        }
        if (depth == 0)
            return;
    }
}

/* Skips one value; strings and numbers, most of what is skipped, without skip_nested's setup. */
static inline void skip_value(parser *P)
{
    char c = peek(P);
    if (c == '"') {
        const char *s;
        size_t n;
        string_raw(P, &s, &n, NULL);
    } else if ((unsigned)(c - '0') < 10 || c == '-') {
        const char *s;
        size_t n;
        number_raw(P, &s, &n);
    } else {
        skip_nested(P);
    }
}

/* Calls fn for each member of the object at P->p (its '{'), with P->p at the
 * member's value; fn must consume the value. `where` names the object in errors. */
typedef void (*member_fn)(parser *P, const char *key, size_t keylen, void *ctx);

static inline void members(parser *P, member_fn fn, void *ctx, const char *where)
{
    char msg[96];
    P->p++; /* '{' */
    if (peek(P) == '}') {
        P->p++;
        return;
    }
    for (;;) {
        if (peek(P) != '"') {
            snprintf(msg, sizeof msg, "expected a member name in %s", where);
            fail(P, msg);
        }
        const char *k;
        size_t kn;
        string_raw(P, &k, &kn, NULL);
        expect(P, ':', "expected ':' after a member name");
        fn(P, k, kn, ctx);
        char c = peek(P);
        P->p++;
        if (c == '}')
            return;
        if (c != ',') {
            snprintf(msg, sizeof msg, "expected ',' or '}' in %s", where);
            fail(P, msg);
        }
    }
}

#endif
