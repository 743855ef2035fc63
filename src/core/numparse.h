/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Strict parsing of the numbers that users type as option values. Only plain
 * decimal notation is a number here: no sign, no leading or trailing space,
 * no hex ("0x10"), no exponent ("1e3"), no "inf" or "nan", all of which
 * strtod would take.
 */
#ifndef GD_NUMPARSE_H
#define GD_NUMPARSE_H

/* A decimal integer ("4242"): 0 and *out, or -1 (also beyond max). */
int gd_parse_uint(const char *s, unsigned long max, unsigned long *out);

/* A decimal number ("2", "2.5", ".5", "3."): 0 and *out, or -1. */
int gd_parse_decimal(const char *s, double *out);

/*
 * A duration: a decimal number with an optional unit "ms", "s", "m" or "h"
 * ("500ms", "2.5s", "1m"); a bare number counts in `unit_s` seconds (1 for
 * seconds, 0.001 for milliseconds). 0 and *out_s in seconds, or -1.
 */
int gd_parse_duration(const char *s, double unit_s, double *out_s);

#endif
