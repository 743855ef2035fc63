/* SPDX-License-Identifier: Apache-2.0 */
/* gpu.underutilized: memory held by a process, the GPU mostly idle. */
#include "analysis/window_acc.h"
#include "analysis/job_tree.h"
#include "checks_internal.h"

#include <stdlib.h>

typedef struct busy {
    size_t valid, low;
    double sum_pct, first_t, last_t, max_used_mib;
} busy;

static busy measure_busy(const gd_facts *f, size_t g)
{
    busy b = {.first_t = NAN, .last_t = NAN};
    gd_window_acc *tmp;
    const gd_window_acc *acc = gd_window_acc_get(f, &tmp);
    gd_stats u, m;
    uint64_t first, last;
    if (acc && gd_window_acc_stats(acc, f, g, GD_M_UTIL_GPU_PCT, &u) > 0 &&
        gd_window_acc_valid_span(acc, g, GD_M_UTIL_GPU_PCT, &first, &last)) {
        gd_window_picks low;
        gd_window_acc_stream(acc, f, g, GD_WS_UTIL_LOW, &low);
        b.valid = u.n;
        b.sum_pct = u.sum;
        b.low = low.n;
        b.first_t = gd_series_t(&f->series, (size_t)(first - f->series.dropped));
        b.last_t = gd_series_t(&f->series, (size_t)(last - f->series.dropped));
    }
    if (acc && gd_window_acc_stats(acc, f, g, GD_M_MEM_USED_MIB, &m) > 0 && m.max > 0)
        b.max_used_mib = m.max;
    gd_window_acc_free(tmp);
    return b;
}

/* The process holding the most memory, or NULL. */
static const gd_process *main_holder(const gd_gpu *gpu)
{
    const gd_process *best = NULL;
    for (size_t i = 0; i < gpu->process_count; i++) {
        const gd_process *p = &gpu->processes[i];
        if (!best || (gd_ok(p->used_mib) && (!gd_ok(best->used_mib) || p->used_mib.v > best->used_mib.v)))
            best = p;
    }
    return best;
}

/* What to do depends on where it is read: inside `run --profile` the causes
 * ranked above name the wait; inside `run` or `check --pid` the job's own
 * findings do, or a profile must; elsewhere the job is not watched yet. */
#define WAITS                                                                                                          \
    "A process holds this GPU's memory but keeps it busy only part of the time: the GPU waits for its input, for "     \
    "the host, or for other ranks. "
#define COMMON_FIXES                                                                                                   \
    " Common fixes: DataLoader num_workers near the cores per GPU, pin_memory=True, persistent_workers=True, a "       \
    "larger prefetch_factor, faster storage."
static const gd_fix_case fixes[] = {
    {GD_AT_BIT(GD_AT_PROFILE), 0,
     WAITS "Where the job's threads or its profiled steps showed the wait, another cause ranked under the verdict "
           "names it, with its fix; where none does, keep the profiled steps' trace ('--profile-dir DIR') and read it "
           "with 'gpudoctor trace DIR': it shows where each step's time goes." COMMON_FIXES},
    {GD_AT_JOB, 0,
     WAITS "The job's own findings in this report (input.*: its threads, disk waits and DataLoader workers) name an "
           "input bottleneck where there is one; where none does, profile a few steps: 'gpudoctor run --profile -- "
           "COMMAND' for a PyTorch job, or a torch.profiler trace and 'gpudoctor trace DIR'." COMMON_FIXES},
    {GD_AT_ANY, 0,
     WAITS "Find out which: 'gpudoctor check --pid PID' (the pid above) or 'gpudoctor run -- python train.py' watch "
           "the job's threads, disk waits and data loader workers beside the GPU and name an input bottleneck; a "
           "PyTorch profiler trace ('torch.profiler', then 'gpudoctor trace DIR') shows where each step's time "
           "goes." COMMON_FIXES},
};

