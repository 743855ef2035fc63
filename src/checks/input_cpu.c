/* SPDX-License-Identifier: Apache-2.0 */
/* The job's CPUs: input.few_workers, input.affinity_narrow,
 * input.workers_respawned, input.cpu_governor. */
#include "input_job.h"

#include <stdlib.h>

typedef struct workers {
    size_t n; /* worker processes measured (children of the job with CPU time known) */
    double busy_mean; /* the CPU they want, in cores per worker */
} workers;

/* The trainers' worker processes (DataLoader workers: the processes below a
 * trainer, job_tree.h) and how busy each kept its threads, from the threads
 * followed. A launcher, and the trainer behind it, are no workers. */
static workers measure_workers(const gd_facts *f, const gd_job_role *roles)
{
    const gd_job_facts *j = f->job;
    workers w = {0};
    double sum = 0;
    for (size_t i = 0; i < j->thread_count; i++) {
        const gd_job_thread *t = &j->threads[i];
        bool worker = roles ? gd_job_role_of(f, roles, t->pid) == GD_ROLE_WORKER : t->pid != (int)j->pid;
        if (!worker || t->measured == 0)
            continue;
        bool first = true; /* the first measured thread of its process */
        for (size_t k = 0; k < i && first; k++)
            first = !(j->threads[k].pid == t->pid && j->threads[k].measured > 0);
        w.n += first;
        /* What it wants: its CPU time, or its share of samples runnable (R) when other
         * work on the host holds it off the CPU. */
        double cpu = t->busy_sum / t->measured, want = t->seen ? (double)t->running / t->seen : 0;
        sum += cpu > want ? cpu : want;
    }
    w.busy_mean = w.n ? sum / (double)w.n : NAN;
    return w;
}

static const char few_fix_fmt[] =
    "The DataLoader's %zu worker%s run flat out and the GPU still waits, while the job leaves %.1f of its %d "
    "CPUs unused: start more workers, DataLoader(num_workers=%d), with persistent_workers=True, "
    "pin_memory=True and prefetch_factor=2-4. If more workers do not help, the per-sample work is the limit: "
    "cache decoded samples or decode on the GPU (NVIDIA DALI).";

void gd_check_input_few_workers(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const gd_job_facts *j = gd_input_job_of(f, self->id, out);
    if (!j)
        return;
    if (j->affinity_cpus <= 0) {
        gd_skip_add(out, self->id, GD_NO_GPU, "the job's CPU affinity was not readable (PID/status)");
        return;
    }
    gpu_wait g = gd_input_gpu_wait(f);
    if (!gd_input_gpus_known(f, self->id, &g, out))
        return;
    host_side h = gd_input_host_side(f, j);
    gd_job_role *roles = gd_input_roles(f);
    workers w = measure_workers(f, roles);
    size_t others = 0; /* launchers and trainers: processes that are no workers */
    for (size_t i = 0; roles && i < j->proc_count; i++)
        others += roles[i] != GD_ROLE_WORKER;
    free(roles);
    if (!gd_input_gpu_waits(&g) || w.n == 0 || isnan(h.cores) || w.busy_mean < GD_FEW_WORKERS_BUSY_CORE)
        return;
    double unused = (double)j->affinity_cpus - h.cores;
    if (unused < GD_FEW_WORKERS_IDLE_CPUS)
        return; /* the job uses what it may: input.affinity_narrow's case, or a full machine */
    others = others ? others : 1;
    size_t alive = j->procs_max > others ? j->procs_max - others : w.n;
    alive = alive < w.n ? alive : w.n;
    int suggest = (int)alive + (int)lround(unused); /* a worker per CPU left, the main process mostly waits */
    if (suggest > j->affinity_cpus)
        suggest = j->affinity_cpus;
    if (suggest <= (int)alive)
        return;
    json_t *ev = gd_input_evidence(f, &g, &h);
    json_object_set_new(ev, "workers", json_integer((json_int_t)alive));
    json_object_set_new(ev, "worker_cores_mean", gd_json_number(round(w.busy_mean * 100) / 100));
    json_object_set_new(ev, "affinity_cpus", json_integer(j->affinity_cpus));
    json_object_set_new(ev, "cpus_unused", gd_json_number(round(unused * 10) / 10));
    json_object_set_new(ev, "num_workers_suggested", json_integer(suggest));
    json_object_set_new(ev, "source",
                        json_string("proc:PID/task/TID/stat, PID/task/TID/children, PID/status "
                                    "Cpus_allowed_list; nvml:nvmlDeviceGetUtilizationRates"));
    char fix[600];
    snprintf(fix, sizeof fix, few_fix_fmt, alive, alive == 1 ? "" : "s", unused, j->affinity_cpus, suggest);
    gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, fix,
                   "%zu loader worker%s at %.0f%% of a core each cannot feed GPUs busy %.0f%%, with %.1f of the "
                   "job's %d CPUs unused: too few DataLoader workers",
                   alive, alive == 1 ? "" : "s", w.busy_mean * 100, g.busy_pct, unused, j->affinity_cpus);
}

