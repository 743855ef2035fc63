/* SPDX-License-Identifier: Apache-2.0 */
/* The small /proc readers (src/sources/host/hostinfo.c): /proc/stat's cpu
 * line, and a file read again and again: kept open on procfs (pread), read
 * afresh elsewhere, so a fixture tree whose file is replaced gives the new
 * text. */
#include "sources/host/hostinfo.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static void cpu_times_from_the_first_line(void **state)
{
    (void)state;
    gd_cpu_times t;
    assert_true(gd_cpu_times_parse("cpu  100 0 50 800 30 0 20 0 0 0\ncpu0 1 2 3 4 5\n", &t));
    assert_float_equal(t.total, 1000, 1e-9);
    assert_float_equal(t.iowait, 30, 1e-9);
    assert_float_equal(t.busy, 170, 1e-9);
    assert_false(gd_cpu_times_parse("intr 1 2 3\n", &t));
    assert_false(gd_cpu_times_parse("cpu 1 2 3\n", &t));
}

static void a_fixture_file_replaced_is_read_anew(void **state)
{
    (void)state;
    char dir[] = "/tmp/gd-hostinfo-XXXXXX", path[64], tmp[64], buf[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/vmstat", dir);
    snprintf(tmp, sizeof tmp, "%s/vmstat.new", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("pswpin 1\n", f);
    fclose(f);
    gd_proc_file pf;
    gd_proc_file_init(&pf, dir, "vmstat");
    assert_true(gd_proc_file_read(&pf, buf, sizeof buf) > 0);
    assert_string_equal(buf, "pswpin 1\n");
    assert_int_equal(pf.fd, -1); /* not procfs: not kept */
    f = fopen(tmp, "w");
    assert_non_null(f);
    fputs("pswpin 2\n", f);
    fclose(f);
    assert_int_equal(rename(tmp, path), 0);
    assert_true(gd_proc_file_read(&pf, buf, sizeof buf) > 0);
    assert_string_equal(buf, "pswpin 2\n");
    unlink(path);
    assert_int_equal(gd_proc_file_read(&pf, buf, sizeof buf), -1);
    gd_proc_file_close(&pf);
    rmdir(dir);
}

static void procfs_is_kept_open(void **state)
{
    (void)state;
    if (access("/proc/self/stat", R_OK) != 0)
        skip();
    gd_proc_file pf;
    char buf[4096];
    gd_proc_file_init(&pf, "/proc", "stat");
    assert_true(gd_proc_file_read(&pf, buf, sizeof buf) > 0);
    assert_true(pf.fd >= 0);
    gd_cpu_times a, b;
    assert_true(gd_cpu_times_parse(buf, &a));
    assert_true(gd_proc_file_read(&pf, buf, sizeof buf) > 0); /* made afresh by pread */
    assert_true(gd_cpu_times_parse(buf, &b));
    assert_true(b.total >= a.total);
    gd_proc_file_close(&pf);
    assert_int_equal(pf.fd, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_times_from_the_first_line),
        cmocka_unit_test(a_fixture_file_replaced_is_read_anew),
        cmocka_unit_test(procfs_is_kept_open),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
