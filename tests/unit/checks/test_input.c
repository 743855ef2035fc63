/* SPDX-License-Identifier: Apache-2.0 */
/* input.starved, input.single_thread, input.io_wait and input.swapping
 * (src/checks/input.c) from literal facts: input.starved fires on a busy job
 * beside waiting GPUs, not on a busy host with an idle job (other tenants),
 * nor on fed GPUs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/job.h"

#include <math.h>
#include <string.h>

static size_t starved(const gd_facts *f)
{
    gd_findings fs;
    fx_run(f, "input.starved", &fs);
    size_t n = fx_count(&fs, "input.starved", -2);
    gd_findings_free(&fs);
    return n;
}

static void starved_fires_on_a_busy_job_beside_waiting_gpus(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 20);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 20, 20); /* the GPU waits */
    fx_job(&f, 20, 3.0, 0.5); /* three cores of decoding */
    assert_int_equal(starved(&f), 1);
    gd_facts_free(&f);
    /* The host's CPUs busy, the job with them. */
    fx_facts(&f, 1, 20);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 20, 20);
    fx_job(&f, 20, 1.0, 0.95);
    assert_int_equal(starved(&f), 1);
    gd_facts_free(&f);
}

static void starved_stays_quiet_on_tenants_and_fed_gpus(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 20);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 20, 20);
    fx_job(&f, 20, 0.01, 0.95); /* a busy host, an idle (sleeping) job: other tenants */
    assert_int_equal(starved(&f), 0);
    gd_facts_free(&f);
    fx_facts(&f, 1, 20); /* the GPU fed (98 % busy), the job busy */
    fx_job(&f, 20, 3.0, 0.9);
    assert_int_equal(starved(&f), 0);
    gd_facts_free(&f);
}

static size_t swapping(const gd_facts *f)
{
    gd_findings fs;
    fx_run(f, "input.swapping", &fs);
    size_t n = fx_count(&fs, "input.swapping", -2);
    gd_findings_free(&fs);
    return n;
}

/* Swap in + out over 100 pages/s in a fifth of the samples or more. */
static void swapping_fires_on_a_swapping_host_only(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 20);
    fx_job(&f, 20, 1.0, 0.3);
    gd_host_sample *h = f.host_series.v;
    for (size_t i = 0; i < f.host_series.n; i++)
        h[i].swap_in_ps = h[i].swap_out_ps = 0;
    assert_int_equal(swapping(&f), 0); /* no swap: quiet */
    for (size_t i = 0; i < 3; i++)
        h[i].swap_in_ps = 400; /* 3 of 20: under the share */
    assert_int_equal(swapping(&f), 0);
    for (size_t i = 0; i < 6; i++)
        h[i].swap_in_ps = 400, h[i].swap_out_ps = 200; /* 6 of 20 */
    assert_int_equal(swapping(&f), 1);
    for (size_t i = 0; i < f.host_series.n; i++)
        h[i].swap_in_ps = 40, h[i].swap_out_ps = 40; /* a trickle all along */
    assert_int_equal(swapping(&f), 0);
    gd_facts_free(&f);
}

/* A thread held to 80 % of a core by other work on a loaded host: runnable
 * all along, it is CPU-bound; the same CPU time with sleeps is not. */
static void single_thread_counts_a_thread_that_waits_for_its_core(void **state)
{
    (void)state;
    gd_facts f;
    fx_job_of(&f, true, 0.8, 0.8, 0, 0, 0, 0);
    f.job->threads[0].running = 20;
    assert_int_equal(fx_run_count(&f, "input.single_thread"), 1);
    f.job->threads[0].running = 10; /* asleep half the time */
    assert_int_equal(fx_run_count(&f, "input.single_thread"), 0);
    gd_facts_free(&f);
}

/* A job beside a waiting GPU whose first `d` of 20 samples have a thread in disk wait. */
static void job_in_disk_wait(gd_facts *f, size_t d)
{
    fx_facts(f, 1, 20);
    fx_set(f, 0, GD_M_UTIL_GPU_PCT, 0, 20, 20);
    fx_job(f, 20, 0.4, 0.2);
    for (size_t i = 0; i < d; i++)
        f->job->samples[i].disk_wait = 1;
}

