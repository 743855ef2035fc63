/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A report given twice to `gpudoctor fleet`: the same file (a file beside
 * its directory, a link) or the same node's name. Found by sorting, not by
 * comparing every report with every other (10 000 reports were 50 million
 * stat calls).
 */
#ifndef GD_ANALYSIS_FLEET_DEDUP_H
#define GD_ANALYSIS_FLEET_DEDUP_H

#include "analysis/fleet.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* first[i] of an item seen first at i. */
#define GD_FLEET_FIRST SIZE_MAX

/* What a file is: its device and inode (stat's st_dev and st_ino); known
 * false where it could not be stat'ed or is not a regular file (never the
 * same as another). */
typedef struct gd_fleet_file_key {
    uint64_t dev, ino;
    bool known;
} gd_fleet_file_key;

/* For each of n files, first[i]: the index of the first file before it with
 * the same key, or GD_FLEET_FIRST. 0, or -1 when out of memory. */
int gd_fleet_first_same_file(const gd_fleet_file_key *keys, size_t n, size_t *first);

/* For each node of the fleet, first[k]: the index of the first node before
 * it with the same name, or GD_FLEET_FIRST. 0, or -1 when out of memory. */
int gd_fleet_first_same_node(const gd_fleet *fl, size_t *first);

#endif
