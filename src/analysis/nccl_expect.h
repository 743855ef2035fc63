/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What `bench nccl` should measure on this node: NCCL's ring runs at the
 * pace of its slowest edge, so the expected bus bandwidth is the slowest
 * edge between consecutive ranks at what a healthy node reaches on it
 * (gd_p2p_path_expected: the path's links times gd_p2p_route_efficiency,
 * and across the sockets no more than the link between the CPUs carries,
 * cpu_link.h). Where the driver denies peer access for a pair, NCCL stages
 * that edge through host memory (its SHM transport): about half the slower
 * of the two GPUs' PCIe links (down to host memory, then up again), and
 * half of that again where the pair sits on different CPUs (SYS: the
 * staged data crosses the CPUs' interconnect as well), never more than
 * that link carries. A rule of thumb, not a measurement: where the host is
 * the path, p2p.unsupported is the finding, and this expectation only
 * catches a transport slower still.
 */
#ifndef GD_ANALYSIS_NCCL_EXPECT_H
#define GD_ANALYSIS_NCCL_EXPECT_H

#include "gpudoctor/bench.h"
#include "gpudoctor/model.h"

#include <stdbool.h>
#include <stddef.h>

/* Of data staged through host memory, the share of the slower PCIe link
 * that reaches the peer: down to host memory, then up again. */
#define GD_NCCL_HOST_STAGED_SHARE 0.5
#define GD_NCCL_HOST_STAGED_SYS_SHARE 0.5

typedef struct gd_nccl_edge {
    int gpu_a, gpu_b; /* GPU indexes (f->gpus[].index) */
    double gbps; /* what the edge allows per direction, NAN unknown */
    double efficiency; /* the share of it NCCL reaches on a healthy node (1: gbps is already that, the CPUs' link) */
    bool host_staged; /* peer access denied: through host memory */
    bool downtrained; /* a PCIe link on the path runs below what it can (p2p_path.h) */
    char limit[256]; /* what sets it, in words */
    double now_gbps; /* gbps x efficiency with the links as they run now; NAN: the same */
    double rate_gbps; /* the edge's path as it runs now: its slowest hop (p2p_path.h), NAN unknown */
} gd_nccl_edge;

typedef struct gd_nccl_expect {
    double busbw_gbps; /* expected bus bandwidth, NAN unknown */
    gd_nccl_edge slowest; /* the edge that sets it */
    size_t edges; /* ring edges judged */
} gd_nccl_expect;

/* The expectation of a ring of n edges (edge i from rank i to i + 1 mod n):
 * the slowest edge's gbps x efficiency. out->slowest is the edge that
 * slows the ring as its links run now: a downtrained one where that is
 * below the expectation (the link to blame, though a healthy node would
 * be held back elsewhere, by the CPUs' link), else the slowest (of equal
 * ones, a downtrained one). 0, or -1 when an edge is unknown
 * (out->busbw_gbps NAN; out->slowest names that edge). */
int gd_nccl_expect_ring(const gd_nccl_edge *edges, size_t n, gd_nccl_expect *out);

/* The ring of bench nccl's ranks on the node of f. 0, or -1 when a rank's
 * GPU or an edge's path is not known. */
int gd_nccl_expect_of(const gd_facts *f, const gd_nccl_bench *b, gd_nccl_expect *out);

#endif
