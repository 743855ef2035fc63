/* SPDX-License-Identifier: Apache-2.0 */
/* The job's input side: input.starved, input.single_thread, input.io_wait. */
#include "analysis/window_acc.h"
#include "checks_internal.h"
#include "input_job.h"

#include <stdlib.h>

gpu_wait gd_input_gpu_wait(const gd_facts *f)
{
    gpu_wait w = {0};
    gd_link_rule *rule = calloc(f->gpu_count + 1, sizeof *rule);
    char *why = calloc(f->gpu_count + 1, GD_LINK_WHY_LEN);
    if (!rule || !why) {
        free(rule);
        free(why);
        return w;
    }
    w.linked = gd_job_link(f, rule, why, GD_LINK_WHY_LEN);
    for (size_t g = 0; g < f->gpu_count; g++) {
        if (rule[g] == GD_LINK_NONE)
            continue;
        w.by_pid |= rule[g] == GD_LINK_NVML_PID;
        if (w.rule == GD_LINK_NONE) {
            w.rule = rule[g];
            snprintf(w.why, sizeof w.why, "%s", why + g * GD_LINK_WHY_LEN);
        }
        gd_window_acc *tmp;
        const gd_window_acc *acc = gd_window_acc_get(f, &tmp);
        gd_stats u = {0};
        gd_window_picks lows = {0};
        if (acc && gd_window_acc_stats(acc, f, g, GD_M_UTIL_GPU_PCT, &u) > 0)
            gd_window_acc_stream(acc, f, g, GD_WS_UTIL_LOW, &lows);
        gd_window_acc_free(tmp);
        size_t n = u.n, low = lows.n;
        double sum = u.sum;
        if (n == 0)
            continue;
        w.gpus++;
        w.low_share += (double)low / (double)n;
        w.busy_pct += sum / (double)n;
    }
    free(rule);
    free(why);
    if (w.gpus) {
        w.low_share /= (double)w.gpus;
        w.busy_pct /= (double)w.gpus;
    }
    return w;
}

bool gd_input_gpus_known(const gd_facts *f, const char *id, const gpu_wait *w, gd_findings *out)
{
    if (w->gpus > 0)
        return true;
    char why[400];
    if (f->gpu_count == 0)
        snprintf(why, sizeof why, "no GPU was read: whether the job's GPUs wait is not known");
    else if (w->linked > 0)
        snprintf(why, sizeof why, "the utilisation of the job's GPUs was not readable (%s)", w->why);
    else
        gd_job_link_none(f, why, sizeof why);
    gd_skip_add(out, id, GD_NO_GPU, "%s", why);
    return false;
}

gd_job_role *gd_input_roles(const gd_facts *f)
{
    if (f->job->proc_count == 0) /* no process table (facts of an older recording): every thread counts */
        return NULL;
    gd_job_role *roles = calloc(f->job->proc_count + 1, sizeof *roles);
    if (roles)
        gd_job_roles(f, roles);
    return roles;
}

void gd_input_name_proc(const gd_facts *f, const gd_job_role *roles, int pid, char *buf, size_t len)
{
    const gd_job_facts *j = f->job;
    for (size_t i = 0; i < j->proc_count; i++) {
        const gd_job_proc *p = &j->procs[i];
        if (p->pid != pid)
            continue;
        char rank[32] = "";
        if (p->rank >= 0)
            snprintf(rank, sizeof rank, ", rank %d", p->rank);
        snprintf(buf, len, "the %s pid %d (%s%s)", gd_job_role_name(roles ? roles[i] : GD_ROLE_NONE), pid,
                 p->prog[0] ? p->prog : p->comm, rank);
        return;
    }
    snprintf(buf, len, "pid %d", pid);
}

/* The time the job was alive in its samples: false when never. */
static bool job_alive_span(const gd_job_facts *j, double *t0, double *t1)
{
    bool any = false;
    for (size_t i = 0; i < j->n; i++) {
        const gd_job_sample *s = gd_job_at(j, i);
        if (s->threads == 0)
            continue;
        if (!any)
            *t0 = s->t;
        *t1 = s->t;
        any = true;
    }
    return any;
}

/* The host's samples while the job was alive: [*from, *from + *n). */
static void host_while_alive(const gd_facts *f, const gd_job_facts *j, size_t *from, size_t *n)
{
    const gd_host_series *hs = &f->host_series;
    double t0 = 0, t1 = -1;
    *from = *n = 0;
    if (!job_alive_span(j, &t0, &t1))
        return;
    while (*from < hs->n && gd_host_at(hs, *from)->t < t0 - 1e-9)
        (*from)++;
    while (*from + *n < hs->n && gd_host_at(hs, *from + *n)->t <= t1 + 1e-9)
        (*n)++;
}

