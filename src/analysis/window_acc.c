/* SPDX-License-Identifier: Apache-2.0 */
/* The window's running statistics (window_acc.h). */
#include "window_acc.h"
#include "core/ostat.h"
#include "vram_trend.h"
#include "gpudoctor/abi/nvml_api.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT64_MAX

#define THERMAL_REASONS (nvmlClocksThrottleReasonSwThermalSlowdown | nvmlClocksThrottleReasonHwThermalSlowdown)
#define EXPLAINED_SLOWDOWN (nvmlClocksThrottleReasonHwThermalSlowdown | nvmlClocksThrottleReasonHwPowerBrakeSlowdown)

const unsigned long long gd_window_episode_masks[] = {
    THERMAL_REASONS,
    nvmlClocksThrottleReasonHwThermalSlowdown,
    nvmlClocksThrottleReasonSwPowerCap,
    nvmlClocksThrottleReasonHwPowerBrakeSlowdown,
    nvmlClocksThrottleReasonHwSlowdown,
    nvmlClocksThrottleReasonApplicationsClocksSetting,
};
#define NMASKS (sizeof gd_window_episode_masks / sizeof gd_window_episode_masks[0])
const size_t gd_window_episode_mask_count = NMASKS;

/* The runs the checks ask for: (mask, exclude). */
static const struct {
    unsigned long long mask, exclude;
} run_pairs[] = {
    {nvmlClocksThrottleReasonHwSlowdown, EXPLAINED_SLOWDOWN},
};
#define NRUNS (sizeof run_pairs / sizeof run_pairs[0])

/* Metrics whose median over every sample, and over the loaded samples, the
 * checks read. */
static const gd_metric median_metrics[] = {GD_M_UTIL_GPU_PCT, GD_M_PCIE_GEN, GD_M_PCIE_WIDTH, GD_M_TEMP_C,
                                           GD_M_MEM_TEMP_C};
static const gd_metric loaded_median_metrics[] = {GD_M_SM_CLOCK_MHZ, GD_M_POWER_W, GD_M_TEMP_C, GD_M_PCIE_GEN,
                                                  GD_M_PCIE_WIDTH};
#define NMED (sizeof median_metrics / sizeof median_metrics[0])
#define NLMED (sizeof loaded_median_metrics / sizeof loaded_median_metrics[0])

/* Per sample and GPU: loaded, the load signal, the masks' hits, the runs'
 * states, the streams' picks, the link's key. */
enum {
    F_LOADED = 1u,
    F_SIGNAL_SHIFT = 1,
    F_HIT_SHIFT = 3,
    F_IN_SHIFT = F_HIT_SHIFT + (int)NMASKS,
    F_PICK_SHIFT = F_IN_SHIFT + (int)NRUNS,
    F_LINK_SHIFT = F_PICK_SHIFT + GD_WINDOW_STREAMS,
};
#define LINK_KEYS 64 /* distinct (generation, width) readings in a window: a flapping link has a few */

/* A ring of fixed-size entries, oldest first, that doubles when full: the
 * sliding extremes, the runs and the memory buckets are each one. */
typedef struct deque {
    unsigned char *v;
    size_t size, cap, head, n; /* size: bytes an entry */
} deque;

/* A sliding extreme: sample numbers and values, monotonic from the front. */
typedef struct extreme {
    uint64_t no;
    double v;
} extreme;
typedef deque mono;

typedef struct metric_acc {
    size_t n;
    double sum;
    mono min, max;
    uint64_t first_valid, last_valid;
    uint64_t failing_from; /* the first error after the newest valid value (NONE: none) */
    uint64_t last_tried; /* the newest sample whose call answered anything but "not read" */
} metric_acc;

typedef struct episode_acc {
    size_t hit, hit_any;
    uint64_t first_hit, last_hit;
    double span_s; /* dt to the next sample, summed over the hits that have one */
    mono temp_max, mem_temp_max;
    gd_ostat clk, free_clk, pw;
    gd_ostat hit_clk, hit_pstate; /* every hit, loaded or not */
} episode_acc;

/* A run of consecutive samples in a state: sample numbers of its ends. */
typedef struct run {
    uint64_t from, to;
} run;

typedef struct runs_acc {
    size_t runs;
    double total_s, loaded_s;
    deque q; /* the window's runs (run), oldest first */
    bool open; /* the newest run reaches the newest sample */
    mono longest; /* closed runs after the first: their durations, by run number */
    uint64_t first_run_no; /* the run number of q's front */
} runs_acc;

/* GPU memory in buckets of `size` consecutive sample numbers (a power of
 * two, doubled as the window grows past MEM_BUCKETS of them): the trend is
 * fitted to the means of the whole buckets, at most MEM_BUCKETS points,
 * again only when a bucket is completed or leaves (issue 40). */
#define MEM_BUCKETS 64
typedef struct mem_bucket {
    uint64_t id; /* sample numbers [id * size, (id + 1) * size) */
    size_t n;
    double st, sy;
} mem_bucket;

typedef struct mem_acc {
    deque q; /* mem_bucket, oldest first */
    uint64_t size;
    /* The last fit and the buckets it was made of. */
    bool fitted, fit_ok;
    uint64_t fit_size, fit_from, fit_to;
    gd_vram_trend fit;
} mem_acc;

/* The samples a stream picks (window_acc.h): count, sum, largest, first. */
typedef struct stream_acc {
    size_t n;
    double sum;
    mono max;
    uint64_t first;
} stream_acc;

/* One (generation, width) reading of the link, as read (unread parts kept). */
typedef struct link_key {
    gd_value gen, width;
    size_t n_all, n_loaded;
    uint64_t first_all, first_loaded;
} link_key;

