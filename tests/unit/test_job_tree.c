/* SPDX-License-Identifier: Apache-2.0 */
/* The job's tree and GPUs from literal facts: launchers (by what they run),
 * trainers (one per rank) and their workers; each rule that links a GPU to
 * the job (NVML's pids, device files, visible devices by index and UUID,
 * memory that appeared, the only GPU) and "not checked" when none does;
 * input.single_thread on a trainer's thread only; input.gil_contention and
 * input.cpu_starved. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/job_tree.h"
#include "facts_fixture.h"
#include "gpudoctor/job.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A job of nprocs processes (pids 100..), 20 samples, beside GPUs that wait
 * (20 % busy) and whose NVML lists no process: a container. */
static gd_job_facts *container_job(gd_facts *f, size_t gpus, size_t nprocs)
{
    fx_facts(f, gpus, 20);
    for (size_t g = 0; g < gpus; g++) {
        fx_set(f, g, GD_M_UTIL_GPU_PCT, 0, 20, 20);
        f->gpus[g].processes_status = gd_val(0);
        f->gpus[g].process_count = 0;
        snprintf(f->gpus[g].uuid, sizeof f->gpus[g].uuid, "GPU-5e1d-%zu-4000-8000-00000000000%zu", g, g);
    }
    gd_job_facts *j = calloc(1, sizeof *j);
    j->read = true;
    j->pid = 100;
    f->pid = 100;
    j->samples = calloc(20, sizeof *j->samples);
    j->n = j->cap = 20;
    for (size_t i = 0; i < 20; i++)
        j->samples[i] = (gd_job_sample){.t = (double)i, .job_cores = 1.0, .threads = 4, .procs = (uint16_t)nprocs};
    j->procs = calloc(GD_JOB_MAX_PROCS, sizeof *j->procs);
    j->proc_count = nprocs;
    for (size_t i = 0; i < nprocs; i++)
        j->procs[i] = (gd_job_proc){.pid = 100 + (int)i, .ppid = i ? 99 + (int)i : 0, .rank = -1};
    j->gpu_minor_count = gpus;
    for (size_t g = 0; g < gpus; g++)
        j->gpu_minors[g] = (int)g;
    j->affinity_cpus = j->host_cpus = 8;
    j->threads = calloc(GD_JOB_MAX_THREADS, sizeof *j->threads);
    f->job = j;
    return j;
}

static void set_proc(gd_job_proc *p, const char *comm, const char *prog, bool python, bool torch)
{
    snprintf(p->comm, sizeof p->comm, "%s", comm);
    snprintf(p->prog, sizeof p->prog, "%s", prog);
    p->python = python;
    p->torch = torch;
}

/* A thread of pid: seen 20 times, runnable `running` of them, `core` busy,
 * `vcsw_ps` voluntary switches per second of its CPU time. */
static void add_thread(gd_job_facts *j, int pid, int tid, uint32_t running, double core, double vcsw_ps)
{
    gd_job_thread *t = &j->threads[j->thread_count++];
    *t = (gd_job_thread){.pid = pid, .tid = tid, .seen = 20, .running = running, .measured = 19,
                         .busy_sum = 19 * core, .saturated = core >= 0.9 ? 19 : 0, .vcsw_first = 0,
                         .vcsw_last = vcsw_ps * 19 * core, .vcsw_first_t = 0, .vcsw_last_t = 19,
                         .vcsw_first_cpu_s = 0, .vcsw_last_cpu_s = 19 * core};
    snprintf(t->comm, sizeof t->comm, "python3");
}

static void roles_of_launchers_trainers_and_workers(void **state)
{
    (void)state;
    static const char *const launchers[] = {"sh", "bash", "torchrun", "accelerate", "deepspeed", "srun",
                                            "mpirun", "uv", "poetry", "torch.distributed.run"};
    for (size_t k = 0; k < sizeof launchers / sizeof launchers[0]; k++) {
        gd_facts f;
        /* launcher 100 -> rank 0 (101) and rank 1 (102); 101's DataLoader workers 103, 104 */
        gd_job_facts *j = container_job(&f, 1, 5);
        bool python_launcher = strcmp(launchers[k], "sh") && strcmp(launchers[k], "bash") &&
                               strcmp(launchers[k], "srun") && strcmp(launchers[k], "mpirun") &&
                               strcmp(launchers[k], "uv");
        set_proc(&j->procs[0], launchers[k], launchers[k], python_launcher, python_launcher);
        set_proc(&j->procs[1], "python3", "train.py", true, true);
        set_proc(&j->procs[2], "python3", "train.py", true, true);
        set_proc(&j->procs[3], "pt_data_worker", "train.py", true, true);
        set_proc(&j->procs[4], "pt_data_worker", "train.py", true, true);
        j->procs[1].ppid = j->procs[2].ppid = 100;
        j->procs[3].ppid = j->procs[4].ppid = 101;
        j->procs[1].rank = 0;
        j->procs[2].rank = 1;
        gd_job_role roles[5];
        assert_int_equal(gd_job_roles(&f, roles), 2);
        if (roles[0] != GD_ROLE_LAUNCHER)
            fail_msg("%s is not a launcher", launchers[k]);
        assert_int_equal(roles[1], GD_ROLE_TRAINER);
        assert_int_equal(roles[2], GD_ROLE_TRAINER);
        assert_int_equal(roles[3], GD_ROLE_WORKER);
        assert_int_equal(roles[4], GD_ROLE_WORKER);
        gd_facts_free(&f);
    }
    /* Plain Python without torch behind a shell: the first non-launcher is the trainer. */
    gd_facts f;
    gd_job_facts *j = container_job(&f, 1, 2);
    set_proc(&j->procs[0], "sh", "sh", false, false);
    set_proc(&j->procs[1], "python3", "busy.py", true, false);
    gd_job_role roles[2];
    assert_int_equal(gd_job_roles(&f, roles), 1);
    assert_int_equal(roles[0], GD_ROLE_LAUNCHER);
    assert_int_equal(roles[1], GD_ROLE_TRAINER);
    /* A launcher that holds a GPU's device file is a trainer itself. */
    j->procs[0].dev_minors = 1;
    assert_int_equal(gd_job_roles(&f, roles), 1);
    assert_int_equal(roles[0], GD_ROLE_TRAINER);
    assert_int_equal(roles[1], GD_ROLE_WORKER);
    gd_facts_free(&f);
}

