/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parsing of the numbers that users type as option values, every rule in
 * one place. Two notations:
 * - plain decimal (gd_parse_uint, gd_parse_decimal, gd_parse_duration): no
 *   sign, no leading or trailing space, no hex ("0x10"), no exponent
 *   ("1e3"), no "inf" or "nan", all of which strtod would take;
 * - C's (gd_parse_count, gd_parse_size, gd_parse_percent, for vram's model
 *   and GPU sizes): strtod's, for the exponent of "7.5e9" parameters; it
 *   also takes a sign, leading space and hex ("0x10"), as vram always has,
 *   so that no command line that worked stops working. Never inf or nan.
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

/*
 * A count in C's notation with an optional suffix k, m, b or g, t (any case:
 * thousand, million, billion, trillion): "7B", "350M", "7.5e9", "1.2T".
 * 0 and *out (finite, above 0), or -1.
 */
int gd_parse_count(const char *s, double *out);

/*
 * A size in bytes in C's notation with an optional binary unit K, M, G, T,
 * each also as KB and KiB (any case; GPU memory is sold in GiB-sized parts:
 * an "80GB" H100 holds 79.6 GiB): "80G", "40GiB", "24576M", "85899345920".
 * 0 and *out (finite, above 0), or -1.
 */
int gd_parse_size(const char *s, double *out);

/* A percentage in C's notation, "10" or "10%": 0 and *out (finite), or -1. */
int gd_parse_percent(const char *s, double *out);

#endif
