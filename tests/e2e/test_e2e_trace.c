/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: gpudoctor trace on small traces it is given here (the command
 * line, --json's shape, --rank, --steps, a directory of ranks) and on bad
 * input (exit 3 with a message, never a crash).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const env[] = {"NO_COLOR=", NULL};

#define STEP(n, ts)                                                                                                    \
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#" #n "\",\"ts\":" #ts ",\"dur\":100}"
#define LAUNCH(ts, corr)                                                                                               \
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":" #ts                                 \
    ",\"dur\":5,\"args\":{\"correlation\":" #corr "}}"
#define KERNEL(ts, dur, corr)                                                                                          \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"ts\":" #ts ",\"dur\":" #dur                                  \
    ",\"args\":{\"stream\":7,\"correlation\":" #corr "}}"

static char *trace_of_rank(int rank, int kernel_us)
{
    char *t = malloc(4096);
    snprintf(
        t, 4096,
        "{\"distributedInfo\":{\"rank\":%d},\"traceEvents\":[" STEP(1, 0) "," STEP(2, 100) "," STEP(3, 200) "," LAUNCH(
            0, 1) ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"ts\":10,\"dur\":%d,"
                  "\"args\":{\"stream\":7,\"correlation\":1}}," LAUNCH(100, 2) "," KERNEL(110, 80, 2) "]}",
        rank, kernel_us);
    return t;
}

static void json_has_the_contract_shape(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char *t = trace_of_rank(0, 80);
    char *path = write_temp_file(dir, "rank0.json", t);
    const char *argv[] = {"trace", path, "--json", NULL};
    tool_result r = run_tool(argv, env);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(r.json);
    json_t *tr = json_object_get(r.json, "trace");
    assert_int_equal(json_integer_value(json_object_get(tr, "files")), 1);
    assert_int_equal(json_integer_value(json_object_get(tr, "ranks")), 1);
    assert_true(json_integer_value(json_object_get(tr, "events")) == 7);
    json_t *rk = json_array_get(json_object_get(r.json, "ranks"), 0);
    assert_int_equal(json_integer_value(json_object_get(rk, "rank")), 0);
    assert_int_equal(json_integer_value(json_object_get(rk, "steps")), 2);
    json_t *tp = json_object_get(rk, "temporal");
    static const char *const keys[] = {"idle_us",  "compute_us",  "non_compute_us",
                                       "idle_pct", "compute_pct", "non_compute_pct"};
    for (size_t i = 0; i < 6; i++)
        assert_true(json_is_number(json_object_get(tp, keys[i])));
    /* 10..90 and 110..190: span 180, idle 20. */
    assert_int_equal(json_integer_value(json_object_get(tp, "idle_us")), 20);
    json_t *s = json_array_get(json_object_get(rk, "streams"), 0);
    assert_int_equal(json_integer_value(json_object_get(s, "stream")), 7);
    assert_int_equal(json_integer_value(json_object_get(s, "idle_us")), 20);
    assert_int_equal(json_integer_value(json_object_get(s, "host_wait_us")), 20);
    assert_int_equal(json_integer_value(json_object_get(s, "kernel_wait_us")), 0);
    assert_int_equal(json_integer_value(json_object_get(s, "other_us")), 0);
    assert_true(json_is_number(json_object_get(rk, "dataloader_pct")));
    assert_true(json_is_array(json_object_get(r.json, "findings")));
    tool_result_free(&r);
    const char *argv2[] = {"trace", path, "--steps", "2:2", "--json", NULL};
    r = run_tool(argv2, env);
    assert_int_equal(r.exit_code, 0);
    rk = json_array_get(json_object_get(r.json, "ranks"), 0);
    assert_int_equal(json_integer_value(json_object_get(rk, "steps")), 1);
    tool_result_free(&r);
    const char *argv3[] = {"trace", path, NULL};
    r = run_tool(argv3, env);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "Verdict"));
    assert_non_null(strstr(r.out, "#1 "));
    tool_result_free(&r);
    free(t);
    free(path);
    remove_tree(dir);
    free(dir);
}

static void a_directory_is_one_rank_per_file(void **state)
{
    (void)state;
    char *dir = temp_dir();
    for (int k = 0; k < 4; k++) {
        char name[32];
        snprintf(name, sizeof name, "rank-%d.json", k);
        /* rank 2: the GPU idles 40 % of the step time, the others 15 % */
        char *t = trace_of_rank(k, k == 2 ? 40 : 90);
        free(write_temp_file(dir, name, t));
        free(t);
    }
    free(write_temp_file(dir, "notes.txt", "not a trace"));
    const char *argv[] = {"trace", dir, "--json", NULL};
    tool_result r = run_tool(argv, env);
    assert_int_equal(r.exit_code, 0);
    json_t *ranks = json_object_get(r.json, "ranks");
    assert_int_equal(json_array_size(ranks), 4);
    for (size_t k = 0; k < 4; k++)
        assert_int_equal(json_integer_value(json_object_get(json_array_get(ranks, k), "rank")), (json_int_t)k);
    assert_int_equal(count_findings(r.json, "trace.gpu_idle", -2), 1);
    tool_result_free(&r);
    const char *argv2[] = {"trace", dir, "--rank", "2", "--json", NULL};
    r = run_tool(argv2, env);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(json_array_size(json_object_get(r.json, "ranks")), 1);
    tool_result_free(&r);
    const char *argv3[] = {"trace", dir, "--rank", "9", NULL};
    r = run_tool(argv3, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "no rank 9"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* gpudoctor trace on a file holding `content` exits 3 and says `says`. */
static void refused(const char *dir, const char *name, const char *content, const char *says)
{
    char *path = write_temp_file(dir, name, content);
    const char *argv[] = {"trace", path, NULL};
    tool_result r = run_tool(argv, env);
    if (r.exit_code != 3 || !strstr(r.err, says))
        fail_msg("%s: exit %d, stderr %s", name, r.exit_code, r.err);
    tool_result_free(&r);
    free(path);
}

static void bad_input_exits_3_with_a_message(void **state)
{
    (void)state;
    char *dir = temp_dir();
    refused(dir, "text.json", "this is not json", "not a Chrome trace");
    refused(dir, "empty.json", "", "empty");
    refused(dir, "number.json", "{\"traceEvents\":[{\"ts\":1} 2]}", "expected ','");
    refused(dir, "broken.json.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage-garbage", "gzip");
    static const char *const usage_errors[][5] = {
        {"trace", "/nonexistent/trace.json", NULL},
        {"trace", NULL},
        {"trace", "/tmp", "--steps", "5:2", NULL},
    };
    for (size_t i = 0; i < 3; i++) {
        tool_result r = run_tool(usage_errors[i], env);
        assert_int_equal(r.exit_code, 3);
        tool_result_free(&r);
    }
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_has_the_contract_shape),
        cmocka_unit_test(a_directory_is_one_rank_per_file),
        cmocka_unit_test(bad_input_exits_3_with_a_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
