/* SPDX-License-Identifier: Apache-2.0 */
/* Questions asked of a loaded scenario at a scenario time. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"

/* Index of the point in effect at t: the last with point.t <= t, else 0. */
static size_t point_index(const gd_scenario_gpu *gpu, double t)
{
    size_t lo = 0, hi = gpu->point_count; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (gpu->points[mid].t <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

const gd_scenario_point *gd_scenario_state_at(const gd_scenario_gpu *gpu, double t)
{
    return gpu->point_count ? &gpu->points[point_index(gpu, t)] : NULL;
}

gd_scenario_value gd_scenario_value_at(const gd_scenario_gpu *gpu, gd_scenario_field field, double t)
{
    const gd_scenario_point *pt = gd_scenario_state_at(gpu, t);
    gd_scenario_value none = {GD_SCENARIO_ABSENT, 0};
    return pt && (unsigned)field < GD_SCENARIO_FIELD_COUNT ? pt->field[field] : none;
}

gd_scenario_status gd_scenario_reasons_at(const gd_scenario_gpu *gpu, double t, unsigned long long *bits)
{
    const gd_scenario_point *pt = gd_scenario_state_at(gpu, t);
    gd_scenario_status st = pt ? pt->reasons_status : GD_SCENARIO_ABSENT;
    *bits = st == GD_SCENARIO_SET ? pt->event_reasons : 0;
    return st;
}

/*
 * Integrates weight(point) over [0, t]. Point i covers [its t, the next
 * point's t); the first point also covers [0, its t).
 */
static double integrate(const gd_scenario_gpu *gpu, double t, double (*weight)(const gd_scenario_point *, const void *),
                        const void *arg)
{
    double sum = 0;
    for (size_t i = 0; i < gpu->point_count; i++) {
        double start = i == 0 ? 0 : gpu->points[i].t;
        double end = i + 1 < gpu->point_count ? gpu->points[i + 1].t : INFINITY;
        if (start >= t)
            break;
        sum += weight(&gpu->points[i], arg) * (fmin(end, t) - start);
    }
    return sum;
}

static double power_weight(const gd_scenario_point *pt, const void *arg)
{
    (void)arg;
    const gd_scenario_value *v = &pt->field[GD_SCENARIO_POWER_W];
    return v->status == GD_SCENARIO_SET ? v->value : 0;
}

static double reason_weight(const gd_scenario_point *pt, const void *arg)
{
    const unsigned long long *mask = arg;
    return pt->reasons_status == GD_SCENARIO_SET && (pt->event_reasons & *mask) ? 1 : 0;
}

bool gd_scenario_energy_mj(const gd_scenario_gpu *gpu, double t, double *mj)
{
    *mj = 0;
    if (!gpu->point_count || gpu->points[0].field[GD_SCENARIO_POWER_W].status == GD_SCENARIO_ABSENT)
        return false;
    *mj = integrate(gpu, t, power_weight, NULL) * 1000.0;
    return true;
}

static double field_weight(const gd_scenario_point *pt, const void *arg)
{
    const gd_scenario_value *v = &pt->field[*(const gd_scenario_field *)arg];
    return v->status == GD_SCENARIO_SET ? v->value : 0;
}

bool gd_scenario_field_integral(const gd_scenario_gpu *gpu, gd_scenario_field field, double t, double *out)
{
    *out = 0;
    if (!gpu->point_count || (unsigned)field >= GD_SCENARIO_FIELD_COUNT ||
        gpu->points[0].field[field].status == GD_SCENARIO_ABSENT)
        return false;
    *out = integrate(gpu, t, field_weight, &field);
    return true;
}

bool gd_scenario_reason_time_ns(const gd_scenario_gpu *gpu, unsigned long long mask, double t, double *ns)
{
    *ns = 0;
    if (!gpu->point_count || gpu->points[0].reasons_status == GD_SCENARIO_ABSENT)
        return false;
    *ns = integrate(gpu, t, reason_weight, &mask) * 1e9;
    return true;
}

/* Length of a function name without a trailing "_v<digits>". */
static size_t base_len(const char *fn)
{
    size_t n = strlen(fn), i = n;
    while (i > 0 && isdigit((unsigned char)fn[i - 1]))
        i--;
    if (i < n && i >= 2 && fn[i - 1] == 'v' && fn[i - 2] == '_')
        return i - 2;
    return n;
}

static bool same_function(const char *a, const char *b)
{
    if (strcmp(a, "*") == 0 || strcmp(b, "*") == 0) /* a driver that stops answering: every call */
        return true;
    size_t la = base_len(a), lb = base_len(b);
    return la == lb && strncmp(a, b, la) == 0;
}

static bool in_effect(const gd_scenario_error *e, double t)
{
    return e->always || e->from_t <= t;
}

int gd_scenario_error_at(const gd_scenario_errors *errors, const char *fn, double t)
{
    int code = 0;
    for (size_t i = 0; i < errors->count; i++)
        if (in_effect(&errors->items[i], t) && same_function(errors->items[i].fn, fn))
            code = errors->items[i].code;
    return code;
}

bool gd_scenario_code_active(const gd_scenario_errors *errors, int code, double t)
{
    /* An entry counts only while no later entry for its function overrides it. */
    for (size_t i = 0; i < errors->count; i++) {
        const gd_scenario_error *e = &errors->items[i];
        if (in_effect(e, t) && e->code == code && gd_scenario_error_at(errors, e->fn, t) == code)
            return true;
    }
    return false;
}

bool gd_scenario_parse_bus_id(const char *id, unsigned *domain, unsigned *bus, unsigned *device, unsigned *function)
{
    unsigned d, b, dev, fn;
    int end = 0;
    const char *colon = strchr(id, ':');
    if (!colon || colon - id > 8 || colon == id)
        return false;
    if (sscanf(id, "%x:%2x:%2x.%1x%n", &d, &b, &dev, &fn, &end) != 4 || id[end] != '\0')
        return false;
    /* sscanf accepts signs and spaces; the form does not. */
    for (const char *c = id; *c; c++)
        if (!isxdigit((unsigned char)*c) && *c != ':' && *c != '.')
            return false;
    if (domain)
        *domain = d;
    if (bus)
        *bus = b;
    if (device)
        *device = dev;
    if (function)
        *function = fn;
    return true;
}

static int by_pid_then_order(const void *a, const void *b)
{
    const struct gd_scenario_pid_name *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

bool gdp_index_process_names(gd_scenario *sc)
{
    size_t n = 0;
    for (size_t g = 0; g < sc->gpu_count; g++)
        n += sc->gpus[g].process_count;
    sc->pid_name_count = 0;
    sc->pid_names = n ? malloc(n * sizeof *sc->pid_names) : NULL;
    if (n && !sc->pid_names)
        return false;
    for (size_t g = 0; g < sc->gpu_count; g++)
        for (size_t i = 0; i < sc->gpus[g].process_count; i++) {
            const gd_scenario_process *pr = &sc->gpus[g].processes[i];
            if (pr->name) {
                size_t k = sc->pid_name_count++;
                sc->pid_names[k] = (struct gd_scenario_pid_name){pr->pid, k, pr->name};
            }
        }
    if (sc->pid_name_count)
        qsort(sc->pid_names, sc->pid_name_count, sizeof *sc->pid_names, by_pid_then_order);
    /* The first of each pid stays. */
    size_t kept = 0;
    for (size_t i = 0; i < sc->pid_name_count; i++)
        if (kept == 0 || sc->pid_names[kept - 1].pid != sc->pid_names[i].pid)
            sc->pid_names[kept++] = sc->pid_names[i];
    sc->pid_name_count = kept;
    return true;
}

const char *gd_scenario_process_name(const gd_scenario *sc, unsigned pid)
{
    size_t lo = 0, hi = sc->pid_name_count; /* answer in [lo, hi) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sc->pid_names[mid].pid < pid)
            lo = mid + 1;
        else if (sc->pid_names[mid].pid > pid)
            hi = mid;
        else
            return sc->pid_names[mid].name;
    }
    return NULL;
}
