/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON report of `check` (docs/interface.md section 4). */
#include "nccl_log_report.h"
#include "checked.h"
#include "net_json.h"
#include "gpu_table.h"
#include "nccl_tests_report.h"
#include "checks/causes.h"
#include "text_group.h"
#include "analysis/episodes.h"
#include "analysis/window.h"
#include "core/json_util.h"
#include "core/stats.h"
#include "gpudoctor/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

json_t *gd_report_host_json(const gd_facts *f)
{
    json_t *h = json_object();
    json_object_set_new(h, "hostname", gd_json_text(f->host.hostname));
    json_object_set_new(h, "kernel", gd_json_text(f->host.kernel));
    json_object_set_new(h, "cpus", f->host.cpus > 0 ? json_integer(f->host.cpus) : json_null());
    json_object_set_new(h, "numa_nodes", f->host.numa_nodes > 0 ? json_integer(f->host.numa_nodes) : json_null());
    return h;
}

json_t *gd_report_driver_json(const gd_facts *f)
{
    json_t *d = json_object();
    json_object_set_new(d, "version", f->driver_version[0] ? json_string(f->driver_version) : json_null());
    json_object_set_new(d, "cuda_driver_version", gd_json_value(f->cuda_driver_version));
    json_object_set_new(d, "loaded", json_boolean(f->driver_loaded));
    if (!f->driver_loaded) {
        json_object_set_new(d, "error", json_string(f->driver_error));
        /* 0: a machine without an NVIDIA GPU, which needs no driver (check exits 3). */
        json_object_set_new(d, "pci_nvidia_gpus", gd_json_value(f->pci_nvidia_gpus));
    }
    return d;
}

json_t *gd_report_reasons_json(unsigned long long mask)
{
    json_t *a = json_array();
    for (size_t i = 0; i < gd_reason_names_count; i++)
        if (mask & gd_reason_names[i].bit)
            json_array_append_new(a, json_string(gd_reason_names[i].name));
    return a;
}

json_t *gd_report_gpu_state_json(const gd_facts *f, size_t g)
{
    const gd_gpu *gpu = &f->gpus[g];
    const gd_series *s = &f->series;
    json_t *st = json_object();
    /* The last sample: a value that could not be read there is null. */
    static const struct {
        const char *key;
        gd_metric m;
    } sampled[] = {
        {"temp_c", GD_M_TEMP_C},
        {"power_w", GD_M_POWER_W},
        {"sm_clock_mhz", GD_M_SM_CLOCK_MHZ},
        {"mem_used_mib", GD_M_MEM_USED_MIB},
        {"pcie_gen", GD_M_PCIE_GEN},
        {"pcie_width", GD_M_PCIE_WIDTH},
    };
    for (size_t k = 0; k < sizeof sampled / sizeof sampled[0]; k++) {
        gd_value v = s->n ? gd_series_at(s, s->n - 1, g, sampled[k].m) : gd_missing(GD_ST_UNREAD);
        json_object_set_new(st, sampled[k].key, gd_json_value(v));
    }
    json_object_set_new(st, "power_limit_w", gd_json_value(gpu->power_limit_w));
    json_object_set_new(st, "mem_total_mib", gd_json_value(gpu->mem_total_mib));
    json_object_set_new(st, "pcie_gen_max", gd_json_value(gpu->pcie_gen_max));
    json_object_set_new(st, "pcie_width_max", gd_json_value(gpu->pcie_width_max));
    json_object_set_new(st, "pcie_gen_max_device", gd_json_value(gpu->pcie_gen_max_device));
    json_object_set_new(st, "pcie_width_max_device", gd_json_value(gpu->pcie_width_max_device));
    gd_value r = s->n ? gd_series_at(s, s->n - 1, g, GD_M_EVENT_REASONS) : gd_missing(GD_ST_UNREAD);
    json_object_set_new(st, "event_reasons", gd_ok(r) ? gd_report_reasons_json((unsigned long long)r.v) : json_null());
    return st;
}

/* Median of metric m of GPU g over its loaded samples: what `fleet` compares
 * across nodes. null when never loaded or never read. */
