/* SPDX-License-Identifier: Apache-2.0 */
/* The job's launchers, trainers and workers, and its GPUs (job_tree.h). */
#include "job_tree.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Programs that start the trainer rather than train: shells and wrappers,
 * distributed launchers, environment managers. */
static const char *const launchers[] = {
    "sh", "bash", "dash", "zsh", "ksh", "fish", "env", "nohup", "setsid", "taskset", "numactl", "timeout", "stdbuf",
    "nice", "ionice", "chrt", "time", "xargs", "sudo", "su", "runuser", "tini", "dumb-init", "catatonit", "torchrun",
    "accelerate", "deepspeed", "srun", "mpirun", "mpiexec", "orterun", "prterun", "hydra_pmi_proxy", "orted", "prted",
    "uv", "uvx", "poetry", "pipenv", "conda", "mamba", "micromamba", "pixi", "hatch", "pdm", "rye", "make",
    "torch.distributed.run", "torch.distributed.launch", "accelerate.commands.launch",
    "accelerate.commands.accelerate_cli", "deepspeed.launcher.runner", "deepspeed.launcher.launch"};

bool gd_job_is_launcher(const gd_job_proc *p)
{
    const char *name = p->prog[0] ? p->prog : p->comm;
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++)
        if (strcmp(name, launchers[i]) == 0)
            return true;
    return false;
}

static bool listed_by_nvml(const gd_facts *f, int pid)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        for (size_t i = 0; gd_ok(gpu->processes_status) && i < gpu->process_count; i++)
            if ((int)gpu->processes[i].pid == pid)
                return true;
    }
    return false;
}

static long index_of(const gd_job_facts *j, int pid)
{
    for (size_t i = 0; i < j->proc_count; i++)
        if (j->procs[i].pid == pid)
            return (long)i;
    return -1;
}

/* Is an ancestor of process i (within the tree) marked `role`? */
static bool under(const gd_job_facts *j, const gd_job_role *roles, size_t i, gd_job_role role)
{
    long k = index_of(j, j->procs[i].ppid);
    for (size_t depth = 0; k >= 0 && depth < GD_JOB_MAX_PROCS; depth++) {
        if (roles[k] == role)
            return true;
        k = index_of(j, j->procs[k].ppid);
    }
    return false;
}

/* pass 0: holds a GPU, maps the driver, or Python with torch; pass 1: not a launcher. */
static bool trainer_candidate(const gd_facts *f, const gd_job_proc *p, int pass)
{
    bool launcher = gd_job_is_launcher(p);
    if (pass == 1)
        return !launcher;
    if (p->dev_minors || listed_by_nvml(f, p->pid))
        return true;
    return !launcher && (p->cuda || (p->python && p->torch));
}

size_t gd_job_roles(const gd_facts *f, gd_job_role *roles)
{
    const gd_job_facts *j = f->job;
    if (!j || !j->procs)
        return 0;
    size_t trainers = 0;
    for (int pass = 0; pass < 2 && trainers == 0; pass++) {
        for (size_t i = 0; i < j->proc_count; i++)
            roles[i] = GD_ROLE_NONE;
        for (size_t i = 0; i < j->proc_count; i++) /* parents come before their children */
            if (trainer_candidate(f, &j->procs[i], pass) && !under(j, roles, i, GD_ROLE_TRAINER)) {
                roles[i] = GD_ROLE_TRAINER;
                trainers++;
            }
    }
    for (size_t i = 0; i < j->proc_count; i++) {
        if (roles[i] == GD_ROLE_TRAINER)
            continue;
        if (under(j, roles, i, GD_ROLE_TRAINER))
            roles[i] = GD_ROLE_WORKER;
        else if (gd_job_is_launcher(&j->procs[i]))
            roles[i] = GD_ROLE_LAUNCHER;
    }
    if (trainers == 0 && j->proc_count == 0)
        return 0;
    if (trainers == 0) /* launchers all the way down: the job's own process */
        roles[0] = GD_ROLE_TRAINER, trainers = 1;
    return trainers;
}

gd_job_role gd_job_role_of(const gd_facts *f, const gd_job_role *roles, int pid)
{
    long k = f->job ? index_of(f->job, pid) : -1;
    return k >= 0 ? roles[k] : GD_ROLE_NONE;
}

const char *gd_job_role_name(gd_job_role r)
{
    switch (r) {
    case GD_ROLE_LAUNCHER: return "launcher";
    case GD_ROLE_TRAINER: return "trainer";
    case GD_ROLE_WORKER: return "worker";
    default: return "other";
    }
}

const char *gd_link_rule_key(gd_link_rule r)
{
    switch (r) {
    case GD_LINK_NVML_PID: return "nvml_pid";
    case GD_LINK_DEVICE_FILE: return "device_file";
    case GD_LINK_VISIBLE_ENV: return "visible_devices";
    case GD_LINK_MEMORY: return "memory_appeared";
    case GD_LINK_ONLY_GPU: return "only_gpu";
    case GD_LINK_OTHER_PIDS: return "nvml_other_pids";
    default: return "none";
    }
}

