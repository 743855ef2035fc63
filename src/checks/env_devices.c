/* SPDX-License-Identifier: Apache-2.0 */
/* env.visible_devices and env.device_order: which GPUs the job's CUDA sees,
 * and in what order. Rules: CUDA Programming Guide, environment variables
 * (research/facts.md section 5): an empty CUDA_VISIBLE_DEVICES hides every
 * GPU; entries are indices, GPU-UUIDs (unique prefixes) or MIG-UUIDs; the
 * list ends at the first invalid entry ("0,2,-1,1" gives 0 and 2). */
#include "checks_internal.h"
#include "gpudoctor/stack.h"

#include <ctype.h>
#include <stdlib.h>
#include <strings.h>

static bool mig_on(const gd_gpu *gpu)
{
    return gd_ok(gpu->mig_mode) && gpu->mig_mode.v == 1;
}

/* Which GPU (index into f->gpus) an entry names, -1 for none; *mig for a MIG device. */
static int entry_gpu(const gd_facts *f, const char *e, size_t n, bool *mig)
{
    *mig = false;
    if (n > 4 && strncmp(e, "MIG-", 4) == 0) {
        *mig = true;
        /* MIG-GPU-<uuid>/<gi>/<ci> names its GPU; MIG-<uuid> names an
         * instance NVML's device list does not show: any GPU in MIG mode. */
        size_t parent = 0;
        while (4 + parent < n && e[4 + parent] != '/')
            parent++;
        bool named = n > 8 && strncmp(e + 4, "GPU-", 4) == 0;
        for (size_t g = 0; g < f->gpu_count; g++)
            if (mig_on(&f->gpus[g]) &&
                (!named || (strlen(f->gpus[g].uuid) == parent && strncasecmp(f->gpus[g].uuid, e + 4, parent) == 0)))
                return (int)g;
        return -1;
    }
    if (n > 4 && strncmp(e, "GPU-", 4) == 0) {
        int hit = -1, hits = 0;
        for (size_t g = 0; g < f->gpu_count; g++)
            if (strncasecmp(f->gpus[g].uuid, e, n) == 0)
                hit = (int)g, hits++;
        return hits == 1 ? hit : -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)e[i]))
            return -1;
    long v = n ? strtol(e, NULL, 10) : -1;
    return v >= 0 && (size_t)v < f->gpu_count ? (int)v : -1;
}

