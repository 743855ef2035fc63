/* SPDX-License-Identifier: Apache-2.0 */
/* JSON helpers shared by checks and reports. */
#include "json_util.h"

#include <math.h>

json_t *gd_json_number(double v)
{
    if (!isfinite(v))
        return json_null();
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        return json_integer((json_int_t)v);
    return json_real(round(v * 1000.0) / 1000.0);
}

json_t *gd_json_value(gd_value v)
{
    return gd_ok(v) ? gd_json_number(v.v) : json_null();
}

json_t *gd_json_text(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}
