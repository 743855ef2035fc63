/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: NCCL's own log. check --from reads it alone, beside an
 * nvidia-smi capture and as one file per node (the version mismatch shows
 * only when the nodes' logs join); bad input gives exit 3; the JSON report
 * carries "nccl_log"; run --nccl-log has a job's NCCL write its INFO log
 * into a private folder (a shell script stands in for the job: it writes
 * NCCL's lines to $NCCL_DEBUG_FILE, %h and %p replaced as NCCL does) and
 * judges it, with none of NCCL's lines in the job's own output.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const env[] = {"NO_COLOR=", "NCCL_DEBUG=", "NCCL_DEBUG_FILE=", "NCCL_DEBUG_SUBSYS=", NULL};

static char tmp[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "%s/gd-e2e-nccl-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *write_file(const char *name, const char *text, size_t len, int mode)
{
    static char path[4][512];
    static int turn;
    char *p = path[turn++ % 4];
    snprintf(p, 512, "%s/%s", tmp, name);
    FILE *fp = fopen(p, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, len, fp), len);
    fclose(fp);
    chmod(p, (mode_t)mode);
    return p;
}

static json_t *finding(json_t *report, const char *id)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(report, "findings"), i,
                       x) if (strcmp(json_string_value(json_object_get(x, "id")), id) == 0) return x;
    return NULL;
}

static const char *sev(json_t *x)
{
    return x ? json_string_value(json_object_get(x, "severity")) : "(none)";
}

static const char rel1267[] = "network/nccl-logs/version-mismatch-problem-node-nccl-2.14.3-fastsocket-gcp-nccl1267.log";

/* One node's log alone says nothing of the others; with a second node's on another NCCL, critical. */
static void per_node_files_join_one_log(void **state)
{
    (void)state;
    need_realdata();
    static const char other[] = "instance-8g-96c-2:41:41 [0] NCCL INFO cudaDriverVersion 12000\n"
                                "NCCL version 2.17.1+cuda12.1\n"
                                "instance-8g-96c-2:41:41 [0] NCCL INFO Bootstrap : Using ens7:10.128.0.31<0>\n";
    const char *node2 = write_file("node2.log", other, sizeof other - 1, 0644);
    tool_result r =
        run_tool((const char *[]){"check", "--json", "--from", realdata(rel1267), "--from", node2, NULL}, env);
    assert_int_equal(r.exit_code, 2);
    json_t *x = finding(r.json, "nccl_log.version_mismatch");
    assert_string_equal(sev(x), "critical");
    assert_non_null(strstr(json_string_value(json_object_get(x, "title")), "2.14.3"));
    json_t *log = json_object_get(r.json, "nccl_log");
    assert_int_equal(json_integer_value(json_object_get(log, "files")), 2);
    assert_int_equal(json_array_size(json_object_get(log, "ranks")), 2);
    assert_int_equal(json_array_size(json_object_get(log, "versions")), 2);
    tool_result_free(&r);
}

/* Beside nvidia-smi's capture: the GPUs judged, and NCCL's log with them. */
static void beside_an_smi_capture(void **state)
{
    (void)state;
    need_realdata();
    tool_result r = run_tool(
        (const char *[]){
            "check", "--json", "--from", realdata("smi-text/h100x8-hw-slowdown-power-brake-gpud.txt"), "--from",
            realdata("network/nccl-logs/ib-4hca-gdr-disabled-no-module-peermem-missing-nccl899.log"), NULL},
        env);
    assert_non_null(r.json);
    assert_string_equal(sev(finding(r.json, "nccl_log.gdr_off")), "warning");
    assert_true(json_array_size(json_object_get(r.json, "gpus")) == 8);
    assert_non_null(strstr(r.out, "NCCL log"));
    tool_result_free(&r);
}

/* The text report names the cause NCCL printed, and the quiet log says what was judged. */
static void text_report(void **state)
{
    (void)state;
    need_realdata();
    tool_result r = run_tool(
        (const char *[]){
            "check", "--from",
            realdata("network/nccl-logs/container-no-ib-device-hpcx-ibext-socket-fallback-virbr0-nccl941.log"), NULL},
        env);
    assert_int_equal(r.exit_code, 1);
    assert_non_null(strstr(r.out, "No device found"));
    assert_non_null(strstr(r.out, "/dev/infiniband"));
    tool_result_free(&r);
    r = run_tool(
        (const char *[]){"check", "--from",
                         realdata("network/nccl-logs/azure-aks-ib-gdrdma-healthy-gdr-level-forced-sys-aksrdma36.log"),
                         NULL},
        env);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "NCCL's log (15 lines of 8 processes)"));
    tool_result_free(&r);
}

