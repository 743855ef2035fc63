/* SPDX-License-Identifier: Apache-2.0 */
/* The exporter's JSON health document (/health): the findings that hold now
 * and the session's health events, for pollers that do not speak
 * Prometheus (gpud and node-problem-detector style). */
#include "core/facts_json.h"
#include "core/json_util.h"
#include "gpudoctor/report.h"
#include "prom_report.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

char *gd_health_json(const gd_facts *f, const gd_findings *fs, size_t *len)
{
    size_t crit = gd_findings_count(fs, GD_SEV_CRITICAL), warn = gd_findings_count(fs, GD_SEV_WARNING);
    json_t *events = json_array();
    for (size_t i = 0; events && i < f->events.n; i++)
        json_array_append_new(events, gd_event_to_json(&f->events, &f->events.v[i]));
    json_t *j = json_pack("{s:i, s:s, s:I, s:b, s:s, s:{s:I, s:I, s:I}, s:o, s:o, s:I}", "schema_version", 1, "tool",
                          "gpudoctor", "time", (json_int_t)time(NULL), "healthy", crit + warn == 0, "status",
                          crit ? "critical" : warn ? "warning" : "ok", "summary", "critical", (json_int_t)crit,
                          "warning", (json_int_t)warn, "info", (json_int_t)gd_findings_count(fs, GD_SEV_INFO),
                          "findings", gd_report_findings_json(fs, false), "events", events ? events : json_array(),
                          "events_dropped", (json_int_t)f->events.dropped);
    char *text = j ? gd_json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (text)
        *len = strlen(text);
    return text;
}