host_side gd_input_host_side(const gd_facts *f, const gd_job_facts *j)
{
    host_side h = {0};
    for (size_t i = 0; i < j->n; i++) {
        const gd_job_sample *s = gd_job_at(j, i);
        if (s->threads == 0)
            continue;
        h.n++;
        h.with_d += s->disk_wait > 0;
        h.running += s->running;
        if (!isnan(s->job_cores))
            h.cores += s->job_cores, h.cores_n++;
    }
    size_t from, n;
    host_while_alive(f, j, &from, &n);
    for (size_t i = from; i < from + n; i++) {
        const gd_host_sample *s = gd_host_at(&f->host_series, i);
        if (!isnan(s->busy))
            h.host_busy += s->busy, h.host_n++;
        if (!isnan(s->iowait))
            h.iowait += s->iowait, h.iowait_n++;
        if (!isnan(s->psi_io))
            h.psi_io += s->psi_io, h.psi_n++;
    }
    h.running = h.n ? h.running / (double)h.n : NAN;
    h.cores = h.cores_n ? h.cores / (double)h.cores_n : NAN;
    h.host_busy = h.host_n ? h.host_busy / (double)h.host_n : NAN;
    h.iowait = h.iowait_n ? h.iowait / (double)h.iowait_n : NAN;
    h.psi_io = h.psi_n ? h.psi_io / (double)h.psi_n : NAN;
    return h;
}

const gd_job_facts *gd_input_job_of(const gd_facts *f, const char *id, gd_findings *out)
{
    const gd_job_facts *j = f->job;
    if (!j || !j->read) {
        gd_skip_add(out, id, GD_NO_GPU, "%s", j && j->error[0] ? j->error : "the job's /proc was not sampled");
        return NULL;
    }
    size_t alive = gd_input_host_side(f, j).n;
    if (alive < GD_INPUT_MIN_SAMPLES) {
        gd_skip_add(out, id, GD_NO_GPU, "%zu sample%s of the job (judging needs %d): use a longer --duration%s", alive,
                    alive == 1 ? "" : "s", GD_INPUT_MIN_SAMPLES, j->ended ? " (the job ended early)" : "");
        return NULL;
    }
    return j;
}

json_t *gd_input_evidence(const gd_facts *f, const gpu_wait *w, const host_side *h)
{
    const gd_job_facts *j = f->job;
    json_t *ev = json_object();
    json_object_set_new(ev, "pid", json_integer(j->pid));
    json_object_set_new(ev, "comm", json_string(j->comm));
    json_object_set_new(ev, "gpus_judged", json_integer((json_int_t)w->gpus));
    json_object_set_new(ev, "gpus_found_by", json_string(gd_link_rule_key(w->rule)));
    json_object_set_new(ev, "gpus_linked", json_string(w->why));
    json_object_set_new(ev, "gpu_busy_pct_mean", gd_json_number(round(w->busy_pct * 10) / 10));
    json_object_set_new(ev, "gpu_low_pct", gd_json_number(round(w->low_share * 1000) / 10));
    json_object_set_new(ev, "job_cores_mean", gd_json_number(round(h->cores * 100) / 100));
    json_object_set_new(ev, "host_busy_pct", gd_json_number(round(h->host_busy * 1000) / 10));
    json_object_set_new(ev, "processes_max", json_integer((json_int_t)j->procs_max));
    json_object_set_new(ev, "job_samples", json_integer((json_int_t)h->n));
    json_object_set_new(ev, "source",
                        json_string("proc:PID/task/TID/stat, /proc/stat; nvml:nvmlDeviceGetUtilizationRates"));
    return ev;
}

bool gd_input_gpu_waits(const gpu_wait *w)
{
    return w->gpus > 0 && w->low_share >= GD_UNDERUSED_MIN_SHARE;
}

static const char single_fix[] =
    "One thread does the host-side work and the GPU waits for it: with PyTorch, usually the DataLoader with "
    "num_workers=0 (loading, decoding and augmentation in the main process) or Python code holding the GIL. "
    "Use DataLoader(num_workers=N) with N near the cores per GPU, pin_memory=True, persistent_workers=True and "
    "prefetch_factor=2-4; move per-sample Python work into the Dataset (run by workers), or onto the GPU "
    "(NVIDIA DALI, torchvision.io.decode_jpeg on cuda).";

/* A thread at a full core most of the time, or one that always wants it:
 * runnable (R) in nearly every sample while other work on the host holds it
 * to part of a core (under half of one, input.cpu_starved names the cause). */
