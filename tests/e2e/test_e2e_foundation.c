/* SPDX-License-Identifier: Apache-2.0 */
/* End to end: check and info on the simulated machine and without a driver. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

/* Scenario time runs 10x faster: a 10 s story plays in 1 s. */
static const char *const fast[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", NULL}; /* the fast scenario clock */

static json_t *gpu_state(json_t *report, size_t g, const char *key)
{
    return json_object_get(json_object_get(json_array_get(json_object_get(report, "gpus"), g), "state"), key);
}

/* A machine with NVIDIA GPUs on its PCI bus (a sysfs tree of eight) whose driver does not load. */
static const char *const gpus_no_driver[] = {"GPUDOCTOR_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1",
                                             "GPUDOCTOR_SYS_ROOT=" GD_EXAMPLES_DIR "/sysfs/hgx-h100x8",
                                             "NO_COLOR=", NULL};

static void check_without_driver_reports_driver_missing(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"check", "--json", NULL}, gpus_no_driver);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(r.json);
    assert_int_equal(count_findings(r.json, "driver.missing", -2), 1);
    json_t *ev = json_object_get(json_array_get(json_object_get(r.json, "findings"), 0), "evidence");
    assert_int_equal(json_integer_value(json_object_get(ev, "pci_nvidia_gpus")), 8);
    assert_true(json_is_null(json_object_get(json_array_get(json_object_get(r.json, "findings"), 0), "gpu")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r.json, "summary"), "critical")), 1);
    tool_result_free(&r);
}

static void check_without_driver_text_says_so(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"check", NULL}, gpus_no_driver);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.out, "driver.missing"));
    assert_non_null(strstr(r.out, "Verdict: CRITICAL"));
    assert_null(strstr(r.out, "\033[")); /* no colour off a terminal */
    tool_result_free(&r);
}

/* A sysfs tree at root: a NIC and an NVIDIA bridge (an NVSwitch's class,
 * 0x0680), no NVIDIA display or 3D controller; `gpu` adds one (0x0302). */
static char *sysfs_tree(bool gpu)
{
    char *root = temp_dir(), path[1200];
    static const char *const devs[][3] = {{"0000:01:00.0", "0x15b3", "0x020700"},
                                          {"0000:02:00.0", "0x10de", "0x068000"},
                                          {"0000:1b:00.0", "0x10de", "0x030200"}};
    for (size_t i = 0; i < (gpu ? 3u : 2u); i++) {
        snprintf(path, sizeof path, "%s/bus", root);
        mkdir(path, 0755);
        snprintf(path, sizeof path, "%s/bus/pci", root);
        mkdir(path, 0755);
        snprintf(path, sizeof path, "%s/bus/pci/devices", root);
        mkdir(path, 0755);
        snprintf(path, sizeof path, "%s/bus/pci/devices/%s", root, devs[i][0]);
        mkdir(path, 0755);
        free(write_temp_file(path, "vendor", devs[i][1]));
        free(write_temp_file(path, "class", devs[i][2]));
    }
    return root;
}

/* A CPU node (no NVIDIA GPU on its PCI bus) is not a broken GPU node: "no
 * NVIDIA GPU on this machine", exit 3, never driver.missing (issue 38); a
 * fleet-wide health check must not drain it. With a GPU on the bus, or where
 * the bus cannot be read, a driver that does not load stays critical. */
