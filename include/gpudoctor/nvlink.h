/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NVLink rates by generation, shared by the topology model (what a path
 * allows) and the simulated machine (what its links carry).
 */
#ifndef GPUDOCTOR_NVLINK_H
#define GPUDOCTOR_NVLINK_H

/* One link's rate per direction in GB/s by nvmlDeviceGetNvLinkVersion's
 * number (nvml.h's nvmlNvlinkVersion_t: 1 is NVLink 1.0, 2 2.0, 3 2.2,
 * 4 3.0, 5 3.1, 6 4.0, 7 5.0); 0 for a number it does not know. NVLink 1.0
 * (P100) carries 20 GB/s, 2.x to 4.0 (V100, A100, H100) 25 GB/s, 5.0
 * (B200) 50 GB/s. */
static inline double gd_nvlink_version_gbps(long long version)
{
    return version == 1 ? 20.0 : version >= 2 && version <= 6 ? 25.0 : version == 7 ? 50.0 : 0.0;
}

/* "4.0" for version 6; "" for a number it does not know. */
static inline const char *gd_nvlink_version_name(long long version)
{
    static const char *const names[] = {"", "1.0", "2.0", "2.2", "3.0", "3.1", "4.0", "5.0"};
    return version >= 1 && version <= 7 ? names[version] : "";
}

#endif
