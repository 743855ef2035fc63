/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Time in state over the window: how much of a GPU's loaded time it spent
 * held back by a set of clock event reasons, when that began, and what the
 * temperature and clocks were meanwhile. Pure functions of the series.
 */
#ifndef GD_EPISODES_H
#define GD_EPISODES_H

#include "gpudoctor/model.h"

#include <stdbool.h>

typedef struct gd_episode {
    size_t loaded; /* samples under load */
    size_t hit; /* ... of which with any reason of the mask */
    size_t hit_any; /* samples with the mask, loaded or not */
    double share; /* hit / loaded, 0 when nothing was loaded */
    double first_s; /* window time of the first hit (loaded or not) */
    double last_s; /* window time of the last hit */
    double span_s; /* time covered by hits: hit_any x sample spacing */
    double temp_first_c; /* temperature at the first hit (NAN if unknown) */
    double temp_max_c; /* highest temperature during hits (NAN if unknown) */
    double mem_temp_max_c;
    double clock_median_mhz; /* median SM clock during loaded hits (NAN) */
    double clock_free_mhz; /* median SM clock of loaded samples without the mask (NAN) */
    double power_median_w; /* median power during loaded hits (NAN) */
    /* From the cumulative violation counter, where the mask has one. */
    bool counter;
    double counter_share; /* violation time / window time, 0..1 */
} gd_episode;

/* How long a state lasted, as the samples prove it: each run of
 * consecutive samples in the state counts from its first to its last
 * sample, so one sample (a blip shorter than the interval) counts 0 s and
 * the same event measures the same at 1 Hz and 10 Hz. */
typedef struct gd_runs {
    size_t runs; /* runs of consecutive samples in the state */
    double total_s; /* their summed durations */
    double loaded_s; /* ... the part of it under load */
    double longest_s;
    double window_loaded_s; /* loaded time of the window, the same way */
} gd_runs;

/* Runs of GPU g in the state "a reason of `mask` and none of `exclude`". */
void gd_runs_of(const gd_facts *f, size_t g, unsigned long long mask, unsigned long long exclude, gd_runs *out);

/* Measures the mask's episode for GPU g. */
void gd_episode_of(const gd_facts *f, size_t g, unsigned long long mask, gd_episode *out);

/*
 * Share of throughput lost to the episode, in percent: throttled share of the
 * loaded time times the relative clock deficit against `ref_mhz` (a compute-
 * bound job's speed follows the SM clock; memory-bound jobs lose less, so
 * this is an upper bound). NAN when it cannot be computed.
 */
double gd_episode_impact_pct(const gd_episode *e, double ref_mhz);

/* Share of the window (0..1) that cumulative counter m (a GD_M_VIOL_* metric)
 * grew by; false when it was not readable at two samples. */
bool gd_counter_share(const gd_facts *f, size_t g, gd_metric m, double *share);

/* Median of the SM clock of GPU g over its loaded samples (NAN if none). */
double gd_loaded_clock_median(const gd_facts *f, size_t g);

/* Median of metric m of GPU g over its loaded samples (NAN if none). */
double gd_loaded_median(const gd_facts *f, size_t g, gd_metric m);

/* "from 12.0 s: thermal slowdown with the GPU at 86 C, SM 1410 MHz (1980 MHz
 * before), for 18.0 s (62% of the loaded time)": the temperature is the GPU
 * core's at the first sample in the state. */
void gd_episode_timeline(const gd_episode *e, const char *what, char *buf, size_t len);

#endif
