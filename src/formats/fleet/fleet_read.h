/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the nodes' `check --json` reports for `gpudoctor fleet`. */
#ifndef GD_FORMATS_FLEET_FLEET_READ_H
#define GD_FORMATS_FLEET_FLEET_READ_H

#include "analysis/fleet.h"

#include <stddef.h>

/* A report larger than this is not a check report. */
#define GD_FLEET_REPORT_MAX (64u << 20)

/* Reads one report into node (which the caller frees with the fleet): 0, or
 * -1 with a message in err (unreadable, not JSON, not a gpudoctor check
 * report, a schema newer than this build knows). */
int gd_fleet_read_report(const char *path, gd_fleet_node *node, char *err, size_t errlen);

/* The same over a report already in memory; path names it in messages and
 * gives the node its name where the report has no hostname. */
int gd_fleet_parse_report(const char *buf, size_t len, const char *path, gd_fleet_node *node, char *err, size_t errlen);

/*
 * A `bench nccl --nodes` report (rank 0's: the run across nodes) as the
 * fleet reads it: one node per rank that reported, named by its host, with
 * no GPUs of its own, its own network findings, and the run's findings
 * where they name it (bench.nccl_nodes_low: the blamed node, or both ends of
 * the slow link; bench.nccl_nodes_failed: the failing ranks; the rest: rank
 * 0). 0 with *out (count nodes, freed by the caller as a fleet's), 1 when
 * buf is not such a report (read it as a check report), -1 with err.
 */
int gd_fleet_parse_run(const char *buf, size_t len, const char *path, gd_fleet_node **out, size_t *count, char *err,
                       size_t errlen);

#endif
