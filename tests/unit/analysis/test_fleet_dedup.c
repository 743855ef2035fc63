/* SPDX-License-Identifier: Apache-2.0 */
/* Reports given twice (analysis/fleet_dedup.c): each repeat points at the
 * first of its kind, whatever the order; files that could not be stat'ed
 * are never the same; a fleet of 100 000 is sorted, not compared pairwise. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/fleet_dedup.h"

#include <stdio.h>
#include <stdlib.h>

static void a_file_again_points_at_its_first(void **state)
{
    (void)state;
    const gd_fleet_file_key keys[] = {
        {1, 30, true}, {1, 10, true}, {2, 10, true}, /* another device: another file */
        {1, 30, true}, /* the first again */
        {0, 0, false}, {0, 0, false}, /* not stat'ed: never the same */
        {1, 10, true}, {1, 30, true},
    };
    size_t first[8];
    assert_int_equal(gd_fleet_first_same_file(keys, 8, first), 0);
    const size_t want[8] = {GD_FLEET_FIRST, GD_FLEET_FIRST, GD_FLEET_FIRST, 0, GD_FLEET_FIRST, GD_FLEET_FIRST, 1, 0};
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(first[i], want[i]);
    assert_int_equal(gd_fleet_first_same_file(keys, 0, first), 0);
}

static gd_fleet named(const char *const *names, size_t n)
{
    gd_fleet f = {n, calloc(n + 1, sizeof(gd_fleet_node))};
    for (size_t k = 0; k < n; k++)
        snprintf(f.nodes[k].name, sizeof f.nodes[k].name, "%s", names[k]);
    return f;
}

static void a_node_again_points_at_its_first(void **state)
{
    (void)state;
    static const char *const names[] = {"node7", "node1", "node7", "node10", "node1", "node7", "Node7"};
    gd_fleet f = named(names, 7);
    size_t first[7];
    assert_int_equal(gd_fleet_first_same_node(&f, first), 0);
    const size_t want[7] = {GD_FLEET_FIRST, GD_FLEET_FIRST, 0, GD_FLEET_FIRST, 1, 0, GD_FLEET_FIRST};
    for (size_t k = 0; k < 7; k++)
        assert_int_equal(first[k], want[k]);
    gd_fleet_free(&f);
}

/* 100 000 nodes, every tenth a repeat of one 50 000 before it (in reverse
 * order, the sort's worst case for a naive scan): each found. */
static void a_large_fleet(void **state)
{
    (void)state;
    enum { N = 100000 };
    gd_fleet f = {N, calloc(N, sizeof(gd_fleet_node))};
    gd_fleet_file_key *keys = calloc(N, sizeof *keys);
    size_t *first = calloc(N, sizeof *first);
    assert_non_null(f.nodes);
    assert_non_null(keys);
    assert_non_null(first);
    for (size_t k = 0; k < N; k++) {
        size_t id = k % 10 == 9 && k >= 50000 ? N - k : k;
        snprintf(f.nodes[k].name, sizeof f.nodes[k].name, "node-%06zu", id);
        keys[k] = (gd_fleet_file_key){7, 1000000 - id, true};
    }
    assert_int_equal(gd_fleet_first_same_node(&f, first), 0);
    for (size_t k = 0; k < N; k++)
        assert_int_equal(first[k], k % 10 == 9 && k >= 50000 && N - k < 50000 ? N - k : GD_FLEET_FIRST);
    assert_int_equal(gd_fleet_first_same_file(keys, N, first), 0);
    for (size_t k = 0; k < N; k++)
        assert_int_equal(first[k], k % 10 == 9 && k >= 50000 && N - k < 50000 ? N - k : GD_FLEET_FIRST);
    free(keys);
    free(first);
    gd_fleet_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_file_again_points_at_its_first),
        cmocka_unit_test(a_node_again_points_at_its_first),
        cmocka_unit_test(a_large_fleet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