static json_t *loaded_median_json(const gd_facts *f, size_t g, gd_metric m)
{
    const gd_series *s = &f->series;
    double *v = malloc((s->n + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; v && i < s->n; i++) {
        gd_value x = gd_series_at(s, i, g, m);
        if (gd_loaded_at(f, i, g) && gd_ok(x))
            v[n++] = x.v;
    }
    json_t *out = n ? gd_json_number(round(gd_median(v, n) * 10) / 10) : json_null();
    free(v);
    return out;
}

/* Time in state over the window: each clock event reason's share of the
 * loaded samples, and each violation counter's share of the window; the
 * medians under load. */
static json_t *gpu_window_json(const gd_facts *f, size_t g)
{
    const gd_series *s = &f->series;
    size_t loaded = 0, hits[16] = {0};
    for (size_t i = 0; i < s->n; i++) {
        if (!gd_loaded_at(f, i, g))
            continue;
        loaded++;
        gd_value r = gd_series_at(s, i, g, GD_M_EVENT_REASONS);
        for (size_t k = 0; gd_ok(r) && k < gd_reason_names_count && k < 16; k++)
            hits[k] += ((unsigned long long)r.v & gd_reason_names[k].bit) != 0;
    }
    json_t *w = json_object();
    json_object_set_new(w, "loaded_pct",
                        s->n ? gd_json_number(round(1000.0 * (double)loaded / (double)s->n) / 10) : json_null());
    json_t *reasons = json_object();
    for (size_t k = 0; loaded && k < gd_reason_names_count && k < 16; k++)
        if (hits[k])
            json_object_set_new(reasons, gd_reason_names[k].name,
                                gd_json_number(round(1000.0 * (double)hits[k] / (double)loaded) / 10));
    json_object_set_new(w, "reasons_pct_of_loaded", reasons);
    static const struct {
        const char *key;
        gd_metric m;
    } counters[] = {
        {"power", GD_M_VIOL_POWER_NS},
        {"thermal", GD_M_VIOL_THERMAL_NS},
        {"sync_boost", GD_M_VIOL_SYNC_BOOST_NS},
        {"board_limit", GD_M_VIOL_BOARD_LIMIT_NS},
        {"low_utilization", GD_M_VIOL_LOW_UTIL_NS},
        {"reliability", GD_M_VIOL_RELIABILITY_NS},
        {"power_brake", GD_M_VIOL_POWER_BRAKE_NS},
    };
    json_t *viol = json_object();
    for (size_t k = 0; k < sizeof counters / sizeof counters[0]; k++) {
        double share;
        json_object_set_new(viol, counters[k].key,
                            gd_counter_share(f, g, counters[k].m, &share) ? gd_json_number(round(share * 1000) / 10)
                                                                          : json_null());
    }
    json_object_set_new(w, "violation_pct_of_window", viol);
    json_t *med = json_object();
    json_object_set_new(med, "sm_clock_mhz", loaded_median_json(f, g, GD_M_SM_CLOCK_MHZ));
    json_object_set_new(med, "temp_c", loaded_median_json(f, g, GD_M_TEMP_C));
    json_object_set_new(med, "power_w", loaded_median_json(f, g, GD_M_POWER_W));
    json_object_set_new(w, "loaded_median", med);
    /* The text table's statistic, under its name: medians over every sample of the window. */
    json_object_set_new(w, "median", gd_gpu_table_median_json(f, g, 0));
    return w;
}

/* The error counters and version of each NVLink that NVML gave any of them
 * for (null: one it does not give); NULL when no link gave one (PCIe
 * boards, MIG, older drivers): the key is then left out. */
static json_t *nvlink_errors_json(const gd_gpu *gpu)
{
    json_t *a = NULL;
    for (size_t l = 0; l < gpu->nvlink_count; l++) {
        const gd_nvlink *k = &gpu->nvlink[l];
        if (!gd_ok(k->replay_errors) && !gd_ok(k->recovery_errors) && !gd_ok(k->crc_flit_errors) &&
            !gd_ok(k->crc_data_errors) && !gd_ok(k->version))
            continue;
        if (!a)
            a = json_array();
        json_array_append_new(
            a, json_pack("{s:i,s:o,s:o,s:o,s:o,s:o}", "link", (int)k->link, "replay", gd_json_value(k->replay_errors),
                         "recovery", gd_json_value(k->recovery_errors), "crc_flit", gd_json_value(k->crc_flit_errors),
                         "crc_data", gd_json_value(k->crc_data_errors), "version", gd_json_value(k->version)));
    }
    return a;
}

static json_t *gpus_json(const gd_facts *f)
{
    json_t *a = json_array();
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        json_t *o = json_object();
        json_object_set_new(o, "index", json_integer(gpu->index));
        json_object_set_new(o, "name", gd_json_text(gpu->name));
        json_object_set_new(o, "uuid", gd_json_text(gpu->uuid));
        json_object_set_new(o, "pci_bus_id", gd_json_text(gpu->pci_bus_id));
        json_object_set_new(o, "lost", json_boolean(gpu->lost));
        json_object_set_new(o, "state", gd_report_gpu_state_json(f, g));
        json_object_set_new(o, "window", gpu_window_json(f, g));
        json_t *nvlink = nvlink_errors_json(gpu);
        if (nvlink)
            json_object_set_new(o, "nvlink", nvlink);
        json_array_append_new(a, o);
    }
    return a;
}

