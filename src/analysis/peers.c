/* SPDX-License-Identifier: Apache-2.0 */
/* Comparing a GPU with its peers in the same node. */
#include "peers.h"
#include "core/stats.h"
#include "episodes.h"
#include "window.h"

#include <math.h>
#include <stdlib.h>

bool gd_mostly_loaded(const gd_facts *f, size_t g)
{
    return f->series.n > 0 && !f->gpus[g].lost && 2 * gd_loaded_samples(f, g) >= f->series.n;
}

double gd_peer_median(const gd_facts *f, size_t g, gd_metric m, double *best)
{
    if (best)
        *best = NAN;
    if (!gd_mostly_loaded(f, g))
        return NAN;
    double *v = malloc((f->gpu_count ? f->gpu_count : 1) * sizeof *v);
    if (!v)
        return NAN;
    size_t n = 0;
    for (size_t p = 0; p < f->gpu_count; p++) {
        if (p == g || !gd_mostly_loaded(f, p))
            continue;
        double med = gd_loaded_median(f, p, m);
        if (!isnan(med))
            v[n++] = med;
    }
    double out = NAN;
    if (n + 1 >= GD_PEERS_MIN) {
        out = gd_median(v, n); /* sorts: the best is last */
        if (best)
            *best = v[n - 1];
    }
    free(v);
    return out;
}
