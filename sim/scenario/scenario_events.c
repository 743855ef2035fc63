/* SPDX-License-Identifier: Apache-2.0 */
/* A GPU's timed health events: Xids for NVML's event API, and counts that
 * add to the ECC, retired-page and row-remapping counters from their time on. */
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"

static int by_time(const void *a, const void *b)
{
    double x = ((const gd_scenario_event *)a)->t, y = ((const gd_scenario_event *)b)->t;
    return (x > y) - (x < y);
}

const char *const gd_scenario_nvlink_counter_names[GD_SCENARIO_NVLINK_COUNTERS] = {"replay", "recovery", "crc_flit",
                                                                                   "crc_data", "ecc_data"};

/* "nvlink": {"link": 3, "crc_flit": 120, ...}: new errors on one of the GPU's listed links. */
static bool parse_nvlink_event(gd_parser *p, json_t *obj, const char *at, const gd_scenario_gpu *g,
                               gd_scenario_event *e)
{
    json_t *nv;
    char nv_at[GD_SCENARIO_PATH_MAX];
    gdp_key(nv_at, at, "nvlink");
    if (!gdp_object(p, obj, "nvlink", at, &nv))
        return false;
    if (!nv)
        return true;
    gd_scenario_int link, n;
    if (!gdp_int(p, nv, "link", nv_at, 0, 35, &link))
        return false;
    if (!link.present)
        return gdp_fail(p, nv_at, "missing \"link\" (the link index)");
    bool listed = false;
    for (size_t i = 0; i < g->nvlink_count; i++)
        listed |= g->nvlink[i].link == (unsigned)link.value;
    if (!listed)
        return gdp_fail(p, nv_at, "link %lld is not in this GPU's \"nvlink\" list", link.value);
    bool any = false;
    for (int c = 0; c < GD_SCENARIO_NVLINK_COUNTERS; c++) {
        if (!gdp_int(p, nv, gd_scenario_nvlink_counter_names[c], nv_at, 0, 1000000000, &n))
            return false;
        e->nvlink_errors[c] = n.present ? n.value : 0;
        any |= n.present;
    }
    if (!any)
        return gdp_fail(p, nv_at,
                        "an NVLink event says nothing: give replay, recovery, crc_flit, crc_data or ecc_data");
    e->has_nvlink = true;
    e->nvlink_link = (unsigned)link.value;
    return true;
}

static bool parse_event(gd_parser *p, json_t *obj, const char *at, const gd_scenario_gpu *g, gd_scenario_event *e)
{
    gd_scenario_num t;
    gd_scenario_int xid, ecc, pages, rows;
    if (!gdp_num(p, obj, "t", at, 0, 1e9, &t) || !gdp_int(p, obj, "xid", at, 1, 99999, &xid) ||
        !gdp_int(p, obj, "ecc_uncorrected", at, 0, 1000000000, &ecc) ||
        !gdp_int(p, obj, "retired_pages", at, 0, 1000000, &pages) ||
        !gdp_int(p, obj, "remapped_rows_uncorrectable", at, 0, 1000000, &rows) ||
        !gdp_flag(p, obj, "remapped_rows_pending", at, &e->remapped_rows_pending) ||
        !parse_nvlink_event(p, obj, at, g, e))
        return false;
    if (!t.present)
        return gdp_fail(p, at, "an event needs its time \"t\"");
    if (!xid.present && !ecc.present && !pages.present && !rows.present && !e->remapped_rows_pending.present &&
        !e->has_nvlink)
        return gdp_fail(p, at,
                        "an event says nothing: give xid, ecc_uncorrected, retired_pages, "
                        "remapped_rows_uncorrectable, remapped_rows_pending or nvlink");
    e->t = t.value;
    e->xid = xid.present ? (int)xid.value : 0;
    e->ecc_uncorrected = ecc.present ? ecc.value : 0;
    e->retired_pages = pages.present ? pages.value : 0;
    e->remapped_rows_uncorrectable = rows.present ? rows.value : 0;
    return true;
}

bool gdp_events(gd_parser *p, json_t *gpu, const char *at, gd_scenario_gpu *g)
{
    json_t *gpm, *arr;
    char gpm_at[GD_SCENARIO_PATH_MAX];
    gdp_key(gpm_at, at, "gpm");
    if (!gdp_object(p, gpu, "gpm", at, &gpm) ||
        (gpm && !gdp_num(p, gpm, "tensor_share", gpm_at, 0, 1, &g->gpm_tensor_share)) ||
        !gdp_int(p, gpu, "memory_reserved_mib", at, 0, 1 << 30, &g->memory_reserved_mib))
        return false;
    if (!gdp_array(p, gpu, "events", at, &arr))
        return false;
    if (!arr)
        return true;
    char path[GD_SCENARIO_PATH_MAX];
    gdp_key(path, at, "events");
    size_t n = json_array_size(arr);
    g->events = n ? calloc(n, sizeof *g->events) : NULL;
    if (n && !g->events)
        return gdp_fail(p, path, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char sub[GD_SCENARIO_PATH_MAX];
        gdp_index(sub, path, i);
        json_t *obj = json_array_get(arr, i);
        if (!json_is_object(obj))
            return gdp_fail(p, sub, "expected an object");
        if (!parse_event(p, obj, sub, g, &g->events[i]))
            return false;
        g->event_count++;
    }
    if (g->event_count > 1) /* an empty list has no array: qsort must not see NULL */
        qsort(g->events, g->event_count, sizeof *g->events, by_time); /* the file's order need not be the time's */
    return true;
}

long long gd_scenario_event_sum(const gd_scenario_gpu *gpu, const char *which, double t)
{
    long long sum = 0;
    for (size_t i = 0; i < gpu->event_count && gpu->events[i].t <= t; i++) {
        const gd_scenario_event *e = &gpu->events[i];
        sum += strcmp(which, "ecc_uncorrected") == 0               ? e->ecc_uncorrected
               : strcmp(which, "retired_pages") == 0               ? e->retired_pages
               : strcmp(which, "remapped_rows_uncorrectable") == 0 ? e->remapped_rows_uncorrectable
                                                                   : 0;
    }
    return sum;
}

bool gd_scenario_nvlink_errors_at(const gd_scenario_gpu *gpu, unsigned link, gd_scenario_nvlink_counter c, double t,
                                  long long *out)
{
    const gd_scenario_nvlink *l = NULL;
    for (size_t i = 0; i < gpu->nvlink_count && !l; i++)
        if (gpu->nvlink[i].link == link)
            l = &gpu->nvlink[i];
    if (!l || (unsigned)c >= GD_SCENARIO_NVLINK_COUNTERS)
        return false;
    bool present = l->errors[c].present;
    long long n = present ? l->errors[c].value : 0;
    for (size_t i = 0; i < gpu->event_count; i++) {
        const gd_scenario_event *e = &gpu->events[i];
        if (!e->has_nvlink || e->nvlink_link != link || e->nvlink_errors[c] == 0)
            continue;
        present = true; /* an event that raises the counter says the link has it */
        if (e->t <= t)
            n += e->nvlink_errors[c];
    }
    *out = n;
    return present;
}

bool gd_scenario_remap_pending_at(const gd_scenario_gpu *gpu, double t, bool *present)
{
    *present = gpu->ecc.remapped_rows_pending.present;
    bool v = gpu->ecc.remapped_rows_pending.value;
    for (size_t i = 0; i < gpu->event_count && gpu->events[i].t <= t; i++)
        if (gpu->events[i].remapped_rows_pending.present) {
            *present = true;
            v = gpu->events[i].remapped_rows_pending.value;
        }
    return v;
}
