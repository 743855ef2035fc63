/* SPDX-License-Identifier: Apache-2.0 */
/* Thinning a recording's older samples (src/report/record_thin.c): a bucket
 * keeps each value's minimum, maximum and mean, a status where no number
 * came, every lost GPU and the job's newest summary. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report/record_thin.h"

#include <string.h>

static void add(gd_thin *b, const char *line)
{
    json_t *j = json_loads(line, 0, NULL);
    assert_non_null(j);
    assert_int_equal(gd_thin_add(b, j), 0);
    json_decref(j);
}

static double at(const json_t *line, const char *side, size_t gpu, size_t col)
{
    return json_number_value(
        json_array_get(json_array_get(json_object_get(json_object_get(line, side), "gpus"), gpu), col));
}

static void a_bucket_keeps_min_max_and_mean(void **state)
{
    (void)state;
    gd_thin *b = gd_thin_new();
    assert_null(gd_thin_take(b)); /* empty: no line */
    add(b, "{\"t\":60,\"gpus\":[[60,\"not_supported:3\",null],[70,1,2]],\"job\":{\"t\":60,\"job_cores\":1.5},"
           "\"host\":[{\"t\":60,\"busy\":0.2},{\"t\":61,\"busy\":0.4}]}");
    add(b, "{\"t\":61,\"gpus\":[[64,\"not_supported:3\",null],[71,3,2]],\"job\":{\"t\":61,\"job_cores\":2.5},"
           "\"lost\":[{\"gpu\":1,\"at_s\":61,\"call\":\"x\",\"code\":15}],\"job_summary\":{\"procs_seen\":1}}");
    add(b, "{\"t\":62,\"gpus\":[[62,\"not_supported:3\",null],[\"gpu_lost\",\"gpu_lost\",\"gpu_lost\"]],"
           "\"job_summary\":{\"procs_seen\":2}}");
    assert_int_equal(gd_thin_samples(b), 3);
    json_t *line = gd_thin_take(b);
    assert_non_null(line);
    assert_int_equal(gd_thin_samples(b), 0); /* taken: empty again */
    assert_int_equal(json_integer_value(json_object_get(line, "samples")), 3);
    assert_float_equal(json_number_value(json_object_get(line, "t")), 60, 1e-12);
    assert_float_equal(json_number_value(json_object_get(line, "t_end")), 62, 1e-12);
    assert_float_equal(at(line, "min", 0, 0), 60, 1e-12);
    assert_float_equal(at(line, "max", 0, 0), 64, 1e-12);
    assert_float_equal(at(line, "mean", 0, 0), 62, 1e-12);
    /* A lost GPU's statuses do not count as numbers. */
    assert_float_equal(at(line, "mean", 1, 0), 70.5, 1e-12);
    assert_float_equal(at(line, "max", 1, 1), 3, 1e-12);
    /* No number ever: its status, or null. */
    json_t *status = json_array_get(json_array_get(json_object_get(json_object_get(line, "mean"), "gpus"), 0), 1);
    assert_string_equal(json_string_value(status), "not_supported:3");
    assert_true(
        json_is_null(json_array_get(json_array_get(json_object_get(json_object_get(line, "min"), "gpus"), 0), 2)));
    /* The job's and the host's samples by name. */
    json_t *mean = json_object_get(line, "mean");
    assert_float_equal(json_number_value(json_object_get(json_object_get(mean, "job"), "job_cores")), 2.0, 1e-12);
    assert_float_equal(json_number_value(json_object_get(json_object_get(mean, "host"), "busy")), 0.3, 1e-12);
    /* Never thinned: the lost GPU, the newest summary. */
    assert_int_equal(json_array_size(json_object_get(line, "lost")), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(line, "job_summary"), "procs_seen")), 2);
    json_decref(line);
    gd_thin_free(b);
}

static void a_line_that_is_no_sample_is_refused(void **state)
{
    (void)state;
    gd_thin *b = gd_thin_new();
    json_t *j = json_loads("{\"t\":1,\"health\":{}}", 0, NULL);
    assert_int_equal(gd_thin_add(b, j), -1);
    assert_int_equal(gd_thin_samples(b), 0);
    json_decref(j);
    gd_thin_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_bucket_keeps_min_max_and_mean),
        cmocka_unit_test(a_line_that_is_no_sample_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
