/* SPDX-License-Identifier: Apache-2.0 */
/* The live memory checks at their edges, and the robust trend under them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/checks_internal.h"
#include "facts_fixture.h"
#include "gpudoctor/stack.h"

#include <stdlib.h>
#include <string.h>

static size_t skips(const gd_findings *fs, const char *check, const char *says)
{
    size_t n = 0;
    for (size_t i = 0; i < fs->nskips; i++)
        n += strcmp(fs->skips[i].check, check) == 0 && strstr(fs->skips[i].reason, says) != NULL;
    return n;
}

/* ---- trend ---- */

static void theil_sen_ignores_outliers(void **state)
{
    (void)state;
    double t[20], y[20];
    for (int i = 0; i < 20; i++) {
        t[i] = i;
        y[i] = 5 + 2.0 * i;
    }
    y[3] = 900; /* two wild samples */
    y[15] = -400;
    gd_vram_trend tr;
    assert_int_equal(gd_vram_trend_fit(t, y, 20, &tr), 0);
    assert_float_equal(tr.slope, 2.0, 1e-9);
    assert_float_equal(tr.intercept, 5.0, 1e-9);
    assert_float_equal(tr.rise, 38.0, 1e-9);
    assert_true(tr.steady);
    assert_int_equal(gd_vram_trend_fit(t, y, 3, &tr), -1); /* too few points */
}

static void one_allocation_step_is_not_steady(void **state)
{
    (void)state;
    double t[40], y[40];
    for (int i = 0; i < 40; i++) {
        t[i] = i;
        y[i] = i < 20 ? 40000 : 60000;
    }
    gd_vram_trend tr;
    gd_vram_trend_fit(t, y, 40, &tr);
    assert_false(tr.steady);
    assert_false(gd_vram_is_growing(&tr, 81559));
}

static void long_series_are_thinned_but_fit_the_same(void **state)
{
    (void)state;
    size_t n = 5000;
    double *t = malloc(n * sizeof *t), *y = malloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        t[i] = (double)i * 0.1;
        y[i] = 1000 + 30.0 * t[i] + (i % 7 == 0 ? 80 : -10);
    }
    gd_vram_trend tr;
    assert_int_equal(gd_vram_trend_fit(t, y, n, &tr), 0);
    assert_float_equal(tr.slope, 30.0, 0.5);
    assert_true(tr.r2 > 0.99);
    free(t);
    free(y);
}

/* ---- vram.near_full ---- */