void gd_check_env_visible_devices(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    static const char id[] = "env.visible_devices";
    const gd_stack_facts *s = f->stack; /* read: the table's needs */
    const char *v = gd_stack_getenv(s, "CUDA_VISIBLE_DEVICES");
    if (!v || f->gpu_count == 0)
        return;
    size_t visible = 0, migs = 0;
    bool invalid = false, any_mig = false;
    char bad[64] = "";
    json_t *seen = json_array();
    for (const char *p = v; *p && !invalid;) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, ",");
        size_t t = n;
        while (t && p[t - 1] == ' ')
            t--;
        bool mig;
        int g = entry_gpu(f, p, t, &mig);
        any_mig |= mig && g >= 0;
        migs += mig && g >= 0;
        bool again = false; /* a GPU listed twice is still one GPU */
        for (size_t k = 0; g >= 0 && !mig && k < json_array_size(seen); k++)
            again |= json_integer_value(json_array_get(seen, k)) == f->gpus[g].index;
        if (g < 0) {
            invalid = true;
            snprintf(bad, sizeof bad, "%.*s", (int)(t < 60 ? t : 60), p);
        } else if (!again) {
            visible++;
            json_array_append_new(seen, json_integer(f->gpus[g].index));
        }
        p += n;
        if (*p == ',')
            p++;
    }
    json_t *ev = json_object();
    json_object_set_new(ev, "CUDA_VISIBLE_DEVICES", json_string(v));
    json_object_set_new(ev, "gpus_visible", seen);
    json_object_set_new(ev, "gpu_count", json_integer((json_int_t)f->gpu_count));
    if (bad[0])
        json_object_set_new(ev, "invalid_entry", json_string(bad));
    char src[200];
    snprintf(src, sizeof src, "environment: %.128s; nvml:nvmlDeviceGetCount", s->env_source);
    json_object_set_new(ev, "source", json_string(src));
    if (visible == 0) {
        gd_finding_add(out, id, GD_SEV_CRITICAL, GD_NO_GPU, ev, 100.0,
                       "Set CUDA_VISIBLE_DEVICES to the GPUs the job should use (indices 0..N-1 as nvidia-smi "
                       "lists them, or GPU UUIDs from 'nvidia-smi -L'), or unset it. Under Slurm let "
                       "--gres=gpu:N set it; do not overwrite it in the job script.",
                       "CUDA_VISIBLE_DEVICES='%s' hides every GPU: CUDA sees no device", v);
    } else if (migs > 1) {
        gd_finding_add(
            out, id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN,
            "A CUDA process uses one MIG compute instance: with several visible it picks the first (MIG "
            "user guide, CUDA device enumeration). Give each process its own MIG device "
            "(CUDA_VISIBLE_DEVICES=MIG-<uuid> from 'nvidia-smi -L'), or turn MIG off to train on whole GPUs.",
            "CUDA_VISIBLE_DEVICES lists %zu MIG devices: a process uses only the first", migs);
    } else if (invalid && visible < f->gpu_count) {
        gd_finding_add(out, id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN,
                       "Fix the list: CUDA stops at the first entry that names no GPU and ignores everything after "
                       "it. Use indices 0..N-1 or full UUIDs from 'nvidia-smi -L'.",
                       "CUDA_VISIBLE_DEVICES names '%s', which is no GPU here: the job sees only %zu of %zu GPUs", bad,
                       visible, f->gpu_count);
    } else if (invalid) {
        gd_finding_add(out, id, GD_SEV_INFO, GD_NO_GPU, ev, NAN,
                       "Harmless here, as every GPU comes before it; remove the entry so the list means the same "
                       "on every node (CUDA ignores it and everything after it).",
                       "CUDA_VISIBLE_DEVICES names '%s', which is no GPU here (the job still sees all %zu GPUs)", bad,
                       f->gpu_count);
    } else if (visible < f->gpu_count && !any_mig) {
        gd_finding_add(out, id, GD_SEV_INFO, GD_NO_GPU, ev, NAN,
                       "Nothing to do if the job is meant to use these GPUs only (Slurm and Kubernetes set this per "
                       "job). Otherwise unset CUDA_VISIBLE_DEVICES or list every GPU.",
                       "CUDA_VISIBLE_DEVICES shows the job %zu of %zu GPUs", visible, f->gpu_count);
    } else {
        json_decref(ev);
    }
}

void gd_check_env_device_order(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_stack_facts *s = f->stack; /* read: the table's needs */
    bool mixed = false;
    for (size_t g = 1; g < f->gpu_count; g++)
        mixed |= strcmp(f->gpus[g].name, f->gpus[0].name) != 0;
    const char *order = gd_stack_getenv(s, "CUDA_DEVICE_ORDER");
    if (!mixed || (order && strcmp(order, "PCI_BUS_ID") == 0))
        return;
    json_t *ev = json_object();
    json_object_set_new(ev, "CUDA_DEVICE_ORDER", order ? json_string(order) : json_null());
    json_object_set_new(ev, "gpu0", json_string(f->gpus[0].name));
    json_object_set_new(ev, "source", json_string("environment; nvml:nvmlDeviceGetName"));
    gd_finding_add(out, "env.device_order", GD_SEV_INFO, GD_NO_GPU, ev, NAN,
                   "export CUDA_DEVICE_ORDER=PCI_BUS_ID so CUDA's device numbers match nvidia-smi's (and "
                   "CUDA_VISIBLE_DEVICES picks the GPUs you mean).",
                   "Different GPU models and CUDA_DEVICE_ORDER %s: CUDA numbers the fastest GPU first, not as "
                   "nvidia-smi does",
                   order ? order : "unset");
}
