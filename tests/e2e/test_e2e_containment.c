/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: a simulated or captured machine is described by its scenario
 * or capture alone, never by this machine (host facts, software under
 * GPUDOCTOR_ROOT), and inputs that cannot work are refused with a reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const plain[] = {"NO_COLOR=", "GPUDOCTOR_ROOT=", "VIRTUAL_ENV=", "CONDA_PREFIX=", NULL};

/* The training example with its "host" object replaced by `host` (JSON),
 * written into dir. Returns the path (caller frees). */
static char *scenario_with_host(const char *dir, const char *host)
{
    json_t *sc = json_load_file(example("h100x8-training.json"), 0, NULL);
    assert_non_null(sc);
    json_t *h = json_loads(host, 0, NULL);
    assert_non_null(h);
    json_object_set_new(sc, "host", h);
    char *text = json_dumps(sc, 0);
    char *path = write_temp_file(dir, "scenario.json", text);
    free(text);
    json_decref(sc);
    return path;
}

static json_t *host_of(const tool_result *r)
{
    if (!r->json)
        fail_msg("no JSON (exit %d): %s", r->exit_code, r->err);
    return json_object_get(r->json, "host");
}

/* Every host fact of the report is null (unknown), none this machine's. */
static void assert_host_unknown(const tool_result *r, const char *what)
{
    static const char *const keys[] = {"hostname", "kernel", "cpus", "numa_nodes"};
    json_t *h = host_of(r);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!json_is_null(json_object_get(h, keys[i])))
            fail_msg("%s: host.%s is not null", what, keys[i]);
}

/* Under --sim the host facts are the scenario's (host.hostname, host.kernel,
 * host.cpus, host.numa_nodes) or unknown: never this machine's. */
static void simulated_host_facts_come_from_the_scenario(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char *bare = scenario_with_host(dir, "{}");
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "0", "--sim", bare, NULL}, plain);
    assert_host_unknown(&r, "a scenario without host facts");
    json_t *h;
    tool_result_free(&r);
    r = run_tool((const char *[]){"info", "--sim", bare, NULL}, plain);
    assert_int_equal(r.exit_code, 0);
    if (!strstr(r.out, "Host        unknown, kernel unknown, CPUs unknown\n"))
        fail_msg("info under a bare scenario: %s", r.out);
    tool_result_free(&r);
    free(bare);

    char *named = scenario_with_host(
        dir, "{\"hostname\": \"gpu-node-17\", \"kernel\": \"5.15.0-105-generic\", \"cpus\": 224, \"numa_nodes\": 2}");
    r = run_tool((const char *[]){"check", "--json", "--duration", "0", "--sim", named, NULL}, plain);
    h = host_of(&r);
    assert_string_equal(json_string_value(json_object_get(h, "hostname")), "gpu-node-17");
    assert_string_equal(json_string_value(json_object_get(h, "kernel")), "5.15.0-105-generic");
    assert_int_equal(json_integer_value(json_object_get(h, "cpus")), 224);
    assert_int_equal(json_integer_value(json_object_get(h, "numa_nodes")), 2);
    tool_result_free(&r);
    r = run_tool((const char *[]){"info", "--sim", named, NULL}, plain);
    if (!strstr(r.out, "Host        gpu-node-17, kernel 5.15.0-105-generic, 224 CPUs, 2 NUMA nodes\n"))
        fail_msg("info: %s", r.out);
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--duration", "0", "--sim", named, NULL}, plain);
    assert_non_null(strstr(r.out, "host gpu-node-17, "));
    tool_result_free(&r);
    /* A wrong type is a scenario error. */
    char *bad = scenario_with_host(dir, "{\"cpus\": \"many\"}");
    r = run_tool((const char *[]){"info", "--sim", bad, NULL}, plain);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "host.cpus"));
    tool_result_free(&r);
    free(named);
    free(bad);
    remove_tree(dir);
    free(dir);
}

/* Under --from the host facts are the capture's (a query-gpu CSV may carry
 * the hostname), else null: kernel and CPUs are never this machine's. */
