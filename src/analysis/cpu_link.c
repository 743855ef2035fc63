/* SPDX-License-Identifier: Apache-2.0 */
/* The link between the CPUs, by the root ports' vendor: see cpu_link.h. */
#include "analysis/cpu_link.h"

#include <stddef.h>

/* PCI vendor ids (the PCI-SIG's list, as pci.ids carries it). */
static const struct {
    int vendor;
    gd_cpu_link link;
} links[] = {
    /* EPYC sockets talk over xGMI, Infinity Fabric's socket-to-socket link. */
    {0x1022, {"AMD Infinity Fabric (xGMI)", 16.0, "NCCL AMD_BW", false}},
    /* Skylake-SP and later (UPI). Before Skylake (QPI, QPI_BW 6) the driver
     * offers no P2P across the sockets, so no peer copy is held to it. */
    {0x8086, {"Intel UPI", 10.0, "NCCL SKL_QPI_BW", false}},
    {0x1014, {"IBM POWER9 X-Bus", 32.0, "NCCL P9_BW", false}},
    {0x1d17, {"Zhaoxin ZPI", 6.0, "NCCL ZPI_BW", false}},
    /* Arm servers: Ampere, Huawei Kunpeng, NVIDIA Grace. */
    {0x1def, {"Arm socket link (Ampere)", 6.0, "NCCL ARM_BW", false}},
    {0x19e5, {"Arm socket link (Huawei)", 6.0, "NCCL ARM_BW", false}},
    {0x10de, {"Arm socket link (NVIDIA Grace)", 6.0, "NCCL ARM_BW", false}},
};

void gd_cpu_link_of(int vendor, gd_cpu_link *out)
{
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
        if (links[i].vendor == vendor && vendor) {
            *out = links[i].link;
            return;
        }
    *out =
        (gd_cpu_link){"the CPUs' interconnect (platform not known)", 6.0, "the least of NCCL's inter-CPU rates", true};
}
