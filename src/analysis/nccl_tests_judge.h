/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What an nccl-tests table says, worked out (include/gpudoctor/nccl_tests.h):
 * the peak bus bandwidth over its sizes and where it was (the large sizes,
 * not nccl-tests' "Avg bus bandwidth", which averages every size and is
 * dragged down by the small ones), a collapse at the large sizes, and what
 * the NICs of a node allow the collective across nodes.
 *
 * The expectation across nodes: NCCL's ring crosses between nodes through
 * the NICs it uses, one ring per NIC, so a ring's bus bandwidth is bounded
 * by the NICs of a node together: the sum of their Active ports' line rate
 * in Gb/s / 8 (as many NICs as the node runs ranks at most: a GPU drives
 * its nearest NIC), at GD_NT_NET_EFFICIENCY of it. On 2 nodes NCCL's tree
 * (or NVLS tree) sends part of the reduction over NVLink, and nccl-tests'
 * busbw formula, made for a flat ring, can then exceed the NICs' line
 * rate: normal, not a measurement error (nccl-tests issue 196, NVIDIA's
 * reply; nccl issue 837).
 */
#ifndef GD_ANALYSIS_NCCL_TESTS_JUDGE_H
#define GD_ANALYSIS_NCCL_TESTS_JUDGE_H

#include "analysis/nccl_expect.h"
#include "gpudoctor/model.h"
#include "gpudoctor/nccl_tests.h"
#include "gpudoctor/net.h"

#include <stdbool.h>
#include <stddef.h>

/* The share of the NICs' line rate a healthy ring reaches across nodes:
 * NVIDIA's NCCL team sees about 24 GB/s per 200 Gb/s (25 GB/s) NIC "on
 * perfect setups" (nccl-tests issue 160, 2023-08-01): 0.96. */
#define GD_NT_NET_EFFICIENCY 0.96
/* A collapse: the sizes from one on all under this share of the best
 * busbw at the smaller sizes (>= GD_NT_COLLAPSE_MIN_BYTES), at least
 * GD_NT_COLLAPSE_MIN_ROWS of them, through the largest size: a fabric
 * that drops packets under load (RoCE without working flow control), not
 * noise, which moves one size. */
#define GD_NT_COLLAPSE_RATIO 0.5
#define GD_NT_COLLAPSE_MIN_ROWS 2
#define GD_NT_COLLAPSE_MIN_BYTES (1u << 20)

typedef struct gd_nt_summary {
    double peak_busbw_gbps; /* the best of both halves over every size, NAN no row */
    size_t peak_bytes;
    double largest_busbw_gbps; /* at the largest size */
    size_t largest_bytes;
    bool collapse;
    size_t collapse_bytes; /* the first size of the collapse */
    double collapse_busbw_gbps; /* the best busbw from there on */
    double before_busbw_gbps; /* the best before it */
    size_t before_bytes;
} gd_nt_summary;

void gd_nt_summarize(const gd_nt_table *x, gd_nt_summary *s);

typedef struct gd_nt_expect {
    double line_gbps; /* GB/s: the NICs' line rate per node, as used */
    double busbw_gbps; /* line_gbps x GD_NT_NET_EFFICIENCY */
    int nics; /* ports counted */
    char ports[200]; /* "mlx5_0/1 200 Gb/s, ..." */
    char why_not[200]; /* when -1: why there is no expectation */
} gd_nt_expect;

/* The expectation of table x across nodes from the NICs of net (one node's,
 * taken as every node's; NCCL_IB_HCA in the table's command line picks the
 * devices). 0, or -1 with why_not. */
int gd_nt_expect_of(const gd_net_facts *net, const gd_nt_table *x, gd_nt_expect *e);

/* A one-node all-reduce on every GPU of f (the capture beside the table, or
 * the live node): the ring's expectation from the path model, as `bench
 * nccl` is judged (nccl_expect.h), ranks in the GPUs' order. 0, or -1
 * with why_not (len bytes). */
int gd_nt_expect_node(const gd_facts *f, const gd_nt_table *x, gd_nccl_expect *e, char *why_not, size_t len);

#endif
