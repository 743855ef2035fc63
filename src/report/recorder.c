/* SPDX-License-Identifier: Apache-2.0 */
/* The recorder sink (recorder.h). */
#include "recorder.h"

#include "core/facts_json.h"
#include "core/json_util.h"
#include "gpudoctor/stack.h"
#include "record_file.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The job's threads and processes are written whole this often (seconds of
 * the session), and at the end: a recording killed mid-window keeps them. */
#define GD_RECORD_JOB_SUMMARY_S 5.0
/* Older samples are thinned into buckets of this much session time (or ten
 * samples, at a longer interval). */
#define GD_RECORD_BUCKET_S 60.0

struct gd_recorder {
    gd_record_file *file;
    char path[512];
    bool failed;
    bool *lost; /* GPUs whose loss is already written */
    size_t gpus;
    double job_t, host_t; /* times of the newest job and host samples written */
    double job_summary_t; /* time of the last job summary written */
    size_t events_seen; /* f->events.total when the last health line was written */
    json_t **health; /* per GPU: its health facts as last written (gd_gpu_health_to_json) */
    gd_gpu *seen; /* per GPU: the facts last written from (only the health members are read) */
    void (*log)(void *, const char *);
    void *log_ud;
};

static void stop(gd_recorder *r, const char *why)
{
    char msg[1200];
    snprintf(msg, sizeof msg, "recording to %s stopped: %s; the session goes on", r->path, why);
    r->failed = true;
    if (r->log)
        r->log(r->log_ud, msg);
}

/* One line of session time t: a sample (which may be thinned once old) or
 * a line kept as it is. */
static void put(gd_recorder *r, json_t *j, double t, gd_record_line kind)
{
    char *text = j ? gd_json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    char why[300];
    if (!r->failed && !text)
        stop(r, "out of memory");
    else if (!r->failed && gd_record_file_put(r->file, text, strlen(text), t, kind, why, sizeof why) != 0)
        stop(r, why);
    free(text);
}

static void free_health(gd_recorder *r)
{
    for (size_t g = 0; r->health && g < r->gpus; g++)
        json_decref(r->health[g]);
    free(r->health);
    free(r->seen);
    r->health = NULL;
    r->seen = NULL;
}

/* The members of GPU g's health facts that changed since they were last
 * written, with "gpu": g; NULL when none did. */
static json_t *health_change(gd_recorder *r, const gd_gpu *gpu, size_t g)
{
    if (gd_gpu_health_same(&r->seen[g], gpu)) /* most samples: nothing was re-read or lost */
        return NULL;
    r->seen[g] = *gpu;
    json_t *now = gd_gpu_health_to_json(gpu), *was = r->health[g], *diff = NULL;
    if (!now)
        return NULL;
    const char *key;
    json_t *v;
    json_object_foreach(now, key, v)
    {
        if (was && json_equal(v, json_object_get(was, key)))
            continue;
        if (!diff)
            diff = json_pack("{s:I}", "gpu", (json_int_t)g);
        json_object_set(diff, key, v);
    }
    json_decref(was);
    r->health[g] = now;
    return diff;
}

/*
 * What happened to the GPUs' health since the last health line, as it
 * happened, at session time t: the events (those the ring still holds), the
 * sums they changed (every event counted, the ring's dropped ones too) and
 * each GPU's re-read counters that changed. Never thinned: a replay, even
 * of a recording cut short, judges what the live run judged up to there.
 */
static void health_line(gd_recorder *r, const gd_facts *f, double t)
{
    const gd_events *ev = &f->events;
    json_t *h = json_object(), *gpus = NULL;
    if (ev->total > r->events_seen) {
        size_t fresh = ev->total - r->events_seen, k = fresh < ev->n ? fresh : ev->n;
        json_t *list = json_array(), *sums = json_array();
        for (size_t i = ev->n - k; i < ev->n; i++)
            json_array_append_new(list, gd_event_to_json(ev, &ev->v[i]));
        for (size_t i = 0; i < ev->sum_count; i++)
            if (ev->sums[i].last_seq > r->events_seen)
                json_array_append_new(sums, gd_event_sum_to_json(&ev->sums[i]));
        json_object_set_new(h, "events", list);
        json_object_set_new(h, "sums", sums);
        json_object_set_new(h, "total", json_integer((json_int_t)ev->total));
        r->events_seen = ev->total;
    }
    for (size_t g = 0; r->health && g < r->gpus && g < f->gpu_count; g++) {
        json_t *one = health_change(r, &f->gpus[g], g);
        if (one && !gpus)
            gpus = json_array();
        if (one)
            json_array_append_new(gpus, one);
    }
    if (gpus)
        json_object_set_new(h, "gpus", gpus);
    if (json_object_size(h) == 0) {
        json_decref(h);
        return;
    }
    put(r, json_pack("{s:f, s:o}", "t", t, "health", h), t, GD_RECORD_KEEP);
}

