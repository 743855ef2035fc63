/* SPDX-License-Identifier: Apache-2.0 */
/* Memory health: health.ecc_uncorrectable and health.row_remap (row
 * remapping on Ampere and newer, page retirement before). Thresholds: DCGM
 * (common/DcgmGPUHardwareLimits.h), see thresholds.h. */
#include "checks_internal.h"

/* A counter's name as the evidence's other keys say it (the events' names are the sampler's). */
static const char *counter_words(const char *what)
{
    static const char *const names[][2] = {
        {"ecc_volatile_uncorrected", "volatile_uncorrected"},
        {"ecc_aggregate_uncorrected", "aggregate_uncorrected"},
        {"retired_pages_dbe", "retired_pages (double-bit errors)"},
        {"retired_pages_sbe", "retired_pages (single-bit errors)"},
        {"remap_unc_rows", "remapped_rows_uncorrectable"},
        {"remap_corr_rows", "remapped_rows_correctable"},
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(what, names[k][0]) == 0)
            return names[k][1];
    return what;
}

/*
 * The rises of the named counters of GPU g while the session ran (counters
 * re-read every GD_HEALTH_REREAD_S), from the events' sums (every rise of
 * the session): into ev's "new_in_window", one entry per counter, and as
 * "; 2 new uncorrectable errors at 14:02:11" into `said` ("" when none).
 * Of several names, the largest total counts (volatile and aggregate ECC
 * counters rise together).
 */
static void session_rise(const gd_facts *f, size_t g, const char *const *names, const char *noun, json_t *ev,
                         char *said, size_t len)
{
    said[0] = '\0';
    json_t *list = json_array();
    long long best = 0;
    double last_t = 0;
    for (size_t k = 0; names[k]; k++) {
        for (size_t i = 0; i < f->events.sum_count; i++) {
            gd_event_sum e;
            if (f->events.sums[i].kind != GD_EV_COUNTER || f->events.sums[i].gpu != (int)g ||
                strcmp(f->events.sums[i].what, names[k]) != 0 ||
                !gd_event_sum_get(&f->events, i, -INFINITY, INFINITY, &e))
                continue;
            char at[32];
            gd_event_clock(&f->events, e.last_t, at, sizeof at);
            json_t *o = json_object();
            json_object_set_new(o, "counter", json_string(counter_words(e.what)));
            json_object_set_new(o, "increase", json_integer(e.total));
            json_object_set_new(o, "at", json_string(at));
            json_object_set_new(o, "at_s", json_real(e.last_t));
            if (e.count > 1) { /* rose more than once: when it began */
                json_object_set_new(o, "rises", json_integer((json_int_t)e.count));
                json_object_set_new(o, "first_at_s", json_real(e.first_t));
            }
            json_array_append_new(list, o);
            if (e.total > best || (e.total == best && e.last_t > last_t)) {
                best = e.total;
                last_t = e.last_t;
            }
        }
    }
    if (best == 0) {
        json_decref(list);
        return;
    }
    json_object_set_new(ev, "new_in_window", list);
    char at[32];
    gd_event_clock(&f->events, last_t, at, sizeof at);
    snprintf(said, len, "; %lld new %s%s at %s", best, noun, best == 1 ? "" : "s", at);
}

/* Memory the GPU has repaired for uncorrectable errors (rows remapped,
 * pages retired), with no repair waiting for a reset and none failed: "" when
 * the counters do not show that; else what was repaired ("1 row remapped"). */
static void repaired_history(const gd_gpu *gpu, char *what, size_t len)
{
    what[0] = '\0';
    bool waits = (gd_ok(gpu->remap_pending) && gpu->remap_pending.v > 0) ||
                 (gd_ok(gpu->remap_failure) && gpu->remap_failure.v > 0) ||
                 (gd_ok(gpu->retired_pages_pending) && gpu->retired_pages_pending.v > 0);
    if (waits)
        return;
    if (gd_ok(gpu->remap_unc_rows) && gpu->remap_unc_rows.v > 0 && gd_ok(gpu->remap_pending))
        snprintf(what, len, "%.0f row%s remapped", gpu->remap_unc_rows.v, gpu->remap_unc_rows.v == 1 ? "" : "s");
    else if (gd_ok(gpu->retired_pages_dbe) && gpu->retired_pages_dbe.v > 0 && gd_ok(gpu->retired_pages_pending))
        snprintf(what, len, "%.0f page%s retired", gpu->retired_pages_dbe.v, gpu->retired_pages_dbe.v == 1 ? "" : "s");
}

