/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The link between the CPUs of a multi-socket host (topology level SYS):
 * which one it is, by the PCI vendor of the root ports (the CPU's maker:
 * sysfs `vendor` of the port above a GPU), and what a GPU-to-GPU copy
 * across it carries on a healthy node.
 *
 * The rates are NCCL's own inter-CPU bandwidths (src/graph/topo.h,
 * ncclTopoGetInterCpuBw: AMD_BW 16, SKL_QPI_BW 10, QPI_BW 6, P9_BW 32,
 * ARM_BW 6, ZPI_BW 6 GB/s), the figures NCCL plans a path across the CPUs
 * to carry. They are on the scale of NCCL's PCI_BW (12 GB/s for a Gen3 x16
 * link of 15.75): what a copy reaches, not a link's raw rate, so they are
 * the expectation itself (no efficiency applied). A platform the table does
 * not know is held to the least NCCL assumes of any CPU link (6 GB/s): a
 * healthy node is never blamed for its CPUs, and a copy far below even that
 * still is.
 */
#ifndef GD_ANALYSIS_CPU_LINK_H
#define GD_ANALYSIS_CPU_LINK_H

#include <stdbool.h>

typedef struct gd_cpu_link {
    const char *name; /* "AMD Infinity Fabric (xGMI)" */
    double gbps; /* what a peer copy across it carries per direction, GB/s */
    const char *source; /* "NCCL AMD_BW" */
    bool assumed; /* the platform is not known: the least of any */
} gd_cpu_link;

/* The CPU link of a host whose root ports have PCI vendor id `vendor`
 * (0 unknown). Always fills out. */
void gd_cpu_link_of(int vendor, gd_cpu_link *out);

#endif
