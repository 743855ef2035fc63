/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: gpudoctor trace on TensorFlow's Chrome traces, the layouts of
 * docs/trace.md ("What it reads") as tests/fixtures/trace-tf writes them:
 * TF1's Timeline with stream:all and memcpy devices, the same with
 * per-stream devices (which repeat stream:all's kernels) and a second GPU,
 * and the TensorBoard profile plugin's trace.json (plain and .gz). The
 * numbers are worked out by hand from the fixtures.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TF GD_FIXTURES_DIR "/trace-tf/"

static const char *const env[] = {"NO_COLOR=", NULL};

static json_t *rank0(const tool_result *r)
{
    return json_array_get(json_object_get(r->json, "ranks"), 0);
}

static double num(json_t *o, const char *a, const char *b)
{
    json_t *x = json_object_get(o, a);
    return json_number_value(b ? json_object_get(x, b) : x);
}

static json_t *stream(json_t *rk, long id)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(rk, "streams"), i,
                       s) if (json_integer_value(json_object_get(s, "stream")) == id) return s;
    fail_msg("no stream %ld", id);
    return NULL;
}

static const char *top_compute(json_t *rk, size_t i)
{
    json_t *t = json_array_get(json_object_get(json_object_get(json_object_get(rk, "kernels"), "compute"), "top"), i);
    return json_string_value(json_object_get(t, "name"));
}

/* stream:all holds MatMul 1030-1430, Relu 1440-1490, Conv2D 1600-1800; memcpy 900-1000 (HtoD).
 * The executor's ops (the job's GPU:0 and CPU:0 devices) are host rows. */
static void tf1_timeline_with_stream_all(void **state)
{
    (void)state;
    const char *argv[] = {"trace", TF "tf1_timeline.json", "--json", NULL};
    tool_result r = run_tool(argv, env);
    assert_int_equal(r.exit_code, 0);
    json_t *rk = rank0(&r);
    assert_string_equal(json_string_value(json_object_get(rk, "format")), "tf_timeline");
    assert_int_equal(json_integer_value(json_object_get(rk, "tf_gpu")), 0);
    assert_int_equal(json_integer_value(json_object_get(rk, "gpu_events")), 4);
    assert_int_equal(num(rk, "temporal", "span_us"), 900);
    assert_int_equal(num(rk, "temporal", "idle_us"), 150);
    assert_int_equal(num(rk, "temporal", "compute_us"), 650);
    json_t *all = stream(rk, 1000000);
    assert_int_equal(json_number_value(json_object_get(all, "kernel_wait_us")), 10);
    assert_int_equal(json_number_value(json_object_get(all, "other_us")), 110);
    assert_int_equal(json_number_value(json_object_get(stream(rk, 1000001), "idle_us")), 0);
    assert_string_equal(top_compute(rk, 0), "MatMul");
    assert_int_equal(num(json_object_get(rk, "kernels"), "memory", "total_us"), 100);
    tool_result_free(&r);
}

/* Per-stream devices: stream:all and memcpy repeat them and are left out; GPU:1 is counted apart. */
static void tf1_timeline_with_streams_and_two_gpus(void **state)
{
    (void)state;
    const char *argv[] = {"trace", TF "tf1_timeline_streams.json", "--json", NULL};
    tool_result r = run_tool(argv, env);
    assert_int_equal(r.exit_code, 0);
    json_t *rk = rank0(&r);
    assert_int_equal(json_integer_value(json_object_get(rk, "gpu_events")), 4);
    assert_int_equal(json_integer_value(json_object_get(rk, "tf_other_gpu_events")), 1);
    assert_int_equal(num(rk, "temporal", "span_us"), 240);
    assert_int_equal(num(rk, "temporal", "idle_us"), 50);
    assert_int_equal(json_array_size(json_object_get(rk, "streams")), 2);
    json_t *s7 = stream(rk, 7); /* MatMul, BiasAdd and the HtoD copy of stream:7<MemcpyHtoD> */
    assert_int_equal(json_integer_value(json_object_get(s7, "events")), 3);
    assert_int_equal(json_number_value(json_object_get(s7, "other_us")), 50);
    assert_int_equal(num(json_object_get(rk, "copies"), "other", "count"), 1);
    /* Idle 20.8 %: with no launches in the trace, the cause is not made up. */
    json_t *f = json_array_get(json_object_get(r.json, "findings"), 0);
    assert_string_equal(json_string_value(json_object_get(f, "id")), "trace.gpu_idle");
    assert_non_null(
        strstr(json_string_value(json_object_get(json_object_get(f, "evidence"), "cause")), "not in the trace"));
    tool_result_free(&r);
}