typedef struct gpu_acc {
    size_t loaded;
    size_t by_signal[4];
    stream_acc st[GD_WINDOW_STREAMS];
    gd_ostat mem_loaded; /* the values of GD_WS_MEM_LOADED, counted against any share */
    link_key link[LINK_KEYS];
    size_t nlink;
    double loaded_pair_s; /* dt over consecutive samples both loaded */
    metric_acc m[GD_M_COUNT];
    gd_ostat med[NMED], lmed[NLMED];
    episode_acc ep[NMASKS];
    runs_acc rn[NRUNS];
    mem_acc mem;
} gpu_acc;

struct gd_window_acc {
    size_t gpus;
    double span_s;
    uint64_t first, end; /* samples [first, end) are in */
    uint32_t *flags; /* [cap][gpus], ring by sample number */
    size_t fcap;
    gpu_acc *g;
    bool broken;
    size_t misses;
};

/* ---- the rings ---- */

static void *dq_at(const deque *q, size_t k)
{
    return q->v + ((q->head + k) % q->cap) * q->size;
}

/* A new newest entry, uninitialised; NULL when out of memory. */
static void *dq_push(deque *q, size_t size)
{
    q->size = size;
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 16;
        unsigned char *v = malloc(cap * size);
        if (!v)
            return NULL;
        for (size_t k = 0; k < q->n; k++)
            memcpy(v + k * size, dq_at(q, k), size);
        free(q->v);
        q->v = v;
        q->cap = cap;
        q->head = 0;
    }
    return dq_at(q, q->n++);
}

static void dq_pop_front(deque *q)
{
    q->head = (q->head + 1) % q->cap;
    q->n--;
}

static void dq_free(deque *q)
{
    free(q->v);
}

/* Adds (no, v): drops the newer entries it outdoes (max: not above v). */
static int mono_push(mono *q, uint64_t no, double v, bool max)
{
    while (q->n) {
        const extreme *back = dq_at(q, q->n - 1);
        if (max ? back->v > v : back->v < v)
            break;
        q->n--;
    }
    extreme *e = dq_push(q, sizeof *e);
    if (!e)
        return -1;
    *e = (extreme){no, v};
    return 0;
}

static void mono_expire(mono *q, uint64_t first)
{
    while (q->n && ((const extreme *)dq_at(q, 0))->no < first)
        dq_pop_front(q);
}

static double mono_front(const mono *q)
{
    return q->n ? ((const extreme *)dq_at(q, 0))->v : NAN;
}

static run *runs_at(runs_acc *r, size_t k)
{
    return dq_at(&r->q, k);
}

static int runs_push(runs_acc *r, uint64_t no)
{
    run *x = dq_push(&r->q, sizeof *x);
    if (!x)
        return -1;
    *x = (run){no, no};
    return 0;
}

static mem_bucket *mem_at(mem_acc *q, size_t k)
{
    return dq_at(&q->q, k);
}

/* Pairs of buckets become one of twice the size. */
static void mem_merge(mem_acc *q)
{
    q->size *= 2;
    size_t out = 0;
    for (size_t k = 0; k < q->q.n; k++) {
        mem_bucket b = *mem_at(q, k);
        b.id /= 2;
        if (out && mem_at(q, out - 1)->id == b.id) {
            mem_bucket *o = mem_at(q, out - 1);
            o->n += b.n;
            o->st += b.st;
            o->sy += b.sy;
        } else {
            *mem_at(q, out++) = b;
        }
    }
    q->q.n = out;
}

static int mem_add(mem_acc *q, uint64_t no, double t, double y, uint64_t window_samples)
{
    if (!q->size)
        q->size = 1;
    while (window_samples > (uint64_t)MEM_BUCKETS * q->size)
        mem_merge(q);
    uint64_t id = no / q->size;
    if (!q->q.n || mem_at(q, q->q.n - 1)->id != id) {
        mem_bucket *nb = dq_push(&q->q, sizeof *nb);
        if (!nb)
            return -1;
        *nb = (mem_bucket){.id = id};
    }
    mem_bucket *b = mem_at(q, q->q.n - 1);
    b->n++;
    b->st += t;
    b->sy += y;
    return 0;
}

static void mem_drop(mem_acc *q, uint64_t no, double t, double y)
{
    if (!q->q.n || mem_at(q, 0)->id != no / q->size)
        return;
    mem_bucket *b = mem_at(q, 0);
    b->n--;
    b->st -= t;
    b->sy -= y;
    if (b->n == 0)
        dq_pop_front(&q->q);
}

/* Whether sample i of GPU g is in stream k, and its value there. Facts
 * read here (the clock maximum, the memory size, the tunables) are the
 * snapshot's: they do not change while the window runs. */
static bool pick(const gd_facts *f, size_t i, size_t g, bool loaded, int k, double *x)
{
    const gd_gpu *gpu = &f->gpus[g];
    const gd_series *s = &f->series;
    switch ((gd_window_stream)k) {
    case GD_WS_UTIL_LOW: {
        gd_value u = gd_series_at(s, i, g, GD_M_UTIL_GPU_PCT);
        *x = u.v;
        return gd_ok(u) && u.v < GD_LOADED_UTIL_PCT;
    }
    case GD_WS_CLOCK_LOW: {
        gd_value r = gd_series_at(s, i, g, GD_M_EVENT_REASONS), c = gd_series_at(s, i, g, GD_M_SM_CLOCK_MHZ);
        *x = c.v;
        return loaded && gd_ok(r) && r.v == 0 && gd_ok(c) && gd_ok(gpu->clock_max_sm_mhz) &&
               c.v < GD_WINDOW_CLOCK_LOW_FRACTION * gpu->clock_max_sm_mhz.v;
    }
    case GD_WS_MEM_LOADED: {
        gd_value u = gd_series_at(s, i, g, GD_M_MEM_USED_MIB);
        *x = u.v;
        return loaded && gd_ok(u);
    }
    case GD_WS_ANSWERED: {
        static const gd_metric ms[] = {GD_M_UTIL_GPU_PCT, GD_M_TEMP_C, GD_M_POWER_W, GD_M_SM_CLOCK_MHZ};
        *x = 0;
        for (size_t m = 0; m < sizeof ms / sizeof ms[0]; m++)
            if (gd_ok(gd_series_at(s, i, g, ms[m])))
                return true;
        return false;
    }
    }
    return false;
}