/* A thread in state D in 30 % of the samples or more: the job waits on storage. */
static void io_wait_fires_from_30_percent_in_disk_wait(void **state)
{
    (void)state;
    gd_facts f;
    job_in_disk_wait(&f, 6);
    gd_findings fs = fx_run_one(&f, "input.io_wait");
    const gd_finding *x = fx_only(&fs, "input.io_wait");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_int_equal(x->gpu, GD_NO_GPU);
    assert_string_equal(x->title, "the job waits on storage: a thread in disk wait in 30% of the samples");
    assert_float_equal(json_number_value(json_object_get(x->evidence, "disk_wait_pct")), 30, 1e-9);
    assert_int_equal(json_integer_value(json_object_get(x->evidence, "pid")), 4242);
    assert_float_equal(json_number_value(json_object_get(x->evidence, "gpu_busy_pct_mean")), 20.0, 1e-9);
    assert_non_null(strstr(x->fix, "faster local storage"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    job_in_disk_wait(&f, 5); /* 25 %: quiet */
    fx_assert_silent(&f, "input.io_wait");
    gd_facts_free(&f);
}

/* IO pressure (some avg10 20 %) with host iowait (10 %) fires without a D thread. */
static void io_wait_fires_on_io_pressure_with_host_iowait(void **state)
{
    (void)state;
    gd_facts f;
    job_in_disk_wait(&f, 0);
    for (size_t i = 0; i < f.host_series.n; i++) {
        f.host_series.v[i].psi_io = 20;
        f.host_series.v[i].iowait = 0.1;
    }
    gd_findings fs = fx_run_one(&f, "input.io_wait");
    const gd_finding *x = fx_only(&fs, "input.io_wait");
    assert_string_equal(x->title,
                        "the job waits on storage: a thread in disk wait in 0% of the samples, IO pressure high");
    assert_float_equal(json_number_value(json_object_get(x->evidence, "io_pressure_some_avg10_pct")), 20.0, 1e-9);
    assert_float_equal(json_number_value(json_object_get(x->evidence, "host_iowait_pct")), 10, 1e-9);
    gd_findings_free(&fs);
    /* Pressure without iowait (a slow device of other tenants): quiet. */
    for (size_t i = 0; i < f.host_series.n; i++)
        f.host_series.v[i].iowait = 0.05;
    assert_int_equal(fx_run_count(&f, "input.io_wait"), 0);
    gd_facts_free(&f);
}

/* Without the job's /proc, or with too few samples of it: not checked. */
static void io_wait_not_checked_without_the_job(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 20);
    f.pid = 4242;
    gd_findings fs = fx_run_one(&f, "input.io_wait");
    assert_int_equal(fs.n, 0);
    assert_true(fx_skipped(&fs, "input.io_wait", GD_NO_GPU, "the job's /proc was not sampled"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    fx_facts(&f, 1, 4);
    fx_job(&f, 4, 0.4, 0.2);
    for (size_t i = 0; i < 4; i++)
        f.job->samples[i].disk_wait = 1;
    fs = fx_run_one(&f, "input.io_wait");
    assert_int_equal(fs.n, 0);
    assert_true(fx_skipped(&fs, "input.io_wait", GD_NO_GPU, "4 samples of the job (judging needs 5)"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(starved_fires_on_a_busy_job_beside_waiting_gpus),
        cmocka_unit_test(starved_stays_quiet_on_tenants_and_fed_gpus),
        cmocka_unit_test(swapping_fires_on_a_swapping_host_only),
        cmocka_unit_test(single_thread_counts_a_thread_that_waits_for_its_core),
        cmocka_unit_test(io_wait_fires_from_30_percent_in_disk_wait),
        cmocka_unit_test(io_wait_fires_on_io_pressure_with_host_iowait),
        cmocka_unit_test(io_wait_not_checked_without_the_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
