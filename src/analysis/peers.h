/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Peers: GPUs of the same node under the same load share airflow, power and
 * the job's work, so a GPU that runs hotter or slower than the others is the
 * clearest signal of a local problem (slot, fan, paste, riser).
 */
#ifndef GD_PEERS_H
#define GD_PEERS_H

#include "gpudoctor/model.h"

/* Minimum number of loaded GPUs for a peer comparison. */
#define GD_PEERS_MIN 3

/* True when GPU g was under load for at least half of the window. */
bool gd_mostly_loaded(const gd_facts *f, size_t g);

/*
 * Median over the other mostly-loaded GPUs of their loaded median of m, and
 * the best (highest) one in *best (may be NULL). NAN when fewer than
 * GD_PEERS_MIN GPUs (g included) were mostly loaded.
 */
double gd_peer_median(const gd_facts *f, size_t g, gd_metric m, double *best);

#endif
