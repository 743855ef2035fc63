/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the path between two GPUs allows: over NVLink, the links a healthy
 * pair of this node has times one link's rate (NVML's common link speed,
 * else the links' version); over PCIe, the slowest link on the way (each
 * GPU's own link and the bridges above it, up to the ports they share), at
 * what the hardware can train to; across the CPUs (SYS), also the link
 * between them (cpu_link.h), a hop with a rate of its own.
 */
#ifndef GD_ANALYSIS_P2P_PATH_H
#define GD_ANALYSIS_P2P_PATH_H

#include "gpudoctor/model.h"

#include <stddef.h>

typedef enum gd_p2p_route {
    GD_P2P_ROUTE_UNKNOWN = 0,
    GD_P2P_ROUTE_NVLINK, /* direct NVLinks or through NVSwitches */
    GD_P2P_ROUTE_SWITCH, /* PCIe switches only (PIX, PXB) */
    GD_P2P_ROUTE_HOST, /* through a host bridge of one CPU (PHB, NODE) */
    GD_P2P_ROUTE_SYS, /* across the CPUs' interconnect (SYS) */
} gd_p2p_route;

typedef struct gd_p2p_path {
    gd_p2p_route route;
    int level; /* gd_topo_level over PCIe, GD_TOPO_UNKNOWN when not known */
    int nvlinks; /* active NVLinks between the two (through NVSwitches: the fewer of theirs) */
    int nvlinks_healthy; /* what the node's best pair has: the count the path should have */
    double link_gbps; /* one NVLink's rate per direction */
    double gbps; /* what the path allows per direction, GB/s (1e9 B/s); NAN unknown */
    char limit[200]; /* what sets it, in words */
    char slowest_bdf[16]; /* PCIe: the device whose link is the slowest hop ("" none) */
    bool downtrained; /* PCIe: that link runs below what it can (current < max) */
    long blame_gpu; /* f->gpus index of the GPU whose own link that is, else -1 (a bridge above it) */
    double gbps_now; /* what the links carry as they run now (a downtrained link's rate), NAN unknown */
    /* Across the CPUs (route SYS): what a copy over their link carries and
     * which link that is (cpu_link.h); NAN and "" on other routes. */
    double cpu_gbps;
    char cpu_link[96];
    bool cpu_assumed; /* the platform is not known: the least of any CPU link */
} gd_p2p_path;

/* "NVLink", "PCIe switch", "PCIe host bridge", "CPU interconnect", "unknown". */
const char *gd_p2p_route_name(gd_p2p_route r);

/* The path between f->gpus[a] and f->gpus[b]; 0, or -1 when nothing is known of it (out->gbps NAN). */
int gd_p2p_path_of(const gd_facts *f, size_t a, size_t b, gd_p2p_path *out);

/* Of a copy on that route, the share of the links' rate a healthy node
 * measures (NVLink 0.8, PCIe peer copies 0.8: nvbandwidth's and
 * nccl-tests' published figures). */
double gd_p2p_route_efficiency(gd_p2p_route r);

/* What a healthy node measures of a copy on path p, GB/s per direction:
 * its links' rate times the route's efficiency, or the CPUs' link's rate
 * where that is less (a copy across the sockets). NAN unknown. `now`: with
 * the links as they run now (gbps_now) instead of what they can. */
double gd_p2p_path_expected(const gd_p2p_path *p, bool now);

/* The path's rate, GB/s per direction: its slowest hop (a path is as fast
 * as that): the links at what they can train to, or (`now`) as they run
 * now, and across the CPUs their link at what a copy over it carries. NAN
 * unknown. What `limit` says and evidence shows as the path's rate. */
double gd_p2p_path_rate(const gd_p2p_path *p, bool now);

/* True when the link between the CPUs, not the PCIe links, sets what a
 * healthy copy on p reaches. */
bool gd_p2p_path_cpu_limited(const gd_p2p_path *p);

#endif
