/* SPDX-License-Identifier: Apache-2.0 */
/* NVLink: nvlink.down. */
#include "checks_internal.h"

static size_t active_links(const gd_gpu *gpu)
{
    size_t n = 0;
    for (size_t l = 0; l < gpu->nvlink_count; l++)
        n += gd_ok(gpu->nvlink[l].active) && gpu->nvlink[l].active.v != 0;
    return n;
}

/* The number of active links most GPUs other than `self` have (ties: the
 * larger), among those not in MIG mode and not lost that list links; -1
 * when no such peer. */
static int peers_active(const gd_facts *f, size_t self)
{
    int counts[37] = {0};
    bool any = false;
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *p = &f->gpus[g];
        if (g == self || p->lost || p->nvlink_count == 0 || (gd_ok(p->mig_mode) && p->mig_mode.v != 0))
            continue;
        size_t n = active_links(p);
        counts[n > 36 ? 36 : n]++;
        any = true;
    }
    if (!any)
        return -1;
    int best = 0;
    for (int n = 1; n <= 36; n++)
        if (counts[n] >= counts[best])
            best = n;
    return best;
}

void gd_check_nvlink_down(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    /* PCIe boards without an NVLink bridge report every link inactive: only
     * a machine where some link is up wires NVLink at all. */
    size_t machine_active = 0;
    for (size_t g = 0; g < f->gpu_count; g++)
        machine_active += active_links(&f->gpus[g]);
    /* (A machine whose only NVLink GPUs are in MIG mode reads all down: then
     * no link is up and nothing is judged, as for PCIe boards.) */
    if (machine_active == 0)
        return;
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (gd_ok(gpu->mig_mode) && gpu->mig_mode.v != 0 && gpu->nvlink_count) {
            /* NVML reports a MIG-enabled GPU's NVLinks as down whatever their
             * state (DCGM carries a workaround for it): not judged. */
            gd_skip_add(out, "nvlink.down", gpu->index,
                        "GPU %d is in MIG mode, where NVML reports every NVLink as down: its links are not judged",
                        gpu->index);
            continue;
        }
        json_t *down = json_array();
        size_t known = 0;
        for (size_t l = 0; l < gpu->nvlink_count; l++) {
            const gd_nvlink *nl = &gpu->nvlink[l];
            known += gd_ok(nl->active);
            if (gd_ok(nl->active) && nl->active.v == 0)
                json_array_append_new(down, json_integer(nl->link));
        }
        size_t n = json_array_size(down);
        if (n == 0) {
            json_decref(down);
            continue;
        }
        size_t up = active_links(gpu);
        json_t *ev = json_object();
        /* A link's number is an index (nvidia-smi's "Link 17"), never a count: named so. */
        json_object_set_new(ev, "links_down", json_integer((json_int_t)n));
        json_object_set_new(ev, "down_link_indices", down);
        json_object_set_new(ev, "links_active", json_integer((json_int_t)up));
        json_object_set_new(ev, "links_reported", json_integer((json_int_t)known));
        /* Peers compared explicitly: one GPU with 17 of 18 while the others have 18 is a fault of that
         * GPU's link, not of the platform's wiring. */
        int peers = peers_active(f, g);
        json_object_set_new(ev, "peers_links_active", peers < 0 ? json_null() : json_integer(peers));
        json_object_set_new(ev, "source", json_string("nvml:nvmlDeviceGetNvLinkState"));
        char vs[64] = "";
        if (peers >= 0 && (size_t)peers != up)
            snprintf(vs, sizeof vs, "; its peers have %d active", peers);
        else if (peers >= 0)
            snprintf(vs, sizeof vs, "; as many as its peers");
        char fix[768];
        snprintf(fix, sizeof fix,
                 "A link that is down takes its share of GPU-to-GPU bandwidth with it (NCCL all-reduce slows by "
                 "about %zu of %zu parts, or falls back to PCIe when all are down). Check 'nvidia-smi nvlink -s -i "
                 "%d' and 'nvidia-smi nvlink -e -i %d' for errors, the kernel log for Xid 74, and on NVSwitch "
                 "systems that nvidia-fabricmanager runs ('systemctl status nvidia-fabricmanager'). A GPU reset "
                 "or reboot may retrain it; a link that stays down needs the baseboard or bridge serviced.",
                 n, known, gpu->index, gpu->index);
        char which[48] = "";
        if (n <= 3) {
            size_t used = 0, i;
            json_t *l;
            json_array_foreach(down, i, l) used += (size_t)snprintf(which + used, sizeof which - used, "%s%lld",
                                                                    i        ? ", "
                                                                    : n == 1 ? "link "
                                                                             : "links ",
                                                                    (long long)json_integer_value(l));
            snprintf(which + used, sizeof which - used, "; ");
        }
        gd_finding_add(out, "nvlink.down", up == 0 ? GD_SEV_CRITICAL : GD_SEV_WARNING, gpu->index, ev, NAN, fix,
                       "GPU %d has %zu NVLink link%s down (%s%zu of %zu active%s)", gpu->index, n, n == 1 ? "" : "s",
                       which, up, known, vs);
    }
}
