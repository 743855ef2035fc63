/*
 * PCIe and topology facts: each GPU's link and the bridges above it (from
 * sysfs), NUMA placement, NVLink, and the GPU-to-GPU topology.
 */
#ifndef GPUDOCTOR_PCIE_H
#define GPUDOCTOR_PCIE_H

#include "gpudoctor/model.h"

typedef struct gd_pcie_facts {
    int reserved; /* filled in by the PCIe backend */
} gd_pcie_facts;

/* Reads the PCIe facts of f's GPUs under f->sysfs_root into f->pcie.
 * Returns 0 (f->pcie may stay NULL when sysfs is not available) or -1. */
int gd_pcie_collect(gd_facts *f);

void gd_pcie_facts_free(gd_pcie_facts *p);

#endif
