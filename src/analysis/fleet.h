/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fleet: many nodes' check reports side by side. GPUs are grouped by
 * model; within a group each GPU's medians under load are held to the
 * group's median by robust statistics (docs/fleet.md), and a finding that
 * many nodes share is a fleet-wide cause (a roll-out), not many outliers.
 */
#ifndef GD_ANALYSIS_FLEET_H
#define GD_ANALYSIS_FLEET_H

#include "gpudoctor/findings.h"

#include <stdbool.h>
#include <stddef.h>

/* Below these a group is not compared: a median of two says nothing. */
#define GD_FLEET_MIN_GPUS 4
#define GD_FLEET_MIN_NODES 2
/* An outlier is 3 scaled MADs from the median (1.4826 MAD estimates sigma)... */
#define GD_FLEET_MAD_Z 3.0
/* ...and far enough to matter: SuperBench's variance rules flag a drop of
 * more than 5 % against the baseline; temperature in degrees. */
#define GD_FLEET_CLOCK_DROP 0.05
#define GD_FLEET_POWER_DROP 0.15
#define GD_FLEET_HOT_C 8.0
/* A finding on this many nodes (and at least half of them) is fleet-wide. */
#define GD_FLEET_COMMON_MIN_NODES 3

typedef struct gd_fleet_gpu {
    int index;
    char model[96];
    char uuid[96];
    double loaded_pct; /* NaN unknown */
    double sm_clock_mhz, temp_c, power_w; /* medians under load; NaN unknown or never loaded */
} gd_fleet_gpu;

typedef struct gd_fleet_finding {
    char id[48];
    gd_severity severity;
    int gpu; /* GD_NO_GPU for host-wide */
} gd_fleet_finding;

typedef struct gd_fleet_node {
    char name[128]; /* the report's hostname, else its file name */
    char file[512];
    size_t ngpus, nfindings;
    gd_fleet_gpu *gpus;
    gd_fleet_finding *findings; /* warning and critical, not ignored */
} gd_fleet_node;

typedef struct gd_fleet {
    size_t n;
    gd_fleet_node *nodes;
} gd_fleet;

/* One model's group and its baseline. */
typedef struct gd_fleet_group {
    char model[96];
    size_t gpus, nodes;
    bool compared;
    double median[3], mad[3]; /* by metric: SM clock, temperature, power; NaN unknown */
} gd_fleet_group;

/* Whether a node was judged: at least one of its GPUs held to its group's
 * median; else why not. */
typedef struct gd_fleet_node_verdict {
    bool judged;
    char why[96];
} gd_fleet_node_verdict;

typedef struct gd_fleet_result {
    size_t ngroups;
    gd_fleet_group *groups;
    gd_findings findings; /* fleet.* findings; evidence names node and GPU */
    size_t nnodes; /* the fleet's n */
    gd_fleet_node_verdict *nodes;
} gd_fleet_result;

/* Compares the fleet; 0, or -1 when out of memory. */
int gd_fleet_analyze(const gd_fleet *in, gd_fleet_result *out);

/* `fleet --exit-findings`: 2 on a critical finding of the fleet's or of a
 * node's own report, else 1 on a warning, else 3 when a node could not be
 * judged (as check's "could not check"), else 0. */
int gd_fleet_exit_code(const gd_fleet *in, const gd_fleet_result *r);
void gd_fleet_result_free(gd_fleet_result *r);
void gd_fleet_free(gd_fleet *f);

#endif
