/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `bench nccl --nodes`: one all-reduce across the nodes of a run started by
 * Slurm or torchrun, every rank's view of it, and the node pairs measured
 * when the ring is slow (docs/bench.md, "Across nodes"). Rank 0 gathers it;
 * each view crosses the network as it is (the ranks run the same build).
 */
#ifndef GPUDOCTOR_BENCH_NODES_H
#define GPUDOCTOR_BENCH_NODES_H

#include "gpudoctor/bench.h"
#include "gpudoctor/findings.h"

#include <stdbool.h>
#include <stddef.h>

#define GD_NODES_MAX 1024
#define GD_NODE_PORTS 16
#define GD_NODE_NOTES 6

/* One RDMA port of a node, as NCCL would use it. */
typedef struct gd_node_port {
    char dev[32];
    int port;
    bool active;
    double rate_gbps; /* Gb/s, NAN unknown */
} gd_node_port;

/* One of the node's own findings about its network (net.*, env.nccl_*). */
typedef struct gd_node_note {
    char id[48];
    gd_severity severity;
    char title[200];
} gd_node_note;

/* What NCCL's network can carry out of a node: the collective's channels
 * spread evenly over the ports NCCL uses, so the slowest sets the pace. */
typedef struct gd_node_net {
    char transport[8]; /* "IB", "RoCE", "Socket" (no Active RDMA port), "" not read */
    int ports; /* Active ports with a known rate */
    double now_gbs; /* ports x the slowest one's rate / 8, GB/s; NAN unknown */
    double best_gbs; /* ports x the fastest one's rate / 8: what the same ports allow at full speed */
    char slowest[48]; /* "mlx5_3/1", the port that sets now_gbs where it is below the others */
    double slowest_gbps, fastest_gbps; /* Gb/s */
    int gdr; /* GPUDirect RDMA's module: 1 loaded, 0 neither nvidia_peermem nor nv_peer_mem, -1 unknown */
} gd_node_net;

/* One rank's (node's) view of the run. */
typedef struct gd_node_view {
    int rank;
    bool arrived; /* met rank 0 */
    bool reported; /* sent its view */
    char host[64];
    double joined_s; /* after rank 0 started waiting */
    int gpus;
    gd_node_net net;
    size_t port_count;
    gd_node_port ports[GD_NODE_PORTS];
    double intra_expect_gbs; /* its own GPUs' ring as the path model expects it, NAN unknown */
    size_t note_count;
    gd_node_note notes[GD_NODE_NOTES];
    gd_nccl_bench world; /* its measurement of the all-reduce across nodes */
    char error[240]; /* what kept it from measuring, "" none */
} gd_node_view;

/* One pair of nodes measured alone. */
typedef struct gd_node_pair {
    int a, b; /* ranks */
    int round;
    double busbw_gbps; /* the pair's peak all-reduce bus bandwidth, NAN failed */
    char error[160];
} gd_node_pair;

typedef struct gd_nccl_nodes {
    char launcher[16]; /* "slurm", "torchrun" */
    int world;
    char master[300]; /* "node01:29517" */
    double timeout_s;
    gd_node_view *nodes; /* world entries, index = rank */
    int missing; /* ranks that never met rank 0 */
    int unreported; /* met, but sent no view in time */
    double ring_gbs; /* rank 0's peak all-reduce bus bandwidth across nodes, NAN none */
    size_t ring_bytes; /* at that size */
    bool pairs_run;
    char pairs_why[160]; /* why they ran, or why not */
    size_t pair_count;
    gd_node_pair *pairs;
    char error[240]; /* what ended the run early, "" none */
} gd_nccl_nodes;

void gd_nccl_nodes_free(gd_nccl_nodes *n);

/* A view as another process sent it, made safe to read: every count within
 * its array, every string terminated, every rate finite and not negative
 * (else NAN), the verdict one of its values. A rank that sends garbage gets
 * a view that says little, never one that reads past its arrays. */
void gd_node_view_sanitize(gd_node_view *v);

#endif