static bool lists_job(const gd_job_facts *j, const gd_gpu *gpu, unsigned *pid)
{
    for (size_t i = 0; gd_ok(gpu->processes_status) && i < gpu->process_count; i++) {
        long p = (long)gpu->processes[i].pid;
        bool ours = p == j->pid;
        for (size_t k = 0; !ours && k < j->proc_count; k++)
            ours = j->procs[k].pid == p;
        for (size_t t = 0; !ours && t < j->thread_count; t++)
            ours = j->threads[t].pid == p;
        if (ours) {
            *pid = (unsigned)p;
            return true;
        }
    }
    return false;
}

/* Does one entry of a visible-devices list name GPU g? An index, or a UUID
 * (a unique prefix is enough for CUDA); MIG- names the GPU it is on. */
static bool entry_names(const gd_facts *f, size_t g, const char *e, size_t len, bool nvidia_list)
{
    if (len == 0)
        return false;
    const gd_gpu *gpu = &f->gpus[g];
    if (isdigit((unsigned char)e[0])) {
        char *end;
        long idx = strtol(e, &end, 10);
        if ((size_t)(end - e) != len)
            return false;
        (void)nvidia_list;
        return idx == gpu->index;
    }
    if ((len > 4 && strncmp(e, "GPU-", 4) == 0) || (len > 4 && strncmp(e, "MIG-", 4) == 0)) {
        size_t matches = 0; /* CUDA takes a unique prefix; one that names two GPUs names none */
        for (size_t k = 0; k < f->gpu_count; k++)
            matches += f->gpus[k].uuid[0] && strncmp(f->gpus[k].uuid, e, len) == 0;
        return matches == 1 && gpu->uuid[0] && strncmp(gpu->uuid, e, len) == 0;
    }
    return false;
}

/* Does the list (CUDA_VISIBLE_DEVICES or NVIDIA_VISIBLE_DEVICES) name GPU g? */
static bool list_names(const gd_facts *f, size_t g, const char *list, bool nvidia_list)
{
    if (nvidia_list && strcmp(list, "all") == 0)
        return true;
    size_t entries = 0;
    bool indices = true;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        while (len && p[len - 1] == ' ')
            len--;
        entries++;
        indices &= len > 0 && isdigit((unsigned char)p[0]);
        if (entry_names(f, g, p, len, nvidia_list))
            return true;
        p += strcspn(p, ",");
        p += *p == ',';
        while (*p == ' ')
            p++;
    }
    /* Inside the container its host's indices are renumbered from 0: a list of
     * as many indices as the GPUs seen here is the GPUs seen here. */
    return nvidia_list && indices && entries == f->gpu_count;
}

bool gd_job_visible_names_a_gpu(const gd_facts *f, const char *cuda_visible)
{
    for (size_t g = 0; g < f->gpu_count; g++)
        if (list_names(f, g, cuda_visible, false))
            return true;
    return false;
}

/* The process whose environment speaks for the job: a trainer's, else the job's own. */
static const gd_job_proc *env_holder(const gd_facts *f, const gd_job_role *roles, bool nvidia)
{
    const gd_job_facts *j = f->job;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < j->proc_count; i++) {
            const gd_job_proc *p = &j->procs[i];
            bool has = nvidia ? p->has_nvidia_visible : p->has_cuda_visible;
            if (has && (pass == 1 || (roles && roles[i] == GD_ROLE_TRAINER)))
                return p;
        }
    return NULL;
}

/* GPU g's memory in use: at the job's first sample and at most afterwards. */
static bool memory_appeared(const gd_facts *f, size_t g, double *before, double *after)
{
    const gd_job_facts *j = f->job;
    const gd_series *s = &f->series;
    if (!j || j->n == 0 || s->n < 2)
        return false;
    double t0 = gd_job_at(j, 0)->t;
    *before = NAN;
    *after = NAN;
    for (size_t i = 0; i < s->n; i++) {
        gd_value m = gd_series_at(s, i, g, GD_M_MEM_USED_MIB);
        if (!gd_ok(m))
            continue;
        if (isnan(*before) || gd_series_t(s, i) <= t0 + 1e-9) {
            *before = m.v; /* the last reading before the job, or the first at all */
            continue;
        }
        *after = isnan(*after) || m.v > *after ? m.v : *after;
    }
    /* Only a job started with the window (run): memory that grew under a job
     * already running is no evidence of it. */
    return j->started_in_window && !isnan(*before) && !isnan(*after) && *after - *before >= GD_LINK_MEMORY_MIN_MIB;
}

