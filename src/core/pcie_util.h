/* SPDX-License-Identifier: Apache-2.0 */
/* Building and parsing the PCIe model (include/gpudoctor/pcie.h): for the
 * readers of sysfs and captures, and the checks that need a link rate. */
#ifndef GD_CORE_PCIE_UTIL_H
#define GD_CORE_PCIE_UTIL_H

#include "gpudoctor/pcie.h"

#include <stdbool.h>
#include <stddef.h>

/* f->pcie, allocated empty when NULL (for the importers). NULL: out of memory. */
gd_pcie_facts *gd_pcie_facts_get(gd_facts *f);

/* Appends a GPU entry (zeroed, values unread); NULL when out of memory. */
gd_pcie_gpu *gd_pcie_gpu_add(gd_pcie_facts *p);

/* A PCI address in NVML's form, "00000000:3B:00.0", from "0000:3b:00.0" or
 * "3b:00.0"; "" when it is no address. */
void gd_pci_bus_id_norm(const char *in, char *out, size_t len);

/* Parses a sysfs link speed, "8 GT/s" (kernels <= 5.6) or "8.0 GT/s PCIe",
 * also lspci's "8GT/s": GT/s, or NAN for "Unknown" and garbage. */
double gd_pcie_parse_speed(const char *s);

/* The PCIe generation of a transfer rate in GT/s (2.5 -> 1 ... 64 -> 6), 0 unknown. */
int gd_pcie_gen_of_speed(double gts);

/* Theoretical payload rate of a link per direction, GB/s (Gen3 x16: 15.75); NAN unknown. */
double gd_pcie_link_gbps(int gen, int width);

/* "0000:1b:00.0" from "00000000:1B:00.0" / "0000:1B:00.0" / "1b:00.0". Returns 0 or -1. */
int gd_pcie_norm_bdf(const char *in, char *out, size_t len);

/* Fills the GPUs' PCIe maxima that NVML or nvidia-smi left unknown from the
 * tree: the card's own from its LnkCap, card and slot together as the lower
 * of that and the LnkCap of the port above. `source` is added to each
 * filled GPU's pcie_max_source. */
void gd_pcie_fill_link_max(gd_facts *f, const char *source);

/* Copies src into dst (len bytes), truncated, always terminated. */
void gd_pcie_copy(char *dst, size_t len, const char *src);

/* Whether CPU n is in a cpulist such as "0-23,48-71". */
bool gd_cpulist_has(const char *list, int cpu);

/* Number of CPUs in a cpulist (0 for "" or garbage). */
int gd_cpulist_count(const char *list);

#endif