static void a_machine_without_an_nvidia_gpu_is_not_a_missing_driver(void **state)
{
    (void)state;
    char *cpu_node = sysfs_tree(false), *gpu_node = sysfs_tree(true), *no_bus = temp_dir();
    char sys[1400];
    snprintf(sys, sizeof sys, "GPUDOCTOR_SYS_ROOT=%s", cpu_node);
    const char *env[] = {"GPUDOCTOR_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1", sys, "NO_COLOR=", NULL};
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "0.2", NULL}, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(r.json);
    assert_int_equal(count_findings(r.json, "driver.missing", -2), 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r.json, "driver"), "pci_nvidia_gpus")), 0);
    assert_non_null(strstr(r.err, "no NVIDIA GPU on this machine"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--duration", "0.2", NULL}, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.out, "Verdict: NOT CHECKED - no NVIDIA GPU on this machine"));
    assert_null(strstr(r.out, "critical host"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--summary", "--duration", "0.2", NULL}, env);
    assert_int_equal(r.exit_code, 3);
    assert_string_equal(r.out, "no NVIDIA GPU on this machine\n");
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--exit-codes", "npd", "--duration", "0.2", NULL}, env);
    assert_int_equal(r.exit_code, 2); /* node-problem-detector's "unknown", never "problem" */
    tool_result_free(&r);
    r = run_tool((const char *[]){"info", NULL}, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "no NVIDIA GPU on this machine"));
    tool_result_free(&r);
    /* run: the command's own code, the machine said; --exit-findings: check's 3. */
    r = run_tool((const char *[]){"run", "--", "true", NULL}, env);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.err, "no NVIDIA GPU on this machine"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"run", "--exit-findings", "--", "true", NULL}, env);
    assert_int_equal(r.exit_code, 3);
    tool_result_free(&r);
    /* An NVIDIA 3D controller on the bus, or a bus that cannot be read: driver.missing, critical. */
    const char *const roots[] = {gpu_node, no_bus};
    for (size_t i = 0; i < 2; i++) {
        snprintf(sys, sizeof sys, "GPUDOCTOR_SYS_ROOT=%s", roots[i]);
        r = run_tool((const char *[]){"check", "--json", "--duration", "0.2", NULL}, env);
        assert_int_equal(r.exit_code, 2);
        assert_int_equal(count_findings(r.json, "driver.missing", -2), 1);
        assert_null(strstr(r.err, "no NVIDIA GPU"));
        tool_result_free(&r);
    }
    remove_tree(cpu_node);
    remove_tree(gpu_node);
    remove_tree(no_bus);
    free(cpu_node);
    free(gpu_node);
    free(no_bus);
}

static void info_lists_the_eight_simulated_gpus(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"info", "--json", "--sim", example("h100x8-training.json"), NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(r.json);
    json_t *gpus = json_object_get(r.json, "gpus");
    assert_int_equal(json_array_size(gpus), 8);
    assert_string_equal(json_string_value(json_object_get(json_array_get(gpus, 7), "name")), "NVIDIA H100 80GB HBM3");
    assert_string_equal(json_string_value(json_object_get(json_array_get(gpus, 0), "pci_bus_id")), "00000000:18:00.0");
    assert_true(json_is_true(json_object_get(r.json, "simulated")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r.json, "driver"), "cuda_driver_version")),
                     12040);
    /* The board has no fan: NOT_SUPPORTED is null, never 0. */
    assert_true(json_is_null(gpu_state(r.json, 0, "fan_pct")));
    assert_int_equal(json_integer_value(json_object_get(json_array_get(gpus, 0), "temp_slowdown_c")), 89);
    tool_result_free(&r);

    r = run_tool((const char *[]){"info", "--sim", example("h100x8-training.json"), NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "SIMULATION"));
    assert_non_null(strstr(r.out, "GPU 7"));
    assert_non_null(strstr(r.out, "550.54.15"));
    tool_result_free(&r);
}

static void healthy_training_node_passes(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "10", "--interval", "1000", "--sim",
                                              example("h100x8-training.json"), NULL},
                             fast);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(r.json);
    assert_int_equal(json_array_size(json_object_get(r.json, "findings")), 0);
    json_int_t samples = json_integer_value(json_object_get(json_object_get(r.json, "window"), "samples"));
    assert_in_range(samples, 9, 12);
    assert_int_equal(json_array_size(json_object_get(r.json, "gpus")), 8);
    for (size_t g = 0; g < 8; g++) {
        assert_true(json_is_integer(gpu_state(r.json, g, "temp_c")));
        assert_int_equal(json_integer_value(gpu_state(r.json, g, "pcie_gen")), 5);
        assert_int_equal(json_integer_value(gpu_state(r.json, g, "power_limit_w")), 700);
        assert_int_equal(json_array_size(gpu_state(r.json, g, "event_reasons")), 0);
    }
    tool_result_free(&r);
}

