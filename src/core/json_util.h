/* SPDX-License-Identifier: Apache-2.0 */
/* JSON helpers shared by checks and reports. */
#ifndef GD_JSON_UTIL_H
#define GD_JSON_UTIL_H

#include "gpudoctor/model.h"

#include <jansson.h>
#include <stdio.h>

/* A number as JSON: an integer when it is one (48, not 48.0), else a real
 * rounded to 3 decimals. NaN and infinities become null. */
json_t *gd_json_number(double v);

/* A reading as JSON: its number when valid, null otherwise (never 0). */
json_t *gd_json_value(gd_value v);

/* A string, or null when it is empty (an unknown name, uuid, bus id). */
json_t *gd_json_text(const char *s);

/* json_dumps / json_dumpf with every real in its shortest form that reads
 * back as the same double (627.3, not jansson's "%.17g" 627.30000000000007,
 * and never fewer digits than that needs: a recording replays exactly).
 * `flags` are jansson's, without JSON_REAL_PRECISION. The text is the
 * caller's to free; NULL on error (json_dumps's). */
char *gd_json_dumps(const json_t *j, size_t flags);
int gd_json_dumpf(const json_t *j, FILE *out, size_t flags);

/* The shortest "%.*g" of x that strtod reads back as x, with ".0" where it
 * would read as an integer (jansson's rule for a real); 0, or -1 when it
 * does not fit buf. */
int gd_json_real_text(double x, char *buf, size_t len);

#endif
