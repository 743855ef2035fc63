/* SPDX-License-Identifier: Apache-2.0 */
/* Folding a bucket of sample lines into their minimum, maximum and mean
 * (record_thin.h). A value that is not a number (never read, a status such
 * as "not_supported:3") is kept as its newest form where no number came. */
#include "record_thin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One value's fold. */
typedef struct leaf {
    double min, max, sum;
    size_t n; /* numbers folded */
    json_t *other; /* the newest non-number */
} leaf;

/* Values by name (the job's sample, the host's samples). */
typedef struct named {
    char **keys;
    leaf *v;
    size_t n, cap;
} named;

struct gd_thin {
    size_t samples;
    double t0, t1;
    leaf *gpus; /* rows x cols */
    size_t rows, cols;
    named job, host;
    json_t *lost, *summary;
};

gd_thin *gd_thin_new(void)
{
    return calloc(1, sizeof(gd_thin));
}

static void fold(leaf *l, const json_t *v)
{
    if (!json_is_number(v)) {
        json_decref(l->other);
        l->other = json_deep_copy(v);
        return;
    }
    double x = json_number_value(v);
    if (l->n == 0 || x < l->min)
        l->min = x;
    if (l->n == 0 || x > l->max)
        l->max = x;
    l->sum += x;
    l->n++;
}

static void leaf_clear(leaf *l)
{
    json_decref(l->other);
    memset(l, 0, sizeof *l);
}

/* The leaf of key, created when new; NULL when out of memory. */
static leaf *named_leaf(named *m, const char *key)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->keys[i], key) == 0)
            return &m->v[i];
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        char **keys = realloc(m->keys, cap * sizeof *keys);
        if (keys)
            m->keys = keys;
        leaf *v = keys ? realloc(m->v, cap * sizeof *v) : NULL;
        if (!v)
            return NULL;
        m->v = v;
        m->cap = cap;
    }
    if (!(m->keys[m->n] = strdup(key)))
        return NULL;
    memset(&m->v[m->n], 0, sizeof m->v[m->n]);
    return &m->v[m->n++];
}

static int fold_named(named *m, const json_t *obj)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v)
    {
        leaf *l = named_leaf(m, key);
        if (!l)
            return -1;
        fold(l, v);
    }
    return 0;
}

static void named_clear(named *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->keys[i]);
        leaf_clear(&m->v[i]);
    }
    free(m->keys);
    free(m->v);
    memset(m, 0, sizeof *m);
}

/* Room for a rows x cols matrix of the GPUs' values (it only grows). */
static int gpus_fit(gd_thin *b, size_t rows, size_t cols)
{
    if (rows <= b->rows && cols <= b->cols)
        return 0;
    size_t r = rows > b->rows ? rows : b->rows, c = cols > b->cols ? cols : b->cols;
    leaf *v = calloc(r * c + 1, sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < b->rows; i++)
        memcpy(&v[i * c], &b->gpus[i * b->cols], b->cols * sizeof *v);
    free(b->gpus);
    b->gpus = v;
    b->rows = r;
    b->cols = c;
    return 0;
}

int gd_thin_add(gd_thin *b, const json_t *sample)
{
    const json_t *t = json_object_get(sample, "t"), *gpus = json_object_get(sample, "gpus");
    if (!json_is_number(t) || !json_is_array(gpus))
        return -1;
    size_t cols = 0, g;
    const json_t *row;
    json_array_foreach(gpus, g, row) cols = json_array_size(row) > cols ? json_array_size(row) : cols;
    if (gpus_fit(b, json_array_size(gpus), cols) != 0)
        return -1;
    json_array_foreach(gpus, g, row)
    {
        for (size_t c = 0; c < json_array_size(row); c++)
            fold(&b->gpus[g * b->cols + c], json_array_get(row, c));
    }
    const json_t *job = json_object_get(sample, "job"), *host = json_object_get(sample, "host");
    if (json_is_object(job) && fold_named(&b->job, job) != 0)
        return -1;
    size_t i;
    const json_t *h;
    json_array_foreach(host, i, h) if (json_is_object(h) && fold_named(&b->host, h) != 0) return -1;
    const json_t *lost = json_object_get(sample, "lost"), *summary = json_object_get(sample, "job_summary");
    if (json_is_array(lost)) {
        if (!b->lost && !(b->lost = json_array()))
            return -1;
        json_array_extend(b->lost, (json_t *)lost);
    }
    if (summary) { /* the newest: a replay keeps the newest summary */
        json_decref(b->summary);
        b->summary = json_deep_copy(summary);
    }
    double at = json_number_value(t);
    if (b->samples == 0)
        b->t0 = at;
    b->t1 = at;
    b->samples++;
    return 0;
}

size_t gd_thin_samples(const gd_thin *b)
{
    return b->samples;
}

enum { MIN, MAX, MEAN };

static json_t *leaf_json(const leaf *l, int which)
{
    if (l->n == 0)
        return l->other ? json_incref(l->other) : json_null();
    double x = which == MIN ? l->min : which == MAX ? l->max : l->sum / (double)l->n;
    if (x == floor(x) && fabs(x) < 9007199254740992.0)
        return json_integer((json_int_t)x);
    return json_real(x);
}

static json_t *named_json(const named *m, int which)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < m->n; i++)
        json_object_set_new(o, m->keys[i], leaf_json(&m->v[i], which));
    return o;
}

/* One of min, max or mean of everything folded. */
static json_t *side(const gd_thin *b, int which)
{
    json_t *s = json_object(), *gpus = json_array();
    for (size_t g = 0; gpus && g < b->rows; g++) {
        json_t *row = json_array();
        for (size_t c = 0; row && c < b->cols; c++)
            json_array_append_new(row, leaf_json(&b->gpus[g * b->cols + c], which));
        json_array_append_new(gpus, row);
    }
    json_object_set_new(s, "gpus", gpus);
    if (b->job.n)
        json_object_set_new(s, "job", named_json(&b->job, which));
    if (b->host.n)
        json_object_set_new(s, "host", named_json(&b->host, which));
    return s;
}

static void clear(gd_thin *b)
{
    for (size_t i = 0; i < b->rows * b->cols; i++)
        leaf_clear(&b->gpus[i]);
    free(b->gpus);
    named_clear(&b->job);
    named_clear(&b->host);
    json_decref(b->lost);
    json_decref(b->summary);
    memset(b, 0, sizeof *b);
}

json_t *gd_thin_take(gd_thin *b)
{
    if (b->samples == 0)
        return NULL;
    json_t *j = json_pack("{s:f, s:f, s:I, s:o, s:o, s:o}", "t", b->t0, "t_end", b->t1, "samples",
                          (json_int_t)b->samples, "min", side(b, MIN), "max", side(b, MAX), "mean", side(b, MEAN));
    if (j && b->lost)
        json_object_set(j, "lost", b->lost);
    if (j && b->summary)
        json_object_set(j, "job_summary", b->summary);
    clear(b);
    return j;
}

void gd_thin_free(gd_thin *b)
{
    if (!b)
        return;
    clear(b);
    free(b);
}
