/* SPDX-License-Identifier: Apache-2.0 */
/* Event times in words (src/core/events.c): a kernel log's bare seconds are
 * since boot and say so; dates and clocks stay as written. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "gpudoctor/model.h"

static void log_times_say_what_they_count_from(void **state)
{
    (void)state;
    char buf[80];
    gd_log_when("8734.551035", buf, sizeof buf);
    assert_string_equal(buf, "8734.551035 s after boot");
    gd_log_when("[ 1843.308145]", buf, sizeof buf);
    assert_string_equal(buf, "1843.308145 s after boot");
    gd_log_when("Tue Mar  5 10:12:41 2024", buf, sizeof buf);
    assert_string_equal(buf, "Tue Mar  5 10:12:41 2024");
    gd_log_when("2024-03-05T10:12:41+00:00", buf, sizeof buf);
    assert_string_equal(buf, "2024-03-05T10:12:41+00:00");
    gd_log_when("", buf, sizeof buf);
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(log_times_say_what_they_count_from),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