json_t *gd_report_findings_json(const gd_findings *fs, bool series)
{
    json_t *a = json_array();
    for (size_t i = 0; i < fs->n; i++) {
        const gd_finding *x = &fs->v[i];
        json_t *o = json_object();
        json_object_set_new(o, "id", json_string(x->id));
        json_object_set_new(o, "severity", json_string(gd_severity_name(x->severity)));
        json_object_set_new(o, "gpu", x->gpu == GD_NO_GPU ? json_null() : json_integer(x->gpu));
        json_object_set_new(o, "title", json_string(x->title));
        json_object_set(o, "evidence", x->evidence);
        if (!isnan(x->impact_pct))
            json_object_set_new(o, "impact_pct", gd_json_number(round(x->impact_pct * 10) / 10));
        json_object_set_new(o, "fix", json_string(x->fix));
        if (x->ignored)
            json_object_set_new(o, "ignored", json_true());
        if (x->timeline[0] && series) /* one sample has no timeline to tell */
            json_object_set_new(o, "timeline", json_string(x->timeline));
        json_array_append_new(a, o);
    }
    return a;
}

/* The causes that group the findings (checks/causes.h): each names its
 * findings and symptoms by their index in findings[], so that a script
 * that reads one finding per GPU keeps working and one that counts
 * problems counts these. */
json_t *gd_report_causes_json(const gd_findings *fs)
{
    json_t *a = json_array();
    gd_grouped_causes c;
    if (gd_group_causes(fs, &c) != 0)
        return a;
    size_t *m = malloc((fs->n + 1) * sizeof *m);
    for (size_t k = 0; m && k < c.n; k++) {
        const gd_grouped_cause *x = &c.v[k];
        const gd_finding *lead = &fs->v[x->members[0]];
        json_t *o = json_object(), *ids = json_array(), *members = json_array(), *symptoms = json_array(),
               *gpus = json_array();
        size_t n = 0;
        for (size_t i = 0; i < x->nmembers; i++) {
            const char *id = fs->v[x->members[i]].id;
            bool seen = false;
            for (size_t j = 0; j < i && !seen; j++)
                seen = strcmp(fs->v[x->members[j]].id, id) == 0;
            if (!seen)
                json_array_append_new(ids, json_string(id));
            if (strcmp(id, lead->id) == 0)
                m[n++] = x->members[i];
            json_array_append_new(members, json_integer((json_int_t)x->members[i]));
        }
        for (size_t i = 0; i < x->nsymptoms; i++)
            json_array_append_new(symptoms, json_integer((json_int_t)x->symptoms[i]));
        int g[256];
        bool host;
        size_t ng = gd_grouped_cause_gpus(fs, x, g, 256, &host);
        for (size_t i = 0; i < ng && i < 256; i++)
            json_array_append_new(gpus, json_integer(g[i]));
        char head[sizeof lead->title + 400], fix[sizeof lead->fix + 256];
        gd_text_group_headline(fs, m, n, head, sizeof head);
        gd_text_group_fix(fs, m, n, fix, sizeof fix);
        json_object_set_new(o, "rank", json_integer((json_int_t)k + 1));
        json_object_set_new(o, "id", json_string(lead->id));
        json_object_set_new(o, "severity", json_string(gd_severity_name(x->severity)));
        json_object_set_new(o, "title", json_string(head));
        json_object_set_new(o, "ids", ids);
        json_object_set_new(o, "gpus", gpus);
        json_object_set_new(o, "host", json_boolean(host));
        json_object_set_new(o, "findings", members);
        json_object_set_new(o, "symptoms", symptoms);
        json_object_set_new(o, "impact_pct",
                            isnan(x->impact_pct) ? json_null() : gd_json_number(round(x->impact_pct * 10) / 10));
        json_object_set_new(o, "fix", json_string(fix));
        json_array_append_new(a, o);
    }
    free(m);
    gd_grouped_causes_free(&c);
    return a;
}