bool gd_input_thread_saturated(const gd_job_thread *t)
{
    if ((double)t->saturated >= GD_INPUT_SATURATED_SHARE * (double)t->measured)
        return true;
    return t->seen && (double)t->running >= GD_INPUT_RUNNABLE_SHARE * (double)t->seen;
}

void gd_check_input_single_thread(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_job_facts *j = gd_input_job_of(f, "input.single_thread", out);
    if (!j)
        return;
    gpu_wait w = gd_input_gpu_wait(f);
    if (!gd_input_gpus_known(f, "input.single_thread", &w, out))
        return;
    gd_job_role *roles = gd_input_roles(f);
    const gd_job_thread *top = NULL;
    for (size_t i = 0; i < j->thread_count; i++) {
        const gd_job_thread *t = &j->threads[i];
        /* A worker's saturated thread is input.few_workers' or input.starved's case. */
        if (roles && gd_job_role_of(f, roles, t->pid) != GD_ROLE_TRAINER)
            continue;
        if (t->measured >= GD_INPUT_MIN_SAMPLES - 1 && gd_input_thread_saturated(t) &&
            (!top || t->busy_sum / t->measured > top->busy_sum / top->measured))
            top = t;
    }
    if (!top || !gd_input_gpu_waits(&w)) {
        free(roles);
        return;
    }
    host_side h = gd_input_host_side(f, j);
    json_t *ev = gd_input_evidence(f, &w, &h);
    double core = top->busy_sum / top->measured;
    char who[160];
    gd_input_name_proc(f, roles, top->pid, who, sizeof who);
    json_object_set_new(ev, "thread_tid", json_integer(top->tid));
    json_object_set_new(ev, "thread_pid", json_integer(top->pid));
    json_object_set_new(ev, "thread_comm", json_string(top->comm));
    json_object_set_new(ev, "thread_process", json_string(who));
    json_object_set_new(ev, "thread_core_share_mean", gd_json_number(round(core * 100) / 100));
    json_object_set_new(ev, "thread_saturated_pct",
                        gd_json_number(round(1000.0 * top->saturated / top->measured) / 10));
    double runnable = top->seen ? (double)top->running / top->seen : 0;
    bool starved = core < GD_INPUT_RUNNABLE_MIN_CORE; /* it wants a core and gets less: other work holds it */
    json_object_set_new(ev, "thread_runnable_pct", gd_json_number(round(runnable * 1000) / 10));
    json_object_set_new(ev, "cause", json_string(starved ? "cpu_starved" : "one_thread"));
    if (starved)
        gd_finding_add(out, "input.single_thread", GD_SEV_WARNING, GD_NO_GPU, ev, NAN, single_fix,
                       "one thread of %s does the input (tid %d), runnable in %.0f%% of the samples but given %.0f%% "
                       "of a core (input.cpu_starved); GPUs busy %.0f%%",
                       who, top->tid, runnable * 100, core * 100, w.busy_pct);
    else
        gd_finding_add(out, "input.single_thread", GD_SEV_WARNING, GD_NO_GPU, ev, NAN, single_fix,
                       "one thread of %s runs at %.0f%% of a core (tid %d, %s) while its GPUs are busy %.0f%%: "
                       "single-threaded input (num_workers=0, or Python holding the GIL)",
                       who, core * 100, top->tid, top->comm, w.busy_pct);
    free(roles);
}

static const char starved_fix[] =
    "The GPU waits for batches the host cannot prepare fast enough: the data pipeline is the bottleneck. Give "
    "the DataLoader more workers (num_workers up to the cores per GPU), pin_memory=True, persistent_workers=True, "
    "a larger prefetch_factor; cache decoded samples, lower the CPU cost per sample (smaller images, simpler "
    "augmentation), or decode on the GPU (NVIDIA DALI); check the job may use all the cores it needs (taskset, "
    "cgroup cpu limits).";

