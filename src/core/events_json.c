/* SPDX-License-Identifier: Apache-2.0 */
/* The session's health events as JSON and back (model.h, facts_json.h). */
#include "facts_json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const kind_names[] = {
    [GD_EV_XID] = "xid",
    [GD_EV_COUNTER] = "counter",
    [GD_EV_GPU_LOST] = "gpu_lost",
    [GD_EV_GPU_BACK] = "gpu_back",
    [GD_EV_DRIVER_LOST] = "driver_lost",
    [GD_EV_DRIVER_BACK] = "driver_back",
};
#define KINDS (sizeof kind_names / sizeof kind_names[0])

const char *gd_event_kind_name(int kind)
{
    return kind > 0 && (size_t)kind < KINDS ? kind_names[kind] : "unknown";
}

json_t *gd_event_to_json(const gd_events *ev, const gd_event *e)
{
    char at[32];
    gd_event_clock(ev, e->t, at, sizeof at);
    return json_pack("{s:f, s:s, s:s, s:o, s:I, s:s}", "t", e->t, "at", at, "kind", gd_event_kind_name(e->kind),
                     "gpu", e->gpu >= 0 ? json_integer(e->gpu) : json_null(), "value", (json_int_t)e->value, "what",
                     e->what);
}

json_t *gd_events_to_json(const gd_events *ev, bool with_list)
{
    json_t *j = json_pack("{s:f, s:b, s:b, s:f, s:i, s:I}", "start_unix", ev->start_unix, "xid_watched",
                          ev->xid_watched, "kernel_log_followed", ev->kernel_log_followed, "reread_s", ev->reread_s,
                          "counter_reads", ev->counter_reads, "dropped", (json_int_t)ev->dropped);
    if (!j || !with_list)
        return j;
    json_t *list = json_array();
    for (size_t i = 0; list && i < ev->n; i++)
        json_array_append_new(list, gd_event_to_json(ev, &ev->v[i]));
    json_object_set_new(j, "list", list ? list : json_array());
    return j;
}

int gd_event_from_json(const json_t *o, gd_event *e)
{
    const char *kind = json_string_value(json_object_get(o, "kind"));
    const json_t *t = json_object_get(o, "t"), *gpu = json_object_get(o, "gpu");
    *e = (gd_event){.t = json_number_value(t),
                    .gpu = json_is_integer(gpu) ? (int)json_integer_value(gpu) : -1,
                    .value = json_integer_value(json_object_get(o, "value"))};
    for (size_t k = 1; kind && k < KINDS; k++)
        if (strcmp(kind, kind_names[k]) == 0)
            e->kind = (int)k;
    if (!e->kind || !json_is_number(t) || !isfinite(e->t) || e->gpu < -1 || e->gpu > 4096)
        return -1;
    snprintf(e->what, sizeof e->what, "%s", json_string_value(json_object_get(o, "what")) ?: "");
    return 0;
}

int gd_events_from_json(const json_t *j, gd_events *ev, char *err, size_t errlen)
{
    if (!json_is_object(j)) {
        snprintf(err, errlen, "events: expected an object");
        return -1;
    }
    ev->start_unix = json_number_value(json_object_get(j, "start_unix"));
    ev->xid_watched = json_is_true(json_object_get(j, "xid_watched"));
    ev->kernel_log_followed = json_is_true(json_object_get(j, "kernel_log_followed"));
    ev->reread_s = json_number_value(json_object_get(j, "reread_s"));
    ev->counter_reads = (int)json_integer_value(json_object_get(j, "counter_reads")); /* absent: 0, not known */
    const json_t *list = json_object_get(j, "list");
    size_t i;
    const json_t *o;
    json_array_foreach(list, i, o)
    {
        gd_event e;
        if (gd_event_from_json(o, &e) != 0) {
            snprintf(err, errlen, "events.list[%zu]: expected {t, kind, gpu, value, what}", i);
            return -1;
        }
        if (gd_event_add(ev, &e) != 0) {
            snprintf(err, errlen, "events: does not fit in memory");
            return -1;
        }
    }
    /* The live run's count of events the ring let go of (a list holds only the ring's). */
    size_t dropped = (size_t)json_integer_value(json_object_get(j, "dropped"));
    if (dropped > ev->dropped)
        ev->dropped = dropped;
    return 0;
}
