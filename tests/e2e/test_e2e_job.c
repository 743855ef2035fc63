/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The training job itself, with real processes of this machine while a
 * simulated GPU plays the matching scenario: a PyTorch DataLoader job
 * (tests/job/train.py; Debian's python3-torch) with num_workers=0 against
 * the same job with four persistent workers, workers respawned each epoch, a
 * job pinned to one CPU, a process blocked on O_DIRECT reads of a disk
 * capped by a cgroup; the per-second timeline in JSON and text; a job that
 * vanishes mid-window; a job that is not ours to read. Without torch (or
 * O_DIRECT and a cgroup's read cap, or a way to drop to another user) those
 * tests are skipped (exit 77), and fail when CI=true.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const env[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "GPUDOCTOR_ROOT=", NULL};
static const char *train_py(void)
{
    return GD_SOURCE_DIR "/tests/job/train.py";
}

static size_t input_findings(json_t *report)
{
    size_t n = 0;
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(report, "findings"), i, f)
    {
        const char *id = json_string_value(json_object_get(f, "id"));
        n += id && strncmp(id, "input.", 6) == 0;
    }
    return n;
}

static json_t *evidence_of(json_t *report, const char *id)
{
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(report, "findings"), i, f)
    {
        if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0)
            return json_object_get(f, "evidence");
    }
    return NULL;
}

static tool_result run_train(const char *scenario, const char *const *train_args)
{
    const char *argv[32] = {"run", "--json", "--sim", example(scenario), "--"};
    size_t n = 5;
    if (strcmp(train_args[0], "taskset") == 0) /* a command in front of python */
        for (; *train_args && strcmp(*train_args, "--") != 0; train_args++)
            argv[n++] = *train_args;
    if (*train_args && strcmp(*train_args, "--") == 0)
        train_args++;
    argv[n++] = torch_python();
    argv[n++] = train_py();
    for (; *train_args && n < 31; train_args++)
        argv[n++] = *train_args;
    argv[n] = NULL;
    tool_result r = run_recorded(argv, env);
    if (!r.json)
        fail_msg("no JSON report: exit %d, stderr: %s", r.exit_code, r.err);
    return r;
}

static void say(const char *what, json_t *report)
{
    json_t *job = json_object_get(report, "job");
    json_t *tl = json_object_get(job, "timeline");
    double gpu = 0, cores = 0;
    size_t n = 0;
    json_t *b;
    size_t i;
    json_array_foreach(tl, i, b)
    {
        if (json_is_number(json_object_get(b, "job_cores"))) {
            gpu += json_number_value(json_object_get(b, "gpu_busy_pct"));
            cores += json_number_value(json_object_get(b, "job_cores"));
            n++;
        }
    }
    print_message("%s: %zu s, GPU busy %.0f%%, job %.2f cores, %zu input findings\n", what, json_array_size(tl),
                  n ? gpu / n : 0, n ? cores / n : 0, input_findings(report));
}

/* A command that ends between a sample and run's reap of it has ended all the
 * same (a race once seen as job.ended false under a loaded ASan run): commands
 * of 50 to 125 ms against 20 ms samples sweep the window. */
static void a_command_that_ends_is_always_ended(void **state)
{
    (void)state;
    for (int i = 0; i < 25; i++) {
        char secs[16];
        snprintf(secs, sizeof secs, "%.3f", 0.05 + i * 0.003);
        tool_result r = run_recorded((const char *[]){"run", "--json", "--interval", "20", "--sim",
                                                      example("h100x8-training.json"), "--", "sleep", secs, NULL},
                                     env);
        if (!r.json)
            fail_msg("no JSON report: exit %d, stderr: %s", r.exit_code, r.err);
        json_t *job = json_object_get(r.json, "job");
        if (!json_is_true(json_object_get(job, "ended")))
            fail_msg("sleep %s: job.ended is not true: %s", secs, r.out);
        tool_result_free(&r);
    }
}

/* num_workers=0 beside a GPU that waits: single-threaded loading; the
 * command's own exit code (3) comes back. */