/* The rule that linked GPU g, and its sentence. */
static gd_link_rule link_of(const gd_facts *f, size_t g, char *why)
{
    gd_link_rule rule[8];
    char text[8][320];
    gd_job_link(f, rule, &text[0][0], 320);
    if (why)
        snprintf(why, 320, "%s", text[g]);
    return rule[g];
}

static void each_rule_links_the_gpu_it_names(void **state)
{
    (void)state;
    gd_facts f;
    char why[320];
    /* Nothing links: no GPU, and the input checks say why under "not checked". */
    gd_job_facts *j = container_job(&f, 2, 1);
    set_proc(&j->procs[0], "python3", "train.py", true, true);
    add_thread(j, 100, 100, 20, 1.0, 0);
    assert_int_equal(link_of(&f, 0, NULL), GD_LINK_NONE);
    gd_findings fs;
    fx_run(&f, "input.single_thread", &fs);
    assert_int_equal(fx_count(&fs, "input.single_thread", -2), 0);
    assert_true(fs.nskips == 1 && strstr(fs.skips[0].reason, "no GPU is linked to the job"));
    gd_findings_free(&fs);
    /* The device file /dev/nvidia1. */
    j->procs[0].dev_minors = 1u << 1;
    assert_int_equal(link_of(&f, 1, why), GD_LINK_DEVICE_FILE);
    assert_non_null(strstr(why, "holds /dev/nvidia1 open"));
    assert_int_equal(link_of(&f, 0, NULL), GD_LINK_NONE);
    fx_run(&f, "input.single_thread", &fs);
    assert_int_equal(fx_count(&fs, "input.single_thread", -2), 1);
    assert_string_equal(json_string_value(json_object_get(fs.v[0].evidence, "gpus_found_by")), "device_file");
    gd_findings_free(&fs);
    j->procs[0].dev_minors = 0;
    /* CUDA_VISIBLE_DEVICES by index, by a UUID's prefix; NVIDIA_VISIBLE_DEVICES=all. */
    j->procs[0].has_cuda_visible = true;
    snprintf(j->procs[0].cuda_visible, sizeof j->procs[0].cuda_visible, "1");
    assert_int_equal(link_of(&f, 1, why), GD_LINK_VISIBLE_ENV);
    assert_non_null(strstr(why, "CUDA_VISIBLE_DEVICES=1"));
    assert_int_equal(link_of(&f, 0, NULL), GD_LINK_NONE);
    snprintf(j->procs[0].cuda_visible, sizeof j->procs[0].cuda_visible, "GPU-5e1d-0");
    assert_int_equal(link_of(&f, 0, NULL), GD_LINK_VISIBLE_ENV);
    assert_int_equal(link_of(&f, 1, NULL), GD_LINK_NONE);
    snprintf(j->procs[0].cuda_visible, sizeof j->procs[0].cuda_visible, "GPU-5e1d"); /* names both: CUDA refuses it */
    assert_int_equal(link_of(&f, 0, NULL), GD_LINK_NONE);
    j->procs[0].has_cuda_visible = false;
    j->procs[0].has_nvidia_visible = true;
    snprintf(j->procs[0].nvidia_visible, sizeof j->procs[0].nvidia_visible, "all");
    assert_int_equal(link_of(&f, 0, NULL), GD_LINK_VISIBLE_ENV);
    assert_int_equal(link_of(&f, 1, NULL), GD_LINK_VISIBLE_ENV);
    /* Host indices seen from inside: as many as the GPUs here are those GPUs. */
    snprintf(j->procs[0].nvidia_visible, sizeof j->procs[0].nvidia_visible, "4,5");
    assert_int_equal(link_of(&f, 1, NULL), GD_LINK_VISIBLE_ENV);
    j->procs[0].has_nvidia_visible = false;
    /* Memory that appeared when a job started with the window (run), not under one already running. */
    fx_set(&f, 1, GD_M_MEM_USED_MIB, 0, 1, 0);
    fx_set(&f, 1, GD_M_MEM_USED_MIB, 1, 20, 61000);
    fx_set(&f, 0, GD_M_MEM_USED_MIB, 0, 20, 0);
    assert_int_equal(link_of(&f, 1, NULL), GD_LINK_NONE);
    j->started_in_window = true;
    assert_int_equal(link_of(&f, 1, why), GD_LINK_MEMORY);
    assert_non_null(strstr(why, "from 0 to 61000 MiB"));
    assert_int_equal(link_of(&f, 0, NULL), GD_LINK_NONE);
    gd_facts_free(&f);
    /* The only GPU here, and the job loaded the CUDA driver. */
    j = container_job(&f, 1, 1);
    assert_int_equal(link_of(&f, 0, NULL), GD_LINK_NONE);
    j->procs[0].cuda = true;
    assert_int_equal(link_of(&f, 0, NULL), GD_LINK_ONLY_GPU);
    /* NVML lists the job's pid: that rule first. */
    f.gpus[0].process_count = 1;
    f.gpus[0].processes = calloc(1, sizeof *f.gpus[0].processes);
    f.gpus[0].processes[0] = (gd_process){.pid = 100, .used_mib = gd_val(60000)};
    assert_int_equal(link_of(&f, 0, why), GD_LINK_NVML_PID);
    f.gpus[0].processes[0].pid = 41000; /* another pid (a host pid in a container) */
    j->procs[0].cuda = false;
    assert_int_equal(link_of(&f, 0, NULL), GD_LINK_OTHER_PIDS);
    gd_facts_free(&f);
}


