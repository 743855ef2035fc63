/* SPDX-License-Identifier: Apache-2.0 */
/* The registry (src/checks/registry.c): every check together stays quiet on a
 * healthy node, loaded or idle; every check has a unit test that names it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/checks_internal.h"
#include "facts_fixture.h"

#include <string.h>

static void healthy_node_has_no_finding(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 20);
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fs.n, 0);
    assert_int_equal(gd_findings_exit_code(&fs), 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void healthy_and_idle_nodes_stay_quiet(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 30);
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    for (size_t g = 0; g < 8; g++) { /* idle: low clocks, gpu_idle, cool */
        fx_set(&f, g, GD_M_UTIL_GPU_PCT, 0, 30, 0);
        fx_set(&f, g, GD_M_SM_CLOCK_MHZ, 0, 30, 345);
        fx_set(&f, g, GD_M_EVENT_REASONS, 0, 30, 0x1);
        fx_set(&f, g, GD_M_TEMP_C, 0, 30, 33);
    }
    memset(&fs, 0, sizeof fs);
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(healthy_node_has_no_finding),
        cmocka_unit_test(healthy_and_idle_nodes_stay_quiet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
