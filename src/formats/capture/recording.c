/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpudoctor's own recordings (--record FILE.jsonl, docs/interface.md): a
 * header line (schema, metric keys, sources, static facts), one line per
 * sample, a health line whenever events came or re-read counters changed,
 * buckets of older samples thinned, and an end line (PCIe and stack facts)
 * when the run ended cleanly. Read back, streamed in bounded memory (a line,
 * the window's samples), into the facts the live run judged.
 */
#include "import.h"

#include "core/facts_json.h"
#include "core/job_ring.h"
#include "core/line_reader.h"
#include "formats/trace/trace_input.h"

#include <jansson.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_LINE_BYTES (16u << 20)

typedef struct reader {
    const char *name;
    size_t line;
    int map[GD_M_COUNT * 2]; /* column of the recording -> gd_metric, -1 unknown */
    size_t columns;
    long long schema;
    /* The bytes: `head` first, then `rest`. */
    const char *head;
    size_t head_len, head_pos;
    gd_tsrc *rest;
    bool truncated; /* compressed data that stops mid-stream */
    gd_line_reader lines;
} reader;

static int bad(const reader *r, char *err, size_t errlen, const char *why)
{
    snprintf(err, errlen, "%s: line %zu: %s", r->name, r->line, why);
    return -1;
}

static int header(reader *r, const json_t *j, gd_facts *f, char *err, size_t errlen)
{
    char why[400];
    json_t *schema = json_object_get(j, "schema_version"), *metrics = json_object_get(j, "metrics");
    if (!json_is_integer(schema) || json_integer_value(schema) < 1)
        return bad(r, err, errlen, "a recording header without its schema_version");
    if (json_integer_value(schema) > GD_RECORDING_SCHEMA) {
        snprintf(why, sizeof why,
                 "a recording of a newer gpudoctor (schema_version above %d): update gpudoctor to read it",
                 GD_RECORDING_SCHEMA);
        return bad(r, err, errlen, why);
    }
    r->schema = json_integer_value(schema);
    if (!json_is_array(metrics) || json_array_size(metrics) > sizeof r->map / sizeof r->map[0])
        return bad(r, err, errlen, "the header's metrics are not a list of metric keys");
    r->columns = json_array_size(metrics);
    for (size_t c = 0; c < r->columns; c++) {
        const char *key = json_string_value(json_array_get(metrics, c));
        r->map[c] = -1;
        for (int m = 0; key && m < GD_M_COUNT; m++)
            if (strcmp(key, gd_metric_describe((gd_metric)m)->key) == 0)
                r->map[c] = m;
    }
    if (gd_facts_static_from_json(json_object_get(j, "facts"), f, why, sizeof why) != 0)
        return bad(r, err, errlen, why);
    /* interval_s 0: a recording of evidence without samples (a kernel log alone). */
    if (!(f->interval_s > 0 || (f->interval_s == 0 && f->window_s == 0)) || !(f->window_s >= 0))
        return bad(r, err, errlen, "the header's interval_s must be above 0 (or 0 with no window)");
    if (gd_series_init(&f->series, f->gpu_count) != 0)
        return bad(r, err, errlen, "out of memory");
    /* The live session's ring: the window's samples, at most an hour's. */
    double span = f->window_s < GD_RETENTION_S ? f->window_s : GD_RETENTION_S;
    gd_series_set_limit(&f->series, gd_recording_full_samples(f->window_s, f->interval_s));
    f->host_series.limit = (size_t)(span + 2.5);
    /* The wall clock of second 0: the end line's exact start replaces it, a
     * recording cut short (no end line) keeps the header's. */
    double start;
    if (gd_utc_parse(json_string_value(json_object_get(j, "started_at")), &start) == 0)
        f->events.start_unix = start;
    const json_t *events = json_object_get(j, "events"); /* how events are watched, the exact start (schema 2) */
    if (events && gd_events_from_json(events, &f->events, why, sizeof why) != 0)
        return bad(r, err, errlen, why);
    const json_t *job = json_object_get(j, "job");
    if (job) { /* run, check --pid: the job's samples follow */
        if (!(f->job = calloc(1, sizeof *f->job)))
            return bad(r, err, errlen, "out of memory");
        f->job->limit = f->series.limit;
        if (gd_job_from_json(job, f->job, why, sizeof why) != 0)
            return bad(r, err, errlen, why);
    }
    return 0;
}

/* The job's and the host's parts of a sample line. */
static int job_and_host(reader *r, const json_t *j, gd_facts *f, char *err, size_t errlen)
{
    char why[400];
    const json_t *js = json_object_get(j, "job"), *host = json_object_get(j, "host");
    const json_t *summary = json_object_get(j, "job_summary");
    if ((js || summary) && !f->job)
        return bad(r, err, errlen, "a job sample in a recording whose header has no job");
    if (js) {
        gd_job_sample *s = gd_job_push(f->job);
        if (!s)
            return bad(r, err, errlen, "out of memory");
        if (gd_job_sample_from_json(js, s, why, sizeof why) != 0)
            return bad(r, err, errlen, why);
    }
    if (summary && gd_job_from_json(summary, f->job, why, sizeof why) != 0)
        return bad(r, err, errlen, why);
    if (host && !json_is_array(host))
        return bad(r, err, errlen, "'host' is not a list of the host's samples");
    size_t i;
    const json_t *h;
    json_array_foreach(host, i, h)
    {
        const json_t *t = json_object_get(h, "t");
        if (!json_is_number(t) || !isfinite(json_number_value(t)))
            return bad(r, err, errlen, "a host sample without its time 't'");
        gd_host_sample *s = gd_host_push(&f->host_series, json_number_value(t));
        if (!s)
            return bad(r, err, errlen, "out of memory");
        if (gd_host_sample_from_json(h, s, why, sizeof why) != 0)
            return bad(r, err, errlen, why);
    }
    return 0;
}

static int lost(reader *r, const json_t *a, gd_facts *f, char *err, size_t errlen)
{
    size_t i;
    const json_t *e;
    if (a && !json_is_array(a))
        return bad(r, err, errlen, "'lost' is not a list");
    json_array_foreach(a, i, e)
    {
        const json_t *g = json_object_get(e, "gpu"), *call = json_object_get(e, "call");
        const json_t *at = json_object_get(e, "at_s"), *code = json_object_get(e, "code");
        if (!json_is_integer(g) || json_integer_value(g) < 0 || (size_t)json_integer_value(g) >= f->gpu_count ||
            !json_is_number(at) || !json_is_string(call) || !json_is_integer(code))
            return bad(r, err, errlen, "a lost GPU without its gpu, at_s, call and code");
        gd_gpu *gpu = &f->gpus[json_integer_value(g)];
        gpu->lost = true;
        gpu->lost_at_s = json_number_value(at);
        gpu->lost_code = (int)json_integer_value(code);
        snprintf(gpu->lost_call, sizeof gpu->lost_call, "%s", json_string_value(call));
    }
    return 0;
}

static int sample(reader *r, const json_t *j, gd_facts *f, char *err, size_t errlen)
{
    const json_t *t = json_object_get(j, "t"), *gpus = json_object_get(j, "gpus");
    if (!json_is_number(t) || !json_is_array(gpus) || json_array_size(gpus) > f->gpu_count)
        return bad(r, err, errlen, "a sample without its time 't' and one list of values per GPU");
    if (!(f->interval_s > 0))
        return bad(r, err, errlen, "a sample in a recording whose header says it holds none (interval_s 0)");
    double at = json_number_value(t);
    if (!isfinite(at) || at < 0 || (f->series.n && at < gd_series_t(&f->series, f->series.n - 1)))
        return bad(r, err, errlen, "a sample's time 't' runs backwards");
    long i = gd_series_push(&f->series, at);
    if (i < 0)
        return bad(r, err, errlen, "out of memory");
    for (size_t g = 0; g < json_array_size(gpus); g++) {
        const json_t *row = json_array_get(gpus, g);
        if (!json_is_array(row) || json_array_size(row) > r->columns)
            return bad(r, err, errlen, "a GPU's values are not one list of the header's metrics");
        gd_value *slot = gd_series_slot(&f->series, (size_t)i, g);
        for (size_t c = 0; c < json_array_size(row); c++) {
            gd_value v;
            if (gd_value_from_json(json_array_get(row, c), &v) != 0 || (gd_ok(v) && !(fabs(v.v) < 1e19)))
                return bad(r, err, errlen, "a value that is neither a number, null nor a status");
            if (r->map[c] >= 0)
                slot[r->map[c]] = v;
        }
    }
    if (lost(r, json_object_get(j, "lost"), f, err, errlen) != 0)
        return -1;
    return job_and_host(r, j, f, err, errlen);
}

/* A health line: the events since the line before, the sums they changed,
 * the GPUs' re-read counters that changed. */
static int health(reader *r, const json_t *h, gd_facts *f, char *err, size_t errlen)
{
    char why[400];
    const json_t *events = json_object_get(h, "events"), *sums = json_object_get(h, "sums");
    const json_t *gpus = json_object_get(h, "gpus"), *total = json_object_get(h, "total");
    if (!json_is_object(h) || (events && !json_is_array(events)) || (sums && !json_is_array(sums)) ||
        (gpus && !json_is_array(gpus)) || (total && !json_is_integer(total)))
        return bad(r, err, errlen, "a health line whose events, sums or gpus are not lists");
    size_t i;
    const json_t *o;
    json_array_foreach(events, i, o)
    {
        gd_event e;
        if (gd_event_from_json(o, &e) != 0)
            return bad(r, err, errlen, "an event without its t, kind, gpu, value and what");
        if (gd_event_add(&f->events, &e) != 0)
            return bad(r, err, errlen, "out of memory");
    }
    /* The live run's sums count every event, those its ring let go of too. */
    json_array_foreach(sums, i, o)
    {
        gd_event_sum s;
        if (gd_event_sum_from_json(o, &s, why, sizeof why) != 0)
            return bad(r, err, errlen, why);
        (void)gd_event_sum_put(&f->events, &s); /* a key that cannot be kept: its events stay in the ring */
    }
    if (total && json_integer_value(total) > 0 && (size_t)json_integer_value(total) > f->events.total)
        f->events.total = (size_t)json_integer_value(total);
    json_array_foreach(gpus, i, o)
    {
        const json_t *g = json_object_get(o, "gpu");
        if (!json_is_integer(g) || json_integer_value(g) < 0 || (size_t)json_integer_value(g) >= f->gpu_count)
            return bad(r, err, errlen, "a GPU's health without its gpu");
        if (gd_gpu_health_from_json(o, &f->gpus[json_integer_value(g)], why, sizeof why) != 0)
            return bad(r, err, errlen, why);
    }
    return 0;
}

/* A bucket of older samples thinned to their minimum, maximum and mean
 * (docs/interface.md): older than the samples the live run's checks kept,
 * so only counted; what is never thinned (a lost GPU, the job's newest
 * summary) is read as from a sample. */
static int bucket(reader *r, const json_t *j, gd_facts *f, char *err, size_t errlen)
{
    const json_t *t = json_object_get(j, "t"), *n = json_object_get(j, "samples");
    double at = json_number_value(t);
    if (!json_is_number(t) || !json_is_integer(n) || json_integer_value(n) < 0 || !isfinite(at) || at < 0 ||
        (f->series.n && at < gd_series_t(&f->series, f->series.n - 1)))
        return bad(r, err, errlen, "a bucket without its time 't' and count of 'samples'");
    f->series.ring.dropped += (size_t)json_integer_value(n);
    if (lost(r, json_object_get(j, "lost"), f, err, errlen) != 0)
        return -1;
    const json_t *summary = json_object_get(j, "job_summary");
    char why[400];
    if (summary && !f->job)
        return bad(r, err, errlen, "a job summary in a recording whose header has no job");
    if (summary && gd_job_from_json(summary, f->job, why, sizeof why) != 0)
        return bad(r, err, errlen, why);
    return 0;
}

/* The recording's bytes: the head, then the rest (gd_line_read_fn). */
static long read_bytes(void *ud, char *buf, size_t cap, char *err, size_t errlen)
{
    reader *r = ud;
    if (r->head_pos < r->head_len) {
        size_t k = r->head_len - r->head_pos < cap ? r->head_len - r->head_pos : cap;
        memcpy(buf, r->head + r->head_pos, k);
        r->head_pos += k;
        return (long)k;
    }
    if (!r->rest)
        return 0;
    char why[300] = "";
    long got = r->rest->read(r->rest, buf, cap, why, sizeof why);
    if (got < 0 && strstr(why, "ends early")) { /* a compressed recording cut short: its whole lines count */
        r->truncated = true;
        return 0;
    }
    if (got < 0)
        snprintf(err, errlen, "%s", why);
    return got;
}

/* Where a recording cut short ends, for the reader of its replay. */
static void say_cut(const gd_facts *f, bool partial, bool truncated, char *note, size_t len)
{
    if (!note || !len)
        return;
    const gd_series *s = &f->series;
    char at[32] = "";
    if (s->n) {
        gd_event_clock(&f->events, gd_series_t(s, s->n - 1), at, sizeof at);
        snprintf(note, len, "cut short after %.1f s (%s): no end record%s", gd_series_t(s, s->n - 1), at,
                 truncated ? ", its compressed data stops mid-stream"
                 : partial ? ", its last line incomplete"
                           : "");
    } else {
        snprintf(note, len, "cut short before its first sample: no end record");
    }
}

static int read_lines(reader *r, gd_facts *f, char *note, size_t notelen, char *err, size_t errlen)
{
    bool have_header = false, ended = false, partial = false;
    const char *line;
    size_t n;
    int more;
    char stopped[300];
    while ((more = gd_line_next(&r->lines, &line, &n, &partial, stopped, sizeof stopped)) > 0) {
        r->line = r->lines.lines;
        if (n == 0 || (n == 1 && line[0] == '\r'))
            continue;
        json_error_t je;
        json_t *j = json_loadb(line, n, JSON_REJECT_DUPLICATES, &je);
        if (!json_is_object(j)) {
            json_decref(j);
            return bad(r, err, errlen, "not a JSON object (the file is damaged)");
        }
        int rc;
        const json_t *end = json_object_get(j, "end"), *h = json_object_get(j, "health");
        if (!have_header) {
            rc = json_object_get(j, "gpudoctor_recording") ? header(r, j, f, err, errlen)
                                                           : bad(r, err, errlen, "the recording's header is missing");
            have_header = true;
        } else if (end) {
            char why[400];
            rc = gd_facts_end_from_json(end, f, why, sizeof why) == 0 ? 0 : bad(r, err, errlen, why);
            const json_t *job = json_object_get(end, "job");
            if (rc == 0 && job && f->job && gd_job_from_json(job, f->job, why, sizeof why) != 0)
                rc = bad(r, err, errlen, why);
            ended = true;
        } else if (h) {
            rc = health(r, h, f, err, errlen);
        } else if (json_object_get(j, "samples")) {
            rc = bucket(r, j, f, err, errlen);
        } else {
            rc = sample(r, j, f, err, errlen);
        }
        json_decref(j);
        if (rc != 0)
            return -1;
    }
    if (more < 0) {
        r->line = r->lines.lines + 1;
        return bad(r, err, errlen, stopped);
    }
    if (!have_header) {
        snprintf(err, errlen, "%s: a recording without its header line", r->name);
        return -1;
    }
    if (note && notelen)
        note[0] = '\0';
    if (!ended)
        say_cut(f, partial, r->truncated, note, notelen);
    return 0;
}

int gd_import_recording_stream(const char *name, const char *head, size_t head_len, gd_tsrc *rest, gd_facts *f,
                               char *note, size_t notelen, char *err, size_t errlen)
{
    reader r = {.name = name, .head = head, .head_len = head_len, .rest = rest};
    r.lines = (gd_line_reader){.read = read_bytes, .ud = &r, .max_line = MAX_LINE_BYTES};
    int rc = read_lines(&r, f, note, notelen, err, errlen);
    gd_line_reader_free(&r.lines);
    return rc;
}

int gd_import_recording(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    return gd_import_recording_stream(name, text, len, NULL, f, NULL, 0, err, errlen);
}
