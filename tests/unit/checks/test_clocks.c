/* SPDX-License-Identifier: Apache-2.0 */
/* clocks.low, clocks.locked and clocks.outlier (src/checks/clocks.c) at their
 * edges: a reason or a peer explains a slow clock. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/checks_internal.h"
#include "facts_fixture.h"

#include <string.h>

#define POWER_CAP 0x4
#define APP_CLOCKS 0x2

static void clocks_low_edges(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 10);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 10, 1584); /* exactly 80 %: not low */
    gd_findings fs = fx_run_one(&f, "clocks.low");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 10, 1583);
    fs = fx_run_one(&f, "clocks.low");
    assert_int_equal(fs.n, 1);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 0, 10, POWER_CAP); /* a reason explains it */
    fs = fx_run_one(&f, "clocks.low");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 0, 9, 0); /* 1 of 10 low samples without reason */
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 9, 1980);
    fs = fx_run_one(&f, "clocks.low");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 10, 5); /* idle GPUs drop clocks on purpose */
    fx_set(&f, 0, GD_M_EVENT_REASONS, 0, 10, 0);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 10, 345);
    fs = fx_run_one(&f, "clocks.low");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void clocks_locked_by_application_clocks(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 5);
    f.gpus[0].clock_app_sm_mhz = gd_val(1980);
    f.gpus[0].clock_default_app_sm_mhz = gd_val(1980);
    gd_findings fs = fx_run_one(&f, "clocks.locked");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    f.gpus[0].clock_app_sm_mhz = gd_val(1410);
    fs = fx_run_one(&f, "clocks.locked");
    assert_int_equal(fs.n, 1);
    assert_non_null(strstr(fs.v[0].fix, "-rac"));
    gd_findings_free(&fs);
    /* Or seen only through the event reason under load. */
    f.gpus[0].clock_app_sm_mhz = gd_missing(GD_ST_NOT_SUPPORTED);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 0, 5, APP_CLOCKS);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 5, 1200);
    fs = fx_run_one(&f, "clocks.locked");
    assert_int_equal(fs.n, 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void boost_above_default_application_clocks_is_normal(void **state)
{
    (void)state;
    /* A Tesla K80 (real capture): application clocks at their 562 MHz default,
     * boosting to 810 of 875 MHz with the application-clocks reason set. */
    gd_facts f;
    fx_facts(&f, 1, 5);
    f.gpus[0].clock_max_sm_mhz = gd_val(875);
    f.gpus[0].clock_app_sm_mhz = gd_val(562);
    f.gpus[0].clock_default_app_sm_mhz = gd_val(562);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 0, 5, APP_CLOCKS);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 5, 810);
    gd_findings fs = fx_run_one(&f, "clocks.locked");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    /* Held at the application clock below the maximum: still normal at defaults. */
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 5, 562);
    fs = fx_run_one(&f, "clocks.locked");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    /* Application clocks lowered by hand: a finding. */
    f.gpus[0].clock_app_sm_mhz = gd_val(324);
    fx_set(&f, 0, GD_M_SM_CLOCK_MHZ, 0, 5, 324);
    fs = fx_run_one(&f, "clocks.locked");
    assert_int_equal(fs.n, 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void slower_peer_is_named_unless_explained(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 4, 10);
    fx_set(&f, 3, GD_M_SM_CLOCK_MHZ, 0, 10, 1782); /* exactly 10 % below the best */
    fx_set(&f, 3, GD_M_EVENT_REASONS, 0, 10, POWER_CAP);
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fx_count(&fs, "clocks.outlier", 3), 1);
    gd_findings_free(&fs);
    f.gpus[3].power_limit_w = gd_val(500); /* now power.limit_lowered explains it */
    memset(&fs, 0, sizeof fs);
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fx_count(&fs, "clocks.outlier", -2), 0);
    assert_int_equal(fx_count(&fs, "power.limit_lowered", 3), 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clocks_low_edges),
        cmocka_unit_test(clocks_locked_by_application_clocks),
        cmocka_unit_test(boost_above_default_application_clocks_is_normal),
        cmocka_unit_test(slower_peer_is_named_unless_explained),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
