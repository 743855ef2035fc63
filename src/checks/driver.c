/* SPDX-License-Identifier: Apache-2.0 */
/* driver.missing and gpu.none: can gpudoctor see any NVIDIA GPU at all? */
#include "checks_internal.h"

void gd_check_driver_missing(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    if (f->driver_loaded)
        return;
    if (f->captured) { /* lspci or topo alone: says nothing about the driver */
        gd_skip_add(out, "driver.missing", GD_NO_GPU, "%s", f->driver_error);
        return;
    }
    /* A CPU node needs no driver: a fleet-wide rollout must not flag it (issue 38). */
    if (gd_facts_no_nvidia_gpu(f)) {
        gd_skip_add(out, "driver.missing", GD_NO_GPU,
                    "no NVIDIA GPU on this machine: no NVIDIA display or 3D controller on its PCI bus, so it needs "
                    "no driver");
        return;
    }
    json_t *ev = json_object();
    json_object_set_new(ev, "error", json_string(f->driver_error));
    json_object_set_new(ev, "pci_nvidia_gpus", gd_json_value(f->pci_nvidia_gpus));
    json_object_set_new(ev, "source",
                        json_string(gd_ok(f->pci_nvidia_gpus)
                                        ? "dlopen:libnvidia-ml.so.1; sysfs:bus/pci/devices/*/vendor,class"
                                        : "dlopen:libnvidia-ml.so.1"));
    char gpus[96] = "";
    if (gd_ok(f->pci_nvidia_gpus))
        snprintf(gpus, sizeof gpus, " on a machine with %.0f NVIDIA GPU%s on its PCI bus", f->pci_nvidia_gpus.v,
                 f->pci_nvidia_gpus.v == 1 ? "" : "s");
    gd_finding_add(out, "driver.missing", GD_SEV_CRITICAL, GD_NO_GPU, ev, NAN,
                   "Install the NVIDIA driver for this GPU (Debian: enable non-free and run "
                   "'apt-get install nvidia-driver', or use NVIDIA's installer), reboot, and check "
                   "that 'nvidia-smi' lists the GPUs. If the driver is installed, make sure "
                   "libnvidia-ml.so.1 is on the loader path ('ldconfig -p | grep nvidia-ml'), or "
                   "point GPUDOCTOR_NVML_LIBRARY at it. In a container, start it with the NVIDIA "
                   "container toolkit ('docker run --gpus all ...').",
                   "No NVIDIA driver could be loaded%s: nothing on the GPUs could be checked", gpus);
}

void gd_check_gpu_none(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    /* Listed but not ours to read: not a fault, and nothing judged them. */
    for (size_t i = 0; i < f->denied_count; i++) {
        const gd_gpu_denied *d = &f->denied[i];
        gd_skip_add(out, "gpu.none", d->index,
                    "GPU %d is not accessible: %s returned %s (code %d)%s; it is left out of every check and peer "
                    "comparison",
                    d->index, d->call, d->error[0] ? d->error : "an error", d->code,
                    d->code == NVML_ERROR_NO_PERMISSION ? ", a GPU this container or cgroup does not give us" : "");
    }
    if (!f->driver_loaded || f->gpu_count > 0 || f->denied_count > 0)
        return;
    json_t *ev = json_object();
    json_object_set_new(ev, "driver_version", json_string(f->driver_version));
    json_object_set_new(ev, "gpu_count", json_integer(0));
    json_object_set_new(ev, "source", json_string("nvml:nvmlDeviceGetCount"));
    gd_finding_add(out, "gpu.none", GD_SEV_CRITICAL, GD_NO_GPU, ev, NAN,
                   "Check 'nvidia-smi' and 'lspci -d 10de:' : if lspci lists the GPU but NVML does "
                   "not, look for Xid or 'fallen off the bus' lines in 'dmesg' and reboot; in a "
                   "container, check NVIDIA_VISIBLE_DEVICES and the --gpus flag.",
                   "The NVIDIA driver is loaded but reports no GPU");
}
