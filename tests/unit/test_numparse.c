/* SPDX-License-Identifier: Apache-2.0 */
/* Option values are plain decimal: strtod's hex, exponent, inf and nan forms
 * are not numbers a user means ("--duration 0x10" must not run 16 s). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/numparse.h"

static void integers_are_decimal_integers(void **state)
{
    (void)state;
    unsigned long v = 0;
    assert_int_equal(gd_parse_uint("4242", 4194304, &v), 0);
    assert_int_equal(v, 4242);
    assert_int_equal(gd_parse_uint("0", 10, &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(gd_parse_uint("4194304", 4194304, &v), 0);
    static const char *const bad[] = {
        "1e3", "0x10", "010x", "+5", "-1", " 5", "5 ", "", "2.0", "inf", "nan", "4194305", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (gd_parse_uint(bad[i], 4194304, &v) == 0)
            fail_msg("'%s' taken as %lu", bad[i], v);
    assert_int_equal(gd_parse_uint(NULL, 10, &v), -1);
    assert_int_equal(gd_parse_uint("7", 5, &v), -1); /* a digit above a small maximum */
}

static void numbers_are_decimal_numbers(void **state)
{
    (void)state;
    double v = 0;
    assert_int_equal(gd_parse_decimal("2", &v), 0);
    assert_true(v == 2.0);
    assert_int_equal(gd_parse_decimal("2.5", &v), 0);
    assert_true(v == 2.5);
    assert_int_equal(gd_parse_decimal(".5", &v), 0);
    assert_true(v == 0.5);
    assert_int_equal(gd_parse_decimal("3.", &v), 0);
    assert_true(v == 3.0);
    static const char *const bad[] = {"0x10", "0x64", "1e3", "1E3", "inf", "nan",   "-1",
                                      "+1",   ".",    "",    " 2",  "2 ",  "1.2.3", "2s"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (gd_parse_decimal(bad[i], &v) == 0)
            fail_msg("'%s' taken as %g", bad[i], v);
}

static void durations_take_a_unit(void **state)
{
    (void)state;
    double s = 0;
    assert_int_equal(gd_parse_duration("30", 1, &s), 0);
    assert_true(s == 30);
    assert_int_equal(gd_parse_duration("2.5", 1, &s), 0);
    assert_true(s == 2.5);
    assert_int_equal(gd_parse_duration("500ms", 1, &s), 0);
    assert_true(s == 0.5);
    assert_int_equal(gd_parse_duration("2m", 1, &s), 0);
    assert_true(s == 120);
    assert_int_equal(gd_parse_duration("1h", 1, &s), 0);
    assert_true(s == 3600);
    /* A bare number counts in the option's own unit (--interval: ms). */
    assert_int_equal(gd_parse_duration("100", 0.001, &s), 0);
    assert_true(s > 0.0999 && s < 0.1001);
    assert_int_equal(gd_parse_duration("1s", 0.001, &s), 0);
    assert_true(s == 1);
    /* The bounds of --interval stay inside [0.01, 60] s. */
    assert_int_equal(gd_parse_duration("60000", 0.001, &s), 0);
    assert_true(s <= 60);
    assert_int_equal(gd_parse_duration("10", 0.001, &s), 0);
    assert_true(s >= 0.01);
    static const char *const bad[] = {"0x10", "1e3", "0x64", "inf", "-1", "5 s", "5sec", "ms", "", "5S", "1e3ms"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (gd_parse_duration(bad[i], 1, &s) == 0)
            fail_msg("'%s' taken as %g s", bad[i], s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integers_are_decimal_integers),
        cmocka_unit_test(numbers_are_decimal_numbers),
        cmocka_unit_test(durations_take_a_unit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