static void ecc_fix(const gd_gpu *gpu, bool now, const char *repaired, char *fix, size_t len)
{
    const char *serial = gpu->serial[0] ? gpu->serial : "from 'nvidia-smi -q'";
    if (repaired[0]) {
        snprintf(fix, len,
                 "History: the GPU repaired the memory behind these errors (%s) and nothing waits for a reset, "
                 "so there is nothing to drain or reset. Monitor: no action unless it recurs. New uncorrectable "
                 "errors since the driver loaded, a pending repair or a failed one are what call for a drain and "
                 "reset (reported as critical); 'nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT -i %d' after "
                 "jobs shows whether the counts move. Keep serial %s with the node's records.",
                 repaired, gpu->index, serial);
        return;
    }
    /* A reset is asked for what it does: a pending repair takes effect at the
     * next reset; with none pending there is nothing for it to apply. */
    bool pending = (gd_ok(gpu->remap_pending) && gpu->remap_pending.v > 0) ||
                   (gd_ok(gpu->retired_pages_pending) && gpu->retired_pages_pending.v > 0);
    bool none_pending = !pending && (gd_ok(gpu->remap_pending) || gd_ok(gpu->retired_pages_pending));
    char reset[400];
    if (pending)
        snprintf(reset, sizeof reset,
                 "Drain the GPU and reset it ('nvidia-smi -r -i %d') so the pending repair takes effect", gpu->index);
    else if (none_pending && now)
        snprintf(reset, sizeof reset,
                 "No repair waits for a reset (0 rows or pages pending): Xid 94 (contained) needs only the job "
                 "restarted; Xid 48 or 95 (uncontained) needs the GPU drained and reset ('nvidia-smi -r -i %d') "
                 "before the next job",
                 gpu->index);
    else if (none_pending)
        snprintf(reset, sizeof reset,
                 "No repair waits for a reset (0 rows or pages pending), so there is nothing to drain now; the "
                 "counts after each job show whether errors come back");
    else
        snprintf(reset, sizeof reset,
                 "Drain the GPU and reset it ('nvidia-smi -r -i %d') so a pending repair, if any, takes effect",
                 gpu->index);
    snprintf(fix, len,
             "%sLook for Xid 48/63/94/95 in 'dmesg -T | grep -i xid' and check 'nvidia-smi -q -d "
             "ECC,ROW_REMAPPER,PAGE_RETIREMENT -i %d'. %s. If errors come back or remapping failed, open an RMA "
             "with serial %s.",
             now ? "Uncorrectable errors since the driver loaded: the job on this GPU may have computed "
                   "with bad data or been killed. "
                 : "Uncorrectable errors in the GPU's lifetime (none since the driver loaded). ",
             gpu->index, reset, serial);
}