/* Threads that wanted a CPU: busy on GD_AFFINITY_ACTIVE_CORE of a core, or runnable half the time. */
static size_t active_threads(const gd_job_facts *j)
{
    size_t n = 0;
    for (size_t i = 0; i < j->thread_count; i++) {
        const gd_job_thread *t = &j->threads[i];
        bool busy = t->measured && t->busy_sum / t->measured >= GD_AFFINITY_ACTIVE_CORE;
        n += busy || (t->seen && 2 * t->running >= t->seen);
    }
    return n;
}

/* Share of the job's samples in which it filled its allowed CPUs: busy on
 * GD_AFFINITY_FULL_SHARE of them, or a thread runnable beyond them (a run
 * queue, which holds when other work shares those CPUs too). */
static double full_share(const gd_job_facts *j)
{
    size_t n = 0, full = 0;
    for (size_t i = 0; i < j->n; i++) {
        const gd_job_sample *s = gd_job_at(j, i);
        if (s->threads == 0)
            continue;
        n++;
        full += (!isnan(s->job_cores) && s->job_cores >= GD_AFFINITY_FULL_SHARE * j->affinity_cpus) ||
                s->running >= j->affinity_cpus + GD_AFFINITY_QUEUE_THREADS;
    }
    return n ? (double)full / (double)n : 0;
}

void gd_check_input_affinity_narrow(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const gd_job_facts *j = gd_input_job_of(f, self->id, out);
    if (!j)
        return;
    if (j->affinity_cpus <= 0 || j->host_cpus <= 0) {
        gd_skip_add(out, self->id, GD_NO_GPU, "the job's CPU affinity or the host's CPUs were not readable");
        return;
    }
    if (j->affinity_cpus >= j->host_cpus)
        return;
    gpu_wait g = gd_input_gpu_wait(f);
    if (!gd_input_gpus_known(f, self->id, &g, out))
        return;
    host_side h = gd_input_host_side(f, j);
    size_t active = active_threads(j);
    double full = full_share(j);
    if (active < 2 || (int)active < j->affinity_cpus || full < GD_AFFINITY_FULL_SAMPLES || !gd_input_gpu_waits(&g))
        return; /* one thread on its one CPU is input.single_thread's case: more CPUs alone would not help */
    json_t *ev = gd_input_evidence(f, &g, &h);
    json_object_set_new(ev, "cpus_allowed", json_string(j->affinity));
    json_object_set_new(ev, "affinity_cpus", json_integer(j->affinity_cpus));
    json_object_set_new(ev, "host_cpus", json_integer(j->host_cpus));
    json_object_set_new(ev, "threads_runnable_mean", gd_json_number(round(h.running * 10) / 10));
    json_object_set_new(ev, "threads_active", json_integer((json_int_t)active));
    json_object_set_new(ev, "full_pct", gd_json_number(round(full * 1000) / 10));
    json_object_set_new(ev, "source",
                        json_string("proc:PID/status Cpus_allowed_list, /proc/stat cpuN, "
                                    "PID/task/TID/stat; nvml:nvmlDeviceGetUtilizationRates"));
    char fix[700];
    snprintf(fix, sizeof fix,
             "The job may run on %d of the host's %d CPUs (%s) and keeps them full while its GPUs wait: widen its "
             "affinity to the CPUs of its GPU's NUMA node ('numactl --cpunodebind=N --membind=N', or 'taskset "
             "-acp LIST %ld' for the running job; under Slurm --cpus-per-task, in a container --cpuset-cpus or "
             "the cgroup's cpuset), then raise DataLoader(num_workers=...) to the CPUs it gets.",
             j->affinity_cpus, j->host_cpus, j->affinity, j->pid);
    gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, fix,
                   "the job is pinned to %d of %d CPUs and keeps them busy (%.1f cores) while its GPUs are busy "
                   "%.0f%%: CPU affinity too narrow",
                   j->affinity_cpus, j->host_cpus, h.cores, g.busy_pct);
}

