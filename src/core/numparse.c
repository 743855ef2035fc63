/* SPDX-License-Identifier: Apache-2.0 */
/* Option values as numbers (numparse.h says which notation each takes). */
#include "numparse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The length of the decimal number at the start of s (digits, at most one
 * '.', at least one digit), or 0. */
static size_t decimal_span(const char *s)
{
    size_t n = strspn(s, "0123456789"), digits = n;
    if (s[n] == '.') {
        size_t frac = strspn(s + n + 1, "0123456789");
        digits += frac;
        n += 1 + frac;
    }
    return digits ? n : 0;
}

/* strtod of the first n bytes of s, which decimal_span vetted. */
static int convert(const char *s, size_t n, double *out)
{
    char buf[64];
    if (n >= sizeof buf)
        return -1; /* no option wants a number of 64 digits */
    memcpy(buf, s, n);
    buf[n] = '\0';
    double v = strtod(buf, NULL);
    if (!isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* A unit after a number, and what it multiplies the number by. */
typedef struct unit {
    const char *name;
    double mul;
} unit;

/* The factor of unit u from table t (the empty name: no unit); 0, or -1 when
 * u is none of them. */
static int unit_mul(const char *u, const unit *t, size_t n, bool any_case, double *mul)
{
    for (size_t i = 0; i < n; i++)
        if ((any_case ? strcasecmp(u, t[i].name) : strcmp(u, t[i].name)) == 0) {
            *mul = t[i].mul;
            return 0;
        }
    return -1;
}

/* A number in C's notation (strtod's), then a unit of table t (any case);
 * 0 and *out, their product (finite), or -1. */
static int c_number_unit(const char *s, const unit *t, size_t n, double *out)
{
    char *end = NULL;
    double mul;
    if (!s)
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || unit_mul(end, t, n, true, &mul) != 0)
        return -1;
    v *= mul;
    if (!isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int gd_parse_uint(const char *s, unsigned long max, unsigned long *out)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    unsigned long v = 0;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s))
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > max / 10 || d > max - v * 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int gd_parse_decimal(const char *s, double *out)
{
    size_t n = s ? decimal_span(s) : 0;
    if (n == 0 || s[n] != '\0')
        return -1;
    return convert(s, n, out);
}

int gd_parse_duration(const char *s, double unit_s, double *out_s)
{
    static const unit units[] = {{"ms", 0.001}, {"s", 1}, {"m", 60}, {"h", 3600}};
    size_t n = s ? decimal_span(s) : 0;
    double v, mul = unit_s;
    if (n == 0 || convert(s, n, &v) != 0)
        return -1;
    if (s[n] != '\0' && unit_mul(s + n, units, sizeof units / sizeof units[0], false, &mul) != 0)
        return -1; /* case counts: "5S" is no duration */
    *out_s = v * mul;
    return 0;
}

int gd_parse_count(const char *s, double *out)
{
    static const unit units[] = {{"", 1}, {"k", 1e3}, {"m", 1e6}, {"b", 1e9}, {"g", 1e9}, {"t", 1e12}};
    double v;
    if (c_number_unit(s, units, sizeof units / sizeof units[0], &v) != 0 || !(v > 0))
        return -1;
    *out = v;
    return 0;
}

int gd_parse_size(const char *s, double *out)
{
    static const unit units[] = {{"", 1},
                                 {"K", 1024.0},
                                 {"KB", 1024.0},
                                 {"KiB", 1024.0},
                                 {"M", 1048576.0},
                                 {"MB", 1048576.0},
                                 {"MiB", 1048576.0},
                                 {"G", 1073741824.0},
                                 {"GB", 1073741824.0},
                                 {"GiB", 1073741824.0},
                                 {"T", 1099511627776.0},
                                 {"TB", 1099511627776.0},
                                 {"TiB", 1099511627776.0}};
    double v;
    if (c_number_unit(s, units, sizeof units / sizeof units[0], &v) != 0 || !(v > 0))
        return -1;
    *out = v;
    return 0;
}

int gd_parse_percent(const char *s, double *out)
{
    static const unit units[] = {{"", 1}, {"%", 1}};
    return c_number_unit(s, units, sizeof units / sizeof units[0], out);
}
