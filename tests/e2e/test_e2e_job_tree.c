/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The training job as it really runs, with real Python jobs beside simulated
 * GPUs: in an emulated container (unshare: its own pid and mount
 * namespaces, tests/job/container.sh, and a scenario whose NVML lists no
 * process) the GPUs are linked by the device files the job holds, its
 * visible devices or the memory that appeared; behind launchers (sh -c, a
 * bash script, torchrun) the trainers, their ranks and workers are named;
 * threads taking turns on the GIL, a loader starved of CPU by the host's
 * other work (the test makes that load itself), a scenario played at wall
 * speed beside a live /proc. Every run is recorded and replayed to the same
 * job findings. Without torch, unshare or root the tests are skipped (77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const env[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "GPUDOCTOR_ROOT=", "CUDA_VISIBLE_DEVICES=",
                                  "NVIDIA_VISIBLE_DEVICES=", NULL};

static const char *job(const char *name)
{
    static char path[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/tests/job/%s", GD_SOURCE_DIR, name);
    return path[k];
}

static json_t *finding(json_t *report, const char *id)
{
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(report, "findings"), i, f)
    {
        if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0)
            return f;
    }
    return NULL;
}

/* The rule that linked GPU g to the job (job.gpus[]), or "". */
static const char *link_rule(json_t *report, int g)
{
    json_t *e;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(report, "job"), "gpus"), i, e)
    {
        if (json_integer_value(json_object_get(e, "gpu")) == g)
            return json_string_value(json_object_get(e, "rule"));
    }
    return "";
}

/* Processes of the job with this role (job.processes[].role). */
static size_t with_role(json_t *report, const char *role, json_t **first)
{
    size_t n = 0;
    json_t *p;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(report, "job"), "processes"), i, p)
    {
        if (strcmp(json_string_value(json_object_get(p, "role")), role) == 0) {
            if (first && n == 0)
                *first = p;
            n++;
        }
    }
    return n;
}

static void need_container(void)
{
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    need_component(getuid() == 0, "root (unshare of pid and mount namespaces)", GD_FIX_ROOT);
    need_component(system("unshare --pid --fork --mount-proc --mount true >/dev/null 2>&1") == 0,
                   "unshare --pid --mount (util-linux, and a kernel that allows namespaces here)",
                   "this kernel or container refuses new pid and mount namespaces: run the suite on the host, as root");
}

/* The Done-when story: run inside an emulated container over a starved
 * simulated GPU whose NVML lists no process; the job holds /dev/nvidia0. */