static void captured_host_facts_come_from_the_capture(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char *dmon = write_temp_file(dir, "dmon.txt",
                                 "# gpu    pwr  gtemp  mtemp     sm    mem\n# Idx      W      C      C      %      %\n"
                                 "    0    631     63     57    100     10\n");
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", dmon, NULL}, plain);
    assert_host_unknown(&r, "a dmon capture");
    json_t *h;
    tool_result_free(&r);
    char *csv = write_temp_file(dir, "query.csv",
                                "timestamp, hostname, name, index, temperature.gpu [C]\n"
                                "2024/01/01 00:00:00.000, gpu-node-17, NVIDIA H100 80GB HBM3, 0, 40\n");
    r = run_tool((const char *[]){"check", "--json", "--from", csv, NULL}, plain);
    h = host_of(&r);
    assert_string_equal(json_string_value(json_object_get(h, "hostname")), "gpu-node-17");
    assert_true(json_is_null(json_object_get(h, "kernel")));
    assert_true(json_is_null(json_object_get(h, "cpus")));
    tool_result_free(&r);
    free(dmon);
    free(csv);
    remove_tree(dir);
    free(dir);
}

/* The system toolkits of the stack group, as the JSON report lists them. */
static json_t *runtimes(const tool_result *r)
{
    if (!r->json)
        fail_msg("no JSON (exit %d): %s", r->exit_code, r->err);
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(r->json, "checked"), i,
                       g) if (strcmp(json_string_value(json_object_get(g, "group")), "stack") ==
                              0) return json_object_get(g, "runtimes");
    fail_msg("no stack group in checked");
    return NULL;
}

static tool_result check_under_root(const char *root, const char *python)
{
    char envroot[1100];
    snprintf(envroot, sizeof envroot, "GPUDOCTOR_ROOT=%s", root);
    const char *const env[] = {"NO_COLOR=", envroot, "VIRTUAL_ENV=", "CONDA_PREFIX=", "LD_LIBRARY_PATH=", NULL};
    const char *argv[] = {
        "check", "--json", "--duration", "0", "--sim", example("h100x8-training.json"), python ? "--python" : NULL,
        python,  NULL};
    return run_tool(argv, env);
}

static void link_at(const char *root, const char *rel, const char *target)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    char parent[2048];
    snprintf(parent, sizeof parent, "%s", path);
    *strrchr(parent, '/') = '\0';
    make_dirs(parent);
    assert_int_equal(symlink(target, path), 0);
}

/* CUDA images link /usr/local/cuda to /etc/alternatives/cuda: under
 * GPUDOCTOR_ROOT that is the root's /etc, not this machine's, and no link
 * leads out of the root. */
static void links_under_the_root_resolve_inside_it(void **state)
{
    (void)state;
    static const char version[] = "{\"cuda\": {\"version\": \"12.4.1\"}}";
    /* As the images do it: the toolkit beside the link. */
    char *root = temp_dir();
    put_file(root, "usr/local/cuda-12.4/version.json", version, strlen(version));
    link_at(root, "usr/local/cuda", "/etc/alternatives/cuda");
    link_at(root, "etc/alternatives/cuda", "/usr/local/cuda-12.4");
    tool_result r = check_under_root(root, NULL);
    json_t *rts = runtimes(&r);
    assert_int_equal(json_array_size(rts), 1); /* cuda and cuda-12.4 are one toolkit */
    char want[1200];
    snprintf(want, sizeof want, "%s/usr/local/cuda-12.4", root);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rts, 0), "path")), want);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rts, 0), "cuda")), "12.4.1");
    tool_result_free(&r);

    /* The toolkit only reachable through the links (/opt): found in the root. */
    char *root2 = temp_dir();
    put_file(root2, "opt/nvidia/toolkit-12.4/version.json", version, strlen(version));
    link_at(root2, "usr/local/cuda", "/etc/alternatives/cuda");
    link_at(root2, "etc/alternatives/cuda", "/opt/nvidia/../nvidia/./toolkit-12.4");
    /* Links that would leave the root: "..", an absolute "/", a loop. */
    link_at(root2, "usr/local/cuda-up", "../../../../../../../../../../usr/local/cuda-12.4");
    link_at(root2, "usr/local/cuda-slash", "/");
    link_at(root2, "usr/local/cuda-loop", "/usr/local/cuda-loop");
    r = check_under_root(root2, NULL);
    rts = runtimes(&r);
    char *dump = json_dumps(rts, 0);
    if (json_array_size(rts) != 1)
        fail_msg("runtimes under %s: %s", root2, dump);
    snprintf(want, sizeof want, "%s/opt/nvidia/toolkit-12.4", root2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rts, 0), "path")), want);
    free(dump);
    tool_result_free(&r);
    remove_tree(root);
    remove_tree(root2);
    free(root);
    free(root2);
}

