/* SPDX-License-Identifier: Apache-2.0 */
/* gd_median by selection: the same value as sorting and taking the middle,
 * on odd and even sizes, duplicates, sorted and reversed input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double sorted_median(const double *v, size_t n)
{
    double *c = malloc(n * sizeof *c);
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp);
    double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}

static void median_matches_the_sorted_middle(void **state)
{
    (void)state;
    unsigned seed = 12345;
    double v[301], w[301];
    for (size_t n = 1; n <= 301; n++)
        for (int shape = 0; shape < 5; shape++) {
            for (size_t i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                double r = (double)(seed >> 16);
                v[i] = shape == 0   ? r /* distinct-ish */
                       : shape == 1 ? (double)((seed >> 16) % 3) /* many duplicates */
                       : shape == 2 ? (double)i /* sorted */
                       : shape == 3 ? (double)(n - i) /* reversed */
                                    : 7.0; /* all equal */
            }
            memcpy(w, v, n * sizeof *v);
            double want = sorted_median(v, n), got = gd_median(w, n);
            if (got != want)
                fail_msg("n=%zu shape=%d: %g, sorted gives %g", n, shape, got, want);
        }
    assert_true(isnan(gd_median(v, 0)));
    double two[] = {4, 1};
    assert_float_equal(gd_median(two, 2), 2.5, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(median_matches_the_sorted_middle)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