static void container_links_the_gpu_by_its_device_file(void **state)
{
    (void)state;
    need_container();
    const char *wrap[] = {"unshare", "--pid", "--fork", "--mount-proc", "--mount", job("container.sh"), NULL};
    const char *argv[] = {"run", "--sim", example("h100x2-container-starved.json"), "--", torch_python(),
                          job("train.py"), "--workers", "0", "--seconds", "4", "--hold", "/dev/nvidia0", "--hold",
                          "/dev/nvidiactl", NULL};
    tool_result text = run_tool_wrapped(wrap, argv, env);
    if (!strstr(text.out, "the job holds /dev/nvidia0 open") || !strstr(text.out, "in a container NVML shows none"))
        fail_msg("the text does not say which rule linked GPU 0: %s %s", text.out, text.err);
    if (!strstr(text.out, "input.single_thread") && !strstr(text.out, "input.starved"))
        fail_msg("no input.single_thread nor input.starved: %s", text.out);
    assert_null(strstr(text.out, "Verdict: OK"));
    tool_result_free(&text);
    /* The same in JSON, recorded inside and replayed outside. gpu.underutilized
     * judges 5 s of samples at least (GD_UNDERUSED_MIN_S): 5.5 s of training,
     * after torch's import, which the watch's start precedes. With 4 s the
     * window was 4.9 s in the plain build, over 5 s only in the slower ASan one. */
    char *dir = temp_dir(), rec[1100];
    snprintf(rec, sizeof rec, "%s/container.jsonl", dir);
    const char *jargv[] = {"run", "--json", "--record", rec, "--sim", example("h100x2-container-starved.json"), "--",
                           torch_python(), job("train.py"), "--workers", "0", "--seconds", "5.5", "--hold",
                           "/dev/nvidia0", NULL};
    tool_result r = run_tool_wrapped(wrap, jargv, env);
    if (!r.json)
        fail_msg("no JSON: exit %d: %s", r.exit_code, r.err);
    assert_string_equal(link_rule(r.json, 0), "device_file");
    assert_string_equal(link_rule(r.json, 1), ""); /* GPU 1: nothing of the job on it */
    json_t *f = finding(r.json, "input.single_thread");
    if (!f)
        f = finding(r.json, "input.starved");
    assert_non_null(f);
    assert_string_equal(json_string_value(json_object_get(json_object_get(f, "evidence"), "gpus_found_by")),
                        "device_file");
    assert_int_equal(count_findings(r.json, "gpu.underutilized", 0), 1); /* NVML lists no process, the job holds it */
    tool_result replay = run_tool((const char *[]){"check", "--json", "--from", rec, NULL}, env);
    assert_non_null(replay.json);
    assert_string_equal(link_rule(replay.json, 0), "device_file");
    assert_int_equal(count_findings(replay.json, "input.single_thread", -2),
                     count_findings(r.json, "input.single_thread", -2));
    assert_int_equal(count_findings(replay.json, "input.starved", -2), count_findings(r.json, "input.starved", -2));
    tool_result_free(&replay);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* Without a device file: the job's visible devices (a UUID, an index), then
 * the memory that appeared when it started; nothing at all: "not checked". */
static void container_links_by_visible_devices_and_memory(void **state)
{
    (void)state;
    json_t *sc = json_load_file(example("h100x2-container-starved.json"), 0, NULL);
    assert_non_null(sc);
    char cvd[128];
    snprintf(cvd, sizeof cvd, "CUDA_VISIBLE_DEVICES=%s",
             json_string_value(json_object_get(json_array_get(json_object_get(sc, "gpus"), 1), "uuid")));
    json_decref(sc);
    static const char *const sleeper[] = {"--duration", "2", "--kill-at-end", "--sim", NULL};
    struct {
        const char *var, *rule;
        int gpu;
    } cases[] = {{cvd, "visible_devices", 1}, {"NVIDIA_VISIBLE_DEVICES=1", "visible_devices", 1},
                 {"CUDA_VISIBLE_DEVICES=0", "visible_devices", 0}, {NULL, "memory_appeared", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[16] = {"run", "--json"};
        size_t n = 2;
        for (size_t k = 0; sleeper[k]; k++)
            argv[n++] = sleeper[k];
        argv[n++] = example("h100x2-container-starved.json");
        argv[n++] = "--";
        argv[n++] = "sleep";
        argv[n++] = "30";
        argv[n] = NULL;
        /* The variable is the job's from its start (inherited through run):
         * set by env(1) it appeared only after an exec that a loaded host may
         * delay past the window's first samples. */
        const char *case_env[8];
        size_t k = 0;
        for (; env[k] && k < 6; k++)
            case_env[k] = env[k];
        case_env[k++] = cases[i].var ? cases[i].var : "GPUDOCTOR_NO_SUCH_VARIABLE=";
        case_env[k] = NULL;
        tool_result r = run_recorded(argv, case_env);
        assert_non_null(r.json);
        if (strcmp(link_rule(r.json, cases[i].gpu), cases[i].rule) != 0)
            fail_msg("%s: GPU %d linked by '%s', not %s", cases[i].var ? cases[i].var : "no variable", cases[i].gpu,
                     link_rule(r.json, cases[i].gpu), cases[i].rule);
        assert_string_equal(link_rule(r.json, 1 - cases[i].gpu), "");
        tool_result_free(&r);
    }
    /* check --pid of a job already running: memory is no evidence, nothing links it. */
    char *dir = temp_dir();
    json_t *live = json_load_file(example("h100x2-container-starved.json"), 0, NULL);
    json_object_set_new(json_object_get(live, "host"), "proc", json_string("/proc"));
    char *text = json_dumps(live, 0);
    char *scenario = write_temp_file(dir, "live.json", text);
    free(text);
    json_decref(live);
    pid_t child = fork();
    if (child == 0) {
        execlp("sleep", "sleep", "20", (char *)NULL);
        _exit(127);
    }
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)child);
    tool_result r = run_tool(
        (const char *[]){"check", "--details", "--duration", "2", "--pid", pid, "--sim", scenario, NULL}, env);
    kill(child, SIGTERM);
    waitpid(child, NULL, 0);
    if (!strstr(r.out, "no GPU is linked to the job"))
        fail_msg("nothing linked, not said under Not checked: %s", r.out);
    assert_non_null(strstr(r.out, "\nNot checked"));
    tool_result_free(&r);
    free(scenario);
    remove_tree(dir);
    free(dir);
}

