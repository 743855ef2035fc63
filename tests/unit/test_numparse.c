/* SPDX-License-Identifier: Apache-2.0 */
/* Option values are plain decimal: strtod's hex, exponent, inf and nan forms
 * are not numbers a user means ("--duration 0x10" must not run 16 s). vram's
 * counts, sizes and percentages are the exception numparse.h documents: C's
 * notation, for "7.5e9" parameters. */
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

static void counts_take_a_suffix(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        double v;
    } good[] = {{"7", 7},        {"7B", 7e9},     {"7b", 7e9},  {"7G", 7e9},  {"7.5e9", 7.5e9}, {"1.5T", 1.5e12},
                {"350M", 350e6}, {"350m", 350e6}, {"1k", 1e3},  {"1K", 1e3},  {".5B", 0.5e9},   {"0.5", 0.5},
                {"1e3k", 1e6},   {"1e16", 1e16},  {"0x10", 16}, {" 7B", 7e9}, {"+7B", 7e9}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        double v = 0;
        if (gd_parse_count(good[i].s, &v) != 0 || v != good[i].v)
            fail_msg("'%s' not %g", good[i].s, good[i].v);
    }
    /* C's notation (vram's --params always took it): an exponent, and so
     * also a sign, leading space and hex; never inf or nan, nor a count
     * below or at 0, nor a trailing space or a second suffix. */
    double v = 0;
    static const char *const bad[] = {"",    "abc", "0",     "-7B",    "-0", "7BB", "7 B",    "7B ",  "7Q",    "7KB",
                                      "inf", "nan", "1e400", "1e300T", "B",  ".",   "1e-400", "7,5B", "1_000", NULL};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (gd_parse_count(bad[i], &v) == 0)
            fail_msg("'%s' taken as %g", bad[i] ? bad[i] : "(null)", v);
}

static void sizes_take_a_binary_unit(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        double v;
    } good[] = {{"80G", 80.0 * 1073741824},   {"80GB", 80.0 * 1073741824},   {"80GiB", 80.0 * 1073741824},
                {"80gib", 80.0 * 1073741824}, {"24576M", 24576.0 * 1048576}, {"1.5K", 1536},
                {"85899345920", 85899345920}, {"1T", 1099511627776.0},       {"2", 2},
                {"1e3G", 1e3 * 1073741824},   {" 80G", 80.0 * 1073741824}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        double v = 0;
        if (gd_parse_size(good[i].s, &v) != 0 || v != good[i].v)
            fail_msg("'%s' not %g", good[i].s, good[i].v);
    }
    double v = 0;
    static const char *const bad[] = {"",  "G",    "80X", "80 G", "80G ",  "80Gi", "80GBB",
                                      "0", "-80G", "inf", "nanG", "1e400", NULL};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (gd_parse_size(bad[i], &v) == 0)
            fail_msg("'%s' taken as %g", bad[i] ? bad[i] : "(null)", v);
}

static void percents_may_end_in_a_percent_sign(void **state)
{
    (void)state;
    double v = 0;
    assert_int_equal(gd_parse_percent("10", &v), 0);
    assert_true(v == 10);
    assert_int_equal(gd_parse_percent("10%", &v), 0);
    assert_true(v == 10);
    assert_int_equal(gd_parse_percent("5.5", &v), 0);
    assert_true(v == 5.5);
    assert_int_equal(gd_parse_percent("1e1", &v), 0); /* C's notation, as vram's --margin took it */
    assert_true(v == 10);
    assert_int_equal(gd_parse_percent("-1", &v), 0); /* a range is the caller's */
    assert_true(v == -1);
    static const char *const bad[] = {"", "%", "abc", "10%%", "10 %", "5 ", "inf", "nan", "1e-400", NULL};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (gd_parse_percent(bad[i], &v) == 0)
            fail_msg("'%s' taken as %g", bad[i] ? bad[i] : "(null)", v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integers_are_decimal_integers), cmocka_unit_test(numbers_are_decimal_numbers),
        cmocka_unit_test(durations_take_a_unit),         cmocka_unit_test(counts_take_a_suffix),
        cmocka_unit_test(sizes_take_a_binary_unit),      cmocka_unit_test(percents_may_end_in_a_percent_sign),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
