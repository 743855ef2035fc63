/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which node or link holds a multi-node all-reduce back. The ring runs at
 * its slowest edge, so a low ring says little; node pairs measured alone
 * say which. Pairs are tested in rounds of disjoint pairs (node i with
 * i XOR 2^k): ceil(log2 N) rounds of N/2 pairs each, O(N log N) tests in
 * log N wall-clock rounds, every node against log N partners. A node whose
 * every pair is slow is the node (its NIC); one slow pair between nodes
 * that are fast elsewhere is the link between them. Pure.
 */
#ifndef GD_ANALYSIS_LOCATE_SLOW_H
#define GD_ANALYSIS_LOCATE_SLOW_H

#include <stdbool.h>
#include <stddef.h>

#define GD_LOCATE_SLOW_RATIO 0.6 /* a pair below 60 % of what its NICs allow is slow (bench nccl's own line) */

/* The rounds for n nodes (0 for n < 2). */
size_t gd_locate_rounds(size_t n);

/* Node's partner in round k, or -1 when it sits the round out (n not a power of two). */
long gd_locate_partner(size_t n, size_t round, size_t node);

typedef struct gd_pair_result {
    size_t a, b;
    double busbw_gbs; /* measured, GB/s; NAN when the pair failed */
} gd_pair_result;

typedef struct gd_node_verdict {
    size_t slow, fine, failed; /* its pairs by outcome */
    bool blamed; /* every pair it was in was slow or failed, and some other pair was fine */
} gd_node_verdict;

typedef struct gd_locate {
    size_t n;
    gd_node_verdict *nodes; /* n entries */
    size_t blamed_nodes;
    size_t link_count; /* slow pairs whose two nodes are fast elsewhere */
    gd_pair_result links[16];
    bool ambiguous; /* every pair slow (or two nodes): the tests cannot separate node from node */
} gd_locate;

/* Judges the pairs against what each node's NICs allow (cap_gbs[i], GB/s,
 * NAN unknown: then against the fastest pair measured). 0, or -1 out of memory. */
int gd_locate_slow(size_t n, const gd_pair_result *pairs, size_t npairs, const double *cap_gbs, gd_locate *out);

void gd_locate_free(gd_locate *l);

#endif
