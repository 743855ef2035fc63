/* SPDX-License-Identifier: Apache-2.0 */
/* The order-statistic multiset (src/core/ostat.c) against sorting: every
 * k-th value and the median agree with gd_median on the same values, as a
 * sliding window adds and drops them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/ostat.h"
#include "core/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The set holds exactly v[0..n): every rank, and the median as gd_median says. */
static void assert_holds(const gd_ostat *o, const double *v, size_t n)
{
    assert_int_equal(o->n, n);
    double *sorted = malloc((n + 1) * sizeof *sorted);
    assert_non_null(sorted);
    memcpy(sorted, v, n * sizeof *v);
    gd_sort(sorted, n, sizeof *sorted, cmp_double);
    for (size_t k = 0; k < n; k++)
        assert_true(gd_ostat_kth(o, k) == sorted[k]);
    assert_true(isnan(gd_ostat_kth(o, n)));
    double med = gd_median(sorted, n);
    double got = gd_ostat_median(o);
    assert_true(n == 0 ? isnan(got) : got == med);
    free(sorted);
}

static void empty_set(void **state)
{
    (void)state;
    gd_ostat o;
    gd_ostat_init(&o);
    assert_true(isnan(gd_ostat_median(&o)));
    assert_false(gd_ostat_remove(&o, 1.0));
    assert_false(gd_ostat_remove(&o, NAN));
    gd_ostat_clear(&o);
    assert_int_equal(gd_ostat_insert(&o, 3.0), 0); /* a cleared empty set still grows */
    assert_true(gd_ostat_median(&o) == 3.0);
    gd_ostat_free(&o);
}

static void repeats_count(void **state)
{
    (void)state;
    gd_ostat o;
    gd_ostat_init(&o);
    double v[] = {1980, 1980, 1980, 1410, 1980, 1410};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(gd_ostat_insert(&o, v[i]), 0);
    assert_holds(&o, v, 6);
    assert_true(gd_ostat_remove(&o, 1410));
    assert_false(gd_ostat_remove(&o, 1000));
    double w[] = {1980, 1980, 1980, 1980, 1410};
    assert_holds(&o, w, 5);
    gd_ostat_free(&o);
}

/* A window of 300 sliding over 20 000 values of a few kinds (steps, noise,
 * sorted runs that would unbalance a plain tree), checked at every step. */
static void sliding_window_agrees_with_sorting(void **state)
{
    (void)state;
    enum { N = 20000, W = 300 };
    double *v = malloc(N * sizeof *v);
    assert_non_null(v);
    uint64_t x = 12345;
    for (size_t i = 0; i < N; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        switch ((i / 2000) % 4) {
        case 0: v[i] = (double)(x >> 60); break; /* 16 distinct values */
        case 1: v[i] = (double)i; break; /* rising */
        case 2: v[i] = (double)(N - i); break; /* falling */
        default: v[i] = (double)(x >> 11) / 9007199254740992.0 - 0.5; break;
        }
    }
    gd_ostat o;
    gd_ostat_init(&o);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(gd_ostat_insert(&o, v[i]), 0);
        if (i >= W)
            assert_true(gd_ostat_remove(&o, v[i - W]));
        size_t from = i >= W ? i - W + 1 : 0;
        if (i % 97 == 0 || i == N - 1)
            assert_holds(&o, v + from, i + 1 - from);
        else
            assert_int_equal(o.n, i + 1 - from);
    }
    /* Nodes are reused: the array never holds more than the window's distinct values. */
    assert_true(o.cap <= 2 * W + 16);
    gd_ostat_free(&o);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_set),
        cmocka_unit_test(repeats_count),
        cmocka_unit_test(sliding_window_agrees_with_sorting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
