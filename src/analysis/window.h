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
    double min, max, mean, median;
    double last; /* last valid value */
} gd_stats;

/* Statistics of metric m of GPU g over the window; returns n (0: no valid sample). */
size_t gd_stats_of(const gd_facts *f, size_t g, gd_metric m, gd_stats *out);

/* True when GPU g is under load at sample i. */
bool gd_loaded_at(const gd_facts *f, size_t i, size_t g);

/* Number of samples in which GPU g was under load. */
size_t gd_loaded_samples(const gd_facts *f, size_t g);

/* Last sample index with a valid value of m for GPU g, or -1. */
long gd_last_valid(const gd_facts *f, size_t g, gd_metric m);

#endif