/* A launcher in front: sh -c, a bash script, torchrun with two ranks. The
 * trainer is named, a num_workers=0 job gets no input.few_workers. */
static void launchers_are_not_the_trainer(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    char *dir = temp_dir(), cmd[2048], torchrun[1100];
    snprintf(cmd, sizeof cmd, "%s %s --workers 0 --seconds 3", torch_python(), job("train.py"));
    char script[2200];
    snprintf(script, sizeof script, "#!/bin/bash\nset -e\n%s\nexit 0\n", cmd);
    char *train_sh = write_temp_file(dir, "train.sh", script);
    snprintf(torchrun, sizeof torchrun, "%s/torchrun", dir);
    need_component(symlink(job("ranks.py"), torchrun) == 0, "a symbolic link in a temporary directory",
                   "$TMPDIR's file system refuses symbolic links: TMPDIR=/tmp make test");
    struct {
        const char *what;
        const char *argv[12];
        size_t trainers;
        const char *launcher;
    } cases[] = {
        {"sh -c", {"sh", "-c", cmd, NULL}, 1, "sh"},
        {"bash train.sh", {"bash", train_sh, NULL}, 1, "bash"},
        {"torchrun", {torchrun, "--nproc-per-node=2", job("train.py"), "--workers", "0", "--seconds", "3", NULL}, 2,
         "torchrun"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[20] = {"run", "--json", "--sim", example("h100x8-underutilized.json"), "--"};
        size_t n = 5;
        for (size_t k = 0; cases[i].argv[k]; k++)
            argv[n++] = cases[i].argv[k];
        argv[n] = NULL;
        tool_result r = run_recorded(argv, env);
        if (!r.json)
            fail_msg("%s: no JSON: %s", cases[i].what, r.err);
        json_t *launcher = NULL, *trainer = NULL;
        if (with_role(r.json, "launcher", &launcher) < 1 ||
            strcmp(json_string_value(json_object_get(launcher, "program")), cases[i].launcher) != 0)
            fail_msg("%s: the launcher is not named: %s", cases[i].what, r.out);
        if (with_role(r.json, "trainer", &trainer) != cases[i].trainers)
            fail_msg("%s: %zu trainers, not %zu: %s", cases[i].what, with_role(r.json, "trainer", NULL),
                     cases[i].trainers, r.out);
        assert_string_equal(json_string_value(json_object_get(trainer, "program")), "train.py");
        assert_true(json_is_true(json_object_get(trainer, "torch")));
        if (cases[i].trainers == 2) { /* one trainer per rank */
            json_t *p;
            size_t k, ranks = 0;
            json_array_foreach(json_object_get(json_object_get(r.json, "job"), "processes"), k, p)
            {
                if (strcmp(json_string_value(json_object_get(p, "role")), "trainer") == 0)
                    ranks |= 1u << json_integer_value(json_object_get(p, "rank"));
            }
            assert_int_equal(ranks, 3);
        }
        if (count_findings(r.json, "input.few_workers", -2) != 0)
            fail_msg("%s: a num_workers=0 job got input.few_workers: %s", cases[i].what, r.out);
        json_t *st = finding(r.json, "input.single_thread");
        if (st) /* on the trainer, never a launcher */
            assert_non_null(strstr(json_string_value(json_object_get(json_object_get(st, "evidence"),
                                                                      "thread_process")),
                                   "the trainer pid"));
        tool_result_free(&r);
    }
    free(train_sh);
    remove_tree(dir);
    free(dir);
}

/* sh -c in front of a trainer with two workers: the workers are the trainer's;
 * saturated workers are no input.single_thread. */
static void workers_belong_to_the_trainer(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s --workers 2 --persistent --seconds 4", torch_python(), job("train.py"));
    tool_result r = run_recorded(
        (const char *[]){"run", "--json", "--sim", example("h100x8-underutilized.json"), "--", "sh", "-c", cmd, NULL},
        env);
    assert_non_null(r.json);
    assert_int_equal(with_role(r.json, "launcher", NULL), 1);
    assert_int_equal(with_role(r.json, "trainer", NULL), 1);
    if (with_role(r.json, "worker", NULL) < 2)
        fail_msg("the trainer's two workers are not named: %s", r.out);
    json_t *st = finding(r.json, "input.single_thread");
    if (st)
        assert_non_null(strstr(
            json_string_value(json_object_get(json_object_get(st, "evidence"), "thread_process")), "the trainer"));
    tool_result_free(&r);
}

/* Three Python threads on the GIL: input.gil_contention; three C threads that
 * need no lock: not, whatever the host's load. */
static void threads_taking_turns_on_the_gil(void **state)
{
    (void)state;
    need_component(system("/usr/bin/python3 -c pass >/dev/null 2>&1") == 0, "python3", GD_FIX_TEST_PACKAGES);
    tool_result r = run_recorded((const char *[]){"run", "--json", "--sim", example("h100x8-underutilized.json"),
                                                  "--", "/usr/bin/python3", job("gil.py"), "--threads", "3",
                                                  "--seconds", "4", NULL},
                                 env);
    assert_non_null(r.json);
    json_t *f = finding(r.json, "input.gil_contention");
    if (!f)
        fail_msg("no input.gil_contention for three threads on the GIL: %s", r.out);
    assert_true(json_integer_value(json_object_get(json_object_get(f, "evidence"), "threads_taking_turns")) >= 2);
    tool_result_free(&r);
    r = run_recorded((const char *[]){"run", "--json", "--sim", example("h100x8-underutilized.json"), "--",
                                      GD_SPIN_THREADS, "3", "4", NULL},
                     env);
    assert_non_null(r.json);
    if (count_findings(r.json, "input.gil_contention", -2) != 0)
        fail_msg("threads without a lock reported as GIL contention: %s", r.out);
    tool_result_free(&r);
}

/* Busy loops pinned to each CPU, started by the test: the host's load. */
static pid_t hog(int cpu)
{
    pid_t p = fork();
    if (p == 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
        for (volatile unsigned long x = 0;; x++)
            ;
    }
    return p;
}

/* A num_workers=0 trainer beside three busy loops per CPU: it is runnable in
 * every sample and gets under half a core. */
static void a_loader_starved_of_cpu_names_the_host(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    /* The CPUs this test may use (and the trainer it starts with them). */
    cpu_set_t mine;
    CPU_ZERO(&mine);
    int cpus = sched_getaffinity(0, sizeof mine, &mine) == 0 ? CPU_COUNT(&mine) : 0;
    need_component(cpus >= 1 && cpus <= 16, "at most 16 CPUs to run on (three busy loops on each, 48 at most)",
                   "taskset -c 0-15 ctest --test-dir build -R test_e2e_job_tree runs it on 16");
    pid_t hogs[48];
    size_t nh = 0;
    for (int c = 0; c < CPU_SETSIZE && nh + 3 <= 48; c++)
        for (int k = 0; k < 3 && CPU_ISSET(c, &mine); k++)
            hogs[nh++] = hog(c);
    tool_result r = run_recorded((const char *[]){"run", "--json", "--sim", example("h100x8-underutilized.json"),
                                                  "--", torch_python(), job("train.py"), "--workers", "0",
                                                  "--seconds", "4", NULL},
                                 env);
    for (size_t i = 0; i < nh; i++)
        kill(hogs[i], SIGKILL);
    for (size_t i = 0; i < nh; i++)
        waitpid(hogs[i], NULL, 0);
    assert_non_null(r.json);
    json_t *f = finding(r.json, "input.cpu_starved");
    if (!f)
        fail_msg("no input.cpu_starved beside %zu busy loops: %s", nh, r.out);
    json_t *ev = json_object_get(f, "evidence");
    assert_string_equal(json_string_value(json_object_get(ev, "cause")), "host_load");
    assert_true(json_number_value(json_object_get(ev, "thread_core_share_mean")) < 0.5);
    assert_non_null(strstr(json_string_value(json_object_get(ev, "thread_process")), "the trainer"));
    tool_result_free(&r);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* check --sim beside a live /proc: the scenario plays at wall speed, so a
 * busy process reads busy; a timescale asked for is said to be ignored. */
static void a_live_job_plays_the_scenario_at_wall_speed(void **state)
{
    (void)state;
    char *dir = temp_dir(), text[512];
    snprintf(text, sizeof text,
             "{\"description\": \"live\", \"host\": {\"proc\": \"/proc\"}, \"gpus\": [{\"name\": \"NVIDIA H100 80GB "
             "HBM3\", \"pci_bus_id\": \"00000000:18:00.0\", \"memory_total_mib\": 81559, \"timeline\": [{\"t\": 0, "
             "\"util_gpu_pct\": 97}]}]}");
    char *scenario = write_temp_file(dir, "live.json", text);
    pid_t child = hog(0);
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)child);
    static const char *const paced[] = {"GPUDOCTOR_SIM_TIMESCALE=5", "NO_COLOR=", "GPUDOCTOR_ROOT=", NULL};
    for (int k = 0; k < 2; k++) {
        double t0 = now_s();
        tool_result r = run_tool(
            (const char *[]){"check", "--json", "--duration", "2", "--pid", pid, "--sim", scenario, NULL},
            k ? paced : env);
        double took = now_s() - t0;
        assert_non_null(r.json);
        if (took < 1.9)
            fail_msg("a 2 s window beside a live /proc took %.2f s of wall time", took);
        json_t *job = json_object_get(r.json, "job");
        assert_true(json_is_true(json_object_get(job, "wall_paced")));
        double cores = 0;
        json_t *b;
        size_t i;
        json_array_foreach(json_object_get(job, "timeline"), i, b)
        {
            cores += json_number_value(json_object_get(b, "job_cores"));
        }
        if (!(cores > 0.02)) /* a busy loop: some CPU in every second, however loaded the host */
            fail_msg("a busy process read at %.3f cores", cores);
        if (k)
            assert_non_null(strstr(r.err, "plays at wall speed"));
        tool_result_free(&r);
    }
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    free(scenario);
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    run_first_in_line(); /* timed in wall seconds beside the rest of the suite */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(container_links_the_gpu_by_its_device_file),
        cmocka_unit_test(container_links_by_visible_devices_and_memory),
        cmocka_unit_test(launchers_are_not_the_trainer),
        cmocka_unit_test(workers_belong_to_the_trainer),
        cmocka_unit_test(threads_taking_turns_on_the_gil),
        cmocka_unit_test(a_loader_starved_of_cpu_names_the_host),
        cmocka_unit_test(a_live_job_plays_the_scenario_at_wall_speed),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
