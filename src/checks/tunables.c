/* SPDX-License-Identifier: Apache-2.0 */
/* The thresholds a user may change (thresholds.h): a table of names over data. */
#include "gpudoctor/checks.h"
#include "thresholds.h"

#include <stddef.h>
#include <string.h>

gd_tunables gd_tunable = {.hot_from_c = 80.0, .hot_margin_c = 5.0, .vram_full_pct = 95.0};

static const struct tunable {
    const char *name;
    size_t offset;
    double dflt, lo, hi;
    const char *meaning;
} tunables[] = {
    {"thermal.hot.from_c", offsetof(gd_tunables, hot_from_c), 80.0, 30, 120,
     "temperature (C) from which a GPU counts as hot, unless its slowdown threshold minus the margin is lower"},
    {"thermal.hot.margin_c", offsetof(gd_tunables, hot_margin_c), 5.0, 0, 30,
     "how close (C) to the slowdown threshold makes thermal.hot a warning"},
    {"vram.near_full.pct", offsetof(gd_tunables, vram_full_pct), 95.0, 50, 100,
     "share (%) of memory in use under load from which vram.near_full reports"},
};
#define NTUNABLES (sizeof tunables / sizeof tunables[0])

int gd_threshold_set(const char *name, double value, double *lo, double *hi)
{
    for (size_t i = 0; i < NTUNABLES; i++) {
        if (strcmp(name, tunables[i].name) != 0)
            continue;
        if (lo)
            *lo = tunables[i].lo;
        if (hi)
            *hi = tunables[i].hi;
        if (!(value >= tunables[i].lo && value <= tunables[i].hi))
            return -2;
        *(double *)((char *)&gd_tunable + tunables[i].offset) = value;
        return 0;
    }
    return -1;
}

const char *gd_threshold_at(size_t i, double *dflt, const char **meaning)
{
    if (i >= NTUNABLES)
        return NULL;
    if (dflt)
        *dflt = tunables[i].dflt;
    if (meaning)
        *meaning = tunables[i].meaning;
    return tunables[i].name;
}