/* sh -> python (num_workers=0): the trainer's thread is single_thread, no false few_workers;
 * two saturated workers are no single_thread. */
static void single_thread_is_the_trainers(void **state)
{
    (void)state;
    gd_facts f;
    gd_job_facts *j = container_job(&f, 1, 2);
    j->procs[0].dev_minors = 0;
    set_proc(&j->procs[0], "sh", "sh", false, false);
    set_proc(&j->procs[1], "python3", "train.py", true, true);
    j->procs[1].dev_minors = 1;
    j->procs_max = 2;
    add_thread(j, 100, 100, 0, 0.0, 0);
    add_thread(j, 101, 101, 20, 1.0, 0);
    assert_int_equal(fx_run_count(&f, "input.single_thread"), 1);
    assert_int_equal(fx_run_count(&f, "input.few_workers"), 0);
    gd_findings fs;
    fx_run(&f, "input.single_thread", &fs);
    assert_non_null(strstr(fs.v[0].title, "the trainer pid 101 (train.py)"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    /* python (trainer) with two workers flat out: their threads are no single_thread. */
    j = container_job(&f, 1, 3);
    set_proc(&j->procs[0], "python3", "train.py", true, true);
    set_proc(&j->procs[1], "pt_data_worker", "train.py", true, true);
    set_proc(&j->procs[2], "pt_data_worker", "train.py", true, true);
    j->procs[0].dev_minors = 1;
    j->procs[2].ppid = 100;
    j->procs_max = 3;
    for (size_t i = 0; i < 20; i++)
        j->samples[i].job_cores = 2.1;
    add_thread(j, 100, 100, 2, 0.1, 0);
    add_thread(j, 101, 101, 20, 1.0, 0);
    add_thread(j, 102, 102, 20, 1.0, 0);
    assert_int_equal(fx_run_count(&f, "input.single_thread"), 0);
    assert_int_equal(fx_run_count(&f, "input.starved"), 1);
    assert_int_equal(fx_run_count(&f, "input.few_workers"), 1);
    gd_facts_free(&f);
}

static void gil_contention_needs_threads_waiting_on_a_lock(void **state)
{
    (void)state;
    gd_facts f;
    gd_job_facts *j = container_job(&f, 1, 1);
    set_proc(&j->procs[0], "python3", "train.py", true, true);
    j->procs[0].dev_minors = 1;
    j->procs[0].intervals = 19;
    j->procs[0].busy_sum = 19 * 0.95;
    j->procs[0].busy_max = 1.1;
    for (int k = 0; k < 3; k++) /* three threads, each runnable a third of the time, 200 waits a second */
        add_thread(j, 100, 100 + k, 7, 0.32, 200);
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
    gd_job_facts *j = container_job(&f, 1, 1);
    set_proc(&j->procs[0], "python3", "train.py", true, true);
    j->procs[0].dev_minors = 1;
    add_thread(j, 100, 100, 20, 0.3, 0); /* always runnable, a third of a core */
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
        cmocka_unit_test(roles_of_launchers_trainers_and_workers),
        cmocka_unit_test(each_rule_links_the_gpu_it_names),
        cmocka_unit_test(single_thread_is_the_trainers),
        cmocka_unit_test(gil_contention_needs_threads_waiting_on_a_lock),
        cmocka_unit_test(cpu_starved_names_the_bottleneck_and_the_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
