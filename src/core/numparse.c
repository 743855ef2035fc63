/* SPDX-License-Identifier: Apache-2.0 */
/* Strict decimal parsing for option values. */
#include "numparse.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    static const struct {
        const char *name;
        double s;
    } units[] = {{"ms", 0.001}, {"s", 1}, {"m", 60}, {"h", 3600}};
    size_t n = s ? decimal_span(s) : 0;
    double v;
    if (n == 0 || convert(s, n, &v) != 0)
        return -1;
    if (s[n] == '\0') {
        *out_s = v * unit_s;
        return 0;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(s + n, units[i].name) == 0) {
            *out_s = v * units[i].s;
            return 0;
        }
    return -1;
}
