/* SPDX-License-Identifier: Apache-2.0 */
/* The job's threads against each other and against the host:
 * input.gil_contention, input.cpu_starved. */
#include "input_job.h"

#include <stdlib.h>

/* Samples a process was seen in: the most any of its threads was seen. */
static uint32_t samples_of(const gd_job_facts *j, int pid)
{
    uint32_t n = 0;
    for (size_t i = 0; i < j->thread_count; i++)
        if (j->threads[i].pid == pid && j->threads[i].seen > n)
            n = j->threads[i].seen;
    return n;
}

/* Voluntary context switches of a thread per second of its own CPU time
 * over the window, NaN unknown (or too little CPU to tell: 50 ms). */
static double vcsw_rate(const gd_job_thread *t)
{
    double cpu = t->vcsw_last_cpu_s - t->vcsw_first_cpu_s;
    return isnan(t->vcsw_first) || !(cpu >= 0.05) ? NAN : (t->vcsw_last - t->vcsw_first) / cpu;
}

/* Threads of pid that want a CPU (runnable in GD_GIL_THREAD_RUNNABLE of the
 * samples) and wait for a lock between their turns (GD_GIL_VCSW_PS). */
static size_t turn_takers(const gd_job_facts *j, int pid, double *vcsw_min)
{
    size_t n = 0;
    *vcsw_min = NAN;
    for (size_t i = 0; i < j->thread_count; i++) {
        const gd_job_thread *t = &j->threads[i];
        double v = vcsw_rate(t);
        if (t->pid != pid || t->seen < GD_INPUT_MIN_SAMPLES ||
            (double)t->running < GD_GIL_THREAD_RUNNABLE * (double)t->seen || !(v >= GD_GIL_VCSW_PS))
            continue;
        n++;
        *vcsw_min = isnan(*vcsw_min) || v < *vcsw_min ? v : *vcsw_min;
    }
    return n;
}

/* The job, when its GPUs are known and wait; else NULL ("not checked" said
 * when the job or its GPUs are unknown). */
static const gd_job_facts *waiting_job(const gd_check *self, const gd_facts *f, gd_findings *out, gpu_wait *w)
{
    const gd_job_facts *j = gd_input_job_of(f, self->id, out);
    if (!j)
        return NULL;
    *w = gd_input_gpu_wait(f);
    return gd_input_gpus_known(f, self->id, w, out) && gd_input_gpu_waits(w) ? j : NULL;
}

static const char gil_fix[] =
    "Several threads of one Python process take turns on one core: they wait for the interpreter's lock (the "
    "GIL), so adding threads adds no speed. Move the per-sample work into processes: "
    "DataLoader(num_workers=N, persistent_workers=True) instead of threads in the main process (a thread pool "
    "for decoding, a background prefetch thread doing Python work), or use libraries that release the GIL "
    "(NumPy, PIL's decoders, torchvision.io, DALI) for the heavy part.";

void gd_check_input_gil_contention(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    gpu_wait w;
    const gd_job_facts *j = waiting_job(self, f, out, &w);
    if (!j)
        return;
    const gd_job_proc *best = NULL;
    size_t best_threads = 0;
    double vcsw = NAN;
    for (size_t i = 0; i < j->proc_count; i++) {
        const gd_job_proc *p = &j->procs[i];
        double v;
        size_t threads = turn_takers(j, p->pid, &v);
        if (p->intervals < GD_INPUT_MIN_SAMPLES - 1 || threads < GD_GIL_MIN_THREADS ||
            p->busy_sum / p->intervals > GD_GIL_MAX_CORES || threads <= best_threads)
            continue;
        best = p;
        best_threads = threads;
        vcsw = v;
    }
    if (!best)
        return;
    host_side h = gd_input_host_side(f, j);
    gd_job_role *roles = gd_input_roles(f);
    char who[160];
    gd_input_name_proc(f, roles, best->pid, who, sizeof who);
    free(roles);
    uint32_t samples = samples_of(j, best->pid);
    double mean = best->busy_sum / best->intervals;
    json_t *ev = gd_input_evidence(f, &w, &h);
    json_object_set_new(ev, "process_pid", json_integer(best->pid));
    json_object_set_new(ev, "process", json_string(who));
    json_object_set_new(ev, "threads_taking_turns", json_integer((json_int_t)best_threads));
    json_object_set_new(ev, "one_runnable_pct", gd_json_number(round(1000.0 * best->one_running / samples) / 10));
    json_object_set_new(ev, "several_runnable_pct", gd_json_number(round(1000.0 * best->many_running / samples) / 10));
    json_object_set_new(ev, "process_cores_mean", gd_json_number(round(mean * 100) / 100));
    json_object_set_new(ev, "process_cores_max", gd_json_number(round(best->busy_max * 100) / 100));
    json_object_set_new(ev, "voluntary_switches_per_cpu_s_min", gd_json_number(round(vcsw)));
    json_object_set_new(ev, "source",
                        json_string("proc:PID/task/TID/stat (state, utime, stime), PID/task/TID/status "
                                    "voluntary_ctxt_switches; "
                                    "nvml:nvmlDeviceGetUtilizationRates"));
    gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, gil_fix,
                   "%zu threads of %s take turns on one core (%.2f cores on average, each waiting on a lock %.0f "
                   "times per CPU second) while its GPUs are busy %.0f%%: GIL contention",
                   best_threads, who, mean, vcsw, w.busy_pct);
}

