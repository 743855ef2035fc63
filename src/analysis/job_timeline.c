/* SPDX-License-Identifier: Apache-2.0 */
/* The job beside its GPUs, second by second (job_timeline.h). */
#include "job_timeline.h"
#include "job_tree.h"

#include <math.h>
#include <stdlib.h>

size_t gd_job_gpus(const gd_facts *f, bool *mine, bool *by_pid)
{
    gd_link_rule *rule = calloc(f->gpu_count + 1, sizeof *rule);
    size_t n = 0;
    *by_pid = false;
    for (size_t g = 0; g < f->gpu_count; g++)
        mine[g] = false;
    if (!rule)
        return 0;
    gd_job_link(f, rule, NULL, 0);
    for (size_t g = 0; g < f->gpu_count; g++) {
        mine[g] = rule[g] != GD_LINK_NONE;
        n += mine[g];
        *by_pid |= rule[g] == GD_LINK_NVML_PID;
    }
    free(rule);
    return n;
}

double gd_job_timeline_span(const gd_facts *f)
{
    const gd_series *s = &f->series;
    const gd_job_facts *j = f->job;
    double span = s->n > 1 ? gd_series_t(s, s->n - 1) - gd_series_t(s, 0) : 0;
    if (j && j->n > 1) {
        double js = gd_job_at(j, j->n - 1)->t - gd_job_at(j, 0)->t;
        span = js > span ? js : span;
    }
    return span;
}

typedef struct acc {
    double sum[6];
    size_t n[6];
} acc;

static void add(acc *a, int k, double v)
{
    if (!isnan(v)) {
        a->sum[k] += v;
        a->n[k]++;
    }
}

static double mean(const acc *a, int k)
{
    return a->n[k] ? a->sum[k] / (double)a->n[k] : NAN;
}

size_t gd_job_timeline(const gd_facts *f, double bucket_s, gd_job_second *out, size_t max)
{
    const gd_job_facts *j = f->job;
    if (!j || !j->read || j->n == 0 || bucket_s <= 0 || max == 0)
        return 0;
    const gd_series *s = &f->series;
    double t0 = s->n ? gd_series_t(s, 0) : gd_job_at(j, 0)->t;
    size_t buckets = (size_t)floor(gd_job_timeline_span(f) / bucket_s + 1e-9) + 1;
    buckets = buckets < max ? buckets : max;
    acc *a = calloc(buckets, sizeof *a);
    bool *mine = calloc(f->gpu_count + 1, sizeof *mine);
    if (!a || !mine) {
        free(a);
        free(mine);
        return 0;
    }
    bool by_pid;
    gd_job_gpus(f, mine, &by_pid);
    for (size_t i = 0; i < s->n; i++) {
        size_t b = (size_t)floor((gd_series_t(s, i) - t0) / bucket_s + 1e-9);
        if (b >= buckets)
            continue;
        for (size_t g = 0; g < f->gpu_count; g++) {
            gd_value u = gd_series_at(s, i, g, GD_M_UTIL_GPU_PCT);
            if (mine[g] && gd_ok(u))
                add(&a[b], 0, u.v);
        }
    }
    for (size_t i = 0; i < j->n; i++) {
        const gd_job_sample *x = gd_job_at(j, i);
        double rel = x->t - t0;
        size_t b = rel < 0 ? 0 : (size_t)floor(rel / bucket_s + 1e-9);
        if (b >= buckets || x->threads == 0)
            continue;
        add(&a[b], 1, x->job_cores);
        add(&a[b], 2, x->top_thread_core);
        add(&a[b], 4, x->running);
        add(&a[b], 5, x->disk_wait);
    }
    for (size_t i = 0; i < f->host_series.n; i++) { /* the host, sampled on its own (once a second) */
        const gd_host_sample *h = gd_host_at(&f->host_series, i);
        double rel = h->t - t0;
        size_t b = rel < 0 ? 0 : (size_t)floor(rel / bucket_s + 1e-9);
        if (b < buckets && !isnan(h->busy))
            add(&a[b], 3, h->busy * 100);
    }
    for (size_t b = 0; b < buckets; b++)
        out[b] = (gd_job_second){.t0_s = (double)b * bucket_s,
                                 .gpu_busy_pct = mean(&a[b], 0),
                                 .job_cores = mean(&a[b], 1),
                                 .top_thread_core = mean(&a[b], 2),
                                 .host_busy_pct = mean(&a[b], 3),
                                 .runnable = mean(&a[b], 4),
                                 .disk_wait = mean(&a[b], 5)};
    free(a);
    free(mine);
    return buckets;
}
