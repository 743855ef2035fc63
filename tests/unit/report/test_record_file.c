/* SPDX-License-Identifier: Apache-2.0 */
/* The recording's file (src/report/record_file.c): whole lines, plain or
 * gzip; on a regular file, the samples past the newest kept ones folded into
 * buckets, the lines that are not samples kept as they are. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report/record_file.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static void put(gd_record_file *w, const char *line, double t, gd_record_line kind)
{
    char err[300];
    if (gd_record_file_put(w, line, strlen(line), t, kind, err, sizeof err) != 0)
        fail_msg("put: %s", err);
}

/* The file's lines (inflated where gzip), one string each. */
static json_t *lines_of(const char *path)
{
    gzFile gz = gzopen(path, "rb");
    assert_non_null(gz);
    json_t *lines = json_array();
    char buf[65536];
    while (gzgets(gz, buf, sizeof buf)) {
        size_t n = strlen(buf);
        assert_true(n > 0 && buf[n - 1] == '\n'); /* whole lines only */
        buf[n - 1] = '\0';
        json_array_append_new(lines, json_string(buf));
    }
    gzclose(gz);
    return lines;
}

/* 200 samples a second apart, a health line at 5 s and at 150 s, the newest
 * 20 samples kept, buckets of 10 s: the recording's name always holds a
 * whole one, its old samples folded, its health lines all there. */
static void old_samples_are_folded(const char *name)
{
    char dir[] = "/tmp/gd_record_file_XXXXXX", path[256], err[300];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gd_record_file *w = gd_record_file_open(path, NULL, NULL, err, sizeof err);
    assert_non_null(w);
    put(w, "{\"gpudoctor_recording\":1}", 0, GD_RECORD_KEEP);
    gd_record_file_thin(w, 20, 10);
    for (int t = 0; t < 200; t++) {
        char line[128];
        snprintf(line, sizeof line, "{\"t\":%d,\"gpus\":[[%d,\"not_supported:3\"]]}", t, t % 7);
        put(w, line, t, GD_RECORD_SAMPLE);
        if (t == 5 || t == 150) {
            snprintf(line, sizeof line, "{\"t\":%d,\"health\":{\"events\":[]}}", t);
            put(w, line, t, GD_RECORD_KEEP);
        }
    }
    put(w, "{\"end\":{}}", 199, GD_RECORD_KEEP);
    assert_int_equal(gd_record_file_close(w, err, sizeof err), 0);
    json_t *lines = lines_of(path);
    size_t n = json_array_size(lines), buckets = 0, samples = 0, health = 0, folded = 0;
    assert_string_equal(json_string_value(json_array_get(lines, 0)), "{\"gpudoctor_recording\":1}");
    assert_string_equal(json_string_value(json_array_get(lines, n - 1)), "{\"end\":{}}");
    double last_t = -1;
    for (size_t i = 1; i + 1 < n; i++) {
        json_t *j = json_loads(json_string_value(json_array_get(lines, i)), 0, NULL);
        assert_non_null(j);
        if (json_object_get(j, "samples")) {
            buckets++;
            folded += (size_t)json_integer_value(json_object_get(j, "samples"));
            assert_true(json_number_value(json_object_get(j, "t_end")) - json_number_value(json_object_get(j, "t")) <
                        10);
            assert_int_equal(samples, 0); /* every bucket before the samples kept whole */
        } else if (json_object_get(j, "health")) {
            health++;
        } else {
            samples++;
            assert_true(json_number_value(json_object_get(j, "t")) > last_t);
            last_t = json_number_value(json_object_get(j, "t"));
        }
        json_decref(j);
    }
    assert_int_equal(health, 2);
    assert_int_equal(folded + samples, 200);
    assert_true(buckets >= 10);
    assert_true(samples >= 20 && samples <= 20 + 10 + 10); /* the kept ones, up to a bucket's start, and those since */
    assert_true(last_t == 199);
    json_decref(lines);
    /* No file of the rewrite is left beside it. */
    char cmd[300];
    snprintf(cmd, sizeof cmd, "test $(ls %s | wc -l) -eq 1", dir);
    assert_int_equal(system(cmd), 0);
    unlink(path);
    rmdir(dir);
}

static void old_samples_are_folded_plain(void **state)
{
    (void)state;
    old_samples_are_folded("r.jsonl");
}

static void old_samples_are_folded_compressed(void **state)
{
    (void)state;
    old_samples_are_folded("r.jsonl.gz");
}

/* A FIFO is streamed whole (its reader sees every line; nothing to rename). */
static void a_fifo_is_never_thinned(void **state)
{
    (void)state;
    char dir[] = "/tmp/gd_record_file_XXXXXX", path[256], err[300];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_null(gd_record_file_open(path, NULL, NULL, err, sizeof err)); /* nobody reads it */
    assert_non_null(strstr(err, "a FIFO nobody reads"));
    FILE *reader = fopen(path, "r+"); /* a reader (r+: opening does not wait) */
    assert_non_null(reader);
    gd_record_file *w = gd_record_file_open(path, NULL, NULL, err, sizeof err);
    assert_non_null(w);
    gd_record_file_thin(w, 2, 1);
    for (int t = 0; t < 10; t++)
        put(w, "{\"t\":1,\"gpus\":[]}", t, GD_RECORD_SAMPLE);
    assert_int_equal(gd_record_file_close(w, err, sizeof err), 0);
    char line[64];
    int got = 0;
    while (got < 10 && fgets(line, sizeof line, reader))
        got++;
    assert_int_equal(got, 10);
    fclose(reader);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(old_samples_are_folded_plain),
        cmocka_unit_test(old_samples_are_folded_compressed),
        cmocka_unit_test(a_fifo_is_never_thinned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