static void on_snapshot(void *ud, const gd_facts *f)
{
    gd_recorder *r = ud;
    json_t *metrics = json_array(), *sources = json_array();
    for (int m = 0; m < GD_M_COUNT; m++)
        json_array_append_new(metrics, json_string(gd_metric_describe((gd_metric)m)->key));
    json_array_append_new(sources, json_string(f->source));
    free(r->lost);
    free_health(r);
    r->gpus = f->gpu_count;
    r->lost = calloc(f->gpu_count + 1, sizeof *r->lost);
    r->health = calloc(f->gpu_count + 1, sizeof *r->health);
    r->seen = calloc(f->gpu_count + 1, sizeof *r->seen);
    if (!r->seen) {
        free(r->health);
        r->health = NULL;
    }
    for (size_t g = 0; r->health && g < f->gpu_count; g++) { /* as the header's facts hold them */
        r->health[g] = gd_gpu_health_to_json(&f->gpus[g]);
        r->seen[g] = f->gpus[g];
    }
    r->events_seen = 0;
    for (size_t g = 0; r->lost && g < f->gpu_count; g++)
        r->lost[g] = f->gpus[g].lost;
    r->job_t = r->host_t = -1;
    r->job_summary_t = -GD_RECORD_JOB_SUMMARY_S; /* the first sample writes one */
    json_t *h = json_pack("{s:i, s:i, s:o, s:o, s:o*}", "gpudoctor_recording", 1, "schema_version", GD_RECORDING_SCHEMA,
                          "metrics", metrics, "sources", sources, "facts", gd_facts_static_to_json(f));
    char utc[40];
    if (h && gd_event_utc(&f->events, 0, utc, sizeof utc)) /* the wall clock of session second 0 */
        json_object_set_new(h, "started_at", json_string(utc));
    if (h) /* how events are watched: a recording cut short still says it */
        json_object_set_new(h, "events", gd_events_to_json(&f->events, false));
    if (h && f->job) /* the job watched (run, check --pid): its own series follow in the samples */
        json_object_set_new(h, "job", gd_job_to_json(f->job));
    put(r, h, 0, GD_RECORD_KEEP);
    /* What the checks of a replay judge stays whole: the samples the live run keeps. */
    double bucket_s = f->interval_s * 10 > GD_RECORD_BUCKET_S ? f->interval_s * 10 : GD_RECORD_BUCKET_S;
    gd_record_file_thin(r->file, gd_recording_full_samples(f->window_s, f->interval_s), bucket_s);
}