void gd_check_gpu_underutilized(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const char *fix_text = GD_FIX_PICK(fixes, f, out, GD_SEV_WARNING);
    /* In a container NVML lists no process: a GPU linked to the job by other
     * evidence (its device file, visible devices, its memory) is held by the job. */
    gd_link_rule *rule = f->job ? calloc(f->gpu_count + 1, sizeof *rule) : NULL;
    char *why = rule ? calloc(f->gpu_count + 1, GD_LINK_WHY_LEN) : NULL;
    if (rule && why)
        gd_job_link(f, rule, why, GD_LINK_WHY_LEN);
    for (size_t g = 0; g < f->gpu_count && f->series.n > 0; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        bool by_job = rule && why && gpu->process_count == 0 && rule[g] != GD_LINK_NONE;
        if (gpu->lost || !gd_ok(gpu->processes_status) || (gpu->process_count == 0 && !by_job))
            continue; /* an idle GPU with no process is no finding */
        busy b = measure_busy(f, g);
        if (b.max_used_mib < GD_UNDERUSED_MIN_MIB)
            continue;
        gd_value u0 = gd_series_at(&f->series, 0, g, GD_M_UTIL_GPU_PCT);
        bool mig = gd_ok(gpu->mig_mode) && gpu->mig_mode.v != 0;
        if (b.valid == 0 && (mig || gd_not_reported(u0))) {
            /* No duration helps: the driver does not give the number at all. */
            gd_skip_add(out, "gpu.underutilized", gpu->index,
                        mig ? "GPU %d is in MIG mode: NVML reports no whole-GPU utilisation there (%s), so idleness "
                              "cannot be judged; per-instance activity needs DCGM's profiling metrics"
                            : "GPU %d's utilisation is not reported by its driver (%s), so idleness cannot be judged",
                        gpu->index, gd_status_name((gd_status)u0.status));
            continue;
        }
        if (b.valid < GD_UNDERUSED_MIN_SAMPLES || b.last_t - b.first_t < GD_UNDERUSED_MIN_S) {
            gd_skip_add(out, "gpu.underutilized", gpu->index,
                        "%zu utilisation sample%s over %.1f s (judging needs %d over %.0f s): use a longer --duration",
                        b.valid, b.valid == 1 ? "" : "s", b.valid ? b.last_t - b.first_t : 0.0,
                        GD_UNDERUSED_MIN_SAMPLES, GD_UNDERUSED_MIN_S);
            continue;
        }
        double low_share = (double)b.low / (double)b.valid;
        if (low_share < GD_UNDERUSED_MIN_SHARE)
            continue;
        double busy_pct = b.sum_pct / (double)b.valid;
        json_t *ev = json_object();
        if (by_job) {
            json_object_set_new(ev, "busy_pct_mean", gd_json_number(round(busy_pct * 10) / 10));
            json_object_set_new(ev, "low_pct", gd_json_number(round(low_share * 1000) / 10));
            json_object_set_new(ev, "low_below_pct", gd_json_number(GD_LOADED_UTIL_PCT));
            json_object_set_new(ev, "samples", json_integer((json_int_t)b.valid));
            json_object_set_new(ev, "mem_used_mib_max", gd_json_number(b.max_used_mib));
            json_object_set_new(ev, "pid", json_integer(f->job->pid));
            json_object_set_new(ev, "processes", json_integer(0));
            json_object_set_new(ev, "linked_by", json_string(gd_link_rule_key(rule[g])));
            json_object_set_new(ev, "linked", json_string(why + g * GD_LINK_WHY_LEN));
            json_object_set_new(ev, "source",
                                json_string("nvml:nvmlDeviceGetUtilizationRates, "
                                            "nvmlDeviceGetMemoryInfo; the job's /proc"));
            gd_finding_add(out, "gpu.underutilized", GD_SEV_WARNING, gpu->index, ev, NAN, fix_text,
                           "GPU %d busy %.0f%% on average, below %.0f%% in %.0f%% of the window, while the job (pid "
                           "%ld) holds %.0f MiB; NVML lists no process (%s)",
                           gpu->index, busy_pct, GD_LOADED_UTIL_PCT, low_share * 100, f->job->pid, b.max_used_mib,
                           gd_link_rule_key(rule[g]));
            continue;
        }
        const gd_process *p = main_holder(gpu);
        json_object_set_new(ev, "busy_pct_mean", gd_json_number(round(busy_pct * 10) / 10));
        json_object_set_new(ev, "low_pct", gd_json_number(round(low_share * 1000) / 10));
        json_object_set_new(ev, "low_below_pct", gd_json_number(GD_LOADED_UTIL_PCT));
        json_object_set_new(ev, "samples", json_integer((json_int_t)b.valid));
        json_object_set_new(ev, "mem_used_mib_max", gd_json_number(b.max_used_mib));
        json_object_set_new(ev, "pid", json_integer(p->pid));
        json_object_set_new(ev, "process", json_string(p->name[0] ? p->name : "(name not visible)"));
        json_object_set_new(ev, "process_used_mib", gd_json_value(p->used_mib));
        json_object_set_new(ev, "processes", json_integer((json_int_t)gpu->process_count));
        json_object_set_new(ev, "source",
                            json_string("nvml:nvmlDeviceGetUtilizationRates, "
                                        "nvmlDeviceGetComputeRunningProcesses"));
        gd_finding_add(out, "gpu.underutilized", GD_SEV_WARNING, gpu->index, ev, NAN, fix_text,
                       "GPU %d busy %.0f%% on average, below %.0f%% in %.0f%% of the window, while pid %u (%s) "
                       "holds %.0f MiB",
                       gpu->index, busy_pct, GD_LOADED_UTIL_PCT, low_share * 100, p->pid,
                       p->name[0] ? p->name : "name not visible", gd_ok(p->used_mib) ? p->used_mib.v : b.max_used_mib);
    }
    free(rule);
    free(why);
}