static void near_full_from_95_percent_under_load(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 20);
    fx_set(&f, 1, GD_M_MEM_USED_MIB, 0, 20, 77481); /* 95.0 % of 81559 is 77481.05 */
    gd_findings fs = fx_run_one(&f, "vram.near_full");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    fx_set(&f, 1, GD_M_MEM_USED_MIB, 0, 20, 77482);
    fs = fx_run_one(&f, "vram.near_full");
    assert_int_equal(fx_count(&fs, "vram.near_full", 1), 1);
    assert_int_equal(fs.n, 1);
    /* Frameworks hold memory on purpose: full is context until it presses. */
    assert_int_equal(fs.v[0].severity, GD_SEV_INFO);
    assert_false(json_is_true(json_object_get(fs.v[0].evidence, "pressure")));
    gd_findings_free(&fs);
    fx_set(&f, 1, GD_M_MEM_USED_MIB, 0, 20, 80800); /* 99.1 %, flat: still the allocator's pool */
    fs = fx_run_one(&f, "vram.near_full");
    assert_int_equal(fs.v[0].severity, GD_SEV_INFO);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void near_full_warns_on_pressure(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 20);
    /* Growing to the limit: 70 GiB to 80.9 GiB over the window. */
    for (size_t i = 0; i < 20; i++)
        fx_set(&f, 1, GD_M_MEM_USED_MIB, i, i + 1, 70000 + 575.0 * (double)i);
    gd_findings fs = fx_run_one(&f, "vram.near_full");
    assert_int_equal(fx_count(&fs, "vram.near_full", 1), 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    assert_non_null(json_object_get(fs.v[0].evidence, "growing_mib_per_s"));
    gd_findings_free(&fs);
    /* Flat at 97 %, with an out-of-memory Xid on that GPU. */
    fx_set(&f, 1, GD_M_MEM_USED_MIB, 0, 20, 79200);
    f.stack = calloc(1, sizeof *f.stack);
    f.stack->kernel_log_read = true;
    f.stack->xid_groups[0] = (gd_xid_group){.xid = 31, .gpu = 1, .pci = "0000:19:00", .count = 1, .example_count = 1};
    f.stack->xid_group_count = 1;
    fs = fx_run_one(&f, "vram.near_full");
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(fs.v[0].evidence, "oom_xids"), 0)), 31);
    gd_findings_free(&fs);
    /* The Xid on another GPU is not this one's pressure. */
    f.stack->xid_groups[0].gpu = 0;
    fs = fx_run_one(&f, "vram.near_full");
    assert_int_equal(fs.v[0].severity, GD_SEV_INFO);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void near_full_needs_load_and_more_than_a_blip(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 20);
    fx_set(&f, 0, GD_M_MEM_USED_MIB, 0, 20, 80000);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 20, 0); /* idle: not judged */
    gd_findings fs = fx_run_one(&f, "vram.near_full");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 20, 98);
    fx_set(&f, 0, GD_M_MEM_USED_MIB, 0, 20, 60000);
    fx_set(&f, 0, GD_M_MEM_USED_MIB, 5, 6, 80000); /* 1 of 20 samples: under 10 % */
    fs = fx_run_one(&f, "vram.near_full");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_MEM_USED_MIB, 6, 7, 80000); /* 2 of 20 */
    fs = fx_run_one(&f, "vram.near_full");
    assert_int_equal(fs.n, 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void near_full_says_when_it_cannot_judge(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 5);
    f.gpus[0].mem_total_mib = gd_missing(GD_ST_NOT_SUPPORTED);
    fx_unset(&f, 1, GD_M_MEM_USED_MIB, GD_ST_NO_PERMISSION);
    gd_findings fs = fx_run_one(&f, "vram.near_full");
    assert_int_equal(fs.n, 0);
    assert_int_equal(skips(&fs, "vram.near_full", "total memory"), 1);
    assert_int_equal(skips(&fs, "vram.near_full", "not readable"), 2);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* ---- vram.growing ---- */

static void ramp(gd_facts *f, size_t g, double start, double per_s, const double *noise, size_t nn)
{
    for (size_t i = 0; i < f->series.n; i++)
        fx_set(f, g, GD_M_MEM_USED_MIB, i, i + 1, start + per_s * (double)i + (nn ? noise[i % nn] : 0));
}

static const double noise[] = {0, 60, -45, 30, -70, 15, 50, -20, -55, 40, 10};

static void growing_fires_on_a_noisy_leak_with_rate_and_time_left(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 30);
    ramp(&f, 0, 20000, 100, noise, sizeof noise / sizeof noise[0]);
    gd_findings fs = fx_run_one(&f, "vram.growing");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].gpu, 0);
    json_t *ev = fs.v[0].evidence;
    assert_float_equal(json_number_value(json_object_get(ev, "rate_mib_per_s")), 100, 5);
    double left = json_number_value(json_object_get(ev, "seconds_until_full"));
    assert_float_equal(left, (81559 - 22900) / 100.0, 10);
    assert_int_equal(fs.v[0].severity, GD_SEV_CRITICAL); /* full within 10 minutes */
    gd_findings_free(&fs);
    ramp(&f, 0, 20000, 40, noise, sizeof noise / sizeof noise[0]); /* 1160 MiB over 29 s; full in ~25 min */
    fs = fx_run_one(&f, "vram.growing");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void growing_stays_quiet_on_noise_steps_small_rises_and_falls(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 30);
    const double *nz = noise;
    size_t nn = sizeof noise / sizeof noise[0];
    static const struct {
        double start, per_s;
    } quiet[] = {
        {60000, 0}, /* flat with noise */
        {20000, 25}, /* 725 MiB: under 1 % of the GPU */
        {70000, -100} /* falling */
    };
    for (size_t k = 0; k < sizeof quiet / sizeof quiet[0]; k++) {
        ramp(&f, 0, quiet[k].start, quiet[k].per_s, nz, nn);
        gd_findings fs = fx_run_one(&f, "vram.growing");
        if (fs.n)
            fail_msg("case %zu fired: %s", k, fs.v[0].title);
        gd_findings_free(&fs);
    }
    fx_set(&f, 0, GD_M_MEM_USED_MIB, 0, 30, 40000); /* one allocation of 20 GB */
    fx_set(&f, 0, GD_M_MEM_USED_MIB, 12, 30, 60000);
    gd_findings fs = fx_run_one(&f, "vram.growing");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_MEM_USED_MIB, 2, 30, 60000); /* an early allocation step */
    fs = fx_run_one(&f, "vram.growing");
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Noise makes the quarter medians around a step rise by chance: wherever the
 * one allocation falls, it is not a leak. */
