/* SPDX-License-Identifier: Apache-2.0 */
/* JSON helpers shared by checks and reports. */
#include "json_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int gd_json_real_text(double x, char *buf, size_t len)
{
    if (!isfinite(x))
        return -1;
    int n = -1;
    for (int prec = 1; prec <= 17; prec++) {
        n = snprintf(buf, len, "%.*g", prec, x);
        if (n < 0 || (size_t)n >= len)
            return -1;
        if (strtod(buf, NULL) == x)
            break;
    }
    if (!strpbrk(buf, ".eE")) {
        if ((size_t)n + 2 >= len)
            return -1;
        memcpy(buf + n, ".0", 3);
    }
    return 0;
}

/* Rewrites each real of jansson's text (a number token outside strings with
 * a point or an exponent) in its shortest round-trip form. */
static char *shorten_reals(const char *text)
{
    size_t n = strlen(text);
    char *out = malloc(2 * n + 32), *o = out;
    if (!out)
        return NULL;
    bool in_string = false;
    for (const char *p = text; *p;) {
        if (in_string) {
            if (*p == '\\' && p[1]) {
                *o++ = *p++;
            } else if (*p == '"') {
                in_string = false;
            }
            *o++ = *p++;
            continue;
        }
        if (*p == '"') {
            in_string = true;
            *o++ = *p++;
            continue;
        }
        if (*p == '-' || (*p >= '0' && *p <= '9')) {
            size_t k = strspn(p, "0123456789+-.eE");
            char num[40], tok[64] = "";
            if (k < sizeof tok) {
                memcpy(tok, p, k);
                tok[k] = '\0';
            }
            if (strpbrk(tok, ".eE") && gd_json_real_text(strtod(tok, NULL), num, sizeof num) == 0) {
                size_t m = strlen(num);
                memcpy(o, num, m);
                o += m;
                p += k;
                continue;
            }
            memcpy(o, p, k);
            o += k;
            p += k;
            continue;
        }
        *o++ = *p++;
    }
    *o = '\0';
    return out;
}

char *gd_json_dumps(const json_t *j, size_t flags)
{
    char *text = json_dumps(j, flags | JSON_REAL_PRECISION(17));
    if (!text)
        return NULL;
    char *out = shorten_reals(text);
    free(text);
    return out;
}

int gd_json_dumpf(const json_t *j, FILE *out, size_t flags)
{
    char *text = gd_json_dumps(j, flags);
    if (!text)
        return -1;
    int rc = fputs(text, out) < 0 ? -1 : 0;
    free(text);
    return rc;
}
