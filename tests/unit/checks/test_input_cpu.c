/* SPDX-License-Identifier: Apache-2.0 */
/* input.few_workers, input.affinity_narrow, input.workers_respawned and
 * input.cpu_governor (src/checks/input_cpu.c) fire and stay quiet. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/job.h"

#include <stdio.h>
#include <string.h>

/* Two workers flat out, 2.5 cores busy of 8 allowed, the GPU waiting: more workers. */
static void few_workers_fires_when_cpus_are_left_unused(void **state)
{
    (void)state;
    gd_facts f;
    fx_job_of(&f, true, 2.5, 0.1, 2, 1.0, 8, 8);
    assert_int_equal(fx_run_count(&f, "input.few_workers"), 1);
    gd_findings fs;
    fx_run(&f, "input.few_workers", &fs);
    json_t *ev = fs.v[0].evidence;
    assert_int_equal(json_integer_value(json_object_get(ev, "num_workers_suggested")), 8);
    assert_non_null(strstr(fs.v[0].fix, "num_workers=8"));
    gd_findings_free(&fs);
    /* The same job on 2 CPUs: nothing left to give (input.affinity_narrow's case). */
    f.job->affinity_cpus = 2;
    assert_int_equal(fx_run_count(&f, "input.few_workers"), 0);
    assert_int_equal(fx_run_count(&f, "input.affinity_narrow"), 1);
    gd_facts_free(&f);
}

static void few_workers_quiet_on_idle_workers_fed_gpus_and_no_workers(void **state)
{
    (void)state;
    gd_facts f;
    fx_job_of(&f, true, 0.6, 0.1, 4, 0.12, 8, 8); /* workers that keep up sleep: the GPU waits for something else */
    assert_int_equal(fx_run_count(&f, "input.few_workers"), 0);
    gd_facts_free(&f);
    /* GPUs fed */
    fx_job_of(&f, false, 2.1, 0.1, 2, 1.0, 8, 8);
    assert_int_equal(fx_run_count(&f, "input.few_workers"), 0);
    gd_facts_free(&f);
    /* num_workers=0: input.single_thread's case */
    fx_job_of(&f, true, 1.0, 1.0, 0, 0, 8, 8);
    assert_int_equal(fx_run_count(&f, "input.few_workers"), 0);
    gd_facts_free(&f);
}

static void affinity_narrow_fires_on_a_full_pinned_job_only(void **state)
{
    (void)state;
    gd_facts f;
    /* pinned to one CPU, and filling it */
    fx_job_of(&f, true, 0.97, 0.3, 2, 0.33, 1, 2); /* three threads share it */
    snprintf(f.job->affinity, sizeof f.job->affinity, "0");
    assert_int_equal(fx_run_count(&f, "input.affinity_narrow"), 1);
    f.job->affinity_cpus = 2; /* every CPU of the host */
    assert_int_equal(fx_run_count(&f, "input.affinity_narrow"), 0);
    gd_facts_free(&f);
    fx_job_of(&f, true, 0.97, 0.3, 5, 0.3, 4, 64); /* six threads on 4 of 64 CPUs, one core busy */
    assert_int_equal(fx_run_count(&f, "input.affinity_narrow"), 0);
    for (size_t i = 0; i < f.job->n; i++)
        f.job->samples[i].running = 6; /* six runnable threads queue for four CPUs (others hold them) */
    assert_int_equal(fx_run_count(&f, "input.affinity_narrow"), 1);
    gd_facts_free(&f);
    /* one thread on its one CPU: input.single_thread's case */
    fx_job_of(&f, true, 1.0, 1.0, 0, 0, 1, 2);
    assert_int_equal(fx_run_count(&f, "input.affinity_narrow"), 0);
    gd_facts_free(&f);
    /* a full pinned job beside fed GPUs */
    fx_job_of(&f, false, 1.0, 0.3, 2, 0.33, 1, 2);
    assert_int_equal(fx_run_count(&f, "input.affinity_narrow"), 0);
    gd_facts_free(&f);
}

static void respawns_fire_from_two_rounds(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 20);
    fx_job(&f, 20, 1.0, 0.3);
    f.job->respawn_rounds = 1; /* the workers ending with the last epoch */
    assert_int_equal(fx_run_count(&f, "input.workers_respawned"), 0);
    f.job->respawn_rounds = 3;
    f.job->children_started = 12;
    f.job->children_exited = 12;
    gd_findings fs;
    fx_run(&f, "input.workers_respawned", &fs);
    assert_int_equal(fx_count(&fs, "input.workers_respawned", -2), 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_INFO); /* the GPU fed: a cost, not the bottleneck */
    assert_non_null(strstr(fs.v[0].fix, "persistent_workers=True"));
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 20, 20);
    fx_run(&f, "input.workers_respawned", &fs);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* powersave is judged with its driver: the lowest frequency under a classic
 * driver, the dynamic default under intel_pstate and amd-pstate-epp. */
static void governor_is_judged_with_its_driver(void **state)
{
    (void)state;
    static const struct {
        const char *governor, *driver;
        size_t findings;
    } cases[] = {
        {"powersave", "acpi-cpufreq", 1},   {"powersave", "intel_cpufreq", 1},
        {"powersave", "amd-pstate", 1},     {"powersave", "intel_pstate", 0},
        {"powersave", "amd-pstate-epp", 0}, {"performance", "acpi-cpufreq", 0},
        {"schedutil", "acpi-cpufreq", 0},   {"powersave", "", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gd_facts f;
        fx_facts(&f, 1, 20);
        fx_job(&f, 20, 1.0, 0.3);
        snprintf(f.job->governor, sizeof f.job->governor, "%s", cases[i].governor);
        snprintf(f.job->scaling_driver, sizeof f.job->scaling_driver, "%s", cases[i].driver);
        gd_findings fs;
        fx_run(&f, "input.cpu_governor", &fs);
        if (fx_count(&fs, "input.cpu_governor", -2) != cases[i].findings)
            fail_msg("%s under %s: %zu findings", cases[i].governor, cases[i].driver,
                     fx_count(&fs, "input.cpu_governor", -2));
        if (!cases[i].driver[0]) /* an unknown driver: said, not guessed */
            assert_true(fs.nskips > 0 && strstr(fs.skips[0].reason, "unknown scaling driver"));
        gd_findings_free(&fs);
        gd_facts_free(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(few_workers_fires_when_cpus_are_left_unused),
        cmocka_unit_test(few_workers_quiet_on_idle_workers_fed_gpus_and_no_workers),
        cmocka_unit_test(affinity_narrow_fires_on_a_full_pinned_job_only),
        cmocka_unit_test(respawns_fire_from_two_rounds),
        cmocka_unit_test(governor_is_judged_with_its_driver),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
