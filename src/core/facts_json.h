/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gd_facts as JSON and back, losslessly: what a recording (--record) keeps
 * so that its replay gives the checks the same facts as the live run. Each
 * struct is a table of fields (facts_json.c); a value keeps its status.
 *
 * A value is its number when valid, null when never read, else its status
 * ("not_supported", "no_permission", "unavailable", "error", "gpu_lost"),
 * ":RAW" appended when the driver's return code is kept.
 */
#ifndef GD_FACTS_JSON_H
#define GD_FACTS_JSON_H

#include "gpudoctor/job.h"
#include "gpudoctor/model.h"

#include <jansson.h>

/* The recording's schema; a reader refuses a newer one. */
#define GD_RECORDING_SCHEMA 2

/* The samples of a recording kept whole, the newest ones: as many as the
 * series of its live run kept (its window, at most GD_RETENTION_S, at its
 * interval), so that the checks of a replay judge the same samples; older
 * ones may be thinned into buckets (docs/interface.md section 6). */
size_t gd_recording_full_samples(double window_s, double interval_s);

json_t *gd_value_to_json(gd_value v);
/* 0, or -1 when j is no value of this form. */
int gd_value_from_json(const json_t *j, gd_value *out);

/* The static facts (host, driver, GPUs, denied GPUs, window): no series, no
 * PCIe or stack facts. NULL when out of memory. */
json_t *gd_facts_static_to_json(const gd_facts *f);
/* Into a zeroed f. 0, or -1 with a message (malformed, too large). */
int gd_facts_static_from_json(const json_t *j, gd_facts *f, char *err, size_t errlen);

/* The facts read at the end (PCIe, software stack): {"pcie":..,"stack":..}, absent when NULL. */
json_t *gd_facts_end_to_json(const gd_facts *f);
int gd_facts_end_from_json(const json_t *j, gd_facts *f, char *err, size_t errlen);

/* The job's facts but its samples and environment (job.h): what the checks
 * read beside the series. From JSON into j: a summary's threads and
 * processes replace j's. */
json_t *gd_job_to_json(const gd_job_facts *j);
int gd_job_from_json(const json_t *v, gd_job_facts *j, char *err, size_t errlen);

/* One sample of the job, one of the host (into a zeroed sample). */
json_t *gd_job_sample_to_json(const gd_job_sample *s);
int gd_job_sample_from_json(const json_t *v, gd_job_sample *s, char *err, size_t errlen);
json_t *gd_host_sample_to_json(const gd_host_sample *s);
int gd_host_sample_from_json(const json_t *v, gd_host_sample *s, char *err, size_t errlen);
/* The session's health events (events_json.c): {"start_unix", "xid_watched",
 * "kernel_log_followed", "reread_s", "dropped"} and, with_list, the ring's
 * "list": [{t, at, kind, gpu, value, what}]. */
const char *gd_event_kind_name(int kind);
json_t *gd_event_to_json(const gd_events *ev, const gd_event *e);
json_t *gd_events_to_json(const gd_events *ev, bool with_list);
/* One event of a list ({t, kind, gpu, value, what}); 0, or -1 when o is none. */
int gd_event_from_json(const json_t *o, gd_event *e);
/* j's settings into ev, and its list's events appended. 0, or -1 with a message. */
int gd_events_from_json(const json_t *j, gd_events *ev, char *err, size_t errlen);
/* One sum of the session's events, and back (0, or -1 with a message). */
json_t *gd_event_sum_to_json(const gd_event_sum *s);
int gd_event_sum_from_json(const json_t *j, gd_event_sum *s, char *err, size_t errlen);

/* What of a GPU changes while a session runs: its memory-health and NVLink
 * error counters (re-read every GD_HEALTH_REREAD_S), whether it answers.
 * From JSON into g: only the members given change. */
json_t *gd_gpu_health_to_json(const gd_gpu *g);
int gd_gpu_health_from_json(const json_t *j, gd_gpu *g, char *err, size_t errlen);
/* Whether a and b hold the same of those facts (cheaper than their JSON). */
bool gd_gpu_health_same(const gd_gpu *a, const gd_gpu *b);

#endif