static void dataloader_without_workers_is_single_threaded(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    tool_result r = run_train("h100x8-underutilized.json",
                              (const char *[]){"--workers", "0", "--seconds", "3", "--exit", "3", NULL});
    say("num_workers=0", r.json);
    assert_int_equal(r.exit_code, 3);
    /* On a host so loaded that the loader gets under half a core, measured: the
     * finding is the CPU starvation, with the host as cause. */
    json_t *starved_cpu = evidence_of(r.json, "input.cpu_starved");
    bool measured_starved =
        starved_cpu && json_number_value(json_object_get(starved_cpu, "thread_core_share_mean")) < 0.5;
    if (count_findings(r.json, "input.single_thread", -2) + count_findings(r.json, "input.starved", -2) == 0 &&
        !measured_starved)
        fail_msg("num_workers=0: no input.single_thread nor input.starved: %s", r.out);
    json_t *ev = evidence_of(r.json, "input.single_thread");
    if (ev)
        assert_string_equal(json_string_value(json_object_get(ev, "thread_comm")), "python3");
    assert_int_equal(count_findings(r.json, "input.workers_respawned", -2), 0);
    json_t *job = json_object_get(r.json, "job");
    assert_true(json_is_true(json_object_get(job, "ended")));
    assert_true(json_array_size(json_object_get(job, "timeline")) >= 3);
    tool_result_free(&r);
}

/* A PyTorch job on the CPU build (Debian's python3-torch) beside eight idle
 * GPUs: job.no_gpu, naming the CPU-only build from the job's own maps. */
static void cpu_only_torch_is_named_as_why_no_gpu_was_used(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    tool_result r = run_recorded((const char *[]){"run", "--json", "--sim", example("h100x8-idle.json"), "--",
                                                  torch_python(), "-c", "import time, torch; time.sleep(5.5)", NULL},
                                 env);
    if (!r.json)
        fail_msg("no JSON report: exit %d, stderr: %s", r.exit_code, r.err);
    json_t *ev = evidence_of(r.json, "job.no_gpu");
    if (!ev)
        fail_msg("no job.no_gpu: %s", r.out);
    assert_true(json_is_true(json_object_get(ev, "torch_loaded")));
    if (json_is_false(json_object_get(ev, "torch_cuda_build"))) { /* Debian's build; a CUDA wheel maps libtorch_cuda */
        char *causes = json_dumps(json_object_get(ev, "causes"), 0);
        assert_non_null(strstr(causes, "CPU-only build"));
        free(causes);
    }
    tool_result_free(&r);
}

/* Four persistent workers beside a GPU that is fed: no input finding. */
static void dataloader_with_four_persistent_workers_is_quiet(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    tool_result r =
        run_train("h100x8-training.json", (const char *[]){"--workers", "4", "--persistent", "--seconds", "3", NULL});
    say("num_workers=4", r.json);
    assert_int_equal(r.exit_code, 0);
    if (input_findings(r.json) != 0)
        fail_msg("a well-fed job gave an input finding: %s", r.out);
    json_t *job = json_object_get(r.json, "job");
    assert_true(json_integer_value(json_object_get(job, "processes_max")) >= 5); /* the job and its four workers */
    assert_int_equal(json_integer_value(json_object_get(job, "respawn_rounds")), 0);
    tool_result_free(&r);
}

/* Without persistent_workers the workers end with every epoch's iterator. */
static void workers_respawned_each_epoch_are_named(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    tool_result r = run_train("h100x8-training.json",
                              (const char *[]){"--workers", "2", "--epoch-seconds", "1.2", "--seconds", "4", NULL});
    say("respawned workers", r.json);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(count_findings(r.json, "input.workers_respawned", -2), 1);
    json_t *ev = evidence_of(r.json, "input.workers_respawned");
    assert_true(json_integer_value(json_object_get(ev, "respawn_rounds")) >= 2);
    tool_result_free(&r);
}

/* Two workers and the main process pinned to one of the host's CPUs. */
static void job_pinned_to_one_cpu_is_affinity_narrow(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    need_component(system("taskset -c 0 true >/dev/null 2>&1") == 0, "taskset",
                   "taskset is util-linux's: sudo apt-get install util-linux");
    need_component(sysconf(_SC_NPROCESSORS_ONLN) >= 2, "a second CPU",
                   "this machine has one CPU: run the suite on one with two or more");
    tool_result r =
        run_train("h100x8-underutilized.json", (const char *[]){"taskset", "-c", "0", "--", "--workers", "2",
                                                                "--persistent", "--seconds", "3", NULL});
    say("pinned to CPU 0", r.json);
    assert_int_equal(r.exit_code, 0);
    if (count_findings(r.json, "input.affinity_narrow", -2) != 1)
        fail_msg("no input.affinity_narrow: %s", r.out);
    assert_int_equal(count_findings(r.json, "input.few_workers", -2), 0); /* no CPU left to give */
    json_t *ev = evidence_of(r.json, "input.affinity_narrow");
    assert_int_equal(json_integer_value(json_object_get(ev, "affinity_cpus")), 1);
    tool_result_free(&r);
}

