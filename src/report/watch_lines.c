/* SPDX-License-Identifier: Apache-2.0 */
/* watch's line formats (watch_lines.h). */
#include "analysis/window_acc.h"
#include "watch_lines.h"

#include "core/facts_json.h"
#include "core/json_util.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/report.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

typedef struct column {
    const char *key;
    int metric; /* gd_metric, or -1 for a static fact */
    size_t gpu_off; /* static: offset of the gd_value in gd_gpu */
} column;

#define M(key, m)                                                                                                      \
    {                                                                                                                  \
        key, m, 0                                                                                                      \
    }
#define G(key, member)                                                                                                 \
    {                                                                                                                  \
        key, -1, offsetof(gd_gpu, member)                                                                              \
    }
static const column columns[] = {
    M("temp_c", GD_M_TEMP_C),
    M("mem_temp_c", GD_M_MEM_TEMP_C),
    M("sm_clock_mhz", GD_M_SM_CLOCK_MHZ),
    G("sm_clock_max_mhz", clock_max_sm_mhz),
    M("mem_clock_mhz", GD_M_MEM_CLOCK_MHZ),
    M("power_w", GD_M_POWER_W),
    G("power_limit_w", power_limit_w),
    M("util_gpu_pct", GD_M_UTIL_GPU_PCT),
    M("util_mem_pct", GD_M_UTIL_MEM_PCT),
    M("mem_used_mib", GD_M_MEM_USED_MIB),
    G("mem_total_mib", mem_total_mib),
    M("pcie_gen", GD_M_PCIE_GEN),
    M("pcie_width", GD_M_PCIE_WIDTH),
    M("pcie_tx_kbps", GD_M_PCIE_TX_KBPS),
    M("pcie_rx_kbps", GD_M_PCIE_RX_KBPS),
    M("fan_pct", GD_M_FAN_PCT),
    M("pstate", GD_M_PSTATE),
};
#define NCOLS (sizeof columns / sizeof columns[0])

const char gd_watch_csv_header[] = "time_s,gpu,temp_c,mem_temp_c,sm_clock_mhz,sm_clock_max_mhz,mem_clock_mhz,power_w,"
                                   "power_limit_w,util_gpu_pct,util_mem_pct,mem_used_mib,mem_total_mib,pcie_gen,"
                                   "pcie_width,pcie_tx_kbps,pcie_rx_kbps,fan_pct,pstate,event_reasons,gpu_state,"
                                   "status,time_utc";

static gd_value value_of(const gd_facts *f, size_t i, size_t g, const column *c)
{
    return c->metric >= 0 ? gd_series_at(&f->series, i, g, (gd_metric)c->metric)
                          : *(const gd_value *)((const char *)&f->gpus[g] + c->gpu_off);
}

static void on_snapshot(void *ud, const gd_facts *f)
{
    gd_watch_lines *w = ud;
    (void)f;
    if (w->format == GD_WATCH_CSV && fprintf(w->out, "%s\n", gd_watch_csv_header) < 0)
        w->failed = true;
    if (fflush(w->out) != 0)
        w->failed = true;
}

/* Why v is no number: "not_supported:3", "gpu_lost", "unread"; NULL when it is one. */
static const char *why_not(gd_value v, char *buf, size_t len)
{
    if (gd_ok(v) && isfinite(v.v))
        return NULL;
    if (gd_ok(v)) {
        snprintf(buf, len, "not_finite");
        return buf;
    }
    json_t *j = gd_value_to_json(v);
    snprintf(buf, len, "%s", json_is_string(j) ? json_string_value(j) : "unread"); /* null: not read at this sample */
    json_decref(j);
    return buf;
}

/* "lost" when the GPU did not answer at sample i (its readings say gpu_lost), else "ok". */
static const char *gpu_state(const gd_facts *f, size_t i, size_t g)
{
    for (size_t c = 0; c < NCOLS; c++)
        if (columns[c].metric >= 0 &&
            gd_series_at(&f->series, i, g, (gd_metric)columns[c].metric).status == GD_ST_GPU_LOST)
            return "lost";
    return "ok";
}

static void csv_line(gd_watch_lines *w, const gd_facts *f, size_t i, size_t g)
{
    double t = gd_series_t(&f->series, i);
    fprintf(w->out, "%.3f,%d", t, f->gpus[g].index);
    char status[1024] = "", why[48];
    for (size_t c = 0; c < NCOLS; c++) {
        gd_value v = value_of(f, i, g, &columns[c]);
        if (!why_not(v, why, sizeof why)) {
            fprintf(w->out, ",%.10g", v.v);
            continue;
        }
        fputc(',', w->out);
        size_t used = strlen(status);
        snprintf(status + used, sizeof status - used, "%s%s=%s", used ? "|" : "", columns[c].key, why);
    }
    gd_value r = gd_series_at(&f->series, i, g, GD_M_EVENT_REASONS);
    fputc(',', w->out);
    if (gd_ok(r)) {
        unsigned long long mask = (unsigned long long)r.v;
        const char *sep = "";
        for (size_t k = 0; k < gd_reason_names_count; k++)
            if (mask & gd_reason_names[k].bit) {
                fprintf(w->out, "%s%s", sep, gd_reason_names[k].name);
                sep = "|";
            }
    } else if (why_not(r, why, sizeof why)) {
        size_t used = strlen(status);
        snprintf(status + used, sizeof status - used, "%sevent_reasons=%s", used ? "|" : "", why);
    }
    char utc[40];
    gd_event_utc(&f->events, t, utc, sizeof utc);
    fprintf(w->out, ",%s,%s,%s\n", gpu_state(f, i, g), status, utc);
}

