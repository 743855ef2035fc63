/* SPDX-License-Identifier: Apache-2.0 */
/*
 * job.no_gpu: a job that `gpudoctor run` started on a machine with GPUs and
 * that never opened one: a CPU-only build of the framework, a
 * CUDA_VISIBLE_DEVICES that hides every GPU, a script that keeps its work on
 * the CPU. The most common first-day mistake; "Verdict: OK" beside idle GPUs
 * is the worst answer to it. The causes are read from the job's own
 * processes: the libraries they mapped (PID/maps) and their environment.
 */
#include "checks_internal.h"
#include "analysis/job_tree.h"
#include "gpudoctor/job.h"

#include <stdlib.h>

/* What the job's processes showed over the window. */
typedef struct job_use {
    bool torch, torch_cuda, cudart, cuda;
    const gd_job_proc *env; /* whose environment speaks for the job: a trainer's, else the first process's */
} job_use;

static void read_use(const gd_facts *f, job_use *u)
{
    const gd_job_facts *j = f->job;
    *u = (job_use){0};
    gd_job_role *roles = calloc(j->proc_count + 1, sizeof *roles);
    if (roles)
        gd_job_roles(f, roles);
    const gd_job_proc *trainer = NULL, *set = NULL;
    for (size_t i = 0; i < j->proc_count; i++) {
        const gd_job_proc *p = &j->procs[i];
        u->torch |= p->torch;
        u->torch_cuda |= p->torch_cuda;
        u->cudart |= p->cudart;
        u->cuda |= p->cuda;
        if (!trainer && roles && roles[i] == GD_ROLE_TRAINER)
            trainer = p;
        if (!set && p->has_cuda_visible)
            set = p;
    }
    u->env = trainer ? trainer : set ? set : j->proc_count ? &j->procs[0] : NULL;
    free(roles);
}

/* Whether the job used a GPU by the evidence that a job we started leaves:
 * NVML lists one of its pids, it holds /dev/nvidiaN open, or a GPU's memory
 * grew when it started. */
static bool used_a_gpu(const gd_facts *f)
{
    const gd_job_facts *j = f->job;
    for (size_t i = 0; i < j->proc_count; i++)
        if (j->procs[i].dev_minors)
            return true;
    gd_link_rule *rule = calloc(f->gpu_count + 1, sizeof *rule);
    if (!rule)
        return true; /* not known: no finding */
    gd_job_link(f, rule, NULL, 0);
    bool used = false;
    for (size_t g = 0; g < f->gpu_count; g++)
        used |= rule[g] == GD_LINK_NVML_PID || rule[g] == GD_LINK_DEVICE_FILE || rule[g] == GD_LINK_MEMORY;
    free(rule);
    return used;
}

/* Processes NVML lists on the GPUs: none are the job's (used_a_gpu), but in a
 * container they are its host pids, and a scenario's stand for the job. */
static size_t others_listed(const gd_facts *f)
{
    size_t n = 0;
    for (size_t g = 0; g < f->gpu_count; g++)
        if (!f->gpus[g].lost && gd_ok(f->gpus[g].processes_status))
            n += f->gpus[g].process_count;
    return n;
}

/* Appends what the job shows of why it used no GPU to `causes` (one sentence
 * each) and the fix of the first to fix. */
static void name_causes(const gd_facts *f, const job_use *u, json_t *causes, char *fix, size_t len)
{
    char s[512];
    fix[0] = '\0';
    size_t used = 0;
#define CAUSE(...)                                                                                                     \
    do {                                                                                                               \
        snprintf(s, sizeof s, __VA_ARGS__);                                                                            \
        json_array_append_new(causes, json_string(s));                                                                 \
    } while (0)
#define FIX(...)                                                                                                       \
    do {                                                                                                               \
        if (used < len)                                                                                                \
            used += (size_t)snprintf(fix + used, len - used, __VA_ARGS__);                                             \
    } while (0)
    const gd_job_proc *e = u->env;
    if (e && e->has_cuda_visible && !gd_job_visible_names_a_gpu(f, e->cuda_visible)) {
        CAUSE("CUDA_VISIBLE_DEVICES=\"%s\" in its environment (pid %d) names no GPU here, which hides every GPU "
              "from CUDA",
              e->cuda_visible, e->pid);
        FIX("Unset CUDA_VISIBLE_DEVICES=\"%s\" or name GPUs that exist here (0-%zu, or UUIDs from 'nvidia-smi -L'; "
            "under Slurm ask for them with --gres=gpu:N). ",
            e->cuda_visible, f->gpu_count - 1);
    }
    char driver[48] = "this driver";
    if (gd_ok(f->cuda_driver_version))
        snprintf(driver, sizeof driver, "this driver (CUDA %d.%d)", (int)f->cuda_driver_version.v / 1000,
                 ((int)f->cuda_driver_version.v % 1000) / 10);
    if (u->torch && !u->torch_cuda && !u->cuda) {
        CAUSE("its PyTorch is a CPU-only build: libtorch_cuda.so was never loaded");
        FIX("Install a CUDA build of PyTorch for %s (pytorch.org's selector gives the pip line, 'pip install "
            "torch --index-url https://download.pytorch.org/whl/cuXYZ' with a CUDA no newer than the driver's) and "
            "check it: python -c 'import torch; print(torch.version.cuda, torch.cuda.is_available())' prints None, "
            "False on a CPU build. ",
            driver);
    } else if ((u->torch_cuda || u->cudart) && !u->cuda) {
        CAUSE("it loaded %s but never the CUDA driver (libcuda.so): it never asked for a GPU",
              u->torch_cuda ? "PyTorch's CUDA build" : "the CUDA runtime");
        FIX("The script keeps its work on the CPU: move the model and each batch to the GPU (device = "
            "torch.device('cuda'); model.to(device); x = x.to(device)), and look for a device string 'cpu' or a "
            "fallback taken when torch.cuda.is_available() was False. ");
    } else if (u->cuda) {
        CAUSE("it loaded the CUDA driver (libcuda.so) but opened no GPU: CUDA found no usable device, or the code "
              "chose the CPU");
        FIX("Run python -c 'import torch; print(torch.cuda.is_available(), torch.cuda.device_count())' in the job's "
            "environment: False means CUDA sees no GPU (a framework built for a newer CUDA than %s: "
            "cuda.driver_too_old; CUDA_VISIBLE_DEVICES); True means the code chose the CPU. ",
            driver);
    } else {
        CAUSE("it loaded no CUDA library (no libcudart, no libcuda, no PyTorch): nothing in it can use a GPU");
        FIX("A GPU job needs a CUDA build of its framework (PyTorch, JAX with CUDA, TensorFlow with GPU) and code "
            "that puts its work on the device. ");
    }
    FIX("Then run it again under 'gpudoctor run': the report's job section names the GPUs it uses.");
#undef CAUSE
#undef FIX
}