/* A real process reading through O_DIRECT from a disk capped at 8 MiB/s (a
 * cgroup of its own, as a cloud volume's cap): each 1 MiB read waits about
 * 125 ms in disk wait (state D), whatever the disk and the host's load. */
static void reads_past_the_page_cache_are_io_wait(void **state)
{
    (void)state;
    char dir[] = "/var/tmp/gpudoctor-io-XXXXXX"; /* disk-backed by convention; /tmp may be tmpfs */
    need_component(mkdtemp(dir) != NULL, "a writable /var/tmp", "sudo chmod 1777 /var/tmp");
    tool_result r = run_recorded((const char *[]){"run", "--json", "--sim", example("h100x8-underutilized.json"), "--",
                                                  GD_IO_READER, dir, "2.5", "8", NULL},
                                 env);
    rmdir(dir);
    if (r.exit_code == 77) {
        /* The reader's own words: no block device under /var/tmp, no cgroup to cap it in, ... */
        char why[512];
        snprintf(why, sizeof why, "%.*s; the suite as root with /var/tmp on a real disk (sudo make test) runs it",
                 (int)strcspn(r.err ? r.err : "", "\n"), r.err ? r.err : "");
        tool_result_free(&r);
        need_component(false,
                       "O_DIRECT on /var/tmp's file system, on a disk whose reads a cgroup can cap "
                       "(root, the blkio or io controller)",
                       why);
    }
    assert_non_null(r.json);
    say("O_DIRECT reader", r.json);
    assert_int_equal(r.exit_code, 0);
    if (count_findings(r.json, "input.io_wait", -2) != 1)
        fail_msg("no input.io_wait: %s", r.out);
    assert_int_equal(count_findings(r.json, "input.single_thread", -2), 0);
    tool_result_free(&r);
}

/* powersave judged with its scaling driver, from fixture sysfs trees: the
 * lowest frequency under acpi-cpufreq, intel_pstate's dynamic default. */
static void governor_is_judged_with_its_driver(void **state)
{
    (void)state;
    char *dir = temp_dir();
    static const struct {
        const char *tree;
        size_t findings;
    } cases[] = {{"acpi-powersave", 1}, {"pstate-powersave", 0}};
    for (size_t i = 0; i < 2; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"description\": \"cpufreq %s\", \"host\": {\"sysfs\": \"%s/cpufreq/%s\", \"proc\": "
                 "\"%s/proc/input-io-wait\"}, \"gpus\": [{\"name\": \"NVIDIA H100 80GB HBM3\", \"pci_bus_id\": "
                 "\"00000000:18:00.0\", \"memory_total_mib\": 81559, \"processes\": [{\"pid\": 41000, \"name\": "
                 "\"python\", \"used_mib\": 61000}], \"timeline\": [{\"t\": 0, \"util_gpu_pct\": 97}]}]}",
                 cases[i].tree, GD_FIXTURES_DIR, cases[i].tree, GD_EXAMPLES_DIR);
        char *scenario = write_temp_file(dir, "cpufreq.json", text);
        tool_result r = run_tool(
            (const char *[]){"check", "--json", "--duration", "10", "--pid", "41000", "--sim", scenario, NULL}, env);
        assert_non_null(r.json);
        if (count_findings(r.json, "input.cpu_governor", -2) != cases[i].findings)
            fail_msg("%s: %s", cases[i].tree, r.out);
        json_t *job = json_object_get(r.json, "job");
        assert_string_equal(json_string_value(json_object_get(job, "governor")), "powersave");
        if (cases[i].findings) {
            json_t *ev = evidence_of(r.json, "input.cpu_governor");
            assert_string_equal(json_string_value(json_object_get(ev, "scaling_driver")), "acpi-cpufreq");
            assert_int_equal(json_integer_value(json_object_get(ev, "cpu0_cur_mhz")), 1200);
        }
        tool_result_free(&r);
        free(scenario);
    }
    remove_tree(dir);
    free(dir);
}

