/* SPDX-License-Identifier: Apache-2.0 */
/* Small numeric helpers shared by the analyses and checks. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

/* The k-th smallest of v[0..n) (k from 0), v reordered so that v[0..k) <= v[k]
 * <= v[k+1..n): Hoare's selection, linear on average. A sort cost a trace of
 * millions of kernels a tenth of its analysis for three medians. */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
        double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = lo, j = hi;
        for (;;) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i >= j)
                break;
            double t = v[i];
            v[i++] = v[j];
            v[j--] = t;
        }
        /* v[lo..j] <= pivot <= v[j+1..hi] */
        if (k <= j)
            hi = j;
        else
            lo = j + 1;
    }
    return v[k];
}

double gd_median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    size_t k = (n - 1) / 2;
    double m = select_kth(v, n, k);
    if (n % 2)
        return m;
    double up = v[k + 1]; /* the upper middle: the least of what lies above */
    for (size_t i = k + 2; i < n; i++)
        up = v[i] < up ? v[i] : up;
    return (m + up) / 2;
}