/* A root that does not exist, or is a file, reads nothing: exit 3 saying so. */
static void a_root_that_is_not_a_directory_exits_3(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char *file = write_temp_file(dir, "file", "x");
    char missing[1100];
    snprintf(missing, sizeof missing, "%s/missing", dir);
    const char *roots[] = {missing, file};
    for (size_t i = 0; i < 2; i++) {
        tool_result r = check_under_root(roots[i], NULL);
        if (r.exit_code != 3 || !strstr(r.err, "GPUDOCTOR_ROOT") || !strstr(r.err, roots[i]))
            fail_msg("GPUDOCTOR_ROOT=%s: exit %d, %s", roots[i], r.exit_code, r.err);
        tool_result_free(&r);
    }
    free(file);
    remove_tree(dir);
    free(dir);
}

/* The simulated driver reads the scenario again by its path: a pipe cannot
 * serve, and the refusal says why (not "No such file or directory"). */
static void sim_from_a_pipe_is_refused_with_the_reason(void **state)
{
    (void)state;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cat '%s' | '%s' info --sim /dev/stdin 2>&1 >/dev/null; echo \"exit $?\"",
             example("h100x8-training.json"), GD_BINARY);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[4096] = "";
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    pclose(p);
    if (!strstr(out, "exit 3") || !strstr(out, "regular file") || strstr(out, "No such file"))
        fail_msg("--sim /dev/stdin from a pipe: %s", out);
    /* A scenario redirected from a file is a file. */
    snprintf(cmd, sizeof cmd, "'%s' info --sim /dev/stdin < '%s' >/dev/null 2>&1; echo \"exit $?\"", GD_BINARY,
             example("h100x8-training.json"));
    p = popen(cmd, "r");
    assert_non_null(p);
    n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    pclose(p);
    assert_non_null(strstr(out, "exit 0"));
}

/* "nvidia_cuda_runtime_cu12.dist-info-" is no wheel: nothing is read from
 * it, while a real dist-info beside it still counts. */
static void a_malformed_dist_info_name_is_no_runtime(void **state)
{
    (void)state;
    char *py = temp_dir(), *root = temp_dir(); /* an empty root: no other Python */
    char path[1200];
    snprintf(path, sizeof path, "%s/lib/python3.11/site-packages/nvidia_cuda_runtime_cu12.dist-info-", py);
    make_dirs(path);
    snprintf(path, sizeof path, "%s/lib/python3.11/site-packages/nvidia_cuda_runtime_cu12-.dist-info", py);
    make_dirs(path);
    tool_result r = check_under_root(root, py);
    json_t *rts = runtimes(&r);
    size_t i;
    json_t *rt;
    json_array_foreach(rts, i, rt) if (strcmp(json_string_value(json_object_get(rt, "kind")), "wheel") == 0)
        fail_msg("a wheel from a malformed name: %s", json_dumps(rt, 0));
    tool_result_free(&r);
    snprintf(path, sizeof path, "%s/lib/python3.11/site-packages/nvidia_cuda_runtime_cu12-12.4.127.dist-info", py);
    make_dirs(path);
    r = check_under_root(root, py);
    rts = runtimes(&r);
    size_t wheels = 0;
    json_array_foreach(rts, i, rt) if (strcmp(json_string_value(json_object_get(rt, "kind")), "wheel") == 0)
    {
        wheels++;
        assert_string_equal(json_string_value(json_object_get(rt, "cuda")), "12.4.127");
    }
    assert_int_equal(wheels, 1);
    tool_result_free(&r);
    remove_tree(py);
    remove_tree(root);
    free(py);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(simulated_host_facts_come_from_the_scenario),
        cmocka_unit_test(captured_host_facts_come_from_the_capture),
        cmocka_unit_test(links_under_the_root_resolve_inside_it),
        cmocka_unit_test(a_root_that_is_not_a_directory_exits_3),
        cmocka_unit_test(sim_from_a_pipe_is_refused_with_the_reason),
        cmocka_unit_test(a_malformed_dist_info_name_is_no_runtime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
