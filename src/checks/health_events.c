/* SPDX-License-Identifier: Apache-2.0 */
/* Faults of a session seen as events: a GPU that stopped answering and
 * answered again (health.gpu_lost, with both times), a driver that stopped
 * answering every GPU (health.driver_unresponsive). */
#include "checks_internal.h"

/* The first event of `kind` for gpu at or after t, or NULL. */
static const gd_event *next_event(const gd_events *ev, int kind, int gpu, double t)
{
    for (size_t i = 0; i < ev->n; i++)
        if (ev->v[i].kind == kind && ev->v[i].gpu == gpu && ev->v[i].t >= t)
            return &ev->v[i];
    return NULL;
}

/* A fault that began with event `from` and, when `kind_back` follows it,
 * ended: both times as evidence (`from_key`, `back_key`: "_s" and the
 * wall-clock time) and as text into at / again ("" when it did not end). */
static json_t *span_json(const gd_events *ev, const gd_event *from, int kind_back, const char *from_key,
                         const char *back_key, char *at, char *again, size_t len)
{
    const gd_event *back = next_event(ev, kind_back, from->gpu, from->t);
    gd_event_clock(ev, from->t, at, len);
    again[0] = '\0';
    if (back)
        gd_event_clock(ev, back->t, again, len);
    char key[48];
    json_t *e = json_object();
    snprintf(key, sizeof key, "%s_s", from_key);
    json_object_set_new(e, key, gd_json_number(from->t));
    json_object_set_new(e, from_key, json_string(at));
    snprintf(key, sizeof key, "%s_s", back_key);
    json_object_set_new(e, key, back ? gd_json_number(back->t) : json_null());
    json_object_set_new(e, back_key, back ? json_string(again) : json_null());
    json_object_set_new(e, "nvml_return", json_integer(from->value));
    json_object_set_new(e, "nvml_error", json_string(gd_nvml_return_name((int)from->value)));
    return e;
}

void gd_check_gpu_came_back(const gd_facts *f, gd_findings *out)
{
    const gd_events *ev = &f->events;
    for (size_t i = 0; i < ev->n; i++) {
        const gd_event *lost = &ev->v[i];
        if (lost->kind != GD_EV_GPU_LOST || lost->gpu < 0 || (size_t)lost->gpu >= f->gpu_count ||
            f->gpus[lost->gpu].lost)
            continue; /* one still lost is the sampler's finding */
        const gd_gpu *gpu = &f->gpus[lost->gpu];
        char at[32], again[32];
        json_t *e = span_json(ev, lost, GD_EV_GPU_BACK, "lost_at", "back_at", at, again, sizeof at);
        json_object_set_new(e, "call", json_string(lost->what));
        json_object_set_new(e, "source", json_string("nvml: the window's samples"));
        char fix[512];
        snprintf(fix, sizeof fix,
                 "A GPU that drops off and comes back is failing: what ran on it then is suspect. Look for Xid 79 "
                 "(or 48, 74, 94, 95) at that time in 'dmesg -T', drain GPU %d, reseat it and its power cables, "
                 "and open an RMA if it happens again.",
                 gpu->index);
        gd_finding_add(out, "health.gpu_lost", GD_SEV_CRITICAL, gpu->index, e, NAN, fix,
                       "GPU %d stopped answering at %s (%.1f s) and answered again%s%s", gpu->index, at, lost->t,
                       again[0] ? " at " : "", again);
    }
}

void gd_check_driver_unresponsive(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_events *ev = &f->events;
    for (size_t i = 0; i < ev->n; i++) {
        const gd_event *down = &ev->v[i];
        if (down->kind != GD_EV_DRIVER_LOST)
            continue;
        char at[32], again[32];
        json_t *e = span_json(ev, down, GD_EV_DRIVER_BACK, "from", "until", at, again, sizeof at);
        json_object_set_new(e, "source", json_string("nvml: every GPU's sample failed"));
        gd_finding_add(out, "health.driver_unresponsive", GD_SEV_CRITICAL, GD_NO_GPU, e, NAN, NULL,
                       "The driver stopped answering for every GPU at %s (%.1f s, NVML return code %lld)%s%s", at,
                       down->t, down->value, again[0] ? "; it answered again at " : "", again);
    }
}
