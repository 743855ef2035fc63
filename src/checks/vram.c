/* SPDX-License-Identifier: Apache-2.0 */
/* GPU memory: vram.near_full, vram.growing and vram.foreign_process. */
#include "analysis/vram_trend.h"
#include "analysis/window_acc.h"
#include "checks_internal.h"
#include "gpudoctor/stack.h"

#include <stdlib.h>

#define MAX_LISTED 8 /* processes named in evidence */

static json_t *process_json(const gd_process *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "pid", json_integer(p->pid));
    json_object_set_new(o, "name", json_string(p->name[0] ? p->name : "(name not visible)"));
    json_object_set_new(o, "user", p->user[0] ? json_string(p->user) : json_null());
    json_object_set_new(o, "used_mib", gd_json_value(p->used_mib));
    return o;
}

/* What NVML says holds the memory, for the evidence; null when it could not say. */
static json_t *processes_json(const gd_gpu *gpu)
{
    if (!gd_ok(gpu->processes_status))
        return json_null();
    json_t *a = json_array();
    for (size_t i = 0; i < gpu->process_count && i < MAX_LISTED; i++)
        json_array_append_new(a, process_json(&gpu->processes[i]));
    return a;
}

typedef struct fullness {
    size_t valid, loaded, full, critical;
    double max_mib;
} fullness;

static fullness measure_full(const gd_facts *f, size_t g, double total_mib)
{
    fullness x = {0};
    gd_window_acc *tmp;
    const gd_window_acc *acc = gd_window_acc_get(f, &tmp);
    gd_window_picks loaded;
    if (acc) {
        x.valid = gd_stats_of(f, g, GD_M_MEM_USED_MIB, NULL);
        gd_window_acc_stream(acc, f, g, GD_WS_MEM_LOADED, &loaded);
        x.loaded = loaded.n;
        x.max_mib = loaded.n && loaded.max > 0 ? loaded.max : 0;
        x.full = gd_window_acc_mem_at_least(acc, g, GD_VRAM_FULL_FRACTION * total_mib);
        x.critical = gd_window_acc_mem_at_least(acc, g, GD_VRAM_FULL_CRITICAL_FRACTION * total_mib);
    }
    gd_window_acc_free(tmp);
    return x;
}

static bool enough(size_t hits, size_t of)
{
    return hits > 0 && (double)hits >= GD_VRAM_FULL_MIN_SHARE * (double)of;
}

static const char full_fix[] =
    "Memory this full makes PyTorch's caching allocator free its cache and retry (a synchronizing cudaFree; "
    "torch.cuda.memory_stats()['num_alloc_retries'] counts them) and puts the job one longer sequence away "
    "from out-of-memory. Lower the micro-batch and keep the effective batch with gradient accumulation, use "
    "FlashAttention or activation checkpointing, set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
    "against fragmentation, and keep other processes off this GPU. 'gpudoctor vram' tells what fits.";

static const char held_fix[] =
    "Usually nothing to fix: PyTorch's caching allocator keeps freed blocks for reuse, and TensorFlow and "
    "JAX reserve most of the memory at start (XLA_PYTHON_CLIENT_MEM_FRACTION, TF allow_growth), so a full "
    "GPU is normal while a job runs. It matters when it grows to the limit, out-of-memory errors or "
    "allocator retries appear (torch.cuda.memory_stats()['num_alloc_retries']): then lower the micro-batch or "
    "use activation checkpointing. 'gpudoctor vram' tells what fits.";

/* GPU g's memory trend over the window (the window's running statistics);
 * false with fewer memory samples than a trend needs. */
static bool memory_trend(const gd_facts *f, size_t g, gd_vram_trend *tr)
{
    gd_window_acc *tmp;
    const gd_window_acc *a = gd_window_acc_get(f, &tmp);
    gd_stats st;
    bool ok = a && gd_window_acc_stats(a, f, g, GD_M_MEM_USED_MIB, &st) >= GD_VRAM_GROW_MIN_SAMPLES &&
              gd_window_acc_memory_trend(a, g, tr) == 0;
    gd_window_acc_free(tmp);
    return ok;
}

/* Evidence that a full GPU is short of memory, not just holding it: the
 * use rising to the limit over the window, or an Xid the driver logs when a
 * context runs out (31: MMU fault, 43: a channel killed). Adds what it found
 * to ev; returns true when there is some. */
static bool memory_pressure(const gd_facts *f, size_t g, json_t *ev)
{
    bool found = false;
    gd_vram_trend tr;
    if (memory_trend(f, g, &tr) && gd_vram_is_growing(&tr, f->gpus[g].mem_total_mib.v)) {
        json_object_set_new(ev, "growing_mib_per_s", gd_json_number(round(tr.slope * 10) / 10));
        found = true;
    }
    const struct gd_stack_facts *st = f->stack;
    json_t *xids = json_array();
    for (size_t i = 0; st && i < st->xid_group_count; i++)
        if (st->xid_groups[i].gpu == f->gpus[g].index && (st->xid_groups[i].xid == 31 || st->xid_groups[i].xid == 43))
            json_array_append_new(xids, json_integer(st->xid_groups[i].xid));
    if (json_array_size(xids)) {
        json_object_set_new(ev, "oom_xids", xids);
        found = true;
    } else {
        json_decref(xids);
    }
    return found;
}