static void idle_node_passes(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"check", "--json", "--duration", "5", "--sim", example("h100x8-idle.json"), NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(json_array_size(json_object_get(r.json, "findings")), 0);
    json_t *reasons = gpu_state(r.json, 0, "event_reasons");
    assert_string_equal(json_string_value(json_array_get(reasons, 0)), "gpu_idle");
    tool_result_free(&r);
}

static void gpu_lost_mid_window_keeps_the_others(void **state)
{
    (void)state;
    /* GPU 3 answers GPU_IS_LOST from scenario t=6: samples are at scenario seconds. */
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "10", "--interval", "1000", "--sim",
                                              example("h100x8-gpu-lost.json"), NULL},
                             fast);
    assert_int_equal(r.exit_code, 2);
    assert_int_equal(count_findings(r.json, "health.gpu_lost", 3), 1);
    assert_int_equal(count_findings(r.json, "health.gpu_lost", -2), 1);
    json_t *f = json_array_get(json_object_get(r.json, "findings"), 0);
    double at = json_number_value(json_object_get(json_object_get(f, "evidence"), "lost_at_s"));
    assert_true(at >= 6.0 && at <= 7.0);
    assert_true(json_is_null(gpu_state(r.json, 3, "temp_c")));
    assert_true(json_is_true(json_object_get(json_array_get(json_object_get(r.json, "gpus"), 3), "lost")));
    for (size_t g = 0; g < 8; g++)
        if (g != 3)
            assert_true(json_is_integer(gpu_state(r.json, g, "temp_c")));
    tool_result_free(&r);
}

static void demo_scenario_shows_a_hot_gpu(void **state)
{
    (void)state;
    tool_result r =
        run_tool((const char *[]){"check", "--json", "--duration", "5", "--sim", example("demo.json"), NULL}, fast);
    assert_int_equal(r.exit_code, 2);
    assert_int_equal(count_findings(r.json, "thermal.hot", 5), 1);
    assert_int_equal(count_findings(r.json, "power.limit_lowered", 2), 1);
    assert_int_equal(json_array_size(json_object_get(r.json, "findings")), 2);
    tool_result_free(&r);
}

static void snapshot_takes_one_sample(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"check", "--json", "--duration", "0", "--sim", example("h100x8-training.json"), NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r.json, "window"), "samples")), 1);
    tool_result_free(&r);
}

static void malformed_scenario_names_file_and_key(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char *bad = write_temp_file(dir, "bad.json", "{\"gpus\": [{\"name\": \"x\", \"timeline\": [{\"t\": \"soon\"}]}]}");
    tool_result r = run_tool((const char *[]){"check", "--sim", bad, NULL}, fast);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "bad.json"));
    assert_non_null(strstr(r.err, "gpus[0].timeline[0].t"));
    tool_result_free(&r);

    char *trunc = write_temp_file(dir, "truncated.json", "{\"gpus\": [{\"name\": ");
    r = run_tool((const char *[]){"info", "--sim", trunc, NULL}, fast);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "truncated.json"));
    tool_result_free(&r);
    remove_tree(dir);
    free(bad);
    free(trunc);
    free(dir);
}

static void missing_scenario_file_is_an_error(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"check", "--sim", "/nonexistent/scenario.json", NULL}, fast);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "/nonexistent/scenario.json"));
    tool_result_free(&r);
}