/* One worker flat out beside a waiting GPU, a CPU of the job's left over. */
static void one_busy_worker_on_two_cpus_is_few_workers(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    need_component(sysconf(_SC_NPROCESSORS_ONLN) >= 2, "a second CPU",
                   "this machine has one CPU: run the suite on one with two or more");
    tool_result r = run_train("h100x8-underutilized.json",
                              (const char *[]){"--workers", "1", "--persistent", "--seconds", "3", NULL});
    say("num_workers=1", r.json);
    if (count_findings(r.json, "input.few_workers", -2) != 1)
        fail_msg("no input.few_workers: %s", r.out);
    json_t *ev = evidence_of(r.json, "input.few_workers");
    assert_int_equal(json_integer_value(json_object_get(ev, "workers")), 1);
    assert_true(json_integer_value(json_object_get(ev, "num_workers_suggested")) >= 1);
    tool_result_free(&r);
}

/* A stat line of a sleeping thread: pid (comm) S, then the fields up to stime. */
static void put_stat(const char *root, int pid, int tid, const char *comm)
{
    char rel[128], text[256];
    snprintf(rel, sizeof rel, "%d/task/%d/stat", pid, tid);
    snprintf(text, sizeof text, "%d (%s) S 1 %d %d 0 -1 4194304 100 0 0 0 12 3 0 0 20 0 1 0 100 1000 10\n", tid, comm,
             pid, pid);
    put_file(root, rel, text, strlen(text));
}

/* topology.numa_mismatch through the job's tree: --pid names a launcher
 * (torchrun) whose child holds GPU 3, on the other NUMA node's CPUs. */
static void numa_mismatch_follows_the_job_tree(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char proc[1100];
    snprintf(proc, sizeof proc, "%s/proc", dir);
    static const char status[] =
        "Name:\ttorchrun\nState:\tS (sleeping)\nPid:\t40990\nCpus_allowed_list:\t48-95,144-191\n"
        "Mems_allowed_list:\t1\nvoluntary_ctxt_switches:\t10\nnonvoluntary_ctxt_switches:\t1\n";
    static const char maps[] = "7f2a40000000 default anon=2500000 dirty=2500000 N1=2500000 kernelpagesize_kB=4\n";
    put_file(proc, "40990/status", status, strlen(status));
    put_file(proc, "41003/status", status, strlen(status));
    put_file(proc, "40990/numa_maps", maps, strlen(maps));
    put_file(proc, "40990/comm", "torchrun\n", 9);
    put_stat(proc, 40990, 40990, "torchrun");
    put_file(proc, "40990/task/40990/children", "41003 ", 6);
    put_stat(proc, 41003, 41003, "python");
    put_file(proc, "41003/task/41003/children", "", 0);
    static const char cpu[] = "cpu  100 0 100 1000 0 0 0 0 0 0\ncpu0 50 0 50 500 0 0 0 0 0 0\n";
    put_file(proc, "stat", cpu, strlen(cpu));
    json_t *sc = json_load_file(example("pcie-h100x8-numa-far-job.json"), 0, NULL);
    assert_non_null(sc);
    char sysfs[1100];
    snprintf(sysfs, sizeof sysfs, "%s/sysfs/hgx-h100x8", GD_EXAMPLES_DIR);
    json_t *host = json_object_get(sc, "host");
    json_object_set_new(host, "proc", json_string(proc));
    json_object_set_new(host, "sysfs", json_string(sysfs));
    char *text = json_dumps(sc, 0);
    char *scenario = write_temp_file(dir, "tree.json", text);
    free(text);
    json_decref(sc);
    tool_result r = run_tool(
        (const char *[]){"check", "--json", "--duration", "3", "--pid", "40990", "--sim", scenario, NULL}, env);
    if (!r.json)
        fail_msg("exit %d: %s", r.exit_code, r.err);
    if (count_findings(r.json, "topology.numa_mismatch", 3) != 1)
        fail_msg("no topology.numa_mismatch on GPU 3 for the launcher's tree: %s", r.out);
    tool_result_free(&r);
    free(scenario);
    remove_tree(dir);
    free(dir);
}

