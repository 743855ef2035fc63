/* Small numeric helpers shared by the analyses and checks. */
#ifndef GD_STATS_H
#define GD_STATS_H

#include <stddef.h>

/* Median of v[0..n), which it sorts in place; NAN when n is 0. */
double gd_median(double *v, size_t n);

#endif
