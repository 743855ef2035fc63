/* SPDX-License-Identifier: Apache-2.0 */
/* The input checks from literal facts: input.starved fires on a busy job
 * beside waiting GPUs, not on a busy host with an idle job (other tenants),
 * nor on fed GPUs; input.swapping, input.few_workers, input.affinity_narrow,
 * input.workers_respawned and input.cpu_governor fire and stay quiet. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/job.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A job on GPU 0 (pid 4242 in its process list), sampled n times. */
static void with_job(gd_facts *f, size_t n, double job_cores, double host_busy)
{
    f->pid = 4242;
    f->gpus[0].processes_status = gd_val(0);
    f->gpus[0].process_count = 1;
    f->gpus[0].processes = calloc(1, sizeof *f->gpus[0].processes);
    f->gpus[0].processes[0] = (gd_process){.pid = 4242, .used_mib = gd_val(60000)};
    gd_job_facts *j = calloc(1, sizeof *j);
    j->read = true;
    j->pid = 4242;
    j->samples = calloc(n, sizeof *j->samples);
    j->n = j->cap = n;
    for (size_t i = 0; i < n; i++)
        j->samples[i] =
            (gd_job_sample){.t = (double)i, .job_cores = job_cores, .top_thread_core = job_cores / 4, .threads = 8};
    f->job = j;
    /* The host, sampled on the same seconds. */
    gd_host_series *h = &f->host_series;
    h->v = calloc(n, sizeof *h->v);
    h->n = h->cap = n;
    for (size_t i = 0; i < n; i++)
        h->v[i] = (gd_host_sample){.t = (double)i, .busy = host_busy, .swap_in_ps = NAN, .swap_out_ps = NAN};
}

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
    with_job(&f, 20, 3.0, 0.5); /* three cores of decoding */
    assert_int_equal(starved(&f), 1);
    gd_facts_free(&f);
    /* The host's CPUs busy, the job with them. */
    fx_facts(&f, 1, 20);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 20, 20);
    with_job(&f, 20, 1.0, 0.95);
    assert_int_equal(starved(&f), 1);
    gd_facts_free(&f);
}

static void starved_stays_quiet_on_tenants_and_fed_gpus(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 20);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 20, 20);
    with_job(&f, 20, 0.01, 0.95); /* a busy host, an idle (sleeping) job: other tenants */
    assert_int_equal(starved(&f), 0);
    gd_facts_free(&f);
    fx_facts(&f, 1, 20); /* the GPU fed (98 % busy), the job busy */
    with_job(&f, 20, 3.0, 0.9);
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
    with_job(&f, 20, 1.0, 0.3);
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


/* n threads of the job: the main one (pid 4242, busy main_core) and one per
 * worker process (pids 5000.., busy worker_core each), measured 19 times. */
static void with_threads(gd_facts *f, double main_core, size_t nworkers, double worker_core)
{
    gd_job_facts *j = f->job;
    j->threads = calloc(1 + nworkers, sizeof *j->threads);
    j->thread_count = 1 + nworkers;
    j->procs_max = 1 + nworkers;
    for (size_t i = 0; i <= nworkers; i++) {
        double c = i == 0 ? main_core : worker_core;
        j->threads[i] = (gd_job_thread){.pid = i == 0 ? 4242 : 5000 + (int)i,
                                        .tid = i == 0 ? 4242 : 5000 + (int)i,
                                        .seen = 20,
                                        .measured = 19,
                                        .busy_sum = 19 * c,
                                        .saturated = c >= 0.9 ? 19 : 0};
        snprintf(j->threads[i].comm, sizeof j->threads[i].comm, "%s", i == 0 ? "python3" : "pt_data_worker");
    }
}

/* A job of main_core plus nworkers at worker_core each, `cores` busy in all,
 * on `cpus` of `host_cpus`, beside GPU 0 that waits (20 % busy) or is fed. */
static void job_of(gd_facts *f, bool waits, double cores, double main_core, size_t nworkers, double worker_core,
                   int cpus, int host_cpus)
{
    fx_facts(f, 1, 20);
    if (waits)
        fx_set(f, 0, GD_M_UTIL_GPU_PCT, 0, 20, 20);
    with_job(f, 20, cores, 0.5);
    with_threads(f, main_core, nworkers, worker_core);
    f->job->affinity_cpus = cpus;
    f->job->host_cpus = host_cpus;
}