/* The timeline: one JSON object per second, and text rows within 80 columns. */
static void timeline_is_per_second_and_fits(void **state)
{
    (void)state;
    /* check --pid --record: the replay keeps the job's findings (input.io_wait) */
    tool_result r = run_recorded((const char *[]){"check", "--json", "--duration", "20", "--pid", "41000", "--sim",
                                                  example("h100x8-input-io-wait.json"), NULL},
                                 env);
    assert_non_null(r.json);
    assert_int_equal(count_findings(r.json, "input.io_wait", -2), 1);
    json_t *tl = json_object_get(json_object_get(r.json, "job"), "timeline");
    assert_int_equal(json_array_size(tl), 21); /* seconds 0 to 20 */
    for (size_t i = 0; i < 20; i++) { /* the scenario: 35 % and 5 % in turn */
        json_t *b = json_array_get(tl, i);
        assert_int_equal((int)json_number_value(json_object_get(b, "t_s")), (int)i);
        assert_int_equal((int)json_number_value(json_object_get(b, "gpu_busy_pct")), i % 2 ? 5 : 35);
        assert_int_equal((int)json_number_value(json_object_get(b, "threads_disk_wait")), 2);
    }
    tool_result_free(&r);
    static const char *const narrow[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "COLUMNS=80", NULL};
    for (int k = 0; k < 2; k++) {
        r = run_tool((const char *[]){"check", "--duration", k ? "300" : "20", "--pid", "41000", "--sim",
                                      example("h100x8-input-io-wait.json"), NULL},
                     narrow);
        const char *at = strstr(r.out, "\nTimeline ");
        assert_non_null(at);
        assert_non_null(strstr(at, "\n  GPU busy   "));
        assert_non_null(strstr(at, "\n  disk wait  "));
        for (const char *line = at + 1; *line && *line != '\n';) { /* the block, to its blank line */
            size_t cols = 0;
            const char *p = line;
            for (; *p && *p != '\n'; p++)
                cols += ((unsigned char)*p & 0xC0) != 0x80; /* UTF-8: count characters */
            if (cols > 80)
                fail_msg("a timeline line of %zu columns: %.*s", cols, (int)(p - line), line);
            line = *p ? p + 1 : p;
        }
        if (k == 0)
            assert_non_null(strstr(at, "1 s per column"));
        tool_result_free(&r);
    }
}

/* A scenario whose host.proc is this machine's /proc: check --pid on a real process. */
static char *live_proc_scenario(char *dir)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"description\": \"training, real /proc\", \"host\": {\"proc\": \"/proc\"}, \"gpus\": [{\"name\": "
             "\"NVIDIA H100 80GB HBM3\", \"pci_bus_id\": \"00000000:18:00.0\", \"memory_total_mib\": 81559, "
             "\"timeline\": [{\"t\": 0, \"util_gpu_pct\": 97}]}]}");
    return write_temp_file(dir, "live.json", text);
}

/* A pid that vanishes mid-window ends the watch with what was gathered. */
static void vanished_pid_ends_the_watch_cleanly(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char *scenario = live_proc_scenario(dir);
    pid_t child = fork();
    if (child == 0) {
        execlp("sleep", "sleep", "0.6", (char *)NULL);
        _exit(127);
    }
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)child);
    static const char *const paced[] = {"GPUDOCTOR_SIM_TIMESCALE=1", "NO_COLOR=", "GPUDOCTOR_ROOT=", NULL};
    tool_result r =
        run_tool((const char *[]){"check", "--json", "--duration", "10", "--pid", pid, "--sim", scenario, NULL}, paced);
    waitpid(child, NULL, 0);
    if (!r.json)
        fail_msg("exit %d: %s", r.exit_code, r.err);
    json_t *job = json_object_get(r.json, "job");
    assert_true(json_is_true(json_object_get(job, "read")));
    assert_true(json_is_true(json_object_get(job, "ended")));
    double took = json_number_value(json_object_get(json_object_get(r.json, "window"), "duration_s"));
    assert_true(took < 5); /* the watch ended with the job, not at --duration */
    assert_true(json_array_size(json_object_get(job, "timeline")) >= 1);
    tool_result_free(&r);
    /* A pid that is gone before the watch: said, not a crash. */
    r = run_tool((const char *[]){"check", "--json", "--duration", "1", "--pid", pid, "--sim", scenario, NULL}, env);
    assert_non_null(r.json);
    job = json_object_get(r.json, "job");
    assert_true(json_is_false(json_object_get(job, "read")));
    assert_non_null(strstr(json_string_value(json_object_get(job, "error")), "no such process"));
    tool_result_free(&r);
    free(scenario);
    remove_tree(dir);
    free(dir);
}

