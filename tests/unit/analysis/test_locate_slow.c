/* SPDX-License-Identifier: Apache-2.0 */
/* The slow node or link from node pairs, on literal figures. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/locate_slow.h"

#include <math.h>

/* Every round's pairs of n nodes, each at gbs(a, b). */
static size_t rounds_of(size_t n, double (*gbs)(size_t a, size_t b), gd_pair_result *out)
{
    size_t k = 0;
    for (size_t r = 0; r < gd_locate_rounds(n); r++)
        for (size_t i = 0; i < n; i++) {
            long p = gd_locate_partner(n, r, i);
            if (p > (long)i)
                out[k++] = (gd_pair_result){i, (size_t)p, gbs(i, (size_t)p)};
        }
    return k;
}

static double healthy(size_t a, size_t b)
{
    (void)a, (void)b;
    return 48.0; /* 400 Gb/s NICs at 96 % */
}
static double node2_quarter(size_t a, size_t b)
{
    return a == 2 || b == 2 ? 12.0 : 48.0;
}
static double link01_slow(size_t a, size_t b)
{
    return (a == 0 && b == 1) || (a == 1 && b == 0) ? 20.0 : 48.0;
}
static double node5_dead(size_t a, size_t b)
{
    return a == 5 || b == 5 ? NAN : 48.0;
}

static void the_rounds(void **state)
{
    (void)state;
    assert_int_equal(gd_locate_rounds(1), 0);
    assert_int_equal(gd_locate_rounds(2), 1);
    assert_int_equal(gd_locate_rounds(4), 2);
    assert_int_equal(gd_locate_rounds(5), 3);
    assert_int_equal(gd_locate_partner(4, 1, 1), 3);
    assert_int_equal(gd_locate_partner(5, 2, 1), -1); /* 1 ^ 4 = 5: past the last node, it sits out */
    gd_pair_result p[64];
    assert_int_equal(rounds_of(8, healthy, p), 12); /* 3 rounds of 4 pairs: N log N / 2 */
}

static const double caps[8] = {50, 50, 50, 50, 50, 50, 50, 50};

/* Every round of n nodes at gbs, judged against caps. */
static void judge(size_t n, double (*gbs)(size_t a, size_t b), const double *cap, gd_locate *l)
{
    gd_pair_result p[64];
    size_t k = rounds_of(n, gbs, p);
    assert_int_equal(gd_locate_slow(n, p, k, cap, l), 0);
}

static void healthy_nodes_blame_nothing(void **state)
{
    (void)state;
    gd_locate l;
    judge(4, healthy, caps, &l);
    assert_int_equal(l.blamed_nodes, 0);
    assert_int_equal(l.link_count, 0);
    assert_false(l.ambiguous);
    gd_locate_free(&l);
}

static void a_slow_node_is_named(void **state)
{
    (void)state;
    gd_locate l;
    judge(4, node2_quarter, caps, &l);
    assert_int_equal(l.blamed_nodes, 1);
    assert_true(l.nodes[2].blamed);
    assert_int_equal(l.nodes[2].slow, 2);
    assert_int_equal(l.link_count, 0); /* its pairs are the node's, not links */
    gd_locate_free(&l);
    /* Without the NICs' figures, the fastest pair is the yardstick: the same answer. */
    judge(4, node2_quarter, NULL, &l);
    assert_true(l.nodes[2].blamed && l.blamed_nodes == 1);
    gd_locate_free(&l);
}

static void a_slow_link_is_named(void **state)
{
    (void)state;
    gd_locate l;
    judge(4, link01_slow, caps, &l);
    assert_int_equal(l.blamed_nodes, 0);
    assert_int_equal(l.link_count, 1);
    assert_true(l.links[0].a == 0 && l.links[0].b == 1);
    gd_locate_free(&l);
}

static void a_dead_node_and_two_nodes(void **state)
{
    (void)state;
    gd_locate l;
    judge(8, node5_dead, caps, &l);
    assert_true(l.nodes[5].blamed);
    assert_int_equal(l.nodes[5].failed, 3);
    assert_int_equal(l.blamed_nodes, 1);
    gd_locate_free(&l);
    /* Two nodes, their one pair slow: the tests cannot tell which. */
    gd_pair_result two = {0, 1, 12.0};
    assert_int_equal(gd_locate_slow(2, &two, 1, caps, &l), 0);
    assert_true(l.ambiguous);
    assert_int_equal(l.blamed_nodes, 0);
    gd_locate_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(the_rounds), cmocka_unit_test(healthy_nodes_blame_nothing),
                                       cmocka_unit_test(a_slow_node_is_named), cmocka_unit_test(a_slow_link_is_named),
                                       cmocka_unit_test(a_dead_node_and_two_nodes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
