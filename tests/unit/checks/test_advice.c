/* SPDX-License-Identifier: Apache-2.0 */
/* src/checks/advice.c: a fix chosen for where it is read (the command, a
 * job watched, a capture) and for the finding's severity; the first case
 * that fits wins. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/checks_internal.h"
#include "facts_fixture.h"

#include <string.h>

static const gd_fix_case cases[] = {
    {GD_AT_BIT(GD_AT_PROFILE), 0, "profile"},
    {GD_AT_JOB, 0, "job"},
    {GD_AT_CAPTURE, GD_SEVS_CRITICAL, "capture, critical"},
    {GD_AT_ANY, GD_SEVS_INFO, "any, info"},
    {GD_AT_ANY, 0, "any"},
};

static const char *pick(const gd_facts *f, gd_where where, gd_severity sev)
{
    gd_findings out = {.where = where};
    return GD_FIX_PICK(cases, f, &out, sev);
}

static void the_first_case_that_fits_wins(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 2);
    f.pid = -1;
    assert_string_equal(pick(&f, GD_AT_CHECK, GD_SEV_WARNING), "any");
    assert_string_equal(pick(&f, GD_AT_CHECK, GD_SEV_INFO), "any, info");
    assert_string_equal(pick(&f, GD_AT_PROFILE, GD_SEV_INFO), "profile");
    f.pid = 4242; /* check --pid and run watch a job */
    assert_string_equal(pick(&f, GD_AT_CHECK, GD_SEV_INFO), "job");
    assert_string_equal(pick(&f, GD_AT_RUN, GD_SEV_CRITICAL), "job");
    assert_string_equal(pick(&f, GD_AT_PROFILE, GD_SEV_CRITICAL), "profile");
    f.pid = -1;
    f.captured = true;
    assert_string_equal(pick(&f, GD_AT_CHECK, GD_SEV_CRITICAL), "capture, critical");
    assert_string_equal(pick(&f, GD_AT_CHECK, GD_SEV_WARNING), "any");
    gd_facts_free(&f);
}

static void where_bits_hold_the_command_the_job_and_a_capture(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 2);
    f.pid = -1;
    gd_findings out = {.where = GD_AT_BENCH};
    assert_int_equal(gd_where_bits(&f, &out), GD_AT_BIT(GD_AT_BENCH));
    f.pid = 1;
    f.captured = true;
    out.where = GD_AT_WATCH;
    assert_int_equal(gd_where_bits(&f, &out), GD_AT_BIT(GD_AT_WATCH) | GD_AT_JOB | GD_AT_CAPTURE);
    /* Nothing fits: NULL, so a check without a case for everywhere shows it in its tests. */
    static const gd_fix_case only_trace[] = {{GD_AT_BIT(GD_AT_TRACE), 0, "trace"}};
    assert_null(GD_FIX_PICK(only_trace, &f, &out, GD_SEV_INFO));
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_first_case_that_fits_wins),
        cmocka_unit_test(where_bits_hold_the_command_the_job_and_a_capture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