static json_t *causes_summary_json(const gd_findings *fs)
{
    gd_grouped_causes c;
    json_t *o = json_object();
    if (gd_group_causes(fs, &c) != 0)
        return o;
    for (int s = GD_SEV_CRITICAL; s >= GD_SEV_INFO; s--)
        json_object_set_new(o, gd_severity_name((gd_severity)s),
                            json_integer((json_int_t)gd_grouped_causes_count(&c, (gd_severity)s)));
    gd_grouped_causes_free(&c);
    return o;
}

static json_t *skips_json(const gd_findings *fs)
{
    json_t *a = json_array();
    for (size_t i = 0; i < fs->nskips; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "check", json_string(fs->skips[i].check));
        json_object_set_new(o, "gpu", fs->skips[i].gpu == GD_NO_GPU ? json_null() : json_integer(fs->skips[i].gpu));
        json_object_set_new(o, "reason", json_string(fs->skips[i].reason));
        json_array_append_new(a, o);
    }
    return a;
}

json_t *gd_report_json(const gd_facts *f, const gd_findings *fs)
{
    json_t *root = json_object();
    json_t *tool = json_object();
    json_object_set_new(tool, "name", json_string("gpudoctor"));
    json_object_set_new(tool, "version", json_string(GD_VERSION));
    json_object_set_new(root, "schema_version", json_integer(GD_JSON_SCHEMA_VERSION));
    json_object_set_new(root, "tool", tool);
    json_object_set_new(root, "source", json_string(f->source));
    json_object_set_new(root, "simulated", json_boolean(f->simulated));
    json_object_set_new(root, "host", gd_report_host_json(f));
    json_object_set_new(root, "driver", gd_report_driver_json(f));
    json_object_set_new(root, "gpus", gpus_json(f));
    /* Listed by the driver, refused to us: in no check, named here. */
    json_t *denied = json_array();
    for (size_t i = 0; i < f->denied_count; i++) {
        json_t *d = json_object();
        json_object_set_new(d, "index", json_integer(f->denied[i].index));
        json_object_set_new(d, "call", json_string(f->denied[i].call));
        json_object_set_new(d, "nvml_return", json_integer(f->denied[i].code));
        json_object_set_new(d, "error", json_string(f->denied[i].error));
        json_array_append_new(denied, d);
    }
    json_object_set_new(root, "gpus_not_accessible", denied);
    json_t *w = json_object();
    const gd_series *s = &f->series;
    json_object_set_new(w, "duration_s", gd_json_number(s->n ? gd_series_t(s, s->n - 1) : 0));
    json_object_set_new(w, "samples", json_integer((json_int_t)s->n));
    json_object_set_new(w, "samples_dropped", json_integer((json_int_t)s->dropped)); /* older than the series keeps */
    json_object_set_new(w, "interval_s", gd_json_number(f->interval_s));
    /* How often the blocking PCIe throughput call was made (or the byte
     * counters read), and which power reading the samples hold. */
    if (f->pcie_throughput.source[0]) {
        json_t *pt = json_object();
        json_object_set_new(pt, "source", json_string(f->pcie_throughput.source));
        json_object_set_new(pt, "reads", json_integer((json_int_t)f->pcie_throughput.reads));
        json_object_set_new(pt, "every_s",
                            f->pcie_throughput.every_s > 0 ? gd_json_number(f->pcie_throughput.every_s) : json_null());
        json_object_set_new(w, "pcie_throughput", pt);
    }
    if (f->power_reading[0])
        json_object_set_new(w, "power_reading", json_string(f->power_reading));
    if (f->thermal_counter[0])
        json_object_set_new(w, "thermal_counter", json_string(f->thermal_counter));
    if (f->captured) {
        json_object_set_new(w, "captured", json_true());
        json_object_set_new(w, "formats", json_string(f->capture_formats));
        json_object_set_new(w, "timestamps", json_boolean(!f->capture_untimed));
        /* Files not read, each "FILE:LINE: why", and what the readers passed over in the others. */
        json_t *refused = json_array(), *notes = json_array();
        for (size_t i = 0; i < f->capture_refused_count && i < GD_CAPTURE_REFUSED; i++)
            json_array_append_new(refused, json_string(f->capture_refused[i]));
        for (size_t i = 0; i < f->capture_note_count; i++)
            json_array_append_new(notes, json_string(f->capture_notes[i]));
        json_object_set_new(w, "refused", refused);
        json_object_set_new(w, "notes", notes);
    }
    /* The window's wall clock (ISO 8601 UTC), where the session knows it:
     * null for captures that carry no time. */
    char at[40];
    double t0 = s->n ? gd_series_t(s, 0) : 0, t1 = s->n ? gd_series_t(s, s->n - 1) : 0;
    json_object_set_new(w, "started_at", gd_event_utc(&f->events, t0, at, sizeof at) ? json_string(at) : json_null());
    json_object_set_new(w, "ended_at", gd_event_utc(&f->events, t1, at, sizeof at) ? json_string(at) : json_null());
    json_object_set_new(root, "window", w);
    json_t *job = gd_report_job_json(f);
    if (job) /* run, check --pid */
        json_object_set_new(root, "job", job);
    json_t *net = gd_report_network_json(f);
    if (net) /* RDMA NICs, interfaces, GPUDirect's module, ACS: what was read */
        json_object_set_new(root, "network", net);
    json_t *nccl = gd_report_nccl_log_json(f);
    if (nccl) /* an NCCL log was read: --from nccl.log, run --nccl-log */
        json_object_set_new(root, "nccl_log", nccl);
    json_t *nt = gd_nccl_tests_json(f);
    if (nt) /* check --from an nccl-tests table */
        json_object_set_new(root, "nccl_tests", nt);
    json_object_set_new(root, "findings", gd_report_findings_json(fs, s->n > 1));
    json_object_set_new(root, "causes", gd_report_causes_json(fs));
    json_object_set_new(root, "not_checked", skips_json(fs));
    json_object_set_new(root, "checked", gd_report_checked_json(f, fs));
    json_t *sum = json_object();
    json_object_set_new(sum, "critical", json_integer((json_int_t)gd_findings_count(fs, GD_SEV_CRITICAL)));
    json_object_set_new(sum, "warning", json_integer((json_int_t)gd_findings_count(fs, GD_SEV_WARNING)));
    json_object_set_new(sum, "info", json_integer((json_int_t)gd_findings_count(fs, GD_SEV_INFO)));
    json_object_set_new(sum, "ignored", json_integer((json_int_t)gd_findings_ignored(fs)));
    json_object_set_new(sum, "causes", causes_summary_json(fs));
    json_object_set_new(root, "summary", sum);
    return root;
}

int gd_json_print(FILE *out, json_t *j)
{
    if (gd_json_dumpf(j, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
        return -1;
    fputc('\n', out);
    return 0;
}