/* The busiest GPU's median utilisation over the window; NAN when none reads it. */
static double busiest_median_util(const gd_facts *f)
{
    double best = NAN;
    for (size_t g = 0; g < f->gpu_count; g++) {
        gd_stats st;
        if (!f->gpus[g].lost && gd_stats_of(f, g, GD_M_UTIL_GPU_PCT, &st) > 0 && !(st.median <= best))
            best = st.median;
    }
    return best;
}

void gd_check_job_no_gpu(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const gd_job_facts *j = f->job;
    if (!j || !j->read || j->n == 0 || !f->driver_loaded || f->gpu_count == 0)
        return;
    if (!j->started_in_window) {
        gd_skip_add(out, self->id, GD_NO_GPU,
                    "a job gpudoctor did not start (--pid) may have opened its GPU before the window: 'gpudoctor "
                    "run -- COMMAND' watches a job's whole life");
        return;
    }
    double first = gd_job_at(j, 0)->t, last = j->ended ? j->ended_at_s : gd_job_at(j, j->n - 1)->t;
    double life = last - first;
    if (life < (j->ended ? GD_JOB_NO_GPU_MIN_LIFE_S : GD_JOB_NO_GPU_MIN_WATCH_S)) {
        gd_skip_add(out, self->id, GD_NO_GPU,
                    "the job %s %.0f s: too short to tell whether it uses a GPU (%.0f s, or %.0f s still running)",
                    j->ended ? "ran" : "was watched", life, GD_JOB_NO_GPU_MIN_LIFE_S, GD_JOB_NO_GPU_MIN_WATCH_S);
        return;
    }
    if (used_a_gpu(f))
        return;
    size_t others = others_listed(f);
    if (others) {
        gd_skip_add(out, self->id, GD_NO_GPU,
                    "NVML lists %zu process%s on the GPUs, none of the job's pids (in a container NVML shows host "
                    "pids, a scenario its own): whether the job uses one cannot be told",
                    others, others == 1 ? "" : "es");
        return;
    }
    job_use u;
    read_use(f, &u);
    json_t *ev = json_object(), *causes = json_array();
    char fix[768];
    name_causes(f, &u, causes, fix, sizeof fix);
    double util = busiest_median_util(f);
    json_object_set_new(ev, "job_s", gd_json_number(round(life * 10) / 10));
    json_object_set_new(ev, "job_ended", json_boolean(j->ended));
    json_object_set_new(ev, "gpus", json_integer((json_int_t)f->gpu_count));
    json_object_set_new(ev, "gpu_util_median_pct", gd_json_number(util));
    json_object_set_new(ev, "torch_loaded", json_boolean(u.torch));
    json_object_set_new(ev, "torch_cuda_build", u.torch ? json_boolean(u.torch_cuda) : json_null());
    json_object_set_new(ev, "cuda_runtime_loaded", json_boolean(u.cudart));
    json_object_set_new(ev, "cuda_driver_loaded", json_boolean(u.cuda));
    json_object_set_new(ev, "cuda_visible_devices",
                        u.env && u.env->has_cuda_visible ? json_string(u.env->cuda_visible) : json_null());
    json_object_set_new(ev, "causes", causes);
    json_object_set_new(ev, "source",
                        json_string("proc:PID/fd (/dev/nvidiaN),PID/maps,PID/environ; "
                                    "nvml:nvmlDeviceGetComputeRunningProcesses,nvmlDeviceGetMemoryInfo"));
    char busy[64] = "";
    if (!isnan(util))
        snprintf(busy, sizeof busy, ", the busiest at %.0f %% median utilisation", util);
    gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, fix,
                   "The job used no GPU: in the %.0f s it %s, none of its processes opened one of the %zu GPUs "
                   "here%s",
                   life, j->ended ? "ran" : "was watched", f->gpu_count, busy);
}