/* v as JSON: its number, else null with its status under `status`. */
static json_t *number_or_null(json_t *status, const char *key, gd_value v)
{
    char why[48];
    if (!why_not(v, why, sizeof why)) {
        /* The CSV's ten significant digits: a rate worked out from byte
         * counters reads 1800000 in both, not 1800000.0000000005. */
        char ten[32];
        snprintf(ten, sizeof ten, "%.10g", v.v);
        v.v = strtod(ten, NULL);
        return gd_value_to_json(v);
    }
    json_object_set_new(status, key, json_string(why));
    return json_null();
}

static json_t *time_utc(const gd_facts *f, double t)
{
    char utc[40];
    return gd_event_utc(&f->events, t, utc, sizeof utc) ? json_string(utc) : json_null();
}

/* A sample's time to the microsecond: a sum of intervals is 0.8999999999999999 s in binary. */
static double time_us(double t)
{
    return round(t * 1e6) / 1e6;
}

static void jsonl_line(gd_watch_lines *w, const gd_facts *f, size_t i, size_t g)
{
    double t = gd_series_t(&f->series, i);
    json_t *status = json_object();
    json_t *j = json_pack("{s:f, s:o, s:i, s:s}", "time_s", time_us(t), "time_utc", time_utc(f, t), "gpu",
                          f->gpus[g].index, "gpu_state", gpu_state(f, i, g));
    for (size_t c = 0; j && c < NCOLS; c++)
        json_object_set_new(j, columns[c].key, number_or_null(status, columns[c].key, value_of(f, i, g, &columns[c])));
    gd_value r = gd_series_at(&f->series, i, g, GD_M_EVENT_REASONS);
    if (j)
        json_object_set_new(j, "event_reasons",
                            gd_ok(r) ? gd_report_reasons_json((unsigned long long)r.v)
                                     : number_or_null(status, "event_reasons", r));
    if (j)
        json_object_set(j, "status", status);
    json_decref(status);
    char *text = j ? gd_json_dumps(j, JSON_COMPACT) : NULL;
    if (!text || fprintf(w->out, "%s\n", text) < 0)
        w->failed = true;
    free(text);
    json_decref(j);
}

static void finding_key(const gd_finding *x, char *key, size_t len)
{
    snprintf(key, len, "%s@%d", x->id, x->gpu);
}

static bool was_held(const gd_watch_lines *w, const char *key)
{
    for (size_t k = 0; k < w->held; k++)
        if (strcmp(w->held_keys[k], key) == 0)
            return true;
    return false;
}

static void new_finding(gd_watch_lines *w, const gd_facts *f, double t, const gd_finding *x)
{
    char at[32];
    gd_event_clock(&f->events, t, at, sizeof at);
    if (w->format == GD_WATCH_JSONL) {
        json_t *j =
            json_pack("{s:f, s:o, s:s, s:{s:s, s:s, s:o, s:s}}", "time_s", time_us(t), "time_utc", time_utc(f, t), "at",
                      at, "finding", "id", x->id, "severity", gd_severity_name(x->severity), "gpu",
                      x->gpu >= 0 ? json_integer(x->gpu) : json_null(), "title", x->title);
        char *text = j ? gd_json_dumps(j, JSON_COMPACT) : NULL;
        if (!text || fprintf(w->out, "%s\n", text) < 0)
            w->failed = true;
        free(text);
        json_decref(j);
    } else if (w->notes) {
        fprintf(w->notes, "%s %s %s: %s\n", at, gd_severity_name(x->severity), x->id, x->title);
        fflush(w->notes);
    }
}

/* The last minute up to sample i (a replay holds later samples and events
 * too: they are not judged before their time). */
static void judge(gd_watch_lines *w, const gd_facts *f, size_t i)
{
    gd_facts win = gd_window_acc_upto(f, i, GD_WATCH_FINDINGS_SPAN_S);
    double t = gd_series_t(&f->series, i);
    win.events.bounded = true; /* a replay's later events are not judged before their time */
    win.events.until_t = t;
    gd_findings fs = {.where = GD_AT_WATCH};
    gd_checks_run_all(&win, &fs);
    gd_findings_sort(&fs);
    size_t held = 0;
    char keys[GD_WATCH_MAX_HELD][72];
    for (size_t k = 0; k < fs.n; k++) {
        const gd_finding *x = &fs.v[k];
        if (x->severity == GD_SEV_INFO || x->ignored) /* what needs acting on */
            continue;
        char key[72];
        finding_key(x, key, sizeof key);
        if (!was_held(w, key))
            new_finding(w, f, t, x);
        if (held < GD_WATCH_MAX_HELD)
            snprintf(keys[held++], sizeof keys[0], "%s", key);
    }
    memcpy(w->held_keys, keys, held * sizeof keys[0]);
    w->held = held;
    gd_findings_free(&fs);
}

static void on_sample(void *ud, const gd_facts *f, size_t i)
{
    gd_watch_lines *w = ud;
    if (w->failed)
        return;
    for (size_t g = 0; g < f->series.gpus && g < f->gpu_count; g++)
        (w->format == GD_WATCH_CSV ? csv_line : jsonl_line)(w, f, i, g);
    judge(w, f, i);
    if (fflush(w->out) != 0 || ferror(w->out))
        w->failed = true;
}

gd_sink gd_watch_lines_sink(gd_watch_lines *w)
{
    return (gd_sink){.on_snapshot = on_snapshot, .on_sample = on_sample, .ud = w};
}
