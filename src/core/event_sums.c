/* SPDX-License-Identifier: Apache-2.0 */
/* What the session's events of each key add up to (model.h): kept for the
 * whole session beside the ring of the newest events, so that checks judge
 * every event however many came after it. */
#include "event_sums.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Whether the event's `what` is part of its key: an Xid's source, a counter's name. */
static bool what_keyed(int kind)
{
    return kind == GD_EV_XID || kind == GD_EV_COUNTER;
}

static long long code_of(int kind, long long value)
{
    return kind == GD_EV_XID ? value : 0;
}

static bool same_key(const gd_event_sum *s, int gpu, int kind, long long code, const char *what)
{
    return s->gpu == gpu && s->kind == kind && s->code == code &&
           (!what_keyed(kind) || strncmp(s->what, what, sizeof s->what) == 0);
}

static size_t hash_key(int gpu, int kind, long long code, const char *what)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    long long parts[3] = {gpu, kind, code};
    for (size_t k = 0; k < sizeof parts; k++)
        h = (h ^ ((const unsigned char *)parts)[k]) * 1099511628211ull;
    for (size_t k = 0; what_keyed(kind) && k < 64 && what[k]; k++)
        h = (h ^ (unsigned char)what[k]) * 1099511628211ull;
    return (size_t)h;
}

/* The slot of the key: the sum's (its index + 1), or an empty one (0). */
static unsigned *slot_of(const gd_events *ev, int gpu, int kind, long long code, const char *what)
{
    size_t mask = ev->slot_cap - 1;
    for (size_t i = hash_key(gpu, kind, code, what) & mask;; i = (i + 1) & mask) {
        unsigned *slot = &ev->sum_slots[i];
        if (*slot == 0 || same_key(&ev->sums[*slot - 1], gpu, kind, code, what))
            return slot;
    }
}

/* Room for one more key: the table and its hash (at most half full). */
static int grow(gd_events *ev)
{
    if (ev->sum_count == ev->sum_cap) {
        size_t cap = ev->sum_cap ? ev->sum_cap * 2 : 16;
        gd_event_sum *v = realloc(ev->sums, cap * sizeof *v);
        if (!v)
            return -1;
        ev->sums = v;
        ev->sum_cap = cap;
    }
    if (2 * (ev->sum_count + 1) <= ev->slot_cap)
        return 0;
    size_t cap = ev->slot_cap ? ev->slot_cap * 2 : 64;
    unsigned *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    free(ev->sum_slots);
    ev->sum_slots = slots;
    ev->slot_cap = cap;
    for (size_t i = 0; i < ev->sum_count; i++) {
        const gd_event_sum *s = &ev->sums[i];
        *slot_of(ev, s->gpu, s->kind, s->code, s->what) = (unsigned)(i + 1);
    }
    return 0;
}

/* The sum of the key, created empty when new; NULL when it cannot be kept. */
static gd_event_sum *sum_for(gd_events *ev, int gpu, int kind, long long code, const char *what)
{
    if (ev->slot_cap) {
        unsigned *slot = slot_of(ev, gpu, kind, code, what);
        if (*slot)
            return &ev->sums[*slot - 1];
    }
    if (ev->sum_count >= GD_EVENT_SUMS_MAX || grow(ev) != 0)
        return NULL;
    gd_event_sum *s = &ev->sums[ev->sum_count];
    memset(s, 0, sizeof *s);
    s->gpu = gpu;
    s->kind = kind;
    s->code = code;
    memcpy(s->what, what, sizeof s->what);
    s->what[sizeof s->what - 1] = '\0';
    *slot_of(ev, gpu, kind, code, what) = (unsigned)(++ev->sum_count);
    return s;
}

/* One more event, the seq-th of the session, in s. */
static void take(gd_event_sum *s, const gd_event *e, size_t seq)
{
    if (s->count == 0) {
        s->first_t = e->t;
        s->first_value = e->value;
        s->first_seq = seq;
    }
    s->count++;
    s->total += e->value;
    s->last_t = e->t;
    s->last_value = e->value;
    s->last_seq = seq;
}

int gd_event_sum_add(gd_events *ev, const gd_event *e, size_t seq)
{
    gd_event_sum *s = sum_for(ev, e->gpu, e->kind, code_of(e->kind, e->value), e->what);
    if (!s) {
        ev->sums_dropped++;
        return -1;
    }
    take(s, e, seq);
    return 0;
}

int gd_event_sum_put(gd_events *ev, const gd_event_sum *in)
{
    gd_event_sum *s = sum_for(ev, in->gpu, in->kind, in->code, in->what);
    if (!s)
        return -1;
    *s = *in;
    s->what[sizeof s->what - 1] = '\0';
    return 0;
}

/* The ring's events of s's key in [t0, t1] into out (count, total, times,
 * values, order); *held: how many of the key's events the ring holds. */
static void recount(const gd_events *ev, const gd_event_sum *s, double t0, double t1, gd_event_sum *out, size_t *held)
{
    *held = 0;
    for (size_t i = 0; i < ev->n; i++) {
        const gd_event *e = &ev->v[i];
        if (!same_key(s, e->gpu, e->kind, code_of(e->kind, e->value), e->what))
            continue;
        ++*held;
        if (e->t < t0 || e->t > t1)
            continue;
        take(out, e, ev->total - ev->n + i + 1);
    }
}

bool gd_event_sum_get(const gd_events *ev, size_t i, double t0, double t1, gd_event_sum *out)
{
    if (i >= ev->sum_count)
        return false;
    const gd_event_sum *s = &ev->sums[i];
    if (ev->bounded && ev->until_t < t1)
        t1 = ev->until_t + 1e-9;
    if (s->count == 0 || s->last_t < t0 || s->first_t > t1)
        return false;
    *out = *s;
    if (s->first_t >= t0 && s->last_t <= t1)
        return true;
    out->count = 0;
    out->total = 0;
    size_t held;
    recount(ev, s, t0, t1, out, &held);
    /* The key's older events the ring let go of: between its first event and
     * the ring's oldest. Where that span meets [t0, t1], they are counted in. */
    size_t gone = s->count > held ? s->count - held : 0;
    double ring_from = ev->n ? ev->v[0].t : s->last_t;
    if (gone && s->first_t <= t1 && ring_from >= t0) {
        long long ring_total = 0;
        for (size_t k = 0; k < ev->n; k++)
            if (same_key(s, ev->v[k].gpu, ev->v[k].kind, code_of(ev->v[k].kind, ev->v[k].value), ev->v[k].what))
                ring_total += ev->v[k].value;
        if (out->count == 0) {
            out->last_t = fmin(ring_from, t1);
            out->last_value = s->first_value;
            out->last_seq = s->first_seq;
        }
        out->count += gone;
        out->total += s->total - ring_total;
        out->first_t = fmax(s->first_t, t0);
        out->first_value = s->first_value;
        out->first_seq = s->first_seq;
    }
    return out->count > 0;
}

void gd_events_free(gd_events *ev)
{
    free(ev->v);
    free(ev->sums);
    free(ev->sum_slots);
    memset(ev, 0, sizeof *ev);
}
