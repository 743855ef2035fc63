/* SPDX-License-Identifier: Apache-2.0 */
/* Typed, path-aware getters over jansson values, shared by the parser. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"

bool gdp_fail(gd_parser *p, const char *at, const char *fmt, ...)
{
    if (!p->err || p->errlen == 0)
        return false;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errlen, "%s: %s: %s", p->file, at && *at ? at : "top level", msg);
    return false;
}

void gdp_key(char *out, const char *at, const char *key)
{
    snprintf(out, GD_SCENARIO_PATH_MAX, "%s%s%s", at, *at ? "." : "", key);
}

void gdp_index(char *out, const char *at, size_t i)
{
    snprintf(out, GD_SCENARIO_PATH_MAX, "%s[%zu]", at, i);
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "something else";
}

/* Looks up `key`; *v is NULL when missing or null. Fills `path`. */
static json_t *lookup(json_t *obj, const char *key, const char *at, char *path)
{
    gdp_key(path, at, key);
    json_t *v = json_object_get(obj, key);
    return v && !json_is_null(v) ? v : NULL;
}

bool gdp_int(gd_parser *p, json_t *obj, const char *key, const char *at, long long lo, long long hi,
             gd_scenario_int *out)
{
    char path[GD_SCENARIO_PATH_MAX];
    json_t *v = lookup(obj, key, at, path);
    out->present = false;
    if (!v)
        return true;
    long long x;
    if (json_is_integer(v)) {
        x = json_integer_value(v);
    } else if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d != floor(d) || !(d >= -9.2e18 && d <= 9.2e18))
            return gdp_fail(p, path, "expected an integer, got %g", d);
        x = (long long)d;
    } else {
        return gdp_fail(p, path, "expected an integer, got %s", type_name(v));
    }
    if (x < lo || x > hi)
        return gdp_fail(p, path, "must be between %lld and %lld (got %lld)", lo, hi, x);
    out->present = true;
    out->value = x;
    return true;
}

bool gdp_num(gd_parser *p, json_t *obj, const char *key, const char *at, double lo, double hi, gd_scenario_num *out)
{
    char path[GD_SCENARIO_PATH_MAX];
    json_t *v = lookup(obj, key, at, path);
    out->present = false;
    if (!v)
        return true;
    if (!json_is_number(v))
        return gdp_fail(p, path, "expected a number, got %s", type_name(v));
    double x = json_number_value(v);
    if (!(x >= lo && x <= hi))
        return gdp_fail(p, path, "must be between %g and %g (got %g)", lo, hi, x);
    out->present = true;
    out->value = x;
    return true;
}

bool gdp_flag(gd_parser *p, json_t *obj, const char *key, const char *at, gd_scenario_flag *out)
{
    char path[GD_SCENARIO_PATH_MAX];
    json_t *v = lookup(obj, key, at, path);
    out->present = false;
    if (!v)
        return true;
    if (!json_is_boolean(v))
        return gdp_fail(p, path, "expected true or false, got %s", type_name(v));
    out->present = true;
    out->value = json_is_true(v);
    return true;
}

bool gdp_string(gd_parser *p, json_t *obj, const char *key, const char *at, char **out)
{
    char path[GD_SCENARIO_PATH_MAX];
    json_t *v = lookup(obj, key, at, path);
    *out = NULL;
    if (!v)
        return true;
    if (!json_is_string(v))
        return gdp_fail(p, path, "expected a string, got %s", type_name(v));
    *out = strdup(json_string_value(v));
    if (!*out)
        return gdp_fail(p, path, "out of memory");
    return true;
}

bool gdp_object(gd_parser *p, json_t *obj, const char *key, const char *at, json_t **out)
{
    char path[GD_SCENARIO_PATH_MAX];
    *out = lookup(obj, key, at, path);
    if (*out && !json_is_object(*out))
        return gdp_fail(p, path, "expected an object, got %s", type_name(*out));
    return true;
}

bool gdp_array(gd_parser *p, json_t *obj, const char *key, const char *at, json_t **out)
{
    char path[GD_SCENARIO_PATH_MAX];
    *out = lookup(obj, key, at, path);
    if (*out && !json_is_array(*out))
        return gdp_fail(p, path, "expected an array, got %s", type_name(*out));
    return true;
}

bool gdp_errors(gd_parser *p, json_t *obj, const char *at, bool always, double from_t, gd_scenario_errors *list)
{
    json_t *errs;
    if (!gdp_object(p, obj, "errors", at, &errs))
        return false;
    if (!errs || json_object_size(errs) == 0)
        return true;
    char path[GD_SCENARIO_PATH_MAX];
    gdp_key(path, at, "errors");
    size_t n = list->count + json_object_size(errs);
    gd_scenario_error *items = realloc(list->items, n * sizeof *items);
    if (!items)
        return gdp_fail(p, path, "out of memory");
    list->items = items;

    const char *fn;
    json_t *v;
    json_object_foreach(errs, fn, v)
    {
        char sub[GD_SCENARIO_PATH_MAX];
        gdp_key(sub, path, fn);
        int code;
        if (!json_is_string(v))
            return gdp_fail(p, sub, "expected an NVML return code name such as \"NVML_ERROR_GPU_IS_LOST\", got %s",
                            type_name(v));
        if (!gd_scenario_return_code(json_string_value(v), &code))
            return gdp_fail(p, sub, "unknown NVML return code \"%s\" (expected NVML_SUCCESS or an NVML_ERROR_* name)",
                            json_string_value(v));
        if (*fn == '\0')
            return gdp_fail(p, path, "empty function name");
        gd_scenario_error *e = &list->items[list->count];
        e->fn = strdup(fn);
        if (!e->fn)
            return gdp_fail(p, sub, "out of memory");
        e->code = code;
        e->always = always;
        e->from_t = from_t;
        list->count++;
    }
    return true;
}

void gdp_errors_free(gd_scenario_errors *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i].fn);
    free(list->items);
    list->items = NULL;
    list->count = 0;
}