static bool same_reading(gd_value a, gd_value b)
{
    return gd_ok(a) == gd_ok(b) && (!gd_ok(a) || a.v == b.v);
}

/* The key of a link reading, made when new; LINK_KEYS: none left. */
static size_t link_key_of(gpu_acc *ga, gd_value gen, gd_value width)
{
    size_t free_slot = LINK_KEYS;
    for (size_t k = 0; k < ga->nlink; k++) {
        link_key *l = &ga->link[k];
        if (l->n_all && same_reading(l->gen, gen) && same_reading(l->width, width))
            return k;
        if (!l->n_all && free_slot == LINK_KEYS)
            free_slot = k;
    }
    if (free_slot == LINK_KEYS && ga->nlink < LINK_KEYS)
        free_slot = ga->nlink++;
    if (free_slot < LINK_KEYS)
        ga->link[free_slot] = (link_key){.gen = gen, .width = width, .first_all = NONE, .first_loaded = NONE};
    return free_slot;
}

/* ---- samples ---- */

static bool in_window(const gd_window_acc *a, uint64_t no)
{
    return no >= a->first && no < a->end;
}

static uint32_t *flags_of(const gd_window_acc *a, uint64_t no)
{
    return &a->flags[(size_t)(no % a->fcap) * a->gpus];
}

static int flags_room(gd_window_acc *a)
{
    if (a->end - a->first < a->fcap)
        return 0;
    size_t cap = a->fcap ? a->fcap * 2 : 64;
    uint32_t *fl = malloc(cap * a->gpus * sizeof *fl);
    if (!fl)
        return -1;
    for (uint64_t no = a->first; no < a->end; no++)
        memcpy(&fl[(size_t)(no % cap) * a->gpus], flags_of(a, no), a->gpus * sizeof *fl);
    free(a->flags);
    a->flags = fl;
    a->fcap = cap;
    return 0;
}

static size_t index_of(const gd_facts *f, uint64_t no)
{
    return (size_t)(no - f->series.dropped);
}

static double t_of(const gd_facts *f, uint64_t no)
{
    return gd_series_t(&f->series, index_of(f, no));
}

static gd_value value_of(const gd_facts *f, uint64_t no, size_t g, gd_metric m)
{
    return gd_series_at(&f->series, index_of(f, no), g, m);
}

static bool reasons_hit(gd_value r, unsigned long long mask)
{
    return gd_ok(r) && ((unsigned long long)r.v & mask) != 0;
}

static uint32_t sample_flags(const gd_facts *f, size_t i, size_t g)
{
    gd_load_signal why;
    uint32_t fl = gd_load_at(f, i, g, &why) ? F_LOADED : 0;
    fl |= (uint32_t)why << F_SIGNAL_SHIFT;
    gd_value r = gd_series_at(&f->series, i, g, GD_M_EVENT_REASONS);
    for (size_t k = 0; k < NMASKS; k++)
        if (reasons_hit(r, gd_window_episode_masks[k]))
            fl |= 1u << (F_HIT_SHIFT + k);
    for (size_t k = 0; k < NRUNS; k++)
        if (reasons_hit(r, run_pairs[k].mask) && !reasons_hit(r, run_pairs[k].exclude))
            fl |= 1u << (F_IN_SHIFT + k);
    return fl;
}

static int ostat_add(gd_ostat *o, gd_value v)
{
    return gd_ok(v) ? gd_ostat_insert(o, v.v) : 0;
}

static void ostat_drop(gd_ostat *o, gd_value v)
{
    if (gd_ok(v))
        gd_ostat_remove(o, v.v);
}

/* Sample no enters GPU g's statistics; prev is the sample before it in the
 * window (NONE: it is the first). */
