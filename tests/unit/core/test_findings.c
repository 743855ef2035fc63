/* SPDX-License-Identifier: Apache-2.0 */
/* The findings (src/core/findings.c): their order, and the exit code they give. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "gpudoctor/findings.h"

#include <math.h>

static void findings_sort_by_severity_then_impact(void **state)
{
    (void)state;
    gd_findings fs = {0};
    gd_finding_add(&fs, "a.info", GD_SEV_INFO, 0, NULL, NAN, "", "i");
    gd_finding_add(&fs, "b.warn", GD_SEV_WARNING, 1, NULL, 5, "", "w5");
    gd_finding_add(&fs, "c.crit", GD_SEV_CRITICAL, 2, NULL, NAN, "", "c");
    gd_finding_add(&fs, "d.warn", GD_SEV_WARNING, 3, NULL, 30, "", "w30");
    gd_findings_sort(&fs);
    assert_string_equal(fs.v[0].id, "c.crit");
    assert_string_equal(fs.v[1].id, "d.warn");
    assert_string_equal(fs.v[2].id, "b.warn");
    assert_string_equal(fs.v[3].id, "a.info");
    assert_int_equal(gd_findings_exit_code(&fs), 2);
    gd_findings_free(&fs);
}

static void exit_code_follows_the_worst_severity(void **state)
{
    (void)state;
    gd_findings fs = {0};
    assert_int_equal(gd_findings_exit_code(&fs), 0);
    gd_finding_add(&fs, "x", GD_SEV_INFO, 0, NULL, NAN, "", "i");
    assert_int_equal(gd_findings_exit_code(&fs), 0);
    gd_finding_add(&fs, "y", GD_SEV_WARNING, 0, NULL, NAN, "", "w");
    assert_int_equal(gd_findings_exit_code(&fs), 1);
    gd_findings_free(&fs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(findings_sort_by_severity_then_impact),
        cmocka_unit_test(exit_code_follows_the_worst_severity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
