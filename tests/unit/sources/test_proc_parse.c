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

/* PID/maps: torch, its CUDA half (a CUDA build), the CUDA runtime and the driver. */
static void maps_tell_a_cuda_build_from_a_cpu_one(void **state)
{
    (void)state;
    static const char *const cpu_build[] = {
        "7f3a1000-7f3a2000 r-xp 00000000 08:01 123 /usr/lib/python3/dist-packages/torch/lib/libtorch_cpu.so",
        "7f3a3000-7f3a4000 r-xp 00000000 08:01 124 /usr/lib/python3/dist-packages/torch/lib/libtorch.so", NULL};
    gd_job_proc p = {0};
    for (size_t i = 0; cpu_build[i]; i++)
        gd_proc_parse_maps_line(cpu_build[i], &p);
    assert_true(p.torch);
    assert_false(p.torch_cuda || p.cudart || p.cuda);
    static const char *const cuda_build[] = {
        "7f00-7f01 r-xp 0 08:01 1 /venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so",
        "7f02-7f03 r-xp 0 08:01 2 /venv/lib/python3.11/site-packages/torch/lib/libc10_cuda.so",
        "7f04-7f05 r-xp 0 08:01 3 /venv/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12", NULL};
    p = (gd_job_proc){0};
    for (size_t i = 0; cuda_build[i]; i++)
        gd_proc_parse_maps_line(cuda_build[i], &p);
    assert_true(p.torch && p.torch_cuda && p.cudart);
    assert_false(p.cuda); /* the driver comes with the first device call */
    gd_proc_parse_maps_line("7f06-7f07 r-xp 0 08:01 4 /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", &p);
    assert_true(p.cuda);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(thread_stat_gives_state_ticks_and_name),
        cmocka_unit_test(thread_stat_cut_after_the_name_is_refused),
        cmocka_unit_test(cpu_lists_count_their_cpus),
        cmocka_unit_test(maps_tell_a_cuda_build_from_a_cpu_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