static int enter(gd_window_acc *a, const gd_facts *f, uint64_t no, uint64_t prev, size_t g)
{
    gpu_acc *ga = &a->g[g];
    size_t i = index_of(f, no);
    uint32_t fl = sample_flags(f, i, g);
    flags_of(a, no)[g] = fl;
    uint32_t pfl = prev != NONE ? flags_of(a, prev)[g] : 0;
    double dt = prev != NONE ? t_of(f, no) - t_of(f, prev) : 0;
    bool loaded = fl & F_LOADED;
    int rc = 0;
    ga->loaded += loaded;
    ga->by_signal[(fl >> F_SIGNAL_SHIFT) & 3u]++;
    if (loaded && (pfl & F_LOADED))
        ga->loaded_pair_s += dt;
    for (int k = 0; k < GD_WINDOW_STREAMS; k++) {
        double x;
        if (!pick(f, i, g, loaded, k, &x))
            continue;
        stream_acc *st = &ga->st[k];
        flags_of(a, no)[g] |= 1u << (F_PICK_SHIFT + k);
        st->n++;
        st->sum += x;
        rc |= mono_push(&st->max, no, x, true);
        if (st->first == NONE)
            st->first = no;
        if (k == GD_WS_MEM_LOADED)
            rc |= gd_ostat_insert(&ga->mem_loaded, x);
    }
    size_t lk =
        link_key_of(ga, gd_series_at(&f->series, i, g, GD_M_PCIE_GEN), gd_series_at(&f->series, i, g, GD_M_PCIE_WIDTH));
    if (lk == LINK_KEYS) {
        a->misses++; /* more distinct link readings than kept: judged without this one */
    } else {
        link_key *l = &ga->link[lk];
        l->n_all++;
        l->n_loaded += loaded;
        if (l->first_all == NONE)
            l->first_all = no;
        if (loaded && l->first_loaded == NONE)
            l->first_loaded = no;
    }
    flags_of(a, no)[g] |= (uint32_t)lk << F_LINK_SHIFT;
    for (int m = 0; m < GD_M_COUNT; m++) {
        gd_value v = gd_series_at(&f->series, i, g, (gd_metric)m);
        metric_acc *ma = &ga->m[m];
        if (v.status != GD_ST_UNREAD)
            ma->last_tried = no;
        if (!gd_ok(v)) {
            /* Errors only: a capture's N/A or a board's "not supported" is no failure. */
            if ((v.status == GD_ST_ERROR || v.status == GD_ST_NO_PERMISSION) && ma->last_valid != NONE &&
                ma->failing_from == NONE)
                ma->failing_from = no;
            continue;
        }
        ma->failing_from = NONE; /* it answered again: a gap, not an end */
        ma->n++;
        ma->sum += v.v;
        rc |= mono_push(&ma->min, no, v.v, false) | mono_push(&ma->max, no, v.v, true);
        if (ma->first_valid == NONE)
            ma->first_valid = no;
        ma->last_valid = no;
    }
    gd_value used = gd_series_at(&f->series, i, g, GD_M_MEM_USED_MIB);
    if (gd_ok(used))
        rc |= mem_add(&ga->mem, no, t_of(f, no), used.v, a->end - a->first);
    for (size_t k = 0; k < NMED; k++)
        rc |= ostat_add(&ga->med[k], gd_series_at(&f->series, i, g, median_metrics[k]));
    for (size_t k = 0; loaded && k < NLMED; k++)
        rc |= ostat_add(&ga->lmed[k], gd_series_at(&f->series, i, g, loaded_median_metrics[k]));
    gd_value clock = gd_series_at(&f->series, i, g, GD_M_SM_CLOCK_MHZ);
    for (size_t k = 0; k < NMASKS; k++) {
        episode_acc *e = &ga->ep[k];
        bool hit = fl & (1u << (F_HIT_SHIFT + k));
        if (prev != NONE && (pfl & (1u << (F_HIT_SHIFT + k))))
            e->span_s += dt; /* the previous hit now has its next sample */
        if (!hit) {
            if (loaded)
                rc |= ostat_add(&e->free_clk, clock);
            continue;
        }
        e->hit_any++;
        if (e->first_hit == NONE)
            e->first_hit = no;
        e->last_hit = no;
        gd_value t = gd_series_at(&f->series, i, g, GD_M_TEMP_C), mt = gd_series_at(&f->series, i, g, GD_M_MEM_TEMP_C);
        if (gd_ok(t))
            rc |= mono_push(&e->temp_max, no, t.v, true);
        if (gd_ok(mt))
            rc |= mono_push(&e->mem_temp_max, no, mt.v, true);
        rc |= ostat_add(&e->hit_clk, clock);
        rc |= ostat_add(&e->hit_pstate, gd_series_at(&f->series, i, g, GD_M_PSTATE));
        if (!loaded)
            continue;
        e->hit++;
        rc |= ostat_add(&e->clk, clock);
        rc |= ostat_add(&e->pw, gd_series_at(&f->series, i, g, GD_M_POWER_W));
    }
    for (size_t k = 0; k < NRUNS; k++) {
        runs_acc *r = &ga->rn[k];
        uint32_t bit = 1u << (F_IN_SHIFT + k);
        bool in = fl & bit, was = prev != NONE && (pfl & bit);
        if (was && !in && r->q.n > 1) { /* the newest run closes; the front run is measured apart */
            run *last = runs_at(r, r->q.n - 1);
            rc |= mono_push(&r->longest, r->first_run_no + r->q.n - 1, t_of(f, last->to) - t_of(f, last->from), true);
        }
        r->open = in;
        if (!in)
            continue;
        if (was) {
            runs_at(r, r->q.n - 1)->to = no;
            r->total_s += dt;
            if (loaded && (pfl & F_LOADED))
                r->loaded_s += dt;
        } else {
            r->runs++;
            rc |= runs_push(r, no);
        }
    }
    return rc ? -1 : 0;
}

/* The oldest sample, no, leaves GPU g's statistics; next is the sample
 * after it (NONE: it was the only one). */
