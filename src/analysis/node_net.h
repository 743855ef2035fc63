/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a node's RDMA NICs let NCCL carry across nodes, and what a run
 * across nodes should reach (bench nccl --nodes, docs/bench.md "Across
 * nodes"). Pure.
 *
 * NCCL spreads a collective's channels evenly over the NICs it uses (one
 * ring per NIC), so the slowest port sets the pace of them all: a node's
 * network carries ports x the slowest port's rate now, and ports x the
 * fastest's when every port runs at full speed. The nodes of one run are
 * meant to be alike, so the run's network expectation is the best node's
 * allowance, at GD_NT_NET_EFFICIENCY (nccl_tests_judge.h): a node with
 * slower, fewer or no RDMA ports is what the report names, not a lower bar.
 * A node without GPUDirect RDMA is held to the same bar: what staging
 * through host memory costs depends on its PCIe tree (little where GPU and
 * NIC hang off different root ports; 180 to 10 GB/s on 2 nodes where they
 * share switches, nccl issue 1676), so it is named, not predicted.
 */
#ifndef GD_ANALYSIS_NODE_NET_H
#define GD_ANALYSIS_NODE_NET_H

#include "gpudoctor/bench_nodes.h"
#include "gpudoctor/net.h"

#include <stdbool.h>
#include <stddef.h>

/* Whether NCCL_IB_HCA in env ("... NCCL_IB_HCA=mlx5_0,mlx5_1:1 ...",
 * "^mlx5_2" excludes, "=mlx5_0" exact) admits device dev; true without it. */
bool gd_nccl_hca_admits(const char *env, const char *dev);

/* The node's network as NCCL would use it, from its facts and the NCCL_*
 * settings in env (NCCL_IB_HCA, NCCL_IB_DISABLE=1, NCCL_NET=Socket); its
 * ports (Active or not, of the admitted devices) into ports, up to cap. */
void gd_node_net_of(const gd_net_facts *net, const char *env, gd_node_net *out, gd_node_port *ports, size_t *count,
                    size_t cap);

typedef struct gd_nodes_expect {
    double busbw_gbs; /* NAN unknown */
    double net_gbs; /* the network's part: the best node's allowance x efficiency, NAN unknown */
    int net_rank; /* the node whose NICs set net_gbs, -1 */
    double intra_gbs; /* the slowest node's own ring, NAN unknown */
    int intra_rank; /* that node, -1 */
    char why_not[160]; /* when busbw_gbs is NAN */
} gd_nodes_expect;

/* The run's expectation from the views that reported (n: the run's
 * nodes): the lower of the network's part and the slowest node's own ring;
 * on one node, its own ring alone. */
void gd_nodes_expect_of(const gd_node_view *v, size_t n, gd_nodes_expect *e);

#endif