/* TensorBoard: the Stream lines of /device:GPU:0 and its Steps line; TensorFlow Ops and XLA Ops
 * repeat the kernels' time and are left out. Steps 1 and 2 are kept (the last is left out). */
static void tensorboard_profile_trace(void **state)
{
    (void)state;
    static const char *const files[] = {TF "tf_profile_trace.json", TF "trace.json.gz"};
    for (size_t i = 0; i < 2; i++) {
        const char *argv[] = {"trace", files[i], "--json", NULL};
        tool_result r = run_tool(argv, env);
        assert_int_equal(r.exit_code, 0);
        json_t *rk = rank0(&r);
        assert_string_equal(json_string_value(json_object_get(rk, "format")), "tf_profile");
        assert_int_equal(json_integer_value(json_object_get(rk, "steps")), 2);
        assert_int_equal(json_integer_value(json_object_get(rk, "gpu_events")), 6);
        assert_int_equal(num(rk, "temporal", "span_us"), 1900);
        assert_int_equal(num(rk, "temporal", "idle_us"), 300);
        assert_int_equal(num(rk, "temporal", "compute_us"), 1200);
        assert_int_equal(json_number_value(json_object_get(stream(rk, 14), "other_us")), 600);
        assert_string_equal(top_compute(rk, 0), "volta_sgemm_128x64_nn");
        json_t *st = json_array_get(json_object_get(rk, "per_step"), 1);
        assert_int_equal(json_integer_value(json_object_get(st, "step")), 2);
        assert_int_equal(json_number_value(json_object_get(st, "idle_us")), 100);
        /* 100 + 300 us of copies in 2000 us of steps, nothing computing beside them. */
        assert_int_equal(num(rk, "step_copies", "exposed_us"), 400);
        assert_int_equal(count_findings(r.json, "trace.step_memcpy", -2), 1);
        tool_result_free(&r);
    }
}

/* gpudoctor trace --json on a trace given here (written to a temporary file, removed after). */
static tool_result run_json(const char *name, const char *trace)
{
    char *dir = temp_dir();
    char *path = write_temp_file(dir, name, trace);
    const char *argv[] = {"trace", path, "--json", NULL};
    tool_result r = run_tool(argv, env);
    assert_int_equal(r.exit_code, 0);
    free(path);
    remove_tree(dir);
    free(dir);
    return r;
}

/* The names may come after the events (a file put together by hand): the same result. */
static void metadata_after_the_events(void **state)
{
    (void)state;
    const char *t = "{\"traceEvents\":["
                    "{\"ph\":\"X\",\"pid\":4,\"tid\":2,\"ts\":10,\"dur\":30,\"name\":\"sgemm\"},"
                    "{\"ph\":\"X\",\"pid\":4,\"tid\":2,\"ts\":60,\"dur\":40,\"name\":\"sgemm\"},"
                    "{\"ph\":\"X\",\"pid\":4,\"tid\":9,\"ts\":0,\"dur\":100,\"name\":\"fusion\"},"
                    "{\"ph\":\"M\",\"pid\":4,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"Stream #2\"}},"
                    "{\"ph\":\"M\",\"pid\":4,\"name\":\"process_name\",\"args\":{\"name\":\"/device:GPU:0\"}}]}";
    tool_result r = run_json("late.json", t);
    json_t *rk = rank0(&r);
    assert_int_equal(json_integer_value(json_object_get(rk, "gpu_events")), 2);
    assert_int_equal(num(rk, "temporal", "idle_us"), 20);
    tool_result_free(&r);
}

/* Not TensorFlow: processes named otherwise leave a Kineto trace as it was. */
static void kineto_names_are_not_taken_for_tensorflow(void **state)
{
    (void)state;
    const char *t = "{\"traceEvents\":["
                    "{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"python\"}},"
                    "{\"ph\":\"M\",\"pid\":0,\"tid\":7,\"name\":\"thread_name\",\"args\":{\"name\":\"stream 7\"}},"
                    "{\"ph\":\"X\",\"cat\":\"overhead\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":5,\"name\":\"x\"},"
                    "{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":5,\"name\":\"k\","
                    "\"args\":{\"stream\":7}}]}";
    tool_result r = run_json("kineto.json", t);
    json_t *rk = rank0(&r);
    assert_string_equal(json_string_value(json_object_get(rk, "format")), "kineto");
    assert_null(json_object_get(rk, "tf_gpu"));
    assert_int_equal(json_integer_value(json_object_get(rk, "gpu_events")), 1);
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tf1_timeline_with_stream_all),
        cmocka_unit_test(tf1_timeline_with_streams_and_two_gpus),
        cmocka_unit_test(tensorboard_profile_trace),
        cmocka_unit_test(metadata_after_the_events),
        cmocka_unit_test(kineto_names_are_not_taken_for_tensorflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