static void leave(gd_window_acc *a, const gd_facts *f, uint64_t no, uint64_t next, size_t g)
{
    gpu_acc *ga = &a->g[g];
    size_t i = index_of(f, no);
    uint32_t fl = flags_of(a, no)[g];
    uint32_t nfl = next != NONE ? flags_of(a, next)[g] : 0;
    double dt = next != NONE ? t_of(f, next) - t_of(f, no) : 0;
    bool loaded = fl & F_LOADED;
    ga->loaded -= loaded;
    ga->by_signal[(fl >> F_SIGNAL_SHIFT) & 3u]--;
    if (loaded && (nfl & F_LOADED))
        ga->loaded_pair_s -= dt;
    for (int k = 0; k < GD_WINDOW_STREAMS; k++) {
        stream_acc *st = &ga->st[k];
        mono_expire(&st->max, no + 1);
        if (!(fl & (1u << (F_PICK_SHIFT + k))))
            continue;
        double x;
        pick(f, i, g, loaded, k, &x);
        st->n--;
        st->sum -= x;
        if (k == GD_WS_MEM_LOADED)
            gd_ostat_remove(&ga->mem_loaded, x);
        if (st->first == no) { /* the next pick: each sample passed once */
            st->first = NONE;
            for (uint64_t k2 = no + 1; k2 < a->end && st->n; k2++)
                if (flags_of(a, k2)[g] & (1u << (F_PICK_SHIFT + k))) {
                    st->first = k2;
                    break;
                }
        }
    }
    size_t lk = fl >> F_LINK_SHIFT;
    if (lk < LINK_KEYS) {
        link_key *l = &ga->link[lk];
        l->n_all--;
        l->n_loaded -= loaded;
        if (l->first_all == no || (loaded && l->first_loaded == no)) {
            bool all = l->first_all == no, ld = loaded && l->first_loaded == no;
            if (all)
                l->first_all = NONE;
            if (ld)
                l->first_loaded = NONE;
            for (uint64_t k2 = no + 1; k2 < a->end && ((all && l->n_all) || (ld && l->n_loaded)); k2++) {
                uint32_t f2 = flags_of(a, k2)[g];
                if ((f2 >> F_LINK_SHIFT) != lk)
                    continue;
                if (all && l->first_all == NONE)
                    l->first_all = k2;
                if (ld && l->first_loaded == NONE && (f2 & F_LOADED))
                    l->first_loaded = k2;
                if ((!all || l->first_all != NONE) && (!ld || l->first_loaded != NONE))
                    break;
            }
        }
    }
    for (int m = 0; m < GD_M_COUNT; m++) {
        metric_acc *ma = &ga->m[m];
        gd_value v = gd_series_at(&f->series, i, g, (gd_metric)m);
        if (gd_ok(v)) {
            ma->n--;
            ma->sum -= v.v;
        }
        mono_expire(&ma->min, no + 1);
        mono_expire(&ma->max, no + 1);
        if (ma->last_tried == no)
            ma->last_tried = NONE; /* the newest left: every older one too */
        if (ma->first_valid == no) { /* the next valid one: each sample passed once */
            ma->first_valid = NONE;
            for (uint64_t k = no + 1; k < a->end && ma->n; k++)
                if (gd_ok(value_of(f, k, g, (gd_metric)m))) {
                    ma->first_valid = k;
                    break;
                }
            if (ma->first_valid == NONE)
                ma->last_valid = ma->failing_from = NONE; /* no answer left to have stopped after */
        }
    }
    gd_value used = gd_series_at(&f->series, i, g, GD_M_MEM_USED_MIB);
    if (gd_ok(used))
        mem_drop(&ga->mem, no, t_of(f, no), used.v);
    for (size_t k = 0; k < NMED; k++)
        ostat_drop(&ga->med[k], gd_series_at(&f->series, i, g, median_metrics[k]));
    for (size_t k = 0; loaded && k < NLMED; k++)
        ostat_drop(&ga->lmed[k], gd_series_at(&f->series, i, g, loaded_median_metrics[k]));
    gd_value clock = gd_series_at(&f->series, i, g, GD_M_SM_CLOCK_MHZ);
    for (size_t k = 0; k < NMASKS; k++) {
        episode_acc *e = &ga->ep[k];
        bool hit = fl & (1u << (F_HIT_SHIFT + k));
        mono_expire(&e->temp_max, no + 1);
        mono_expire(&e->mem_temp_max, no + 1);
        if (!hit) {
            if (loaded)
                ostat_drop(&e->free_clk, clock);
            continue;
        }
        if (next != NONE)
            e->span_s -= dt;
        e->hit_any--;
        ostat_drop(&e->hit_clk, clock);
        ostat_drop(&e->hit_pstate, gd_series_at(&f->series, i, g, GD_M_PSTATE));
        if (e->first_hit == no) {
            e->first_hit = NONE;
            for (uint64_t k2 = no + 1; k2 < a->end && e->hit_any; k2++)
                if (flags_of(a, k2)[g] & (1u << (F_HIT_SHIFT + k))) {
                    e->first_hit = k2;
                    break;
                }
            if (e->first_hit == NONE)
                e->last_hit = NONE;
        }
        if (!loaded)
            continue;
        e->hit--;
        ostat_drop(&e->clk, clock);
        ostat_drop(&e->pw, gd_series_at(&f->series, i, g, GD_M_POWER_W));
    }
    for (size_t k = 0; k < NRUNS; k++) {
        runs_acc *r = &ga->rn[k];
        uint32_t bit = 1u << (F_IN_SHIFT + k);
        if (!(fl & bit) || r->q.n == 0)
            continue;
        run *front = runs_at(r, 0);
        if (front->from != no)
            continue;
        if (front->to == no) { /* the whole run leaves */
            dq_pop_front(&r->q);
            r->runs--;
            r->first_run_no++;
            mono_expire(&r->longest, r->first_run_no + 1); /* the new front is measured apart */
            if (r->q.n == 0)
                r->open = false;
            continue;
        }
        front->from = next;
        r->total_s -= dt;
        if (loaded && (nfl & F_LOADED))
            r->loaded_s -= dt;
    }
}

gd_window_acc *gd_window_acc_new(size_t gpus, double span_s)
{
    gd_window_acc *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->gpus = gpus;
    a->span_s = span_s;
    if (gpus && !(a->g = calloc(gpus, sizeof *a->g))) {
        free(a);
        return NULL;
    }
    for (size_t g = 0; g < gpus; g++) {
        gpu_acc *ga = &a->g[g];
        for (int m = 0; m < GD_M_COUNT; m++)
            ga->m[m].first_valid = ga->m[m].last_valid = ga->m[m].failing_from = ga->m[m].last_tried = NONE;
        for (int k = 0; k < GD_WINDOW_STREAMS; k++)
            ga->st[k].first = NONE;
        gd_ostat_init(&ga->mem_loaded);
        for (size_t k = 0; k < NMED; k++)
            gd_ostat_init(&ga->med[k]);
        for (size_t k = 0; k < NLMED; k++)
            gd_ostat_init(&ga->lmed[k]);
        for (size_t k = 0; k < NMASKS; k++) {
            episode_acc *e = &ga->ep[k];
            e->first_hit = e->last_hit = NONE;
            gd_ostat_init(&e->clk);
            gd_ostat_init(&e->free_clk);
            gd_ostat_init(&e->pw);
            gd_ostat_init(&e->hit_clk);
            gd_ostat_init(&e->hit_pstate);
        }
    }
    return a;
}