static void on_sample(void *ud, const gd_facts *f, size_t i)
{
    gd_recorder *r = ud;
    if (r->failed)
        return;
    json_t *gpus = json_array(), *lost = NULL;
    for (size_t g = 0; g < f->series.gpus; g++) {
        json_t *row = json_array();
        for (int m = 0; m < GD_M_COUNT; m++)
            json_array_append_new(row, gd_value_to_json(gd_series_at(&f->series, i, g, (gd_metric)m)));
        json_array_append_new(gpus, row);
        const gd_gpu *gpu = &f->gpus[g];
        if (r->lost && g < r->gpus && gpu->lost && !r->lost[g]) {
            r->lost[g] = true;
            if (!lost)
                lost = json_array();
            json_array_append_new(lost, json_pack("{s:i, s:f, s:s, s:i}", "gpu", (int)g, "at_s", gpu->lost_at_s, "call",
                                                  gpu->lost_call, "code", gpu->lost_code));
        }
    }
    json_t *j = json_pack("{s:f, s:o}", "t", gd_series_t(&f->series, i), "gpus", gpus);
    char utc[40];
    if (j && gd_event_utc(&f->events, gd_series_t(&f->series, i), utc, sizeof utc))
        json_object_set_new(j, "time_utc", json_string(utc));
    if (j && lost)
        json_object_set_new(j, "lost", lost);
    else
        json_decref(lost);
    const gd_job_facts *job = f->job;
    if (j && job && job->n && gd_job_at(job, job->n - 1)->t > r->job_t) { /* the job's sample of this time */
        r->job_t = gd_job_at(job, job->n - 1)->t;
        json_object_set_new(j, "job", gd_job_sample_to_json(gd_job_at(job, job->n - 1)));
    }
    const gd_host_series *hs = &f->host_series;
    json_t *host = NULL;
    size_t k = hs->n; /* the host's samples since the last line (once a second) */
    while (k > 0 && gd_host_at(hs, k - 1)->t > r->host_t)
        k--;
    for (; j && k < hs->n; k++) {
        if (!host)
            host = json_array();
        json_array_append_new(host, gd_host_sample_to_json(gd_host_at(hs, k)));
    }
    if (host) {
        r->host_t = gd_host_at(hs, hs->n - 1)->t;
        json_object_set_new(j, "host", host);
    }
    double t = gd_series_t(&f->series, i);
    if (j && job && t - r->job_summary_t >= GD_RECORD_JOB_SUMMARY_S) { /* a recording cut short keeps the job too */
        r->job_summary_t = t;
        json_object_set_new(j, "job_summary", gd_job_to_json(job));
    }
    put(r, j, t, GD_RECORD_SAMPLE);
    health_line(r, f, t);
}

/* The job's environment as a recording keeps it: the variables the checks
 * read, secrets' values redacted (gd_env_kept, gd_env_secret). */
static void keep_env(json_t *end)
{
    json_t *env = json_object_get(json_object_get(end, "stack"), "env");
    size_t i = 0;
    while (i < json_array_size(env)) {
        const char *e = json_string_value(json_array_get(env, i));
        if (!e || !gd_env_kept(e)) {
            json_array_remove(env, i);
            continue;
        }
        size_t n = (size_t)(strchr(e, '=') - e);
        if (gd_env_secret(e, n)) {
            char *red = malloc(n + sizeof "=" GD_ENV_REDACTED);
            if (red) {
                snprintf(red, n + sizeof "=" GD_ENV_REDACTED, "%.*s=%s", (int)n, e, GD_ENV_REDACTED);
                json_array_set_new(env, i, json_string(red));
                free(red);
            } else {
                json_array_remove(env, i);
                continue;
            }
        }
        i++;
    }
}

static void on_end(void *ud, const gd_facts *f)
{
    gd_recorder *r = ud;
    double t = f->series.n ? gd_series_t(&f->series, f->series.n - 1) : 0;
    if (f->series.n)
        health_line(r, f, t);
    json_t *end = gd_facts_end_to_json(f);
    if (end)
        keep_env(end);
    if (end && f->job) /* the job's threads and processes over the whole window */
        json_object_set_new(end, "job", gd_job_to_json(f->job));
    put(r, json_pack("{s:o*}", "end", end), t, GD_RECORD_KEEP);
}

gd_recorder *gd_recorder_open(const char *path, void (*log)(void *, const char *), void *log_ud, char *err,
                              size_t errlen)
{
    gd_recorder *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(r->path, sizeof r->path, "%s", path);
    r->log = log;
    r->log_ud = log_ud;
    if (!(r->file = gd_record_file_open(path, log, log_ud, err, errlen))) {
        free(r);
        return NULL;
    }
    return r;
}

gd_sink gd_recorder_sink(gd_recorder *r)
{
    return (gd_sink){.on_snapshot = on_snapshot, .on_sample = on_sample, .on_end = on_end, .ud = r};
}

bool gd_recorder_close(gd_recorder *r)
{
    if (!r)
        return true;
    bool ok = !r->failed;
    char why[300];
    if (gd_record_file_close(r->file, why, sizeof why) != 0 && ok)
        ok = false, stop(r, why);
    free(r->lost);
    free_health(r);
    free(r);
    return ok;
}
