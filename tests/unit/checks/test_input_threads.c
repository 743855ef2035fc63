/* SPDX-License-Identifier: Apache-2.0 */
/* input.gil_contention and input.cpu_starved (src/checks/input_threads.c):
 * threads that take turns on a lock, or wait for a CPU others hold. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/job.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void gil_contention_needs_threads_waiting_on_a_lock(void **state)
{
    (void)state;
    gd_facts f;
    gd_job_facts *j = fx_container_job(&f, 1, 1);
    fx_set_proc(&j->procs[0], "python3", "train.py", true, true);
    j->procs[0].dev_minors = 1;
    j->procs[0].intervals = 19;
    j->procs[0].busy_sum = 19 * 0.95;
    j->procs[0].busy_max = 1.1;
    for (int k = 0; k < 3; k++) /* three threads, each runnable a third of the time, 200 waits a second */
        fx_add_thread(j, 100, 100 + k, 7, 0.32, 200);
    assert_int_equal(fx_run_count(&f, "input.gil_contention"), 1);
    assert_int_equal(fx_run_count(&f, "input.single_thread"), 0);
    /* The same threads without voluntary waits: held off the CPU by other work, not by a lock. */
    for (int k = 0; k < 3; k++)
        j->threads[k].vcsw_last = 0;
    assert_int_equal(fx_run_count(&f, "input.gil_contention"), 0);
    /* Waiting threads of a process that uses two cores: no lock holds it to one. */
    for (int k = 0; k < 3; k++)
        j->threads[k].vcsw_last = 200 * 19 * 0.32;
    j->procs[0].busy_sum = 19 * 2.0;
    assert_int_equal(fx_run_count(&f, "input.gil_contention"), 0);
    gd_facts_free(&f);
}

static void cpu_starved_names_the_bottleneck_and_the_host(void **state)
{
    (void)state;
    gd_facts f;
    gd_job_facts *j = fx_container_job(&f, 1, 1);
    fx_set_proc(&j->procs[0], "python3", "train.py", true, true);
    j->procs[0].dev_minors = 1;
    fx_add_thread(j, 100, 100, 20, 0.3, 0); /* always runnable, a third of a core */
    gd_host_series *h = &f.host_series;
    h->v = calloc(20, sizeof *h->v);
    h->n = h->cap = 20;
    for (size_t i = 0; i < 20; i++)
        h->v[i] = (gd_host_sample){.t = (double)i, .busy = 0.97, .swap_in_ps = NAN, .swap_out_ps = NAN};
    gd_findings fs;
    fx_run(&f, "input.cpu_starved", &fs);
    assert_int_equal(fx_count(&fs, "input.cpu_starved", -2), 1);
    assert_string_equal(json_string_value(json_object_get(fs.v[0].evidence, "cause")), "host_load");
    assert_non_null(strstr(fs.v[0].title, "the trainer pid 100"));
    assert_non_null(strstr(fs.v[0].title, "97% busy"));
    gd_findings_free(&fs);
    fx_run(&f, "input.single_thread", &fs); /* the bottleneck itself */
    assert_int_equal(fx_count(&fs, "input.single_thread", -2), 1);
    assert_string_equal(json_string_value(json_object_get(fs.v[0].evidence, "cause")), "cpu_starved");
    gd_findings_free(&fs);
    /* Given a whole core: no CPU starvation. */
    j->threads[0].busy_sum = 19 * 0.95;
    assert_int_equal(fx_run_count(&f, "input.cpu_starved"), 0);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gil_contention_needs_threads_waiting_on_a_lock),
        cmocka_unit_test(cpu_starved_names_the_bottleneck_and_the_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
