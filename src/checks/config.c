/* SPDX-License-Identifier: Apache-2.0 */
/* Configuration: config.persistence_off, config.compute_mode, config.mig_enabled,
 * config.ecc_disabled. Sources: nvidia-smi man page (research/facts.md section 5). */
#include "checks_internal.h"
#include "cuda_rules.h"
#include "gpudoctor/stack.h"

#include <stdlib.h>

/* The GPUs whose value `pick` reads as readable and equal to `want`; says
 * "not checked" for those where it could not be read. */
static json_t *gpus_where(const gd_facts *f, gd_findings *out, const char *id, size_t off, double want,
                          const char *what)
{
    json_t *a = json_array();
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        gd_value v = *(const gd_value *)((const char *)gpu + off);
        if (!gd_ok(v)) {
            if (!gpu->lost && !gd_not_reported(v))
                gd_skip_add(out, id, gpu->index, "%s not readable (%s)", what, gd_status_name((gd_status)v.status));
            continue;
        }
        if (v.v == want)
            json_array_append_new(a, json_integer(gpu->index));
    }
    return a;
}

/* One finding for the node when several GPUs share a setting. */
static void add_setting(gd_findings *out, const char *id, gd_severity sev, json_t *gpus, const char *call,
                        const char *fix, const char *what)
{
    size_t n = json_array_size(gpus);
    if (n == 0) {
        json_decref(gpus);
        return;
    }
    int first = (int)json_integer_value(json_array_get(gpus, 0));
    /* nvidia-smi -i takes a comma-separated list: the fix names these GPUs. */
    char list[200] = "-i ", concrete[768];
    for (size_t i = 0; i < n; i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%lld", i ? "," : "",
                 (long long)json_integer_value(json_array_get(gpus, i)));
    }
    gd_fill_placeholder(concrete, sizeof concrete, fix, "-i N", list);
    fix = concrete;
    json_t *ev = json_object();
    json_object_set_new(ev, "gpus", gpus);
    json_object_set_new(ev, "source", json_string(call));
    if (n == 1)
        gd_finding_add(out, id, sev, first, ev, NAN, fix, "GPU %d: %s", first, what);
    else
        gd_finding_add(out, id, sev, GD_NO_GPU, ev, NAN, fix, "%zu GPUs: %s", n, what);
}

void gd_check_config_persistence(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    /* Info: it costs start-up time (the driver re-initialises each GPU when
     * the first client arrives) and resets volatile ECC counters, not
     * throughput once a job runs. DCGM fails on it only when asked to. */
    json_t *g = gpus_where(f, out, "config.persistence_off", offsetof(gd_gpu, persistence_mode), 0, "persistence mode");
    add_setting(out, "config.persistence_off", GD_SEV_INFO, g, "nvml:nvmlDeviceGetPersistenceMode",
                "Enable the persistence daemon: 'sudo systemctl enable --now nvidia-persistenced' (or 'sudo "
                "nvidia-smi -pm 1', lost at reboot). Without it every job start waits for the driver to "
                "initialise the GPUs, and volatile ECC counters reset between jobs.",
                "persistence mode off: each job start re-initialises the driver");
}

void gd_check_config_compute_mode(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    static const char id[] = "config.compute_mode";
    json_t *prohibited =
        gpus_where(f, out, id, offsetof(gd_gpu, compute_mode), NVML_COMPUTEMODE_PROHIBITED, "compute mode");
    /* Prohibited refuses new contexts; one made before it was set runs on.
     * A busy GPU is said so, not "no process can use it" beside its load. */
    double busy = -1;
    for (size_t i = 0; i < json_array_size(prohibited); i++)
        for (size_t g = 0; g < f->gpu_count; g++)
            if (f->gpus[g].index == json_integer_value(json_array_get(prohibited, i))) {
                gd_stats u;
                if (gd_stats_of(f, g, GD_M_UTIL_GPU_PCT, &u) > 0 && u.max > busy)
                    busy = u.max;
            }
    char what[200] = "compute mode Prohibited: no new CUDA context can be created on it";
    if (busy >= 1)
        snprintf(what, sizeof what,
                 "compute mode Prohibited: no new CUDA context can be created; the processes already on it keep "
                 "running (up to %.0f %% busy)",
                 busy);
    add_setting(out, id, GD_SEV_CRITICAL, prohibited, "nvml:nvmlDeviceGetComputeMode",
                "Compute mode Prohibited refuses every new CUDA context: the processes already on the GPU run on, "
                "the next job fails to start. 'sudo nvidia-smi -i N -c DEFAULT'. Find out who set it (a "
                "maintenance drain, a scheduler prolog) before changing it back.",
                what);
    /* Exclusive modes are deliberate on shared clusters; they block a
     * second process (DataLoader workers touching CUDA, MPS, a monitor). */
    json_t *excl = json_array();
    for (size_t g = 0; g < f->gpu_count; g++) {
        gd_value v = f->gpus[g].compute_mode;
        if (gd_ok(v) && (v.v == NVML_COMPUTEMODE_EXCLUSIVE_PROCESS || v.v == NVML_COMPUTEMODE_EXCLUSIVE_THREAD))
            json_array_append_new(excl, json_integer(f->gpus[g].index));
    }
    add_setting(out, id, GD_SEV_INFO, excl, "nvml:nvmlDeviceGetComputeMode",
                "Exclusive compute mode allows one CUDA process per GPU: a second one (a DataLoader worker "
                "that touches CUDA, a second job, a profiler) fails with 'all CUDA-capable devices are busy or "
                "unavailable'. 'sudo nvidia-smi -i N -c DEFAULT' if that is not intended.",
                "exclusive compute mode: one CUDA process at a time");
}