void gd_check_vram_near_full(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (!gd_ok(gpu->mem_total_mib) || gpu->mem_total_mib.v <= 0) {
            gd_skip_add(out, "vram.near_full", gpu->index, "total memory not readable (%s)",
                        gd_status_name((gd_status)gpu->mem_total_mib.status));
            continue;
        }
        double total = gpu->mem_total_mib.v;
        fullness x = measure_full(f, g, total);
        if (x.valid == 0 && !gpu->lost) {
            gd_skip_add(out, "vram.near_full", gpu->index, "memory use not readable");
            continue;
        }
        if (!enough(x.full, x.loaded))
            continue; /* idle GPUs are not judged: vram.near_full is about memory under load */
        json_t *ev = json_object();
        json_object_set_new(ev, "used_mib_max", gd_json_number(round(x.max_mib)));
        json_object_set_new(ev, "total_mib", gd_json_number(total));
        json_object_set_new(ev, "used_pct_max", gd_json_number(round(1000 * x.max_mib / total) / 10));
        json_object_set_new(ev, "full_pct_of_loaded_time",
                            gd_json_number(round(1000.0 * (double)x.full / (double)x.loaded) / 10));
        json_object_set_new(ev, "threshold_pct", gd_json_number(100 * GD_VRAM_FULL_FRACTION));
        bool pressure = memory_pressure(f, g, ev);
        json_object_set_new(ev, "pressure", json_boolean(pressure));
        json_object_set_new(ev, "processes", processes_json(gpu));
        json_object_set_new(ev, "source",
                            json_string("nvml:nvmlDeviceGetMemoryInfo,nvmlDeviceGetComputeRunningProcesses"));
        /* Frameworks hold memory on purpose; only pressure makes it a problem. */
        gd_finding_add(out, "vram.near_full", pressure ? GD_SEV_WARNING : GD_SEV_INFO, gpu->index, ev, NAN,
                       pressure ? full_fix : held_fix, "GPU %d memory %s: %.0f of %.0f MiB used (%.1f%%) under load%s",
                       gpu->index, enough(x.critical, x.loaded) ? "full" : "nearly full", x.max_mib, total,
                       100 * x.max_mib / total, pressure ? ", and short of it" : " (held by the job's allocator?)");
    }
}

bool gd_vram_is_growing(const gd_vram_trend *tr, double total_mib)
{
    double min_rise = fmax(GD_VRAM_GROW_MIN_RISE_MIB, GD_VRAM_GROW_MIN_RISE_SHARE * total_mib);
    return tr->n >= GD_VRAM_GROW_MIN_SAMPLES && tr->steady && !tr->one_step && tr->slope > 0 && tr->rise >= min_rise &&
           tr->r2 >= GD_VRAM_GROW_MIN_R2;
}

static void report_growth(const gd_gpu *gpu, const gd_vram_trend *tr, double last_mib, gd_findings *out)
{
    double total = gpu->mem_total_mib.v;
    double left_s = total > last_mib ? (total - last_mib) / tr->slope : 0;
    json_t *ev = json_object();
    json_object_set_new(ev, "rate_mib_per_s", gd_json_number(round(tr->slope * 10) / 10));
    json_object_set_new(ev, "rise_mib", gd_json_number(round(tr->rise)));
    json_object_set_new(ev, "window_s", gd_json_number(round(tr->span * 10) / 10));
    json_object_set_new(ev, "used_mib_last", gd_json_number(round(last_mib)));
    json_object_set_new(ev, "total_mib", gd_json_number(total));
    json_object_set_new(ev, "seconds_until_full", gd_json_number(round(left_s)));
    json_object_set_new(ev, "fit_r2", gd_json_number(round(tr->r2 * 1000) / 1000));
    json_object_set_new(ev, "fit", json_string("Theil-Sen slope over the window"));
    json_object_set_new(ev, "processes", processes_json(gpu));
    json_object_set_new(ev, "source", json_string("nvml:nvmlDeviceGetMemoryInfo"));
    gd_finding_add(out, "vram.growing", left_s <= GD_VRAM_GROW_CRITICAL_S ? GD_SEV_CRITICAL : GD_SEV_WARNING,
                   gpu->index, ev, NAN, NULL,
                   "GPU %d memory keeps growing: +%.1f MiB/s, full in about %.0f s at this rate", gpu->index, tr->slope,
                   left_s);
}