static bool job_loaded_driver(const gd_job_facts *j)
{
    for (size_t i = 0; i < j->proc_count; i++)
        if (j->procs[i].cuda || j->procs[i].nvidia_ctl || j->procs[i].dev_minors)
            return true;
    return false;
}

/* Which process holds GPU g's device file, or NULL. */
static const gd_job_proc *device_holder(const gd_job_facts *j, size_t g)
{
    if (g >= j->gpu_minor_count || j->gpu_minors[g] < 0 || j->gpu_minors[g] >= 64)
        return NULL;
    for (size_t i = 0; i < j->proc_count; i++)
        if (j->procs[i].dev_minors & (1ull << j->gpu_minors[g]))
            return &j->procs[i];
    return NULL;
}

#define WHY(g) (why ? why + (g) * why_len : NULL)
static void say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t len, const char *fmt, ...)
{
    if (!buf)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

size_t gd_job_link(const gd_facts *f, gd_link_rule *rule, char *why, size_t why_len)
{
    const gd_job_facts *j = f->job;
    size_t n = 0;
    for (size_t g = 0; g < f->gpu_count; g++)
        rule[g] = GD_LINK_NONE;
    if (!j || !j->read)
        return 0;
    gd_job_role *roles = calloc(j->proc_count + 1, sizeof *roles);
    if (roles)
        gd_job_roles(f, roles);
    const gd_job_proc *cvd = env_holder(f, roles, false), *nvd = env_holder(f, roles, true);
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        const gd_job_proc *holder;
        unsigned pid;
        if (gpu->lost)
            continue;
        if (lists_job(j, gpu, &pid)) {
            rule[g] = GD_LINK_NVML_PID;
            say(WHY(g), why_len, "GPU %d: NVML lists the job's pid %u on it", gpu->index, pid);
        } else if ((holder = device_holder(j, g))) {
            rule[g] = GD_LINK_DEVICE_FILE;
            say(WHY(g), why_len,
                "GPU %d: the job holds /dev/nvidia%d open (pid %d, %s); NVML lists no process of it: in a "
                "container NVML shows none",
                gpu->index, j->gpu_minors[g], holder->pid, holder->comm);
        } else if (cvd ? list_names(f, g, cvd->cuda_visible, false) : nvd && list_names(f, g, nvd->nvidia_visible, true)) {
            rule[g] = GD_LINK_VISIBLE_ENV;
            say(WHY(g), why_len, "GPU %d: the job's %s=%s names it (pid %d); NVML lists no process of it", gpu->index,
                cvd ? "CUDA_VISIBLE_DEVICES" : "NVIDIA_VISIBLE_DEVICES", cvd ? cvd->cuda_visible : nvd->nvidia_visible,
                cvd ? cvd->pid : nvd->pid);
        }
        n += rule[g] != GD_LINK_NONE;
    }
    for (size_t g = 0; n == 0 && g < f->gpu_count; g++) {
        double before, after;
        if (!f->gpus[g].lost && memory_appeared(f, g, &before, &after)) {
            rule[g] = GD_LINK_MEMORY;
            say(WHY(g), why_len,
                "GPU %d: its memory in use went from %.0f to %.0f MiB when the job started; NVML lists no process "
                "of the job",
                f->gpus[g].index, before, after);
        }
    }
    for (size_t g = 0; g < f->gpu_count; g++)
        n += rule[g] == GD_LINK_MEMORY;
    if (n == 0 && f->gpu_count == 1 && !f->gpus[0].lost && job_loaded_driver(j)) {
        rule[0] = GD_LINK_ONLY_GPU;
        say(WHY(0), why_len, "GPU %d: the only GPU visible here, and the job loaded the CUDA driver", f->gpus[0].index);
        n = 1;
    }
    for (size_t g = 0; n == 0 && g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (!gpu->lost && gd_ok(gpu->processes_status) && gpu->process_count > 0) {
            rule[g] = GD_LINK_OTHER_PIDS;
            say(WHY(g), why_len,
                "GPU %d: NVML lists %zu process%s on it, none of the job's pids (in a container NVML shows host "
                "pids; a scenario its own)",
                gpu->index, gpu->process_count, gpu->process_count == 1 ? "" : "es");
        }
    }
    if (n == 0)
        for (size_t g = 0; g < f->gpu_count; g++)
            n += rule[g] == GD_LINK_OTHER_PIDS;
    free(roles);
    return n;
}

void gd_job_link_none(const gd_facts *f, char *buf, size_t len)
{
    const gd_job_facts *j = f->job;
    bool env = false;
    for (size_t i = 0; j && i < j->proc_count; i++)
        env |= j->procs[i].has_cuda_visible || j->procs[i].has_nvidia_visible;
    snprintf(buf, len,
             "no GPU is linked to the job: NVML lists no process on any GPU, the job holds no /dev/nvidiaN open, "
             "%s, and no GPU's memory grew when it started",
             env ? "its CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES name no GPU seen here"
                 : "it sets no CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES");
}
