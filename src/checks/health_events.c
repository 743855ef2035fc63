/* SPDX-License-Identifier: Apache-2.0 */
/* Faults of a session seen as events: a GPU that stopped answering and
 * answered again (health.gpu_lost, with both times), a driver that stopped
 * answering every GPU (health.driver_unresponsive). Judged from the events'
 * sums: a fault of the session's first minute stays a finding however many
 * events follow it. */
#include "checks_internal.h"

/* The sum of (gpu, kind) over the whole session (as a bounded view sees it). */
static bool sum_of(const gd_events *ev, int kind, int gpu, gd_event_sum *out)
{
    for (size_t i = 0; i < ev->sum_count; i++)
        if (ev->sums[i].kind == kind && ev->sums[i].gpu == gpu)
            return gd_event_sum_get(ev, i, -INFINITY, INFINITY, out);
    return false;
}

/* A fault that began at `from`'s first event and, when `back` holds a return
 * after it, ended: both times as evidence (`from_key`, `back_key`: "_s" and
 * the wall-clock time), how often it happened, and the text into at / again
 * ("" when it did not end) and `times` (", 3 times, the last at 14:02:11"). */
static json_t *span_json(const gd_events *ev, const gd_event_sum *from, const gd_event_sum *back, const char *from_key,
                         const char *back_key, char *at, char *again, char *times, size_t len)
{
    bool ended = back && back->count && back->last_t >= from->first_t;
    double back_t = ended ? (back->first_t >= from->first_t ? back->first_t : back->last_t) : NAN;
    gd_event_clock(ev, from->first_t, at, len);
    again[0] = times[0] = '\0';
    if (ended)
        gd_event_clock(ev, back_t, again, len);
    char key[48];
    json_t *e = json_object();
    snprintf(key, sizeof key, "%s_s", from_key);
    json_object_set_new(e, key, gd_json_number(from->first_t));
    json_object_set_new(e, from_key, json_string(at));
    snprintf(key, sizeof key, "%s_s", back_key);
    json_object_set_new(e, key, ended ? gd_json_number(back_t) : json_null());
    json_object_set_new(e, back_key, ended ? json_string(again) : json_null());
    json_object_set_new(e, "nvml_return", json_integer(from->first_value));
    json_object_set_new(e, "nvml_error", json_string(gd_nvml_return_name((int)from->first_value)));
    if (from->count > 1) {
        char last[32];
        gd_event_clock(ev, from->last_t, last, sizeof last);
        json_object_set_new(e, "times", json_integer((json_int_t)from->count));
        json_object_set_new(e, "last_s", gd_json_number(from->last_t));
        snprintf(times, len, ", %zu times (the last at %s)", from->count, last);
    }
    return e;
}

void gd_check_gpu_came_back(const gd_facts *f, gd_findings *out)
{
    const gd_events *ev = &f->events;
    for (size_t g = 0; g < f->gpu_count; g++) {
        gd_event_sum lost, back;
        const gd_gpu *gpu = &f->gpus[g];
        if (gpu->lost || !sum_of(ev, GD_EV_GPU_LOST, (int)g, &lost))
            continue; /* one still lost is the sampler's finding */
        bool has_back = sum_of(ev, GD_EV_GPU_BACK, (int)g, &back);
        char at[64], again[64], times[64];
        json_t *e = span_json(ev, &lost, has_back ? &back : NULL, "lost_at", "back_at", at, again, times, sizeof at);
        json_object_set_new(e, "call", json_string(lost.what));
        json_object_set_new(e, "source", json_string("nvml: the window's samples"));
        char fix[512];
        snprintf(fix, sizeof fix,
                 "A GPU that drops off and comes back is failing: what ran on it then is suspect. Look for Xid 79 "
                 "(or 48, 74, 94, 95) at that time in 'dmesg -T', drain GPU %d, reseat it and its power cables, "
                 "and open an RMA if it happens again.",
                 gpu->index);
        gd_finding_add(out, "health.gpu_lost", GD_SEV_CRITICAL, gpu->index, e, NAN, fix,
                       "GPU %d stopped answering at %s (%.1f s) and answered again%s%s%s", gpu->index, at, lost.first_t,
                       again[0] ? " at " : "", again, times);
    }
}

void gd_check_driver_unresponsive(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_events *ev = &f->events;
    gd_event_sum down, back;
    if (!sum_of(ev, GD_EV_DRIVER_LOST, -1, &down))
        return;
    bool has_back = sum_of(ev, GD_EV_DRIVER_BACK, -1, &back);
    char at[64], again[64], times[64];
    json_t *e = span_json(ev, &down, has_back ? &back : NULL, "from", "until", at, again, times, sizeof at);
    json_object_set_new(e, "source", json_string("nvml: every GPU's sample failed"));
    gd_finding_add(out, "health.driver_unresponsive", GD_SEV_CRITICAL, GD_NO_GPU, e, NAN, NULL,
                   "The driver stopped answering for every GPU at %s (%.1f s, NVML return code %lld)%s%s%s", at,
                   down.first_t, down.first_value, again[0] ? "; it answered again at " : "", again, times);
}