void gd_check_vram_growing(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        gd_stats used;
        size_t n = gd_stats_of(f, g, GD_M_MEM_USED_MIB, &used);
        gd_vram_trend tr;
        if (n < GD_VRAM_GROW_MIN_SAMPLES || !gd_ok(gpu->mem_total_mib)) {
            if (!gpu->lost)
                gd_skip_add(out, "vram.growing", gpu->index, "%zu memory sample%s (a trend needs %d)%s", n,
                            n == 1 ? "" : "s", GD_VRAM_GROW_MIN_SAMPLES,
                            gd_ok(gpu->mem_total_mib) ? ": use a longer --duration" : ", total memory unknown");
            continue;
        }
        if (memory_trend(f, g, &tr) && gd_vram_is_growing(&tr, gpu->mem_total_mib.v))
            report_growth(gpu, &tr, used.last, out);
    }
}

static bool holds_job(const gd_gpu *gpu, long pid)
{
    for (size_t i = 0; gd_ok(gpu->processes_status) && i < gpu->process_count; i++)
        if ((long)gpu->processes[i].pid == pid)
            return true;
    return false;
}

/* NVML's process list is missing, or empty while memory is in use: inside a
 * container NVML shows host pids or none at all, so say so instead of guessing. */
static bool list_unusable(const gd_facts *f, size_t g, gd_findings *out, const char *check)
{
    const gd_gpu *gpu = &f->gpus[g];
    long last = gd_last_valid(f, g, GD_M_MEM_USED_MIB);
    double used = last >= 0 ? gd_series_at(&f->series, (size_t)last, g, GD_M_MEM_USED_MIB).v : NAN;
    if (!gd_ok(gpu->processes_status)) {
        gd_skip_add(out, check, gpu->index,
                    "NVML's process list is not available (%s): inside a container it may show no process or only "
                    "host pids; run 'nvidia-smi' on the host to see who holds the memory",
                    gd_status_name((gd_status)gpu->processes_status.status));
        return true;
    }
    if (gpu->process_count == 0 && used >= GD_VRAM_UNLISTED_MIB) {
        gd_skip_add(out, check, gpu->index,
                    "%.0f MiB in use but NVML lists no process: inside a container NVML shows host pids or none "
                    "at all; run 'nvidia-smi' on the host to see who holds it",
                    used);
        return true;
    }
    return false;
}

static void report_foreign(const gd_facts *f, const gd_gpu *gpu, gd_findings *out)
{
    json_t *others = json_array();
    double foreign_mib = 0;
    size_t n = 0;
    const gd_process *first = NULL;
    for (size_t i = 0; i < gpu->process_count; i++) {
        const gd_process *p = &gpu->processes[i];
        if ((long)p->pid == f->pid)
            continue;
        if (!first)
            first = p;
        if (n++ < MAX_LISTED)
            json_array_append_new(others, process_json(p));
        if (gd_ok(p->used_mib))
            foreign_mib += p->used_mib.v;
    }
    json_t *ev = json_object();
    json_object_set_new(ev, "job_pid", json_integer(f->pid));
    json_object_set_new(ev, "foreign_processes", others);
    json_object_set_new(ev, "foreign_used_mib", gd_json_number(round(foreign_mib)));
    json_object_set_new(ev, "total_mib", gd_json_value(gpu->mem_total_mib));
    json_object_set_new(ev, "note", json_string("pids as NVML reports them: host pids when run inside a container"));
    json_object_set_new(ev, "source", json_string("nvml:nvmlDeviceGetComputeRunningProcesses"));
    char owner[80] = "";
    if (first->user[0])
        snprintf(owner, sizeof owner, ", user %s", first->user);
    gd_finding_add(out, "vram.foreign_process", GD_SEV_WARNING, gpu->index, ev, NAN, NULL,
                   "GPU %d: %zu other process%s beside the job hold%s %.0f MiB (pid %u %s%s%s)", gpu->index, n,
                   n == 1 ? "" : "es", n == 1 ? "s" : "", foreign_mib, first->pid,
                   first->name[0] ? first->name : "(name not visible)", owner, n > 1 ? ", ..." : "");
}

void gd_check_vram_foreign_process(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    if (f->gpu_count == 0)
        return;
    size_t job_gpus = 0, judged = 0;
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (list_unusable(f, g, out, "vram.foreign_process"))
            continue;
        judged++;
        if (!holds_job(gpu, f->pid))
            continue;
        job_gpus++;
        if (gpu->process_count > 1)
            report_foreign(f, gpu, out);
    }
    if (judged > 0 && job_gpus == 0)
        gd_skip_add(out, "vram.foreign_process", GD_NO_GPU,
                    "pid %ld holds memory on no GPU that NVML lists: in a container NVML reports host pids "
                    "(the NSpid line of /proc/%ld/status maps them), and under torchrun the GPU work runs in "
                    "child processes: give a worker's pid",
                    f->pid, f->pid);
}
