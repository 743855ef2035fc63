/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The scale of watch's history plots: one per metric across every GPU, so
 * that the same height means the same value on every row (56->58 C and
 * 82->85 C look different), and reaching up to the metric's limit (the
 * slowdown temperature, the maximum SM clock, the power limit, 100 %, the
 * memory size), which is the top of the plot when no sample exceeds it.
 */
#ifndef GD_WATCH_SCALE_H
#define GD_WATCH_SCALE_H

#include "gpudoctor/model.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct gd_watch_scale {
    double lo, hi; /* what the lowest and highest level stand for; lo == hi: no valid sample */
    double limit; /* the highest of the GPUs' limits, NAN when the metric has none */
    const char *limit_name; /* "slowdown", "max", "limit", "total"; "" without a limit */
    const char *unit; /* "C", "MHz", "W", "%", "MiB", "KB/s" */
} gd_watch_scale;

/* The limit of metric m on gpu (NAN when it has none or it is unknown);
 * *name says which limit it is. */
double gd_watch_limit(const gd_gpu *gpu, gd_metric m, const char **name);

/* The scale of metric m over samples [from, to) of every GPU of f: amounts
 * (power, utilisation, memory, PCIe) start at 0; temperatures and clocks at
 * their lowest sample rounded down to a multiple of 10. */
gd_watch_scale gd_watch_scale_of(const gd_facts *f, size_t from, size_t to, gd_metric m);

/* The level (0..levels-1) of v on s; -1 when v is not valid. A value at or
 * above the top is the top level. */
int gd_watch_level(const gd_watch_scale *s, gd_value v, int levels);

#endif