/* Runs gpudoctor as user nobody (from root), at home in `home`, and returns its stdout. */
static char *run_as_nobody(const char *home, const char *const *argv)
{
    int p[2];
    if (pipe(p) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        close(p[0]);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        hermetic_environment();
        setenv("HOME", home, 1); /* root's config file is not nobody's to read */
        unsetenv("XDG_CONFIG_HOME");
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(126);
        const char *args[16] = {GD_BINARY};
        for (size_t i = 0; argv[i] && i < 14; i++)
            args[i + 1] = argv[i];
        execv(GD_BINARY, (char *const *)args);
        _exit(127);
    }
    close(p[1]);
    size_t cap = 1 << 20, len = 0;
    char *out = malloc(cap);
    ssize_t n;
    while (out && (n = read(p[0], out + len, cap - 1 - len)) > 0)
        len += (size_t)n;
    close(p[0]);
    int status;
    waitpid(pid, &status, 0);
    if (out)
        out[len] = '\0';
    return out;
}

/* Another user's process: /proc lists it, its I/O counters and environment
 * are refused, and the report says so. */
static void a_job_not_ours_to_read_says_so(void **state)
{
    (void)state;
    need_component(getuid() == 0, "root (to watch pid 1 as another user)", GD_FIX_ROOT);
    char *dir = temp_dir();
    chmod(dir, 0755); /* user nobody reads the scenario */
    char *scenario = live_proc_scenario(dir);
    chmod(scenario, 0644);
    char *out = run_as_nobody(
        dir, (const char *[]){"check", "--json", "--duration", "0.5", "--pid", "1", "--sim", scenario, NULL});
    need_component(out && out[0], "a gpudoctor binary that user nobody may run",
                   "user nobody cannot reach the build folder: chmod o+x on each folder above it, or build under /tmp");
    json_t *report = json_loads(out, 0, NULL);
    if (!report)
        fail_msg("no JSON from gpudoctor as nobody: %s", out);
    json_t *job = json_object_get(report, "job");
    if (json_is_true(json_object_get(job, "read"))) /* /proc lists it: only its io and environ are refused */
        assert_true(json_is_false(json_object_get(job, "io_readable")));
    else /* /proc mounted with hidepid: not even its threads */
        assert_non_null(strstr(json_string_value(json_object_get(job, "error")), "not ours to read"));
    json_t *k;
    size_t i;
    bool env_said = false;
    json_array_foreach(json_object_get(report, "not_checked"), i, k)
    {
        const char *reason = json_string_value(json_object_get(k, "reason"));
        env_said |= strstr(reason, "/proc/1/environ") && strstr(reason, "job's user or root");
    }
    assert_true(env_said);
    json_decref(report);
    free(out);
    free(scenario);
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    run_first_in_line(); /* CPU shares are judged: the machine may be busy */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(timeline_is_per_second_and_fits),
        cmocka_unit_test(a_command_that_ends_is_always_ended),
        cmocka_unit_test(vanished_pid_ends_the_watch_cleanly),
        cmocka_unit_test(a_job_not_ours_to_read_says_so),
        cmocka_unit_test(reads_past_the_page_cache_are_io_wait),
        cmocka_unit_test(dataloader_without_workers_is_single_threaded),
        cmocka_unit_test(dataloader_with_four_persistent_workers_is_quiet),
        cmocka_unit_test(workers_respawned_each_epoch_are_named),
        cmocka_unit_test(job_pinned_to_one_cpu_is_affinity_narrow),
        cmocka_unit_test(one_busy_worker_on_two_cpus_is_few_workers),
        cmocka_unit_test(governor_is_judged_with_its_driver),
        cmocka_unit_test(numa_mismatch_follows_the_job_tree),
        cmocka_unit_test(cpu_only_torch_is_named_as_why_no_gpu_was_used),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