void gd_window_acc_free(gd_window_acc *a)
{
    if (!a)
        return;
    for (size_t g = 0; g < a->gpus; g++) {
        gpu_acc *ga = &a->g[g];
        for (int m = 0; m < GD_M_COUNT; m++) {
            dq_free(&ga->m[m].min);
            dq_free(&ga->m[m].max);
        }
        for (size_t k = 0; k < NMED; k++)
            gd_ostat_free(&ga->med[k]);
        for (size_t k = 0; k < NLMED; k++)
            gd_ostat_free(&ga->lmed[k]);
        for (size_t k = 0; k < NMASKS; k++) {
            episode_acc *e = &ga->ep[k];
            dq_free(&e->temp_max);
            dq_free(&e->mem_temp_max);
            gd_ostat_free(&e->clk);
            gd_ostat_free(&e->free_clk);
            gd_ostat_free(&e->pw);
            gd_ostat_free(&e->hit_clk);
            gd_ostat_free(&e->hit_pstate);
        }
        for (size_t k = 0; k < NRUNS; k++) {
            dq_free(&ga->rn[k].q);
            dq_free(&ga->rn[k].longest);
        }
        dq_free(&ga->mem.q);
        for (int k = 0; k < GD_WINDOW_STREAMS; k++)
            dq_free(&ga->st[k].max);
        gd_ostat_free(&ga->mem_loaded);
    }
    free(a->g);
    free(a->flags);
    free(a);
}

static void leave_oldest(gd_window_acc *a, const gd_facts *f)
{
    uint64_t no = a->first, next = no + 1 < a->end ? no + 1 : NONE;
    for (size_t g = 0; g < a->gpus; g++)
        leave(a, f, no, next, g);
    a->first++;
}

void gd_window_acc_forget(gd_window_acc *a, const gd_facts *f, uint64_t no)
{
    while (a && a->first < a->end && a->first < no)
        leave_oldest(a, f);
    if (a && a->first == a->end && a->first < no)
        a->first = a->end = no;
}

int gd_window_acc_add(gd_window_acc *a, const gd_facts *f, size_t i)
{
    uint64_t no = (uint64_t)f->series.dropped + i;
    if (a->broken || f->series.gpus < a->gpus)
        return -1;
    if (a->first == a->end)
        a->first = a->end = no;
    if (no != a->end || flags_room(a) != 0) {
        a->broken = true;
        return -1;
    }
    uint64_t prev = a->end > a->first ? a->end - 1 : NONE;
    a->end++;
    int rc = 0;
    for (size_t g = 0; g < a->gpus; g++)
        rc |= enter(a, f, no, prev, g);
    if (rc) {
        a->broken = true;
        return -1;
    }
    /* The window of gd_series_last: what lies within span_s of the newest. */
    if (a->span_s > 0) {
        double now = t_of(f, no);
        while (a->end - a->first > 1 && now - t_of(f, a->first) > a->span_s + 1e-9)
            leave_oldest(a, f);
    }
    return 0;
}

gd_window_acc *gd_window_acc_build(const gd_facts *f)
{
    gd_window_acc *a = gd_window_acc_new(f->series.gpus, 0);
    for (size_t i = 0; a && i < f->series.n; i++)
        if (gd_window_acc_add(a, f, i) != 0) {
            gd_window_acc_free(a);
            return NULL;
        }
    return a;
}

gd_facts gd_window_acc_facts(const gd_facts *f, const gd_window_acc *a)
{
    uint64_t from = a->first > f->series.dropped ? a->first - f->series.dropped : 0;
    uint64_t n = a->end > a->first ? a->end - a->first : 0;
    gd_facts w = gd_facts_window(f, gd_series_window(&f->series, (size_t)from, (size_t)n));
    w.acc = (gd_window_acc *)a; /* the window's reader never changes it */
    w.acc_free = NULL;
    return w;
}

gd_facts gd_window_acc_upto(const gd_facts *f, size_t i, double span_s)
{
    const gd_window_acc *a = f->acc;
    if (a && !a->broken && a->span_s == span_s && a->end == (uint64_t)f->series.dropped + i + 1 &&
        a->first >= (uint64_t)f->series.dropped)
        return gd_window_acc_facts(f, a);
    gd_series upto = gd_series_window(&f->series, 0, i + 1);
    gd_facts w = gd_facts_window(f, gd_series_last(&upto, span_s));
    w.acc_free = NULL;
    return w;
}

const gd_window_acc *gd_window_acc_of(const gd_facts *f)
{
    const gd_window_acc *a = f->acc;
    if (!a || a->broken || a->gpus != f->series.gpus)
        return NULL;
    if (a->first != (uint64_t)f->series.dropped || a->end - a->first != (uint64_t)f->series.n)
        return NULL;
    return a;
}

const gd_window_acc *gd_window_acc_get(const gd_facts *f, gd_window_acc **tmp)
{
    *tmp = NULL;
    const gd_window_acc *a = gd_window_acc_of(f);
    return a ? a : (*tmp = gd_window_acc_build(f));
}

int gd_window_acc_attach(gd_facts *f)
{
    if (gd_window_acc_of(f))
        return 0;
    gd_window_acc *a = gd_window_acc_build(f);
    if (!a)
        return -1;
    if (f->acc && f->acc_free)
        f->acc_free(f->acc);
    f->acc = a;
    f->acc_free = gd_window_acc_free;
    return 0;
}

/* ---- queries ---- */

size_t gd_window_acc_stats(const gd_window_acc *a, const gd_facts *f, size_t g, gd_metric m, gd_stats *out)
{
    const metric_acc *ma = &a->g[g].m[m];
    gd_stats st = {0};
    if (ma->n) {
        st.n = ma->n;
        st.min = mono_front(&ma->min);
        st.max = mono_front(&ma->max);
        st.sum = ma->sum;
        st.mean = ma->sum / (double)ma->n;
        st.last = value_of(f, ma->last_valid, g, m).v;
        st.median = NAN;
        for (size_t k = 0; k < NMED; k++)
            if (median_metrics[k] == m)
                st.median = gd_ostat_median(&a->g[g].med[k]);
    }
    if (out)
        *out = st;
    return st.n;
}