/* The MIG-mode GPU a job targets as a whole GPU, or -1: a CUDA_VISIBLE_DEVICES
 * entry naming it by index or GPU- UUID, or the --pid job seeing every GPU
 * (no CUDA_VISIBLE_DEVICES) or running on it. MIG- entries choose a slice on
 * purpose. */
static int mig_gpu_targeted(const gd_facts *f, const char *cvd)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (!gd_ok(gpu->mig_mode) || gpu->mig_mode.v != 1)
            continue;
        if (f->pid >= 0 && !cvd)
            return gpu->index;
        for (size_t p = 0; f->pid >= 0 && p < gpu->process_count; p++)
            if ((long)gpu->processes[p].pid == f->pid && !(cvd && strstr(cvd, "MIG-")))
                return gpu->index;
        for (const char *t = cvd; t && *t;) {
            size_t n = strcspn(t, ",");
            char tok[128];
            snprintf(tok, sizeof tok, "%.*s", (int)(n < sizeof tok ? n : sizeof tok - 1), t);
            char *end;
            long idx = strtol(tok, &end, 10);
            if (end != tok && *end == '\0' && idx == gpu->index)
                return gpu->index;
            if (strncmp(tok, "GPU-", 4) == 0 && gpu->uuid[0] && strncmp(gpu->uuid, tok, strlen(tok)) == 0)
                return gpu->index;
            t += n + (t[n] == ',');
        }
    }
    return -1;
}

void gd_check_config_mig(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    json_t *g = gpus_where(f, out, "config.mig_enabled", offsetof(gd_gpu, mig_mode), 1, "MIG mode");
    /* A partitioned node is deliberate (inference, shared clusters); it costs
     * a job only when the job wants a whole GPU that is partitioned. */
    const char *cvd = f->stack ? gd_stack_getenv(f->stack, "CUDA_VISIBLE_DEVICES") : NULL;
    int targeted = json_array_size(g) ? mig_gpu_targeted(f, cvd) : -1;
    add_setting(out, "config.mig_enabled", targeted >= 0 ? GD_SEV_WARNING : GD_SEV_INFO, g, "nvml:nvmlDeviceGetMigMode",
                "With MIG on, a process sees one GPU instance: a slice of the SMs and memory (1/7 of the SMs on "
                "A100/H100 in the smallest profile), and NVML reports no utilisation. To train on the whole GPU: "
                "'sudo nvidia-smi -i N -mig 0' with no process on it (a reset may be needed). If slicing is "
                "intended, check 'nvidia-smi mig -lgi' for the profile.",
                targeted >= 0 ? "MIG enabled on a GPU the job uses whole: it sees only a slice"
                              : "MIG enabled: each process sees only a slice of the GPU (deliberate partitioning?)");
}

void gd_check_config_ecc(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    json_t *g = gpus_where(f, out, "config.ecc_disabled", offsetof(gd_gpu, ecc_enabled), 0, "ECC mode");
    /* Consumer boards have no ECC to turn on; only data-center GPUs count. */
    json_t *dc = json_array();
    size_t i;
    json_t *x;
    json_array_foreach(g, i, x)
    {
        for (size_t k = 0; k < f->gpu_count; k++)
            if (f->gpus[k].index == json_integer_value(x) && gd_gpu_is_datacenter(f->gpus[k].name))
                json_array_append(dc, x);
    }
    json_decref(g);
    add_setting(out, "config.ecc_disabled", GD_SEV_INFO, dc, "nvml:nvmlDeviceGetEccMode",
                "ECC is off: memory errors go undetected (silent corruption, NaN losses). Turn it on with "
                "'sudo nvidia-smi -i N -e 1' and reboot, unless it was turned off on purpose for the few % "
                "of memory and bandwidth it costs.",
                "ECC disabled on a data-center GPU");
}