static const char starved_cpu_fix[] =
    "The job's input thread always wants a CPU and gets only part of one: other work holds the CPUs the job may "
    "use. Give the job CPUs of its own: a cgroup cpuset or cpu.max that reserves them, Slurm --cpus-per-task "
    "(with --exclusive or cons_tres CPU binding), Kubernetes guaranteed QoS (requests = limits) with the static "
    "CPU manager; move or renice the other tenants. Then size DataLoader(num_workers=...) to the CPUs it gets.";

void gd_check_input_cpu_starved(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    gpu_wait w;
    const gd_job_facts *j = waiting_job(self, f, out, &w);
    if (!j)
        return;
    const gd_job_thread *top = NULL;
    size_t starved = 0;
    for (size_t i = 0; i < j->thread_count; i++) {
        const gd_job_thread *t = &j->threads[i];
        if (t->seen < GD_INPUT_MIN_SAMPLES || t->measured < GD_INPUT_MIN_SAMPLES - 1)
            continue;
        double runnable = (double)t->running / t->seen, core = t->busy_sum / t->measured;
        if (runnable < GD_INPUT_RUNNABLE_SHARE || core >= GD_INPUT_RUNNABLE_MIN_CORE)
            continue;
        starved++;
        if (!top || t->running * top->seen > top->running * t->seen)
            top = t;
    }
    if (!top)
        return;
    host_side h = gd_input_host_side(f, j);
    gd_job_role *roles = gd_input_roles(f);
    char who[160], cause[300];
    gd_input_name_proc(f, roles, top->pid, who, sizeof who);
    free(roles);
    double runnable = (double)top->running / top->seen, core = top->busy_sum / top->measured;
    bool host_busy = !isnan(h.host_busy) && h.host_busy >= GD_STARVED_HOST_BUSY;
    if (host_busy)
        snprintf(cause, sizeof cause, "the host's CPUs %.0f%% busy, the job holding %.1f of them", h.host_busy * 100,
                 isnan(h.cores) ? 0.0 : h.cores);
    else
        snprintf(cause, sizeof cause, "its CPUs (%s) held by other work or a quota",
                 j->affinity[0] ? j->affinity : "?");
    json_t *ev = gd_input_evidence(f, &w, &h);
    json_object_set_new(ev, "thread_tid", json_integer(top->tid));
    json_object_set_new(ev, "thread_pid", json_integer(top->pid));
    json_object_set_new(ev, "thread_comm", json_string(top->comm));
    json_object_set_new(ev, "thread_process", json_string(who));
    json_object_set_new(ev, "thread_runnable_pct", gd_json_number(round(runnable * 1000) / 10));
    json_object_set_new(ev, "thread_core_share_mean", gd_json_number(round(core * 100) / 100));
    json_object_set_new(ev, "threads_starved", json_integer((json_int_t)starved));
    json_object_set_new(ev, "cause", json_string(host_busy ? "host_load" : "cpus_held"));
    json_object_set_new(ev, "affinity_cpus", j->affinity_cpus ? json_integer(j->affinity_cpus) : json_null());
    json_object_set_new(ev, "source",
                        json_string("proc:PID/task/TID/stat (state R, utime, stime), /proc/stat; "
                                    "nvml:nvmlDeviceGetUtilizationRates"));
    json_object_set_new(ev, "cause_text", json_string(cause));
    gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, starved_cpu_fix,
                   "bottleneck: %s, thread %d wants a CPU in %.0f%% of the samples, gets %.0f%% of a core; cause: %s",
                   who, top->tid, runnable * 100, core * 100, cause);
}
