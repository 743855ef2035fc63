/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: inputs read once, bounded, without hanging. --from - and
 * pipes (a command's output, process substitution), FIFOs with and without
 * a writer, directories; a kernel log that cannot be read is "not
 * checked"; one larger than the cap keeps its newest part.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DMESG GD_FIXTURES_DIR "/kernel-log/dmesg.txt"

static const char *const env[] = {"NO_COLOR=", "GPUDOCTOR_SIM_TIMESCALE=", NULL};

/* Runs a shell command line (gpudoctor is $GD), returns its stdout parsed, and its exit code. */
static json_t *shell_json(const char *cmd, int *exit_code)
{
    char line[4096];
    snprintf(line, sizeof line, "GD='%s'; export GD; timeout 60 bash -c '%s'", GD_BINARY, cmd);
    FILE *p = popen(line, "r");
    assert_non_null(p);
    size_t cap = 1 << 20, n = 0;
    char *out = malloc(cap + 1);
    while (n < cap) {
        size_t r = fread(out + n, 1, cap - n, p);
        if (r == 0)
            break;
        n += r;
    }
    out[n] = '\0';
    int st = pclose(p);
    *exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    json_t *j = json_loads(out, 0, NULL);
    free(out);
    return j;
}

/* The kernel log the health group says it read, or NULL. */
static const char *kernel_log_of(json_t *report)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(report, "checked"), i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "group")), "health") == 0)
            return json_string_value(json_object_get(c, "kernel_log"));
    }
    return NULL;
}

static void stdin_and_pipes_are_read_once(void **state)
{
    (void)state;
    int rc;
    json_t *j = shell_json("cat " DMESG " | \"$GD\" check --json --from -", &rc);
    assert_non_null(j);
    assert_int_equal(rc, 2); /* the log's Xid 79 and 48 */
    assert_int_equal(count_findings(j, "health.xid", -2), 4); /* one per address: no GPU list to merge them on */
    assert_non_null(kernel_log_of(j));
    json_decref(j);
    j = shell_json("\"$GD\" check --json --from <(cat " DMESG ")", &rc);
    assert_non_null(j);
    assert_int_equal(rc, 2);
    assert_int_equal(count_findings(j, "health.xid", -2), 4); /* one per address: no GPU list to merge them on */
    json_decref(j);
    /* /dev/stdin as a pipe works too. */
    j = shell_json("cat " DMESG " | \"$GD\" check --json --from /dev/stdin", &rc);
    assert_non_null(j);
    assert_int_equal(count_findings(j, "health.xid", -2), 4); /* one per address: no GPU list to merge them on */
    json_decref(j);
    /* Standard input twice cannot be: the JSON error object, no report. */
    j = shell_json("cat " DMESG " | \"$GD\" check --json --from - --from - 2>/dev/null", &rc);
    assert_non_null(json_string_value(json_object_get(j, "error")));
    assert_null(json_object_get(j, "findings"));
    json_decref(j);
    assert_int_equal(rc, 3);
}

static void fifos_never_hang(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/log.fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    /* No writer: an empty input, exit 3 at once. */
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", fifo, NULL}, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "empty"));
    tool_result_free(&r);
    /* A writer: read once, judged. */
    pid_t child = fork();
    if (child == 0) {
        int in = open(DMESG, O_RDONLY), out = open(fifo, O_WRONLY);
        char buf[4096];
        ssize_t n;
        while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
            if (write(out, buf, (size_t)n) != n)
                break;
        _exit(0);
    }
    usleep(100000); /* the writer opens first, as a producing command would */
    r = run_tool((const char *[]){"check", "--json", "--from", fifo, NULL}, env);
    waitpid(child, NULL, 0);
    assert_non_null(r.json);
    assert_int_equal(count_findings(r.json, "health.xid", -2), 4); /* one per address: no GPU list to merge them on */
    tool_result_free(&r);
    /* A directory is no capture. */
    r = run_tool((const char *[]){"check", "--from", dir, NULL}, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "a directory"));
    tool_result_free(&r);
    /* A scenario must be a regular file; a FIFO is refused, not waited on. */
    r = run_tool((const char *[]){"check", "--sim", fifo, NULL}, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "regular file"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

#define SCENARIO(log)                                                                                                  \
    "{\"host\": {\"kernel_log\": \"" log "\"}, \"gpus\": [{\"name\": \"G\", \"pci_bus_id\": \"00000000:18:00.0\","     \
    "\"timeline\": [{\"t\": 0, \"temp_c\": 50, \"util_gpu_pct\": 0}]}]}"

static bool xid_not_checked(json_t *report, const char *why)
{
    size_t i;
    json_t *k;
    json_array_foreach(json_object_get(report, "not_checked"), i, k)
    {
        const char *reason = json_string_value(json_object_get(k, "reason"));
        if (strcmp(json_string_value(json_object_get(k, "check")), "health.xid") == 0 && reason && strstr(reason, why))
            return true;
    }
    return false;
}

/* A log that cannot be read is not a clean log. */
static void unreadable_kernel_log_is_not_checked(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char sub[512];
    snprintf(sub, sizeof sub, "%s/logdir", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(sub, sizeof sub, "%s/log.fifo", dir);
    assert_int_equal(mkfifo(sub, 0600), 0);
    static const char *const docs[][2] = {{"dir.json", SCENARIO("logdir")}, {"fifo.json", SCENARIO("log.fifo")}};
    for (size_t i = 0; i < 2; i++) {
        char *path = write_temp_file(dir, docs[i][0], docs[i][1]);
        tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "0", "--sim", path, NULL}, env);
        if (!r.json)
            fail_msg("%s: no JSON, exit %d: %s", docs[i][0], r.exit_code, r.err);
        assert_true(xid_not_checked(r.json, "cannot read the kernel log"));
        assert_null(kernel_log_of(r.json));
        tool_result_free(&r);
        free(path);
    }
    remove_tree(dir);
    free(dir);
}

/* A log over the 64 MiB cap: its newest part is read, its oldest dropped. */
static void long_kernel_log_keeps_its_newest_part(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char log[512];
    snprintf(log, sizeof log, "%s/big.log", dir);
    static const char old[] = "[    1.000000] NVRM: Xid (PCI:0000:18:00): 13, Graphics Exception\n";
    static const char new[] = "\n[99999.000000] NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.\n";
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, old, sizeof old - 1), (ssize_t)(sizeof old - 1));
    off_t end = 70LL << 20;
    assert_int_equal(pwrite(fd, new, sizeof new - 1, end), (ssize_t)(sizeof new - 1));
    close(fd);
    char *path = write_temp_file(dir, "big.json", SCENARIO("big.log"));
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "0", "--sim", path, NULL}, env);
    assert_non_null(r.json);
    char *dump = json_dumps(json_object_get(r.json, "findings"), 0);
    assert_non_null(strstr(dump, "\"xid\": 79"));
    assert_null(strstr(dump, "\"xid\": 13"));
    free(dump);
    assert_non_null(strstr(kernel_log_of(r.json), "newest 64 MiB"));
    tool_result_free(&r);
    free(path);
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stdin_and_pipes_are_read_once),
        cmocka_unit_test(fifos_never_hang),
        cmocka_unit_test(unreadable_kernel_log_is_not_checked),
        cmocka_unit_test(long_kernel_log_keeps_its_newest_part),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
