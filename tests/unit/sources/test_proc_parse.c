/* SPDX-License-Identifier: Apache-2.0 */
/* The job's /proc parsers (src/sources/proc/proc_parse.c) on literal text. */
#include "sources/proc/proc_parse.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void thread_stat_gives_state_ticks_and_name(void **state)
{
    (void)state;
    char st = 0, comm[32];
    double ticks = 0;
    /* A name with blanks and parentheses: the last ')' ends it. */
    assert_true(gd_proc_parse_thread_stat("4242 (pt_data (1)) R 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0",
                                          &st, &ticks, comm, sizeof comm));
    assert_int_equal(st, 'R');
    assert_float_equal(ticks, 325.0, 1e-9);
    assert_string_equal(comm, "pt_data (1)");
}

/* Fuzzing found it: a line cut right after the name read past its end. */
static void thread_stat_cut_after_the_name_is_refused(void **state)
{
    (void)state;
    char st = 'x', comm[32];
    double ticks = -1;
    assert_false(gd_proc_parse_thread_stat("1234 (python3)", &st, &ticks, comm, sizeof comm));
    assert_false(gd_proc_parse_thread_stat("1234 (python3) ", &st, &ticks, comm, sizeof comm));
    assert_false(gd_proc_parse_thread_stat("1234 (python3) S 1 2", &st, &ticks, comm, sizeof comm));
    assert_false(gd_proc_parse_thread_stat("no name here", &st, &ticks, comm, sizeof comm));
}

static void cpu_lists_count_their_cpus(void **state)
{
    (void)state;
    assert_int_equal(gd_proc_count_cpu_list("0-3,8,10-11\n"), 7);
    assert_int_equal(gd_proc_count_cpu_list("5"), 1);
    assert_int_equal(gd_proc_count_cpu_list(""), 0);
    assert_int_equal(gd_proc_count_cpu_list("x-1"), 0);
    /* Fuzzing found it: a range past any CPU overflowed the count (negative). */
    assert_int_equal(gd_proc_count_cpu_list("64-5555555555555555"), 0);
    assert_int_equal(gd_proc_count_cpu_list("0-4294967297"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(thread_stat_gives_state_ticks_and_name),
        cmocka_unit_test(thread_stat_cut_after_the_name_is_refused),
        cmocka_unit_test(cpu_lists_count_their_cpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
