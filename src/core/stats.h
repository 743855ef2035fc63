/* SPDX-License-Identifier: Apache-2.0 */
/* Small numeric helpers shared by the analyses and checks. */
#ifndef GD_STATS_H
#define GD_STATS_H

#include <stddef.h>
#include <stdlib.h>

/* Median of v[0..n) (the mean of the two middle values when n is even), which
 * it reorders in place; NAN when n is 0. v holds no NaN. */
double gd_median(double *v, size_t n);

/* qsort, which may not be given NULL even for no element (glibc's nonnull). */
static inline void gd_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

#endif