static void bad_arguments_exit_3(void **state)
{
    (void)state;
    const char *const *cases[] = {
        (const char *[]){"check", "--duration", "-1", NULL},
        (const char *[]){"check", "--interval", "abc", NULL},
        (const char *[]){"check", "--bogus", NULL},
        (const char *[]){"check", "--sim", NULL},
        (const char *[]){"frobnicate", NULL},
        (const char *[]){NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tool_result r = run_tool(cases[i], fast);
        assert_int_equal(r.exit_code, 3);
        assert_true(strlen(r.err) > 0);
        tool_result_free(&r);
    }
}

/* Runs gpudoctor under script(1), so that its stdout is a terminal. */
static char *run_on_terminal(const char *env_prefix, const char *duration)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "%s GPUDOCTOR_SIM_TIMESCALE=10 script -qec '%s check --duration %s --sim %s' /dev/null 2>/dev/null",
             env_prefix, GD_BINARY, duration, example("demo.json"));
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t len = 0, cap = 1 << 16;
    char *out = calloc(1, cap);
    size_t n;
    while ((n = fread(out + len, 1, cap - len - 1, p)) > 0)
        len += n;
    pclose(p);
    return out;
}

static void colour_only_on_a_terminal_and_never_with_no_color(void **state)
{
    (void)state;
    if (system("command -v script >/dev/null 2>&1") != 0)
        skip();
    char *tty = run_on_terminal("env -u NO_COLOR", "0");
    assert_non_null(tty);
    assert_non_null(strstr(tty, "thermal.hot"));
    assert_non_null(strstr(tty, "\033["));
    free(tty);
    char *plain = run_on_terminal("NO_COLOR=1", "0");
    assert_non_null(plain);
    assert_non_null(strstr(plain, "thermal.hot"));
    assert_null(strstr(plain, "\033["));
    free(plain);
}

