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

void gd_check_gpu_came_back(const gd_facts *f, gd_findings *out)
{
    const gd_events *ev = &f->events;
    for (size_t i = 0; i < ev->n; i++) {
        const gd_event *lost = &ev->v[i];
        if (lost->kind != GD_EV_GPU_LOST || lost->gpu < 0 || (size_t)lost->gpu >= f->gpu_count ||
            f->gpus[lost->gpu].lost)
            continue; /* one still lost is the sampler's finding */
        const gd_event *back = next_event(ev, GD_EV_GPU_BACK, lost->gpu, lost->t);
        const gd_gpu *gpu = &f->gpus[lost->gpu];
        char at[32], again[32] = "";
        gd_event_clock(ev, lost->t, at, sizeof at);
        if (back)
            gd_event_clock(ev, back->t, again, sizeof again);
        json_t *e = json_object();
        json_object_set_new(e, "lost_at_s", gd_json_number(lost->t));
        json_object_set_new(e, "lost_at", json_string(at));
        json_object_set_new(e, "back_at_s", back ? gd_json_number(back->t) : json_null());
        json_object_set_new(e, "back_at", back ? json_string(again) : json_null());
        json_object_set_new(e, "call", json_string(lost->what));
        json_object_set_new(e, "nvml_return", json_integer(lost->value));
        json_object_set_new(e, "source", json_string("nvml: the session's samples"));
        char fix[512];
        snprintf(fix, sizeof fix,
                 "A GPU that drops off and comes back is failing: what ran on it then is suspect. Look for Xid 79 "
                 "(or 48, 74, 94, 95) at that time in 'dmesg -T', drain GPU %d, reseat it and its power cables, "
                 "and open an RMA if it happens again.",
                 gpu->index);
        gd_finding_add(out, "health.gpu_lost", GD_SEV_CRITICAL, gpu->index, e, NAN, fix,
                       "GPU %d stopped answering at %s (%.1f s) and answered again%s%s", gpu->index, at, lost->t,
                       back ? " at " : "", back ? again : "");
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
        const gd_event *back = next_event(ev, GD_EV_DRIVER_BACK, -1, down->t);
        char at[32], again[32] = "";
        gd_event_clock(ev, down->t, at, sizeof at);
        if (back)
            gd_event_clock(ev, back->t, again, sizeof again);
        json_t *e = json_object();
        json_object_set_new(e, "from_s", gd_json_number(down->t));
        json_object_set_new(e, "from", json_string(at));
        json_object_set_new(e, "until_s", back ? gd_json_number(back->t) : json_null());
        json_object_set_new(e, "nvml_return", json_integer(down->value));
        json_object_set_new(e, "source", json_string("nvml: every GPU's sample failed"));
        gd_finding_add(out, "health.driver_unresponsive", GD_SEV_CRITICAL, GD_NO_GPU, e, NAN, NULL,
                       "The driver stopped answering for every GPU at %s (%.1f s, NVML return code %lld)%s%s", at,
                       down->t, down->value, back ? "; it answered again at " : "", back ? again : "");
    }
}
