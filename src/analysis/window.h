/* SPDX-License-Identifier: Apache-2.0 */
/* Window statistics over a series, and what "under load" means. */
#ifndef GD_WINDOW_H
#define GD_WINDOW_H

#include "gpudoctor/model.h"

/* A GPU counts as loaded at or above this utilisation: idle GPUs lower their
 * clocks and PCIe speed on purpose, so most rules only judge loaded time. */
#define GD_LOADED_UTIL_PCT 50.0

#include <stdbool.h>

typedef struct gd_stats {
    size_t n; /* valid samples */
    double min, max, mean, sum;
    double median; /* NAN for a metric whose median the window does not keep (window_acc.c) */
    double last; /* last valid value */
} gd_stats;

/* Statistics of metric m of GPU g over the window, from its running
 * statistics (window_acc.h); returns n (0: no valid sample). */
size_t gd_stats_of(const gd_facts *f, size_t g, gd_metric m, gd_stats *out);

/* The median of any metric over the window: kept, or computed from the
 * samples (a report's table, once; never a check at every tick). */
double gd_window_median(const gd_facts *f, size_t g, gd_metric m);

/* Where the utilisation is not readable (MIG mode, some boards' CSV): a
 * GPU draws at least this share of its enforced power limit only under
 * load (an idle H100 draws 10-17 % of 700 W, one running a job 60 % and
 * more), or, without a power reading, runs its SM clock at this share of
 * its maximum in P0. */
#define GD_LOADED_POWER_SHARE 0.4
#define GD_LOADED_CLOCK_SHARE 0.8

/* What decided whether a GPU was under load at a sample. */
typedef enum gd_load_signal {
    GD_LOAD_NONE, /* nothing readable: counted as idle */
    GD_LOAD_UTIL, /* its utilisation */
    GD_LOAD_POWER, /* no utilisation: its power draw against its limit */
    GD_LOAD_CLOCKS, /* no utilisation, no power: its SM clock and performance state */
} gd_load_signal;

/* True when GPU g is under load at sample i; *why (may be NULL) says what decided. */
bool gd_load_at(const gd_facts *f, size_t i, size_t g, gd_load_signal *why);

/* True when GPU g is under load at sample i. */
bool gd_loaded_at(const gd_facts *f, size_t i, size_t g);

/* Words for a signal: "utilisation", "power draw", "SM clock". */
const char *gd_load_signal_name(gd_load_signal s);

/* Number of samples in which GPU g was under load. */
size_t gd_loaded_samples(const gd_facts *f, size_t g);

/* Last sample index with a valid value of m for GPU g, or -1. */
long gd_last_valid(const gd_facts *f, size_t g, gd_metric m);

#endif