static void ctrl_c_ends_the_window_early_with_a_report(void **state)
{
    (void)state;
    int out[2];
    char *dir = temp_dir(), rec[1100];
    snprintf(rec, sizeof rec, "%s/window.jsonl", dir);
    assert_int_equal(pipe(out), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        close(out[0]);
        hermetic_environment();
        setenv("GPUDOCTOR_SIM_TIMESCALE", "10", 1);
        execl(GD_BINARY, GD_BINARY, "check", "--json", "--duration", "60", "--record", rec, "--sim",
              example("h100x8-training.json"), (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    /* Ctrl-C once the window holds two samples (the recording's header and
     * two lines), however long a busy machine takes to get there. */
    int status = 0;
    bool gone = false;
    for (int i = 0; i < 1200 && !(gone = waitpid(pid, &status, WNOHANG) == pid); i++) {
        FILE *fp = fopen(rec, "r");
        int lines = 0, c;
        while (fp && (c = getc(fp)) != EOF)
            lines += c == '\n';
        if (fp)
            fclose(fp);
        if (lines >= 3)
            break;
        usleep(50 * 1000);
    }
    if (gone)
        fail_msg("check ended before it was interrupted (status %d)", status);
    kill(pid, SIGINT);
    char *buf = calloc(1, 1 << 20);
    size_t len = 0;
    ssize_t n;
    while ((n = read(out[0], buf + len, (1 << 20) - 1 - len)) > 0)
        len += (size_t)n;
    close(out[0]);
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    json_t *j = json_loads(buf, 0, NULL);
    assert_non_null(j);
    json_int_t samples = json_integer_value(json_object_get(json_object_get(j, "window"), "samples"));
    assert_in_range(samples, 2, 600); /* stopped early: fewer than the whole window's 601 */
    json_decref(j);
    free(buf);
    remove_tree(dir);
    free(dir);
}

static void a_missing_value_is_named_as_such(void **state)
{
    (void)state;
    const char *const *cases[] = {
        (const char *[]){"check", "--sim", NULL},         (const char *[]){"info", "--from", NULL},
        (const char *[]){"topo", "--sim", NULL},          (const char *[]){"vram", "--params", NULL},
        (const char *[]){"bench", "pcie", "--sim", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tool_result r = run_tool(cases[i], fast);
        assert_int_equal(r.exit_code, 3);
        if (!strstr(r.err, "needs a value"))
            fail_msg("%s %s: %s", cases[i][0], cases[i][1], r.err);
        tool_result_free(&r);
    }
}

static void progress_shows_on_a_terminal_only(void **state)
{
    (void)state;
    if (system("command -v script >/dev/null 2>&1") != 0)
        skip();
    char *tty = run_on_terminal("NO_COLOR=1", "1");
    assert_non_null(tty);
    assert_non_null(strstr(tty, "sampling 8 GPUs:"));
    assert_non_null(strstr(tty, "of 1.0 s"));
    free(tty);
    /* Off a terminal, nothing but the report. */
    tool_result r = run_tool((const char *[]){"check", "--duration", "10", "--sim", example("demo.json"), NULL}, fast);
    assert_null(strstr(r.err, "sampling"));
    assert_null(strstr(r.out, "sampling"));
    tool_result_free(&r);
}

/* The simulated NVML notes the process's CPU time where the scenario clock
 * reaches each mark of GPUDOCTOR_SIM_CPU_MARKS, once, in order; a mark past
 * the window is never written (bench_tick_cost reads a day's run this way). */
static void the_simulation_notes_cpu_time_at_marks(void **state)
{
    (void)state;
    char file[] = "/tmp/gd-cpu-marks-XXXXXX", var[64];
    int fd = mkstemp(file);
    assert_true(fd >= 0);
    close(fd);
    snprintf(var, sizeof var, "GPUDOCTOR_SIM_CPU_FILE=%s", file);
    const char *env[] = {"GPUDOCTOR_SIM_TIMESCALE=", "GPUDOCTOR_SIM_CPU_MARKS=1,0.5,90", var, NULL};
    tool_result r = run_tool(
        (const char *[]){"check", "--json", "--duration", "2", "--sim", example("h100x8-training.json"), NULL}, env);
    assert_int_equal(r.exit_code, 0);
    tool_result_free(&r);
    FILE *f = fopen(file, "r");
    assert_non_null(f);
    double mark[3] = {0}, cpu[3] = {0};
    int n = 0;
    while (n < 3 && fscanf(f, "%lf %lf", &mark[n], &cpu[n]) == 2)
        n++;
    fclose(f);
    unlink(file);
    assert_int_equal(n, 2);
    assert_float_equal(mark[0], 0.5, 1e-9);
    assert_float_equal(mark[1], 1.0, 1e-9);
    assert_true(cpu[0] > 0 && cpu[1] >= cpu[0]);
}

static void help_teaches(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"check", "--help", NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "--duration"));
    assert_non_null(strstr(r.out, "Exit status"));
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_without_driver_reports_driver_missing),
        cmocka_unit_test(the_simulation_notes_cpu_time_at_marks),
        cmocka_unit_test(check_without_driver_text_says_so),
        cmocka_unit_test(a_machine_without_an_nvidia_gpu_is_not_a_missing_driver),
        cmocka_unit_test(info_lists_the_eight_simulated_gpus),
        cmocka_unit_test(healthy_training_node_passes),
        cmocka_unit_test(idle_node_passes),
        cmocka_unit_test(gpu_lost_mid_window_keeps_the_others),
        cmocka_unit_test(demo_scenario_shows_a_hot_gpu),
        cmocka_unit_test(snapshot_takes_one_sample),
        cmocka_unit_test(malformed_scenario_names_file_and_key),
        cmocka_unit_test(missing_scenario_file_is_an_error),
        cmocka_unit_test(bad_arguments_exit_3),
        cmocka_unit_test(colour_only_on_a_terminal_and_never_with_no_color),
        cmocka_unit_test(ctrl_c_ends_the_window_early_with_a_report),
        cmocka_unit_test(a_missing_value_is_named_as_such),
        cmocka_unit_test(progress_shows_on_a_terminal_only),
        cmocka_unit_test(help_teaches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