size_t gd_window_acc_loaded(const gd_window_acc *a, size_t g)
{
    return a->g[g].loaded;
}

bool gd_window_acc_load_at(const gd_window_acc *a, uint64_t no, size_t g, bool *loaded, gd_load_signal *why)
{
    if (!in_window(a, no))
        return false;
    uint32_t fl = flags_of(a, no)[g];
    *loaded = fl & F_LOADED;
    if (why)
        *why = (gd_load_signal)((fl >> F_SIGNAL_SHIFT) & 3u);
    return true;
}

double gd_window_acc_loaded_median(const gd_window_acc *a, size_t g, gd_metric m)
{
    for (size_t k = 0; k < NLMED; k++)
        if (loaded_median_metrics[k] == m)
            return gd_ostat_median(&a->g[g].lmed[k]);
    ((gd_window_acc *)a)->misses++;
    return NAN;
}

bool gd_window_acc_valid_span(const gd_window_acc *a, size_t g, gd_metric m, uint64_t *first, uint64_t *last)
{
    const metric_acc *ma = &a->g[g].m[m];
    if (ma->first_valid == NONE)
        return false;
    *first = ma->first_valid;
    *last = ma->last_valid;
    return true;
}

static int mask_slot(const gd_window_acc *a, unsigned long long mask)
{
    for (size_t k = 0; k < NMASKS; k++)
        if (gd_window_episode_masks[k] == mask)
            return (int)k;
    ((gd_window_acc *)a)->misses++;
    return -1;
}

int gd_window_acc_episode(const gd_window_acc *a, const gd_facts *f, size_t g, unsigned long long mask, gd_episode *out)
{
    int k = mask_slot(a, mask);
    if (k < 0)
        return -1;
    const episode_acc *ea = &a->g[g].ep[k];
    gd_episode e = {.loaded = a->g[g].loaded,
                    .hit = ea->hit,
                    .hit_any = ea->hit_any,
                    .first_s = NAN,
                    .last_s = NAN,
                    .temp_first_c = NAN,
                    .temp_max_c = mono_front(&ea->temp_max),
                    .mem_temp_max_c = mono_front(&ea->mem_temp_max),
                    .clock_median_mhz = gd_ostat_median(&ea->clk),
                    .clock_free_mhz = gd_ostat_median(&ea->free_clk),
                    .power_median_w = gd_ostat_median(&ea->pw)};
    if (ea->first_hit != NONE) {
        e.first_s = t_of(f, ea->first_hit);
        e.last_s = t_of(f, ea->last_hit);
        gd_value t = value_of(f, ea->first_hit, g, GD_M_TEMP_C);
        e.temp_first_c = gd_ok(t) ? t.v : NAN;
    }
    e.share = e.loaded ? (double)e.hit / (double)e.loaded : 0;
    /* Each hit holds until the next sample, the newest one for one average
     * spacing, never longer than the window. */
    size_t n = (size_t)(a->end - a->first);
    double window = n > 1 ? t_of(f, a->end - 1) - t_of(f, a->first) : 0;
    double spacing = n > 1 ? window / (double)(n - 1) : 0;
    e.span_s = ea->span_s;
    if (n && (flags_of(a, a->end - 1)[g] & (1u << (F_HIT_SHIFT + k))))
        e.span_s += spacing;
    if (e.span_s > window)
        e.span_s = window;
    *out = e;
    return 0;
}

int gd_window_acc_runs(const gd_window_acc *a, const gd_facts *f, size_t g, unsigned long long mask,
                       unsigned long long exclude, gd_runs *out)
{
    size_t k = 0;
    while (k < NRUNS && !(run_pairs[k].mask == mask && run_pairs[k].exclude == exclude))
        k++;
    if (k == NRUNS) {
        ((gd_window_acc *)a)->misses++;
        return -1;
    }
    const runs_acc *r = &a->g[g].rn[k];
    gd_runs o = {
        .runs = r->runs, .total_s = r->total_s, .loaded_s = r->loaded_s, .window_loaded_s = a->g[g].loaded_pair_s};
    if (r->q.n) {
        const run *front = dq_at(&r->q, 0), *last = dq_at(&r->q, r->q.n - 1);
        double d = t_of(f, front->to) - t_of(f, front->from);
        o.longest_s = d;
        if (r->q.n > 1) {
            double dl = t_of(f, last->to) - t_of(f, last->from);
            o.longest_s = dl > o.longest_s ? dl : o.longest_s;
        }
        double mid = mono_front(&r->longest);
        if (!isnan(mid) && mid > o.longest_s)
            o.longest_s = mid;
    }
    *out = o;
    return 0;
}

bool gd_window_acc_stopped(const gd_window_acc *a, const gd_facts *f, size_t g, gd_metric m, double *from_s,
                           double *answered)
{
    const metric_acc *ma = &a->g[g].m[m];
    uint64_t n = a->end - a->first;
    *answered = n ? (double)ma->n / (double)n : 1;
    *from_s = ma->last_valid != NONE && ma->failing_from != NONE ? t_of(f, ma->failing_from) : NAN;
    return !isnan(*from_s);
}

