/* SPDX-License-Identifier: Apache-2.0 */
/* JSON helpers shared by checks and reports. */
#ifndef GD_JSON_UTIL_H
#define GD_JSON_UTIL_H

#include "gpudoctor/model.h"

#include <jansson.h>

/* A number as JSON: an integer when it is one (48, not 48.0), else a real
 * rounded to 3 decimals. NaN and infinities become null. */
json_t *gd_json_number(double v);

/* A reading as JSON: its number when valid, null otherwise (never 0). */
json_t *gd_json_value(gd_value v);

/* A string, or null when it is empty (an unknown name, uuid, bus id). */
json_t *gd_json_text(const char *s);

#endif