/* Two workers flat out, 2.5 cores busy of 8 allowed, the GPU waiting: more workers. */
static void few_workers_fires_when_cpus_are_left_unused(void **state)
{
    (void)state;
    gd_facts f;
    job_of(&f, true, 2.5, 0.1, 2, 1.0, 8, 8);
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
    job_of(&f, true, 0.6, 0.1, 4, 0.12, 8, 8); /* workers that keep up sleep: the GPU waits for something else */
    assert_int_equal(fx_run_count(&f, "input.few_workers"), 0);
    gd_facts_free(&f);
    /* GPUs fed */
    job_of(&f, false, 2.1, 0.1, 2, 1.0, 8, 8);
    assert_int_equal(fx_run_count(&f, "input.few_workers"), 0);
    gd_facts_free(&f);
    /* num_workers=0: input.single_thread's case */
    job_of(&f, true, 1.0, 1.0, 0, 0, 8, 8);
    assert_int_equal(fx_run_count(&f, "input.few_workers"), 0);
    gd_facts_free(&f);
}

static void affinity_narrow_fires_on_a_full_pinned_job_only(void **state)
{
    (void)state;
    gd_facts f;
    /* pinned to one CPU, and filling it */
    job_of(&f, true, 0.97, 0.3, 2, 0.33, 1, 2); /* three threads share it */
    snprintf(f.job->affinity, sizeof f.job->affinity, "0");
    assert_int_equal(fx_run_count(&f, "input.affinity_narrow"), 1);
    f.job->affinity_cpus = 2; /* every CPU of the host */
    assert_int_equal(fx_run_count(&f, "input.affinity_narrow"), 0);
    gd_facts_free(&f);
    job_of(&f, true, 0.97, 0.3, 5, 0.3, 4, 64); /* six threads on 4 of 64 CPUs, one core busy */
    assert_int_equal(fx_run_count(&f, "input.affinity_narrow"), 0);
    for (size_t i = 0; i < f.job->n; i++)
        f.job->samples[i].running = 6; /* six runnable threads queue for four CPUs (others hold them) */
    assert_int_equal(fx_run_count(&f, "input.affinity_narrow"), 1);
    gd_facts_free(&f);
    /* one thread on its one CPU: input.single_thread's case */
    job_of(&f, true, 1.0, 1.0, 0, 0, 1, 2);
    assert_int_equal(fx_run_count(&f, "input.affinity_narrow"), 0);
    gd_facts_free(&f);
    /* a full pinned job beside fed GPUs */
    job_of(&f, false, 1.0, 0.3, 2, 0.33, 1, 2);
    assert_int_equal(fx_run_count(&f, "input.affinity_narrow"), 0);
    gd_facts_free(&f);
}

/* A thread held to 80 % of a core by other work on a loaded host: runnable
 * all along, it is CPU-bound; the same CPU time with sleeps is not. */
static void single_thread_counts_a_thread_that_waits_for_its_core(void **state)
{
    (void)state;
    gd_facts f;
    job_of(&f, true, 0.8, 0.8, 0, 0, 0, 0);
    f.job->threads[0].running = 20;
    assert_int_equal(fx_run_count(&f, "input.single_thread"), 1);
    f.job->threads[0].running = 10; /* asleep half the time */
    assert_int_equal(fx_run_count(&f, "input.single_thread"), 0);
    gd_facts_free(&f);
}

static void respawns_fire_from_two_rounds(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 20);
    with_job(&f, 20, 1.0, 0.3);
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
        with_job(&f, 20, 1.0, 0.3);
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
        cmocka_unit_test(starved_fires_on_a_busy_job_beside_waiting_gpus),
        cmocka_unit_test(starved_stays_quiet_on_tenants_and_fed_gpus),
        cmocka_unit_test(swapping_fires_on_a_swapping_host_only),
        cmocka_unit_test(few_workers_fires_when_cpus_are_left_unused),
        cmocka_unit_test(few_workers_quiet_on_idle_workers_fed_gpus_and_no_workers),
        cmocka_unit_test(affinity_narrow_fires_on_a_full_pinned_job_only),
        cmocka_unit_test(single_thread_counts_a_thread_that_waits_for_its_core),
        cmocka_unit_test(respawns_fire_from_two_rounds),
        cmocka_unit_test(governor_is_judged_with_its_driver),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
