/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A multiset of doubles that answers its k-th smallest value: insert,
 * remove and select in O(log n), so a window's median follows its samples
 * as they arrive and leave instead of being sorted again at every tick
 * (bench/bench_window.c measures the difference).
 *
 * A treap of distinct values with their counts, in one array that grows by
 * doubling: no allocation per value, and a window of repeated readings (a
 * clock at 1980 MHz, 98 % utilisation) is a handful of nodes.
 */
#ifndef GD_OSTAT_H
#define GD_OSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gd_ostat_node gd_ostat_node;

typedef struct gd_ostat {
    gd_ostat_node *nodes; /* nodes[0] is unused: 0 means "no node" */
    uint32_t cap, used, free_list, root;
    size_t n; /* values held, counted with their repeats */
    uint64_t seed; /* the treap's priorities: a per-set generator, no global state */
} gd_ostat;

/* An empty set; gd_ostat_free releases it. */
void gd_ostat_init(gd_ostat *o);
void gd_ostat_free(gd_ostat *o);
void gd_ostat_clear(gd_ostat *o);

/* Adds v (never NaN); -1 when out of memory (the set is then unchanged). */
int gd_ostat_insert(gd_ostat *o, double v);

/* Removes one v; false when v is not held. */
bool gd_ostat_remove(gd_ostat *o, double v);

/* The k-th smallest value, k from 0; NAN when k >= n. */
double gd_ostat_kth(const gd_ostat *o, size_t k);

/* How many values are below v. */
size_t gd_ostat_count_below(const gd_ostat *o, double v);

/* What gd_median (core/stats.h) says of the same values: the middle value,
 * or the mean of the two middle values when n is even; NAN when empty. */
double gd_ostat_median(const gd_ostat *o);

#endif
