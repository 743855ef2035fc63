/* SPDX-License-Identifier: Apache-2.0 */
/* Clock episodes (src/analysis/episodes.c): what share of the loaded time a
 * reason held, from when, at what clock, and what it cost. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/checks_internal.h"
#include "facts_fixture.h"
#include "analysis/window_acc.h"

#include <string.h>

#define SW_THERMAL 0x20
#define THERMAL (SW_THERMAL | 0x40) /* sw or hw thermal slowdown: a mask the checks ask for */

static void impact_is_share_times_clock_deficit(void **state)
{
    (void)state;
    gd_episode e = {.hit = 10, .loaded = 20, .share = 0.5, .clock_median_mhz = 1485};
    assert_float_equal(gd_episode_impact_pct(&e, 1980), 12.5, 1e-9);
    e.clock_median_mhz = 2000; /* faster than the reference: nothing lost */
    assert_float_equal(gd_episode_impact_pct(&e, 1980), 0.0, 1e-9);
    e.hit = 0;
    assert_true(isnan(gd_episode_impact_pct(&e, 1980)));
    e.hit = 10;
    assert_true(isnan(gd_episode_impact_pct(&e, 0)));
}

static void episode_measures_share_start_and_clocks(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 10);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 6, 10, SW_THERMAL);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 6, 10, 1400);
    fx_set(&f, 0, GD_M_TEMP_C, 6, 10, 87);
    gd_episode e;
    gd_episode_of(&f, 0, THERMAL, &e);
    assert_int_equal(e.loaded, 10);
    assert_int_equal(e.hit, 4);
    assert_float_equal(e.share, 0.4, 1e-9);
    assert_float_equal(e.first_s, 6.0, 1e-9);
    assert_float_equal(e.clock_median_mhz, 1400, 1e-9);
    assert_float_equal(e.clock_free_mhz, 1980, 1e-9);
    assert_float_equal(e.temp_first_c, 87, 1e-9);
    char line[256];
    gd_episode_timeline(&e, "thermal slowdown", line, sizeof line);
    assert_non_null(strstr(line, "from 6.0 s: thermal slowdown with the GPU at 87 C, SM 1400 MHz"));
    gd_facts_free(&f);
}

/* The window keeps the episodes of the checks' masks only: another mask is
 * a miss (counted, so a test holds every check to none), never a guess. */
static void a_mask_the_window_does_not_keep_is_a_miss(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 10);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 6, 10, SW_THERMAL);
    gd_window_acc *a = gd_window_acc_build(&f);
    assert_non_null(a);
    gd_episode e;
    assert_int_equal(gd_window_acc_episode(a, &f, 0, THERMAL, &e), 0);
    assert_int_equal(e.hit, 4);
    assert_int_equal(gd_window_acc_misses(a), 0);
    assert_int_equal(gd_window_acc_episode(a, &f, 0, SW_THERMAL, &e), -1);
    assert_int_equal(gd_window_acc_misses(a), 1);
    gd_window_acc_free(a);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(impact_is_share_times_clock_deficit),
        cmocka_unit_test(episode_measures_share_start_and_clocks),
        cmocka_unit_test(a_mask_the_window_does_not_keep_is_a_miss),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