void gd_check_ecc_uncorrectable(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    static const char id[] = "health.ecc_uncorrectable";
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        gd_value vol = gpu->ecc_volatile_uncorrected, agg = gpu->ecc_aggregate_uncorrected;
        if (!gd_ok(vol) && !gd_ok(agg)) {
            if (!gpu->lost)
                gd_skip_add(out, id, gpu->index, "ECC counters not readable (%s)",
                            gd_status_name((gd_status)vol.status));
            continue;
        }
        bool now = gd_ok(vol) && vol.v > 0;
        if (!now && !(gd_ok(agg) && agg.v > 0))
            continue;
        static const char *const ecc_names[] = {"ecc_volatile_uncorrected", "ecc_aggregate_uncorrected", NULL};
        json_t *ev = json_object();
        char said[96], repaired[64] = "";
        session_rise(f, g, ecc_names, "uncorrectable error", ev, said, sizeof said);
        /* A volatile count of 0 is known only where it was read: the aggregate alone says nothing of now. */
        if (!now && !said[0] && gd_ok(vol))
            repaired_history(gpu, repaired, sizeof repaired);
        json_object_set_new(ev, "volatile_uncorrected", gd_json_value(vol));
        json_object_set_new(ev, "aggregate_uncorrected", gd_json_value(agg));
        json_object_set_new(ev, "remapped_rows_pending", gd_json_value(gpu->remap_pending));
        json_object_set_new(ev, "remapped_rows_uncorrectable", gd_json_value(gpu->remap_unc_rows));
        json_object_set_new(ev, "retired_pages_pending", gd_json_value(gpu->retired_pages_pending));
        json_object_set_new(ev, "repaired", repaired[0] ? json_string(repaired) : json_null());
        json_object_set_new(ev, "source",
                            json_string(repaired[0] ? "nvml:nvmlDeviceGetTotalEccErrors,nvmlDeviceGetRemappedRows,"
                                                      "nvmlDeviceGetRetiredPages,"
                                                      "nvmlDeviceGetRetiredPagesPendingStatus"
                                                    : "nvml:nvmlDeviceGetTotalEccErrors"));
        char fix[768];
        ecc_fix(gpu, now, repaired, fix, sizeof fix);
        /* Both counts: 1 since the driver loaded reads very differently next to 7627 in its lifetime. */
        char counts[160];
        if (gd_ok(vol) && gd_ok(agg))
            snprintf(counts, sizeof counts,
                     "%.0f uncorrectable ECC error%s in its lifetime, %.0f since the driver loaded", agg.v,
                     agg.v == 1 ? "" : "s", vol.v);
        else if (gd_ok(agg))
            snprintf(counts, sizeof counts, "%.0f uncorrectable ECC error%s in its lifetime", agg.v,
                     agg.v == 1 ? "" : "s");
        else
            snprintf(counts, sizeof counts, "%.0f uncorrectable ECC error%s since the driver loaded", vol.v,
                     vol.v == 1 ? "" : "s");
        gd_severity sev = now ? GD_SEV_CRITICAL : repaired[0] ? GD_SEV_INFO : GD_SEV_WARNING;
        char history[96] = "";
        if (repaired[0])
            snprintf(history, sizeof history, "; %s, nothing pending: history", repaired);
        gd_finding_add(out, id, sev, gpu->index, ev, NAN, fix, "GPU %d has %s%s%s", gpu->index, counts, said, history);
    }
}

/* The worst memory-repair state of one GPU, or NULL when healthy. */
static const char *remap_state(const gd_gpu *gpu, gd_severity *sev, double retired)
{
    if (gd_ok(gpu->remap_failure) && gpu->remap_failure.v > 0)
        return *sev = GD_SEV_CRITICAL, "row remapping failed: the memory cannot be repaired";
    if (gd_ok(gpu->remap_pending) && gpu->remap_pending.v > 0)
        return *sev = GD_SEV_CRITICAL, "row remapping pending: needs a GPU reset";
    if (gd_ok(gpu->remap_unc_rows) && gpu->remap_unc_rows.v >= GD_REMAP_UNC_ROWS_FAIL)
        return *sev = GD_SEV_CRITICAL, "too many rows remapped for uncorrectable errors";
    if (gd_ok(gpu->retired_pages_pending) && gpu->retired_pages_pending.v > 0)
        return *sev = GD_SEV_CRITICAL, "page retirement pending: needs a GPU reset";
    if (retired >= GD_RETIRED_PAGES_FAIL)
        return *sev = GD_SEV_CRITICAL, "retired pages at DCGM's failure limit";
    if (retired >= GD_RETIRED_PAGES_WARN)
        return *sev = GD_SEV_WARNING, "many retired pages";
    return NULL;
}

