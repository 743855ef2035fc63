/* Window statistics over a series. */
#include "window.h"
#include "core/stats.h"

#include <stdlib.h>

size_t gd_stats_of(const gd_facts *f, size_t g, gd_metric m, gd_stats *out)
{
    const gd_series *s = &f->series;
    gd_stats st = {0};
    double *vals = s->n ? malloc(s->n * sizeof *vals) : NULL;
    double sum = 0;
    for (size_t i = 0; i < s->n; i++) {
        gd_value v = gd_series_at(s, i, g, m);
        if (!gd_ok(v))
            continue;
        if (st.n == 0 || v.v < st.min)
            st.min = v.v;
        if (st.n == 0 || v.v > st.max)
            st.max = v.v;
        st.last = v.v;
        sum += v.v;
        if (vals)
            vals[st.n] = v.v;
        st.n++;
    }
    if (st.n) {
        st.mean = sum / (double)st.n;
        if (vals) {
            st.median = gd_median(vals, st.n);
        }
    }
    free(vals);
    if (out)
        *out = st;
    return st.n;
}

bool gd_loaded_at(const gd_facts *f, size_t i, size_t g)
{
    gd_value u = gd_series_at(&f->series, i, g, GD_M_UTIL_GPU_PCT);
    return gd_ok(u) && u.v >= GD_LOADED_UTIL_PCT;
}

size_t gd_loaded_samples(const gd_facts *f, size_t g)
{
    size_t n = 0;
    for (size_t i = 0; i < f->series.n; i++)
        n += gd_loaded_at(f, i, g);
    return n;
}

long gd_last_valid(const gd_facts *f, size_t g, gd_metric m)
{
    for (size_t i = f->series.n; i-- > 0;)
        if (gd_ok(gd_series_at(&f->series, i, g, m)))
            return (long)i;
    return -1;
}
