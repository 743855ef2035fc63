/* SPDX-License-Identifier: Apache-2.0 */
/* core/input: one bounded read, no blocking open, errors are errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sources/stack/stack_internal.h"
#include "core/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/gd-input-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *path_of(const char *name)
{
    static char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

/* A FIFO nobody writes: a file-only open refuses it at once, never blocks. */
static void fifo_is_refused_where_a_file_is_needed(void **state)
{
    (void)state;
    const char *fifo = path_of("fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    char err[256];
    assert_int_equal(gd_input_open(fifo, GD_INPUT_FILE, err, sizeof err), -1);
    assert_non_null(strstr(err, "a FIFO or pipe; a regular file is needed here"));
    size_t len;
    assert_null(gd_stack_read_file(fifo, 1024, &len)); /* files under GPUDOCTOR_ROOT, /proc */
    assert_null(gd_input_fopen(fifo)); /* sysfs attributes */
    /* Where streams are welcome, a FIFO without a writer reads as empty at once. */
    char *buf = gd_input_read(fifo, GD_INPUT_STREAM, 1024, &len, err, sizeof err);
    assert_non_null(buf);
    assert_int_equal(len, 0);
    free(buf);
}

static void directory_and_special_files_are_errors(void **state)
{
    (void)state;
    char err[256];
    size_t len;
    assert_null(gd_input_read(dir, GD_INPUT_STREAM, 1024, &len, err, sizeof err));
    assert_non_null(strstr(err, "a directory"));
    errno = 0;
    assert_null(gd_stack_read_file(dir, 1024, &len)); /* a directory is not an empty file */
    assert_int_equal(errno, EISDIR);
    assert_null(gd_input_read("/dev/null", GD_INPUT_FILE, 1024, &len, err, sizeof err));
    assert_non_null(strstr(err, "a character device"));
    assert_null(gd_input_read(path_of("none"), GD_INPUT_FILE, 1024, &len, err, sizeof err));
    assert_non_null(strstr(err, "No such file"));
}

/* A 1 GiB sparse file is refused from its size, before a byte is read. */
static void oversized_input_is_refused(void **state)
{
    (void)state;
    const char *big = path_of("big");
    int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 1LL << 30), 0);
    close(fd);
    char err[256];
    size_t len;
    assert_null(gd_input_read(big, GD_INPUT_STREAM, 1u << 20, &len, err, sizeof err));
    assert_non_null(strstr(err, "larger than 1 MiB"));
    /* Exactly the limit is fine. */
    fd = open(big, O_WRONLY | O_TRUNC);
    assert_int_equal(ftruncate(fd, 1u << 20), 0);
    close(fd);
    char *buf = gd_input_read(big, GD_INPUT_FILE, 1u << 20, &len, err, sizeof err);
    assert_non_null(buf);
    assert_int_equal(len, 1u << 20);
    free(buf);
}

/* A pipe is read once, to its end, whatever its pace. */
static void pipe_is_read_once(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t child = fork();
    if (child == 0) {
        close(p[0]);
        for (int i = 0; i < 3; i++) {
            if (write(p[1], "line\n", 5) != 5)
                _exit(1);
            usleep(20000);
        }
        _exit(0);
    }
    close(p[1]);
    char name[64], err[256];
    snprintf(name, sizeof name, "/proc/self/fd/%d", p[0]);
    size_t len;
    char *buf = gd_input_read(name, GD_INPUT_STREAM, 1024, &len, err, sizeof err);
    close(p[0]);
    waitpid(child, NULL, 0);
    assert_non_null(buf);
    assert_string_equal(buf, "line\nline\nline\n");
    free(buf);
}

/* Over the cap, a log keeps its newest lines, from a line start. */
static void tail_keeps_the_newest_lines(void **state)
{
    (void)state;
    const char *log = path_of("log");
    FILE *fp = fopen(log, "w");
    assert_non_null(fp);
    for (int i = 0; i < 1000; i++)
        fprintf(fp, "line %04d\n", i);
    fclose(fp);
    char err[256];
    size_t len;
    bool cut;
    char *buf = gd_input_read_tail(log, 1000, &len, &cut, err, sizeof err);
    assert_non_null(buf);
    assert_true(cut);
    assert_true(strncmp(buf, "line 09", 7) == 0);
    assert_non_null(strstr(buf, "line 0999\n"));
    assert_true(len <= 1000);
    free(buf);
    buf = gd_input_read_tail(log, 1u << 20, &len, &cut, err, sizeof err);
    assert_false(cut);
    assert_true(strncmp(buf, "line 0000", 9) == 0);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fifo_is_refused_where_a_file_is_needed),
        cmocka_unit_test(directory_and_special_files_are_errors),
        cmocka_unit_test(oversized_input_is_refused),
        cmocka_unit_test(pipe_is_read_once),
        cmocka_unit_test(tail_keeps_the_newest_lines),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