static void bad_input_exits_3(void **state)
{
    (void)state;
    static const char bin[] = "a:1:2 [0] NCCL INFO Using network IB\n\0\1\2\3garbage";
    const char *p = write_file("bin.log", bin, sizeof bin - 1, 0644);
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", p, NULL}, env);
    assert_int_equal(r.exit_code, 3);
    tool_result_free(&r);
    /* Past 64 MiB: not read. */
    char path[512];
    snprintf(path, sizeof path, "%s/huge.log", tmp);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    static const char line[] = "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n";
    for (size_t n = 0; n < (65u << 20); n += sizeof line - 1)
        fwrite(line, 1, sizeof line - 1, fp);
    fclose(fp);
    r = run_tool((const char *[]){"check", "--json", "--from", path, NULL}, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "larger than"));
    tool_result_free(&r);
}

/* The stand-in job: two processes' logs (this node on sockets, a peer on
 * IB), written where NCCL_DEBUG_FILE says, and its own output. */
static const char job[] =
    "#!/bin/sh\n"
    "if [ -z \"$NCCL_DEBUG_FILE\" ]; then echo \"job: no NCCL_DEBUG_FILE (NCCL_DEBUG=$NCCL_DEBUG)\"; exit 0; fi\n"
    "[ \"$NCCL_DEBUG\" = INFO ] || exit 9\n"
    "h=$(hostname | cut -d. -f1)\n"
    "f=$(printf '%s' \"$NCCL_DEBUG_FILE\" | sed \"s/%h/$h/; s/%p/$$/\")\n"
    "printf '%s\\n' \"$h:$$:$$ [0] NCCL INFO NCCL version 2.21.5+cuda12.4\" \\\n"
    "  \"$h:$$:$$ [0] NCCL INFO NET/IB : No device found.\" \\\n"
    "  \"$h:$$:$$ [0] NCCL INFO Using network Socket\" \\\n"
    "  \"$h:$$:$$ [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\" > \"$f\"\n"
    "g=$(printf '%s' \"$NCCL_DEBUG_FILE\" | sed \"s/%h/peer-node/; s/%p/77/\")\n"
    "printf '%s\\n' \"peer-node:77:77 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\" \\\n"
    "  \"peer-node:77:77 [0] NCCL INFO Using network IB\" \\\n"
    "  \"peer-node:77:77 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/IB/0/GDRDMA\" > \"$g\"\n"
    "echo 'job: step 1 loss 0.5'\n";

static void run_nccl_log_reads_the_jobs_log(void **state)
{
    (void)state;
    const char *script = write_file("job.sh", job, sizeof job - 1, 0755);
    char keep[600];
    snprintf(keep, sizeof keep, "%s/kept", tmp);
    tool_result r =
        run_tool((const char *[]){"run", "--json", "--nccl-log-dir", keep, "--output", "/dev/null", "--exit-findings",
                                  "--sim", example("h100x8-idle.json"), "--", script, NULL},
                 env);
    tool_result_free(&r);
    /* The report into a file, the job's stdout on ours. */
    char report[600];
    snprintf(report, sizeof report, "%s/report.json", tmp);
    r = run_tool((const char *[]){"run", "--json", "--nccl-log", "--output", report, "--sim",
                                  example("h100x8-idle.json"), "--", script, NULL},
                 env);
    assert_int_equal(r.exit_code, 0); /* the job's own */
    assert_non_null(strstr(r.out, "job: step 1 loss 0.5"));
    assert_null(strstr(r.out, "NCCL INFO"));
    assert_null(strstr(r.err, "NCCL INFO"));
    json_error_t je;
    json_t *j = json_load_file(report, 0, &je);
    assert_non_null(j);
    json_t *x = finding(j, "nccl_log.socket_fallback");
    assert_string_equal(sev(x), "critical");
    assert_non_null(strstr(json_string_value(json_object_get(x, "title")), "peer-node"));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "nccl_log"), "files")), 2);
    json_decref(j);
    tool_result_free(&r);
    /* --nccl-log-dir kept both files. */
    char cmd[800];
    snprintf(cmd, sizeof cmd, "test $(ls '%s' | grep -c '^nccl\\..*\\.log$') -eq 2", keep);
    assert_int_equal(system(cmd), 0);
}

/* The simulated libnccl writes its INFO log as NCCL does; run --nccl-log reads it and joins it with the
 * scenario's NICs: NCCL's "no module" is the missing nvidia_peermem's symptom, one cause. */
static json_t *run_sim_nccl(const char *scenario, const char *extra, tool_result *r)
{
    char path[600], senv[700], report[600];
    snprintf(path, sizeof path, "%s", example(scenario));
    snprintf(senv, sizeof senv, "GPUDOCTOR_SIM_SCENARIO=%s", path);
    snprintf(report, sizeof report, "%s/sim-%s", tmp, scenario);
    const char *const with[] = {
        "NO_COLOR=", "NCCL_DEBUG=", "NCCL_DEBUG_FILE=", "NCCL_DEBUG_SUBSYS=", "NCCL_SOCKET_IFNAME=", senv, extra, NULL};
    *r = run_tool((const char *[]){"run", "--json", "--nccl-log", "--output", report, "--sim", path, "--", GD_NCCL_JOB,
                                   GD_SIM_NCCL, "2", NULL},
                  with);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "job: 2 ranks initialised"));
    assert_null(strstr(r->out, "NCCL INFO"));
    assert_null(strstr(r->err, "NCCL INFO"));
    json_error_t je;
    json_t *j = json_load_file(report, 0, &je);
    assert_non_null(j);
    return j;
}

