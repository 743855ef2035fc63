/* health.gpu_lost: a GPU that stopped answering during the window. */
#include "checks_internal.h"

void gd_check_gpu_lost(const gd_facts *f, gd_findings *out)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (!gpu->lost)
            continue;
        json_t *ev = json_object();
        json_object_set_new(ev, "lost_at_s", gd_json_number(gpu->lost_at_s));
        json_object_set_new(ev, "call", json_string(gpu->lost_call));
        json_object_set_new(ev, "nvml_return", json_integer(gpu->lost_code));
        json_object_set_new(ev, "pci_bus_id", json_string(gpu->pci_bus_id));
        char src[96];
        snprintf(src, sizeof src, "nvml:%s", gpu->lost_call);
        json_object_set_new(ev, "source", json_string(src));
        char fix[768];
        snprintf(fix, sizeof fix,
                 "The GPU has fallen off the bus. Look for Xid 79 (or 48, 74, 94, 95) in "
                 "'dmesg -T | grep -i xid'. Stop the jobs on it, then try 'nvidia-smi -r -i %d' "
                 "(GPU reset, as root); if that fails, reboot. If it happens again: reseat the "
                 "card and its power cables, check the riser or baseboard, PSU capacity and "
                 "temperatures, and open an RMA with the serial %s.",
                 gpu->index, gpu->serial[0] ? gpu->serial : "from 'nvidia-smi -q'");
        gd_finding_add(out, "health.gpu_lost", GD_SEV_CRITICAL, gpu->index, ev, 100.0, fix,
                       "GPU %d (%s) stopped answering at %.1f s of the window", gpu->index,
                       gpu->pci_bus_id[0] ? gpu->pci_bus_id : "unknown bus id", gpu->lost_at_s);
    }
}