void gd_check_row_remap(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    static const char id[] = "health.row_remap";
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        bool remap = gd_ok(gpu->remap_pending) || gd_ok(gpu->remap_failure);
        bool pages = gd_ok(gpu->retired_pages_sbe) || gd_ok(gpu->retired_pages_dbe);
        if (!remap && !pages) {
            if (!gpu->lost)
                gd_skip_add(out, id, gpu->index, "neither row remapping nor page retirement is reported (%s)",
                            gd_status_name((gd_status)gpu->remap_pending.status));
            continue;
        }
        double retired = (gd_ok(gpu->retired_pages_sbe) ? gpu->retired_pages_sbe.v : 0) +
                         (gd_ok(gpu->retired_pages_dbe) ? gpu->retired_pages_dbe.v : 0);
        gd_severity sev;
        const char *what = remap_state(gpu, &sev, retired);
        if (!what)
            continue;
        json_t *ev = json_object();
        json_object_set_new(ev, "remapped_rows_pending", gd_json_value(gpu->remap_pending));
        json_object_set_new(ev, "remap_failure", gd_json_value(gpu->remap_failure));
        json_object_set_new(ev, "remapped_rows_uncorrectable", gd_json_value(gpu->remap_unc_rows));
        json_object_set_new(ev, "remapped_rows_correctable", gd_json_value(gpu->remap_corr_rows));
        json_object_set_new(ev, "retired_pages", pages ? gd_json_number(retired) : json_null());
        json_object_set_new(ev, "retired_pages_pending", gd_json_value(gpu->retired_pages_pending));
        /* The calls that answered: the pending retirement is a call of its own. */
        json_object_set_new(ev, "source",
                            json_string(gd_ok(gpu->retired_pages_pending)
                                            ? "nvml:nvmlDeviceGetRemappedRows,nvmlDeviceGetRetiredPages,"
                                              "nvmlDeviceGetRetiredPagesPendingStatus"
                                            : "nvml:nvmlDeviceGetRemappedRows,nvmlDeviceGetRetiredPages"));
        bool failed = (gd_ok(gpu->remap_failure) && gpu->remap_failure.v > 0) || retired >= GD_RETIRED_PAGES_FAIL ||
                      (gd_ok(gpu->remap_unc_rows) && gpu->remap_unc_rows.v >= GD_REMAP_UNC_ROWS_FAIL);
        char fix[768];
        if (failed)
            snprintf(fix, sizeof fix,
                     "The GPU has run out of spare memory rows or pages (DCGM fails it). Drain it, take it out of "
                     "service and open an RMA with serial %s ('nvidia-smi -q -d ROW_REMAPPER,PAGE_RETIREMENT -i %d' "
                     "for the ticket).",
                     gpu->serial[0] ? gpu->serial : "from 'nvidia-smi -q'", gpu->index);
        else if (sev == GD_SEV_CRITICAL)
            snprintf(fix, sizeof fix,
                     "A memory repair waits for a GPU reset; until then the bad memory stays in use and further "
                     "errors can kill jobs. Drain the GPU and reset it: 'sudo nvidia-smi -r -i %d' (or reboot). "
                     "Recheck afterwards.",
                     gpu->index);
        else
            snprintf(fix, sizeof fix,
                     "%.0f pages retired (DCGM warns from %d, fails at %d). Watch the count after each job; "
                     "plan an RMA if it keeps rising.",
                     retired, GD_RETIRED_PAGES_WARN, GD_RETIRED_PAGES_FAIL);
        static const char *const page_names[] = {"retired_pages_dbe", "retired_pages_sbe", NULL};
        static const char *const row_names[] = {"remap_unc_rows", "remap_corr_rows", NULL};
        char said[96], rows[96];
        session_rise(f, g, page_names, "retired page", ev, said, sizeof said);
        if (!said[0]) {
            session_rise(f, g, row_names, "remapped row", ev, rows, sizeof rows);
            snprintf(said, sizeof said, "%s", rows);
        }
        if (strstr(what, "retired pages"))
            gd_finding_add(out, id, sev, gpu->index, ev, NAN, fix,
                           "GPU %d: %.0f retired pages (DCGM warns from %d, fails at %d)%s", gpu->index, retired,
                           GD_RETIRED_PAGES_WARN, GD_RETIRED_PAGES_FAIL, said);
        else
            gd_finding_add(out, id, sev, gpu->index, ev, NAN, fix, "GPU %d: %s%s", gpu->index, what, said);
    }
}