static void growing_stays_quiet_on_one_noisy_allocation_step_anywhere(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 30);
    size_t nn = sizeof noise / sizeof noise[0];
    for (size_t step = 1; step < 30; step++)
        for (size_t shift = 0; shift < nn; shift++) {
            for (size_t i = 0; i < 30; i++)
                fx_set(&f, 0, GD_M_MEM_USED_MIB, i, i + 1, (i < step ? 40000 : 60000) + noise[(i + shift) % nn]);
            gd_findings fs = fx_run_one(&f, "vram.growing");
            if (fs.n)
                fail_msg("step at sample %zu (noise shifted by %zu) fired: %s", step, shift, fs.v[0].title);
            gd_findings_free(&fs);
        }
    /* The same noise on a staircase of small allocations that never stops is growth. */
    for (size_t i = 0; i < 30; i++)
        fx_set(&f, 0, GD_M_MEM_USED_MIB, i, i + 1, 40000 + 500.0 * (double)(i / 3) + noise[i % nn]);
    gd_findings fs = fx_run_one(&f, "vram.growing");
    assert_int_equal(fs.n, 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void growing_needs_enough_samples(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, GD_VRAM_GROW_MIN_SAMPLES - 1);
    ramp(&f, 0, 20000, 1000, NULL, 0);
    gd_findings fs = fx_run_one(&f, "vram.growing");
    assert_int_equal(fs.n, 0);
    assert_int_equal(skips(&fs, "vram.growing", "longer --duration"), 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* ---- vram.foreign_process ---- */

static void give_processes(gd_facts *f, size_t g, const unsigned *pids, const double *mib, size_t n)
{
    gd_gpu *gpu = &f->gpus[g];
    free(gpu->processes);
    gpu->processes = calloc(n ? n : 1, sizeof *gpu->processes);
    gpu->process_count = n;
    gpu->processes_status = gd_val((double)n);
    for (size_t i = 0; i < n; i++) {
        gpu->processes[i].pid = pids[i];
        gpu->processes[i].used_mib = gd_val(mib[i]);
        snprintf(gpu->processes[i].name, sizeof gpu->processes[i].name, "proc%u", pids[i]);
    }
}

static void foreign_process_named_on_the_jobs_gpu_only(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 3, 5);
    f.pid = 100;
    give_processes(&f, 0, (const unsigned[]){100}, (const double[]){60000}, 1);
    give_processes(&f, 1, (const unsigned[]){100, 200}, (const double[]){50000, 9000}, 2);
    give_processes(&f, 2, (const unsigned[]){300, 400}, (const double[]){30000, 30000}, 2); /* not the job's GPU */
    gd_findings fs = fx_run_one(&f, "vram.foreign_process");
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].gpu, 1);
    json_t *others = json_object_get(fs.v[0].evidence, "foreign_processes");
    assert_int_equal(json_array_size(others), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(others, 0), "pid")), 200);
    assert_string_equal(json_string_value(json_object_get(json_array_get(others, 0), "name")), "proc200");
    assert_int_equal(json_integer_value(json_object_get(fs.v[0].evidence, "foreign_used_mib")), 9000);
    assert_non_null(strstr(fs.v[0].title, "pid 200"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void foreign_process_without_pid_or_list_says_why(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 3, 5);
    f.pid = -1;
    gd_findings fs = fx_run_one(&f, "vram.foreign_process");
    assert_int_equal(fs.n, 0);
    assert_int_equal(skips(&fs, "vram.foreign_process", "--pid"), 1);
    gd_findings_free(&fs);

    f.pid = 100;
    f.gpus[0].processes_status = gd_missing(GD_ST_NOT_SUPPORTED);
    give_processes(&f, 1, NULL, NULL, 0); /* empty list, 60000 MiB in use */
    give_processes(&f, 2, NULL, NULL, 0);
    fx_set(&f, 2, GD_M_MEM_USED_MIB, 0, 5, 2); /* empty and idle: nothing to explain */
    fs = fx_run_one(&f, "vram.foreign_process");
    assert_int_equal(fs.n, 0);
    assert_int_equal(skips(&fs, "vram.foreign_process", "container"), 3); /* every note says why */
    assert_int_equal(skips(&fs, "vram.foreign_process", "process list is not available"), 1);
    assert_int_equal(skips(&fs, "vram.foreign_process", "NVML lists no process"), 1);
    assert_int_equal(skips(&fs, "vram.foreign_process", "holds memory on no GPU"), 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(theil_sen_ignores_outliers),
        cmocka_unit_test(one_allocation_step_is_not_steady),
        cmocka_unit_test(growing_stays_quiet_on_one_noisy_allocation_step_anywhere),
        cmocka_unit_test(long_series_are_thinned_but_fit_the_same),
        cmocka_unit_test(near_full_from_95_percent_under_load),
        cmocka_unit_test(near_full_warns_on_pressure),
        cmocka_unit_test(near_full_needs_load_and_more_than_a_blip),
        cmocka_unit_test(near_full_says_when_it_cannot_judge),
        cmocka_unit_test(growing_fires_on_a_noisy_leak_with_rate_and_time_left),
        cmocka_unit_test(growing_stays_quiet_on_noise_steps_small_rises_and_falls),
        cmocka_unit_test(growing_needs_enough_samples),
        cmocka_unit_test(foreign_process_named_on_the_jobs_gpu_only),
        cmocka_unit_test(foreign_process_without_pid_or_list_says_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
