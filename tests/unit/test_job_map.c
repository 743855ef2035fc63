/* SPDX-License-Identifier: Apache-2.0 */
/* The job-mapping directory: file names, job ids, a directory of hostile files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sources/host/job_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void names(void **state)
{
    (void)state;
    int g, i;
    assert_true(gd_job_map_name("3", &g, &i));
    assert_int_equal(g, 3);
    assert_int_equal(i, -1);
    assert_true(gd_job_map_name("12.5", &g, &i));
    assert_int_equal(g, 12);
    assert_int_equal(i, 5);
    const char *bad[] = {"", ".", "3.", ".5", "a", "3a", "3.x", ".lock", "3~", "-1", "99999", "1.2.3", "3 "};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        assert_false(gd_job_map_name(bad[k], &g, &i));
}

static void ids(void **state)
{
    (void)state;
    gd_gpu_jobs j;
    assert_int_equal(gd_job_map_ids("42\n", &j), 1);
    assert_string_equal(j.id[0], "42");
    /* Blanks, CR, comments, spaces around, duplicates, hostile text. */
    assert_int_equal(gd_job_map_ids("  43 \r\n\n# a comment\n43\n44_1.x\nbad id\n\"q\"\n", &j), 2);
    assert_string_equal(j.id[0], "43");
    assert_string_equal(j.id[1], "44_1.x");
    assert_int_equal(gd_job_map_ids("", &j), 0);
    assert_int_equal(gd_job_map_ids("0123456789012345678901234567890123\n", &j), 0); /* 34 characters: too long */
    char many[400] = "";
    for (int k = 0; k < 20; k++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%d\n", 100 + k);
    assert_int_equal(gd_job_map_ids(many, &j), GD_MAX_GPU_JOBS);
    assert_string_equal(j.id[GD_MAX_GPU_JOBS - 1], "107");
    assert_int_equal(gd_job_map_ids("no newline at the end\n55", &j), 1);
    assert_string_equal(j.id[0], "55");
}

static void directory(void **state)
{
    (void)state;
    char dir[] = "/tmp/gd-job-map-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    const char *files[][2] = {
        {"3", "42\n43\n"}, {"0.5", "77\n"}, {"1", "\n# none\n"}, {"notes", "9\n"}, {".3.tmp", "8\n"}};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k][0]);
        FILE *fp = fopen(path, "w");
        assert_non_null(fp);
        fputs(files[k][1], fp);
        fclose(fp);
    }
    snprintf(path, sizeof path, "%s/2", dir);
    assert_int_equal(mkfifo(path, 0600), 0); /* a FIFO nobody writes: skipped, no hang */
    snprintf(path, sizeof path, "%s/4", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    gd_gpu_jobs *v;
    size_t n;
    char err[256];
    const gd_job_map_want want[] = {{0, -1}, {0, 5}, {1, -1}, {2, -1}, {3, -1}, {4, -1}, {5, -1}};
    assert_int_equal(gd_job_map_read(dir, want, 7, &v, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(v[0].gpu, 0);
    assert_int_equal(v[0].gpu_instance, 5);
    assert_string_equal(v[0].id[0], "77");
    assert_int_equal(v[1].gpu, 3);
    assert_int_equal(v[1].n, 2);
    free(v);
    const char *rm[] = {"3", "0.5", "1", "notes", ".3.tmp", "2"};
    for (size_t k = 0; k < sizeof rm / sizeof rm[0]; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, rm[k]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/4", dir);
    rmdir(path);
    rmdir(dir);
    assert_int_equal(gd_job_map_read(dir, want, 7, &v, &n, err, sizeof err), -1);
    assert_null(v);
    assert_non_null(strstr(err, "No such file"));
}

/* Files 0-7 among 3000 other numeric names: every GPU gets its jobs
 * whatever the directory's order (a scan of the first 512 names found 1). */
static void many_other_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/gd-job-map-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    for (int k = 0; k < 3008; k++) {
        snprintf(path, sizeof path, "%s/%d", dir, k < 8 ? k : 1000 + k);
        FILE *fp = fopen(path, "w");
        assert_non_null(fp);
        fprintf(fp, "job%d\n", k);
        fclose(fp);
    }
    gd_job_map_want want[8];
    for (int g = 0; g < 8; g++)
        want[g] = (gd_job_map_want){g, -1};
    gd_gpu_jobs *v;
    size_t n;
    char err[256];
    assert_int_equal(gd_job_map_read(dir, want, 8, &v, &n, err, sizeof err), 0);
    assert_int_equal(n, 8);
    for (int g = 0; g < 8; g++) {
        char id[16];
        snprintf(id, sizeof id, "job%d", g);
        assert_int_equal(v[g].gpu, g);
        assert_string_equal(v[g].id[0], id);
    }
    free(v);
    for (int k = 0; k < 3008; k++) {
        snprintf(path, sizeof path, "%s/%d", dir, k < 8 ? k : 1000 + k);
        unlink(path);
    }
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names),
        cmocka_unit_test(ids),
        cmocka_unit_test(directory),
        cmocka_unit_test(many_other_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