void gd_check_input_starved(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_job_facts *j = gd_input_job_of(f, "input.starved", out);
    if (!j)
        return;
    gpu_wait w = gd_input_gpu_wait(f);
    if (!gd_input_gpus_known(f, "input.starved", &w, out))
        return;
    host_side h = gd_input_host_side(f, j);
    bool busy = (!isnan(h.cores) && h.cores >= GD_STARVED_MIN_CORES) ||
                (!isnan(h.host_busy) && h.host_busy >= GD_STARVED_HOST_BUSY && !isnan(h.cores) &&
                 h.cores >= GD_STARVED_JOB_MIN_CORES);
    if (!busy || !gd_input_gpu_waits(&w))
        return;
    for (size_t i = 0; !(h.cores >= GD_STARVED_MIN_CORES) && i < out->n; i++)
        if (strcmp(out->v[i].id, "input.single_thread") == 0)
            return; /* under two cores, the one saturated thread is the cause: reported there */
    json_t *ev = gd_input_evidence(f, &w, &h);
    json_object_set_new(ev, "affinity_cpus", j->affinity_cpus ? json_integer(j->affinity_cpus) : json_null());
    json_object_set_new(ev, "host_cpus", j->host_cpus ? json_integer(j->host_cpus) : json_null());
    gd_finding_add(out, "input.starved", GD_SEV_WARNING, GD_NO_GPU, ev, NAN, starved_fix,
                   "the job keeps %.1f cores busy while its GPUs are busy %.0f%%: data pipeline bound", h.cores,
                   w.busy_pct);
}

static const char io_fix[] =
    "The job's threads wait on storage (state D, IO pressure): reading the data set is the bottleneck. Put it "
    "on faster local storage (NVMe rather than network or spinning disks), warm the page cache before "
    "training (vmtouch -t, or one epoch read ahead), pack small files into shards (WebDataset, TFRecord, "
    "LMDB), and read in parallel: DataLoader(num_workers=N, prefetch_factor=4, persistent_workers=True).";

void gd_check_input_io_wait(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_job_facts *j = gd_input_job_of(f, "input.io_wait", out);
    if (!j)
        return;
    host_side h = gd_input_host_side(f, j);
    double d_share = (double)h.with_d / (double)h.n;
    bool pressure =
        !isnan(h.psi_io) && h.psi_io >= GD_IOWAIT_PSI_PCT && !isnan(h.iowait) && h.iowait >= GD_IOWAIT_HOST_SHARE;
    if (d_share < GD_IOWAIT_D_SHARE && !pressure)
        return;
    gpu_wait w = gd_input_gpu_wait(f);
    json_t *ev = gd_input_evidence(f, &w, &h);
    json_object_set_new(ev, "disk_wait_pct", gd_json_number(round(d_share * 1000) / 10));
    json_object_set_new(ev, "io_pressure_some_avg10_pct", isnan(h.psi_io) ? json_null() : gd_json_number(h.psi_io));
    json_object_set_new(ev, "host_iowait_pct",
                        isnan(h.iowait) ? json_null() : gd_json_number(round(h.iowait * 1000) / 10));
    gd_finding_add(out, "input.io_wait", GD_SEV_WARNING, GD_NO_GPU, ev, NAN, io_fix,
                   "the job waits on storage: a thread in disk wait in %.0f%% of the samples%s", d_share * 100,
                   pressure ? ", IO pressure high" : "");
}

static const char swap_fix[] =
    "The host swaps while the job runs: pages of the job (or its DataLoader workers) go to disk and back, and "
    "every step waits for them. Lower host memory use: fewer or lighter workers (num_workers, prefetch_factor), "
    "no dataset copies per worker (share read-only arrays, memory-map files), pin_memory only what is copied; "
    "or add RAM. Training hosts usually run with vm.swappiness=1 or no swap at all.";

void gd_check_input_swapping(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_job_facts *j = gd_input_job_of(f, self->id, out);
    if (!j)
        return;
    size_t n = 0, swapping = 0, from, count;
    double peak = 0;
    host_while_alive(f, j, &from, &count);
    for (size_t i = from; i < from + count; i++) {
        const gd_host_sample *s = gd_host_at(&f->host_series, i);
        if (isnan(s->swap_in_ps) || isnan(s->swap_out_ps))
            continue;
        double pages = s->swap_in_ps + s->swap_out_ps;
        n++;
        swapping += pages >= GD_SWAP_MIN_PAGES_PS;
        peak = pages > peak ? pages : peak;
    }
    if (n == 0) {
        gd_skip_add(out, self->id, GD_NO_GPU, "swap activity was not readable (/proc/vmstat)");
        return;
    }
    double share = (double)swapping / (double)n;
    if (share < GD_SWAP_MIN_SHARE)
        return;
    json_t *ev = json_object();
    json_object_set_new(ev, "swapping_pct", gd_json_number(round(share * 1000) / 10));
    json_object_set_new(ev, "swap_pages_per_s_peak", gd_json_number(round(peak)));
    json_object_set_new(ev, "source", json_string("proc:vmstat pswpin,pswpout"));
    gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, swap_fix,
                   "the host swaps while the job runs: %.0f%% of the samples, up to %.0f pages/s", share * 100, peak);
}
