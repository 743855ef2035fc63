/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the PCIe tree of this machine (or a scenario's) from sysfs. */
#ifndef GD_SOURCES_PCIE_PCIE_COLLECT_H
#define GD_SOURCES_PCIE_PCIE_COLLECT_H

#include "gpudoctor/context.h"
#include "gpudoctor/pcie.h"

#include <stdbool.h>
#include <stddef.h>

/* Reads the PCIe facts of f's GPUs under roots->sys (and the job f->pid
 * under roots->proc) into f->pcie. Returns 0 (f->pcie stays NULL when sysfs
 * is not available) or -1 when out of memory. */
int gd_pcie_collect(gd_facts *f, const gd_roots *roots);

/* NVIDIA GPUs on the PCI bus under sys_root: devices of vendor 0x10de and
 * class 0x0300 (VGA) or 0x0302 (3D controller), driver or not; an NVSwitch
 * (a bridge, 0x0680) is not one. Not ok when sys_root/bus/pci/devices
 * cannot be read. */
gd_value gd_pcie_count_nvidia_gpus(const char *sys_root);

#endif