int gd_window_acc_memory_trend(const gd_window_acc *a, size_t g, gd_vram_trend *out)
{
    mem_acc *q = &((gd_window_acc *)a)->g[g].mem; /* the fit is cached */
    uint64_t newest = a->end - 1;
    /* The whole buckets: every slot of theirs was in the window. */
    size_t from = 0, to = q->q.n;
    while (from < to && mem_at(q, from)->id * q->size < a->first)
        from++;
    while (to > from && (mem_at(q, to - 1)->id + 1) * q->size - 1 > newest)
        to--;
    uint64_t id_from = from < to ? mem_at(q, from)->id : 0, id_to = from < to ? mem_at(q, to - 1)->id : 0;
    if (!q->fitted || q->fit_size != q->size || q->fit_from != id_from || q->fit_to != id_to) {
        size_t n = to - from;
        double *t = malloc((n + 1) * sizeof *t), *y = malloc((n + 1) * sizeof *y);
        q->fit_ok = false;
        if (t && y) {
            for (size_t k = 0; k < n; k++) {
                const mem_bucket *b = mem_at(q, from + k);
                t[k] = b->st / (double)b->n;
                y[k] = b->sy / (double)b->n;
            }
            q->fit_ok = gd_vram_trend_fit(t, y, n, &q->fit) == 0;
        }
        free(t);
        free(y);
        q->fitted = t && y;
        q->fit_size = q->size;
        q->fit_from = id_from;
        q->fit_to = id_to;
    }
    if (!q->fit_ok)
        return -1;
    *out = q->fit;
    return 0;
}

size_t gd_window_acc_mem_at_least(const gd_window_acc *a, size_t g, double mib)
{
    const gd_ostat *o = &a->g[g].mem_loaded;
    return o->n - gd_ostat_count_below(o, mib);
}

double gd_window_acc_hit_median(const gd_window_acc *a, size_t g, unsigned long long mask, gd_metric m)
{
    int k = mask_slot(a, mask);
    if (k < 0 || (m != GD_M_SM_CLOCK_MHZ && m != GD_M_PSTATE)) {
        if (k >= 0)
            ((gd_window_acc *)a)->misses++;
        return NAN;
    }
    const episode_acc *e = &a->g[g].ep[k];
    return gd_ostat_median(m == GD_M_SM_CLOCK_MHZ ? &e->hit_clk : &e->hit_pstate);
}

gd_value gd_window_acc_tried(const gd_window_acc *a, const gd_facts *f, size_t g, gd_metric m)
{
    const metric_acc *ma = &a->g[g].m[m];
    if (ma->first_valid != NONE)
        return value_of(f, ma->first_valid, g, m);
    return ma->last_tried != NONE ? value_of(f, ma->last_tried, g, m) : gd_missing(GD_ST_UNREAD);
}

size_t gd_window_acc_at_least(const gd_window_acc *a, size_t g, gd_metric m, double v)
{
    for (size_t k = 0; k < NMED; k++)
        if (median_metrics[k] == m)
            return a->g[g].med[k].n - gd_ostat_count_below(&a->g[g].med[k], v);
    ((gd_window_acc *)a)->misses++;
    return 0;
}

size_t gd_window_acc_by_signal(const gd_window_acc *a, size_t g, gd_load_signal why)
{
    return a->g[g].by_signal[why & 3];
}

void gd_window_acc_stream(const gd_window_acc *a, const gd_facts *f, size_t g, gd_window_stream k, gd_window_picks *out)
{
    const stream_acc *st = &a->g[g].st[k];
    *out = (gd_window_picks){.n = st->n, .sum = st->sum, .max = mono_front(&st->max), .first_s = NAN};
    if (st->first != NONE)
        out->first_s = t_of(f, st->first);
}

/* Median of a multiset given as (value, count) pairs, as gd_median says. */
static double counted_median(double *v, size_t *c, size_t k, size_t total)
{
    if (!total)
        return NAN;
    for (size_t x = 1; x < k; x++) /* insertion sort: a few values */
        for (size_t y = x; y > 0 && v[y - 1] > v[y]; y--) {
            double tv = v[y];
            v[y] = v[y - 1];
            v[y - 1] = tv;
            size_t tc = c[y];
            c[y] = c[y - 1];
            c[y - 1] = tc;
        }
    size_t lo = (total - 1) / 2, hi = total % 2 ? lo : lo + 1, seen = 0;
    double a = NAN, b = NAN;
    for (size_t x = 0; x < k; x++) {
        if (isnan(a) && lo < seen + c[x])
            a = v[x];
        if (hi < seen + c[x]) {
            b = v[x];
            break;
        }
        seen += c[x];
    }
    return total % 2 ? a : (a + b) / 2;
}

void gd_window_acc_link(const gd_window_acc *a, const gd_facts *f, size_t g, double gen_max, double width_max,
                        bool loaded_only, gd_window_link *out)
{
    const gpu_acc *ga = &a->g[g];
    double gv[LINK_KEYS], wv[LINK_KEYS];
    size_t gc[LINK_KEYS], wc[LINK_KEYS], k = 0;
    uint64_t first = NONE;
    *out = (gd_window_link){.gen = NAN, .width = NAN, .first_s = NAN, .widest_low = 0};
    out->samples = loaded_only ? ga->loaded : (size_t)(a->end - a->first);
    for (size_t x = 0; x < ga->nlink; x++) {
        const link_key *l = &ga->link[x];
        size_t n = loaded_only ? l->n_loaded : l->n_all;
        if (!n)
            continue;
        bool ge = gd_ok(l->gen), wi = gd_ok(l->width);
        if (wi && l->width.v < width_max) {
            out->width_low += l->n_all;
            out->widest_low = fmax(out->widest_low, l->width.v);
        }
        if (!ge && !wi)
            continue;
        out->judged += n;
        if (!((ge && l->gen.v < gen_max) || (wi && l->width.v < width_max)))
            continue;
        out->low += n;
        gv[k] = ge ? l->gen.v : gen_max;
        wv[k] = wi ? l->width.v : width_max;
        gc[k] = wc[k] = n;
        k++;
        uint64_t at = loaded_only ? l->first_loaded : l->first_all;
        first = at < first ? at : first;
    }
    out->gen = counted_median(gv, gc, k, out->low);
    out->width = counted_median(wv, wc, k, out->low);
    if (first != NONE)
        out->first_s = t_of(f, first);
}

size_t gd_window_acc_misses(const gd_window_acc *a)
{
    return a->misses;
}