static void run_nccl_log_with_the_simulated_nccl(void **state)
{
    (void)state;
    tool_result r;
    json_t *j = run_sim_nccl("net-ib-no-peermem.json", NULL, &r);
    json_t *mod = finding(j, "net.gdr_module"), *log = finding(j, "nccl_log.gdr_off");
    assert_string_equal(sev(mod), "warning");
    assert_non_null(strstr(json_string_value(json_object_get(log, "title")), "mlx5_0"));
    json_t *causes = json_object_get(j, "causes");
    assert_int_equal(json_array_size(causes), 1);
    assert_int_equal(json_array_size(json_object_get(json_array_get(causes, 0), "symptoms")), 1);
    json_t *nets = json_object_get(json_object_get(j, "nccl_log"), "networks");
    assert_string_equal(json_string_value(json_array_get(nets, 0)), "ib");
    /* NCCL's start on the job's timeline: when its log appeared, seconds into the window. */
    json_t *started = json_object_get(json_object_get(j, "nccl_log"), "started_s");
    assert_true(json_is_number(started) && json_number_value(started) >= 0);
    json_decref(j);
    tool_result_free(&r);
    /* A healthy InfiniBand node: NCCL on IB with GPUDirect, nothing to say. */
    j = run_sim_nccl("net-ib-h100x8-healthy.json", NULL, &r);
    assert_int_equal(json_array_size(json_object_get(j, "findings")), 0);
    nets = json_object_get(json_object_get(j, "nccl_log"), "networks");
    assert_string_equal(json_string_value(json_array_get(nets, 0)), "ib");
    json_decref(j);
    tool_result_free(&r);
    /* NCCL_SOCKET_IFNAME=lo: NCCL bootstraps on the loopback, as its log says; one cause, the variable. */
    j = run_sim_nccl("net-ib-h100x8-healthy.json", "NCCL_SOCKET_IFNAME=lo", &r);
    assert_string_equal(sev(finding(j, "env.nccl_socket_ifname")), "warning");
    assert_string_equal(sev(finding(j, "nccl_log.bad_iface")), "warning");
    causes = json_object_get(j, "causes");
    assert_int_equal(json_array_size(causes), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(causes, 0), "id")), "env.nccl_socket_ifname");
    json_decref(j);
    tool_result_free(&r);
}

/* A job that ends before the first scan of /proc is judged on the environment run started it with. */
static void run_judges_a_short_jobs_environment(void **state)
{
    (void)state;
    const char *const with[] = {"NO_COLOR=", "NCCL_P2P_DISABLE=1", NULL};
    tool_result r =
        run_tool((const char *[]){"run", "--json", "--sim", example("h100x8-idle.json"), "--", "true", NULL}, with);
    assert_int_equal(r.exit_code, 0);
    json_t *j = json_loads(strchr(r.out, '{'), 0, NULL);
    assert_non_null(j);
    assert_string_equal(sev(finding(j, "env.nccl_p2p_disabled")), "warning");
    json_decref(j);
    tool_result_free(&r);
}

/* The job's environment says how NCCL logs: left alone, nothing read, stderr says so. */
static void run_nccl_log_leaves_the_jobs_setting(void **state)
{
    (void)state;
    const char *script = write_file("job2.sh", job, sizeof job - 1, 0755);
    static const char *const env_warn[] = {"NO_COLOR=", "NCCL_DEBUG=WARN", "NCCL_DEBUG_FILE=", NULL};
    tool_result r = run_tool(
        (const char *[]){"run", "--json", "--nccl-log", "--sim", example("h100x8-idle.json"), "--", script, NULL},
        env_warn);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "job: no NCCL_DEBUG_FILE (NCCL_DEBUG=WARN)"));
    assert_non_null(strstr(r.err, "NCCL_DEBUG=WARN"));
    tool_result_free(&r);
}

/* Without --nccl-log, run sets nothing. */
static void run_without_the_flag_sets_nothing(void **state)
{
    (void)state;
    const char *script = write_file("job3.sh", job, sizeof job - 1, 0755);
    tool_result r =
        run_tool((const char *[]){"run", "--json", "--sim", example("h100x8-idle.json"), "--", script, NULL}, env);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "job: no NCCL_DEBUG_FILE (NCCL_DEBUG=)"));
    assert_null(strstr(r.out, "\"nccl_log\""));
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(per_node_files_join_one_log),
        cmocka_unit_test(beside_an_smi_capture),
        cmocka_unit_test(text_report),
        cmocka_unit_test(bad_input_exits_3),
        cmocka_unit_test(run_nccl_log_reads_the_jobs_log),
        cmocka_unit_test(run_nccl_log_with_the_simulated_nccl),
        cmocka_unit_test(run_judges_a_short_jobs_environment),
        cmocka_unit_test(run_nccl_log_leaves_the_jobs_setting),
        cmocka_unit_test(run_without_the_flag_sets_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
