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

#endif
