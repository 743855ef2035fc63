/* SPDX-License-Identifier: Apache-2.0 */
/* The job's tree and GPUs from literal facts: launchers (by what they run),
 * trainers (one per rank) and their workers; each rule that links a GPU to
 * the job (NVML's pids, device files, visible devices by index and UUID,
 * memory that appeared, the only GPU) and "not checked" when none does;
 * input.single_thread on a trainer's thread only (the checks of the job's
 * threads themselves: checks/test_input_threads.c). */
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

static void roles_of_launchers_trainers_and_workers(void **state)
{
    (void)state;
    static const char *const launchers[] = {"sh", "bash", "torchrun", "accelerate", "deepspeed", "srun",
                                            "mpirun", "uv", "poetry", "torch.distributed.run"};
    for (size_t k = 0; k < sizeof launchers / sizeof launchers[0]; k++) {
        gd_facts f;
        /* launcher 100 -> rank 0 (101) and rank 1 (102); 101's DataLoader workers 103, 104 */
        gd_job_facts *j = fx_container_job(&f, 1, 5);
        bool python_launcher = strcmp(launchers[k], "sh") && strcmp(launchers[k], "bash") &&
                               strcmp(launchers[k], "srun") && strcmp(launchers[k], "mpirun") &&
                               strcmp(launchers[k], "uv");
        fx_set_proc(&j->procs[0], launchers[k], launchers[k], python_launcher, python_launcher);
        fx_set_proc(&j->procs[1], "python3", "train.py", true, true);
        fx_set_proc(&j->procs[2], "python3", "train.py", true, true);
        fx_set_proc(&j->procs[3], "pt_data_worker", "train.py", true, true);
        fx_set_proc(&j->procs[4], "pt_data_worker", "train.py", true, true);
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
    gd_job_facts *j = fx_container_job(&f, 1, 2);
    fx_set_proc(&j->procs[0], "sh", "sh", false, false);
    fx_set_proc(&j->procs[1], "python3", "busy.py", true, false);
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
    gd_job_facts *j = fx_container_job(&f, 2, 1);
    fx_set_proc(&j->procs[0], "python3", "train.py", true, true);
    fx_add_thread(j, 100, 100, 20, 1.0, 0);
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
    j = fx_container_job(&f, 1, 1);
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
    gd_job_facts *j = fx_container_job(&f, 1, 2);
    j->procs[0].dev_minors = 0;
    fx_set_proc(&j->procs[0], "sh", "sh", false, false);
    fx_set_proc(&j->procs[1], "python3", "train.py", true, true);
    j->procs[1].dev_minors = 1;
    j->procs_max = 2;
    fx_add_thread(j, 100, 100, 0, 0.0, 0);
    fx_add_thread(j, 101, 101, 20, 1.0, 0);
    assert_int_equal(fx_run_count(&f, "input.single_thread"), 1);
    assert_int_equal(fx_run_count(&f, "input.few_workers"), 0);
    gd_findings fs;
    fx_run(&f, "input.single_thread", &fs);
    assert_non_null(strstr(fs.v[0].title, "the trainer pid 101 (train.py)"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    /* python (trainer) with two workers flat out: their threads are no single_thread. */
    j = fx_container_job(&f, 1, 3);
    fx_set_proc(&j->procs[0], "python3", "train.py", true, true);
    fx_set_proc(&j->procs[1], "pt_data_worker", "train.py", true, true);
    fx_set_proc(&j->procs[2], "pt_data_worker", "train.py", true, true);
    j->procs[0].dev_minors = 1;
    j->procs[2].ppid = 100;
    j->procs_max = 3;
    for (size_t i = 0; i < 20; i++)
        j->samples[i].job_cores = 2.1;
    fx_add_thread(j, 100, 100, 2, 0.1, 0);
    fx_add_thread(j, 101, 101, 20, 1.0, 0);
    fx_add_thread(j, 102, 102, 20, 1.0, 0);
    assert_int_equal(fx_run_count(&f, "input.single_thread"), 0);
    assert_int_equal(fx_run_count(&f, "input.starved"), 1);
    assert_int_equal(fx_run_count(&f, "input.few_workers"), 1);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roles_of_launchers_trainers_and_workers),
        cmocka_unit_test(each_rule_links_the_gpu_it_names),
        cmocka_unit_test(single_thread_is_the_trainers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
