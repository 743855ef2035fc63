/* SPDX-License-Identifier: Apache-2.0 */
/* The recorder sink (recorder.h). */
#include "recorder.h"

#include "core/facts_json.h"
#include "core/json_util.h"
#include "gpudoctor/stack.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The job's threads and processes are written whole this often (seconds of
 * the session), and at the end: a recording killed mid-window keeps them. */
#define GD_RECORD_JOB_SUMMARY_S 5.0

struct gd_recorder {
    int fd;
    char path[512];
    bool failed;
    off_t size; /* bytes of whole lines written */
    double synced_at; /* monotonic seconds of the last sync */
    bool *lost; /* GPUs whose loss is already written */
    size_t gpus;
    double job_t, host_t; /* times of the newest job and host samples written */
    double job_summary_t; /* time of the last job summary written */
    void (*log)(void *, const char *);
    void *log_ud;
};

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void stop(gd_recorder *r, const char *why)
{
    char msg[800];
    snprintf(msg, sizeof msg, "recording to %s stopped: %s; the session goes on", r->path, why);
    r->failed = true;
    if (r->log)
        r->log(r->log_ud, msg);
}

/* One line, one write: a reader never sees half of it. */
static void put(gd_recorder *r, json_t *j)
{
    char *text = j ? gd_json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (r->failed)
        goto out;
    if (!text) {
        stop(r, "out of memory");
        goto out;
    }
    size_t n = strlen(text);
    text[n] = '\n'; /* json_dumps's terminator becomes the newline */
    ssize_t w;
    do
        w = write(r->fd, text, n + 1);
    while (w < 0 && errno == EINTR);
    if (w != (ssize_t)(n + 1)) {
        int e = w < 0 ? errno : ENOSPC;
        if (w > 0 && ftruncate(r->fd, r->size) != 0) { /* keep whole lines only */
        }
        stop(r, strerror(e));
        goto out;
    }
    r->size += (off_t)(n + 1);
    double now = mono_s();
    if (now - r->synced_at >= 1.0) {
        fdatasync(r->fd);
        r->synced_at = now;
    }
out:
    free(text);
}

static void on_snapshot(void *ud, const gd_facts *f)
{
    gd_recorder *r = ud;
    json_t *metrics = json_array(), *sources = json_array();
    for (int m = 0; m < GD_M_COUNT; m++)
        json_array_append_new(metrics, json_string(gd_metric_describe((gd_metric)m)->key));
    json_array_append_new(sources, json_string(f->source));
    free(r->lost);
    r->gpus = f->gpu_count;
    r->lost = calloc(f->gpu_count + 1, sizeof *r->lost);
    for (size_t g = 0; r->lost && g < f->gpu_count; g++)
        r->lost[g] = f->gpus[g].lost;
    r->job_t = r->host_t = -1;
    r->job_summary_t = -GD_RECORD_JOB_SUMMARY_S; /* the first sample writes one */
    json_t *h = json_pack("{s:i, s:i, s:o, s:o, s:o*}", "gpudoctor_recording", 1, "schema_version", GD_RECORDING_SCHEMA,
                          "metrics", metrics, "sources", sources, "facts", gd_facts_static_to_json(f));
    char utc[40];
    if (h && gd_event_utc(&f->events, 0, utc, sizeof utc)) /* the wall clock of session second 0 */
        json_object_set_new(h, "started_at", json_string(utc));
    if (h && f->job) /* the job watched (run, check --pid): its own series follow in the samples */
        json_object_set_new(h, "job", gd_job_to_json(f->job));
    put(r, h);
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
    put(r, j);
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
    json_t *end = gd_facts_end_to_json(f);
    if (end)
        keep_env(end);
    if (end && f->job) /* the job's threads and processes over the whole window */
        json_object_set_new(end, "job", gd_job_to_json(f->job));
    put(r, json_pack("{s:o*}", "end", end));
}

gd_recorder *gd_recorder_open(const char *path, void (*log)(void *, const char *), void *log_ud, char *err,
                              size_t errlen)
{
    gd_recorder *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    /* O_NONBLOCK: a FIFO without a reader is refused, not waited on for ever. */
    r->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
    if (r->fd < 0) {
        snprintf(err, errlen, "--record %s: %s", path, errno == ENXIO ? "a FIFO nobody reads" : strerror(errno));
        free(r);
        return NULL;
    }
    int fl = fcntl(r->fd, F_GETFL);
    if (fl >= 0)
        fcntl(r->fd, F_SETFL, fl & ~O_NONBLOCK);
    snprintf(r->path, sizeof r->path, "%s", path);
    r->log = log;
    r->log_ud = log_ud;
    r->synced_at = mono_s();
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
    if (!r->failed && fsync(r->fd) != 0 && errno != EINVAL && errno != EROFS)
        ok = false, stop(r, strerror(errno));
    if (close(r->fd) != 0 && ok)
        ok = false, stop(r, strerror(errno));
    free(r->lost);
    free(r);
    return ok;
}
