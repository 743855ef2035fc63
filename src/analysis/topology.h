/* SPDX-License-Identifier: Apache-2.0 */
/* The topology matrix: levels between GPUs and NICs from their PCIe paths. */
#ifndef GD_ANALYSIS_TOPOLOGY_H
#define GD_ANALYSIS_TOPOLOGY_H

#include "gpudoctor/pcie.h"

#include <stdbool.h>
#include <stddef.h>

/* "X", "PIX", "PXB", "PHB", "NODE", "SYS", or "?" */
const char *gd_topo_level_name(int level);

/* A matrix entry as nvidia-smi prints it: "NV18" or the level name. */
void gd_topo_cell_label(gd_topo_cell c, char *buf, size_t len);

/* The level between two GPUs (or a GPU and a NIC) from their paths: the
 * lowest common bridge, the host bridge and the NUMA node. */
int gd_topo_pair_level(const gd_pcie_gpu *a, const gd_pcie_gpu *b);

/* Adds a NIC at `where` to p->nics, and to the nics of every GPU behind the
 * same switch (PIX/PXB). Returns 0 or -1 (no memory). */
int gd_topo_add_nic(gd_pcie_facts *p, const gd_pcie_gpu *where, const char *name, const char *model);

/* Active NVLinks between f->gpus[a] and f->gpus[b], directly or through NVSwitches. */
int gd_topo_pair_nvlinks(const gd_facts *f, size_t a, size_t b);

/* Fills p->matrix from the paths and f's NVLinks. Returns 0 or -1 (no memory). */
int gd_topo_derive(gd_pcie_facts *p, const gd_facts *f);

#endif