static const char respawn_fix[] =
    "The job's child processes end and new ones start again and again: PyTorch's DataLoader does this at every "
    "epoch unless persistent_workers=True (each epoch then pays the workers' start, the Dataset's copy and "
    "worker_init_fn, and the first prefetch while the GPU waits). Create the DataLoader once, with "
    "DataLoader(..., num_workers=N, persistent_workers=True), and iterate it every epoch.";

void gd_check_input_workers_respawned(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const gd_job_facts *j = gd_input_job_of(f, self->id, out);
    if (!j || j->respawn_rounds < GD_RESPAWN_MIN_ROUNDS)
        return;
    gpu_wait g = gd_input_gpu_wait(f);
    host_side h = gd_input_host_side(f, j);
    bool waits = gd_input_gpu_waits(&g);
    json_t *ev = gd_input_evidence(f, &g, &h);
    json_object_set_new(ev, "respawn_rounds", json_integer((json_int_t)j->respawn_rounds));
    json_object_set_new(ev, "children_started", json_integer((json_int_t)j->children_started));
    json_object_set_new(ev, "children_exited", json_integer((json_int_t)j->children_exited));
    json_object_set_new(ev, "source", json_string("proc:PID/task/TID/children (the tree, once a second)"));
    gd_finding_add(out, self->id, waits ? GD_SEV_WARNING : GD_SEV_INFO, GD_NO_GPU, ev, NAN, respawn_fix,
                   "the job's worker processes were replaced %zu times in the window (%zu started, %zu ended): "
                   "workers respawned each epoch",
                   j->respawn_rounds, j->children_started, j->children_exited);
}

/* Drivers under which "powersave" is a dynamic policy, not the lowest
 * frequency: intel_pstate and amd-pstate-epp in active mode run their own
 * algorithm (docs: kernel admin-guide/pm/intel_pstate.rst, amd-pstate.rst). */
static bool powersave_is_dynamic(const char *driver)
{
    return strcmp(driver, "intel_pstate") == 0 || strcmp(driver, "amd-pstate-epp") == 0;
}

void gd_check_input_cpu_governor(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const gd_job_facts *j = f->job;
    if (!j || !j->read) {
        gd_skip_add(out, self->id, GD_NO_GPU, "%s", j && j->error[0] ? j->error : "the job's /proc was not sampled");
        return;
    }
    if (!j->governor[0]) {
        gd_skip_add(out, self->id, GD_NO_GPU, "no cpufreq governor readable (sysfs devices/system/cpu/cpu0/cpufreq)");
        return;
    }
    if (strcmp(j->governor, "powersave") != 0)
        return;
    if (!j->scaling_driver[0]) {
        gd_skip_add(out, self->id, GD_NO_GPU,
                    "governor powersave with an unknown scaling driver: dynamic under intel_pstate, the lowest "
                    "frequency under acpi-cpufreq");
        return;
    }
    if (powersave_is_dynamic(j->scaling_driver))
        return;
    json_t *ev = json_object();
    json_object_set_new(ev, "governor", json_string(j->governor));
    json_object_set_new(ev, "scaling_driver", json_string(j->scaling_driver));
    json_object_set_new(ev, "cpu0_cur_mhz", j->freq_cur_khz ? json_integer(j->freq_cur_khz / 1000) : json_null());
    json_object_set_new(ev, "cpu0_min_mhz", j->freq_min_khz ? json_integer(j->freq_min_khz / 1000) : json_null());
    json_object_set_new(ev, "cpu0_max_mhz", j->freq_max_khz ? json_integer(j->freq_max_khz / 1000) : json_null());
    json_object_set_new(ev, "source",
                        json_string("sysfs:devices/system/cpu/cpu0/cpufreq/scaling_governor, scaling_driver, "
                                    "scaling_cur_freq, cpuinfo_min_freq, cpuinfo_max_freq"));
    char title[300];
    if (j->freq_max_khz && j->freq_cur_khz)
        snprintf(title, sizeof title, " (cpu0 at %ld of %ld MHz)", j->freq_cur_khz / 1000, j->freq_max_khz / 1000);
    else
        title[0] = '\0';
    gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN,
                   "Under this scaling driver the powersave governor holds the CPUs at their lowest frequency: every "
                   "host-side step (data loading, augmentation, kernel launches) runs slower. Switch to performance "
                   "(or schedutil): 'cpupower frequency-set -g performance', or 'tuned-adm profile "
                   "throughput-performance'; make it stick in the node image, and check the BIOS power profile.",
                   "CPU frequency governor powersave under %s pins the lowest frequency%s", j->scaling_driver, title);
}
