/* SPDX-License-Identifier: Apache-2.0 */
/* Memory health: health.ecc_uncorrectable and health.row_remap (row
 * remapping on Ampere and newer, page retirement before). Thresholds: DCGM
 * (common/DcgmGPUHardwareLimits.h), see thresholds.h. */
#include "checks_internal.h"

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
        json_t *ev = json_object();
        json_object_set_new(ev, "volatile_uncorrected", gd_json_value(vol));
        json_object_set_new(ev, "aggregate_uncorrected", gd_json_value(agg));
        json_object_set_new(ev, "remapped_rows_pending", gd_json_value(gpu->remap_pending));
        json_object_set_new(ev, "source", json_string("nvml:nvmlDeviceGetTotalEccErrors"));
        char fix[768];
        snprintf(fix, sizeof fix,
                 "%sLook for Xid 48/63/94/95 in 'dmesg -T | grep -i xid' and check 'nvidia-smi -q -d "
                 "ECC,ROW_REMAPPER,PAGE_RETIREMENT -i %d'. Drain the GPU and reset it ('nvidia-smi -r -i %d') "
                 "so pending remaps take effect; if errors come back or remapping failed, open an RMA with "
                 "serial %s.",
                 now ? "Uncorrectable errors since the driver loaded: the job on this GPU may have computed "
                       "with bad data or been killed. "
                     : "Uncorrectable errors in the GPU's lifetime (none since the driver loaded). ",
                 gpu->index, gpu->index, gpu->serial[0] ? gpu->serial : "from 'nvidia-smi -q'");
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
        gd_finding_add(out, id, now ? GD_SEV_CRITICAL : GD_SEV_WARNING, gpu->index, ev, NAN, fix, "GPU %d has %s",
                       gpu->index, counts);
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
        json_object_set_new(ev, "source", json_string("nvml:nvmlDeviceGetRemappedRows,nvmlDeviceGetRetiredPages"));
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
        if (strstr(what, "retired pages"))
            gd_finding_add(out, id, sev, gpu->index, ev, NAN, fix,
                           "GPU %d: %.0f retired pages (DCGM warns from %d, fails at %d)", gpu->index, retired,
                           GD_RETIRED_PAGES_WARN, GD_RETIRED_PAGES_FAIL);
        else
            gd_finding_add(out, id, sev, gpu->index, ev, NAN, fix, "GPU %d: %s", gpu->index, what);
    }
}
