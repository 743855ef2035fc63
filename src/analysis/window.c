/* SPDX-License-Identifier: Apache-2.0 */
/* Window statistics over a series. */
#include "window.h"
#include "core/stats.h"
#include "window_acc.h"

#include <math.h>
#include <stdint.h>

#include <stdlib.h>

size_t gd_stats_of(const gd_facts *f, size_t g, gd_metric m, gd_stats *out)
{
    gd_window_acc *tmp;
    const gd_window_acc *a = gd_window_acc_get(f, &tmp);
    gd_stats st = {0};
    if (a)
        gd_window_acc_stats(a, f, g, m, &st);
    gd_window_acc_free(tmp);
    if (out)
        *out = st;
    return st.n;
}

double gd_window_median(const gd_facts *f, size_t g, gd_metric m)
{
    gd_stats st;
    if (gd_stats_of(f, g, m, &st) == 0)
        return NAN;
    if (!isnan(st.median))
        return st.median;
    const gd_series *s = &f->series;
    double *vals = malloc(s->n * sizeof *vals);
    size_t n = 0;
    for (size_t i = 0; vals && i < s->n; i++) {
        gd_value v = gd_series_at(s, i, g, m);
        if (gd_ok(v))
            vals[n++] = v.v;
    }
    double med = vals ? gd_median(vals, n) : NAN;
    free(vals);
    return med;
}

bool gd_loaded_at(const gd_facts *f, size_t i, size_t g)
{
    const gd_window_acc *a = gd_window_acc_of(f);
    bool loaded;
    if (a && gd_window_acc_load_at(a, (uint64_t)f->series.dropped + i, g, &loaded, NULL))
        return loaded; /* judged once, when the sample came */
    return gd_load_at(f, i, g, NULL);
}

size_t gd_loaded_samples(const gd_facts *f, size_t g)
{
    gd_window_acc *tmp;
    const gd_window_acc *a = gd_window_acc_get(f, &tmp);
    size_t n = a ? gd_window_acc_loaded(a, g) : 0;
    gd_window_acc_free(tmp);
    return n;
}

long gd_last_valid(const gd_facts *f, size_t g, gd_metric m)
{
    gd_window_acc *tmp;
    const gd_window_acc *a = gd_window_acc_get(f, &tmp);
    uint64_t first, last;
    long i = a && gd_window_acc_valid_span(a, g, m, &first, &last) ? (long)(last - f->series.dropped) : -1;
    gd_window_acc_free(tmp);
    return i;
}
