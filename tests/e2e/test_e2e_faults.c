/* End to end: faults from outside. Stop signals at every moment of a run
 * (before the handler, while the report is written, twice), --report over
 * what is not a regular file. Nothing here times the machine: each step
 * waits for an event (bytes on a pipe, a handler in place). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const env[] = {"NO_COLOR=", "GPUDOCTOR_SIM_TIMESCALE=", NULL};

/* The exit code that a report's summary implies (contract section 3). */
static int exit_code_of(json_t *report)
{
    json_t *sum = json_object_get(report, "summary");
    if (json_integer_value(json_object_get(sum, "critical")) > 0)
        return 2;
    return json_integer_value(json_object_get(sum, "warning")) > 0 ? 1 : 0;
}

/* Starts gpudoctor with sig already pending and blocked, as a signal sent
 * before gpudoctor could install a handler is (a launcher that holds its
 * signals blocked across exec delivers it the moment they are unblocked). */
static tool_proc start_with_pending(const char *const *argv, int sig)
{
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_BLOCK, &set, &old);
    /* The child inherits the mask; the signal is raised in it before exec. */
    tool_proc p = {.pid = -1};
    int out[2], err[2];
    assert_int_equal(pipe(out), 0);
    assert_int_equal(pipe(err), 0);
    p.pid = fork();
    if (p.pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(out[0]);
        close(err[0]);
        hermetic_environment();
        unsetenv("GPUDOCTOR_SIM_TIMESCALE");
        setenv("NO_COLOR", "1", 1);
        kill(getpid(), sig);
        size_t n = 0;
        while (argv[n])
            n++;
        char **args = calloc(n + 2, sizeof *args);
        args[0] = (char *)GD_BINARY;
        for (size_t i = 0; i < n; i++)
            args[i + 1] = (char *)argv[i];
        execv(GD_BINARY, args);
        _exit(127);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(out[1]);
    close(err[1]);
    p.out = out[0];
    p.err = err[0];
    return p;
}

/* A SIGTERM that comes before gpudoctor handles it still ends the window
 * with a whole report: the window is cut at its first sample. */
static void a_stop_before_the_handler_still_gives_the_report(void **state)
{
    (void)state;
    const char *const argv[] = {"check", "--json", "--duration", "60", "--sim", example("h100x8-training.json"), NULL};
    tool_proc p = start_with_pending(argv, SIGTERM);
    tool_result r = run_tool_wait(&p);
    if (!r.json)
        fail_msg("no JSON report (exit %d); stderr: %s", r.exit_code, r.err);
    assert_int_equal(r.exit_code, exit_code_of(r.json));
    json_int_t samples = json_integer_value(json_object_get(json_object_get(r.json, "window"), "samples"));
    if (samples > 2)
        fail_msg("the signal did not end the window: %lld samples of 601", (long long)samples);
    tool_result_free(&r);
}

static bool holds_page(const char *path);

/* Waits (at most 120 s) until fd has bytes to read. */
static void wait_readable(int fd, const char *what)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    if (poll(&pfd, 1, 120 * 1000) != 1)
        fail_msg("%s: no output within 120 s", what);
}

/*
 * gpudoctor writes its report into a pipe of one page that nobody reads
 * yet, so it is blocked in the middle of the report; two stop signals come
 * (timeout, Slurm, systemd and a double Ctrl-C all send two); then the
 * pipe is read. The report arrives whole and the exit code is its own.
 */
static tool_result stopped_twice_while_writing(const char *const *argv, const char *what)
{
    tool_proc p = run_tool_start(argv, env, NULL);
    fcntl(p.out, F_SETPIPE_SZ, 4096);
    wait_readable(p.out, what);
    assert_int_equal(kill(p.pid, SIGTERM), 0);
    usleep(20 * 1000);
    assert_int_equal(kill(p.pid, SIGTERM), 0);
    usleep(20 * 1000);
    kill(p.pid, SIGINT);
    return run_tool_wait(&p);
}

static void two_signals_during_the_report_do_not_lose_it(void **state)
{
    (void)state;
    const char *scenario = example("h100x8-training.json");
    const char *const check_json[] = {"check", "--json", "--duration", "0", "--sim", scenario, NULL};
    tool_result r = stopped_twice_while_writing(check_json, "check --json");
    if (!r.json)
        fail_msg("check --json: no whole report (exit %d, %zu bytes); stderr: %s", r.exit_code, strlen(r.out), r.err);
    assert_true(strlen(r.out) > 3 * 4096); /* more than the pipe and stdio's buffer: it was blocked */
    assert_int_equal(r.exit_code, exit_code_of(r.json));
    tool_result_free(&r);

    const char *const check_text[] = {"check", "--duration", "0", "--sim", scenario, NULL};
    r = stopped_twice_while_writing(check_text, "check");
    if (r.exit_code < 0 || r.exit_code > 2 || !strstr(r.out, "Verdict"))
        fail_msg("check: exit %d, %zu bytes of report; stderr: %s", r.exit_code, strlen(r.out), r.err);
    tool_result_free(&r);

    /* watch: the samples go on until the stop; the recording gets its end line. */
    char *dir = temp_dir();
    char rec[1100];
    snprintf(rec, sizeof rec, "%s/watch.jsonl", dir);
    const char *const watch[] = {"watch",  "--format", "jsonl",  "--count", "100000000", "--interval", "100",
                                 "--sim", scenario,    "--record", rec,     NULL};
    r = stopped_twice_while_writing(watch, "watch");
    if (r.exit_code != 0)
        fail_msg("watch: exit %d; stderr: %s", r.exit_code, r.err);
    tool_result_free(&r);
    FILE *f = fopen(rec, "r");
    assert_non_null(f);
    char line[1 << 16], last[1 << 16] = "";
    while (fgets(line, sizeof line, f))
        snprintf(last, sizeof last, "%s", line);
    fclose(f);
    json_t *end = json_loads(last, 0, NULL);
    if (!json_object_get(end, "end"))
        fail_msg("watch: the recording's last line is not its end: %.200s", last);
    json_decref(end);
    remove_tree(dir);
    free(dir);
}

/* Ctrl-C in the middle of a 300-second stress run (paced at wall speed)
 * gives the report and the page of what ran. */
static void bench_stress_stopped_keeps_its_report_and_page(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char page[1100];
    snprintf(page, sizeof page, "%s/stress.html", dir);
    static const char *const paced[] = {"GPUDOCTOR_SIM_TIMESCALE=1", "NO_COLOR=", NULL};
    tool_proc p = run_tool_start((const char *[]){"bench", "stress", "--seconds", "300", "--json", "--report", page,
                                                  "--sim", example("bench-h100x8-stress-heats.json"), NULL},
                                 paced, NULL);
    wait_readable(p.err, "bench stress"); /* "bench stress: bf16 GEMM on every GPU for 300 s..." */
    assert_int_equal(kill(p.pid, SIGINT), 0);
    tool_result r = run_tool_wait(&p);
    if (!r.json || r.exit_code != 0)
        fail_msg("bench stress stopped: exit %d, no JSON report; stderr: %s", r.exit_code, r.err);
    assert_true(holds_page(page));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* A child that reads the FIFO at fifo to its end into the file at copy. */
static pid_t fifo_reader(const char *fifo, const char *copy)
{
    pid_t pid = fork();
    if (pid == 0) {
        int in = open(fifo, O_RDONLY), out = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        char buf[8192];
        ssize_t n;
        while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
            if (write(out, buf, (size_t)n) != n)
                _exit(1);
        _exit(in >= 0 && out >= 0 ? 0 : 1);
    }
    return pid;
}

/* Reaps pid within 60 s, or kills it: whether it ended by itself with 0. */
static bool reaped(pid_t pid)
{
    int status;
    for (int i = 0; i < 6000; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) && WEXITSTATUS(status) == 0;
        usleep(10 * 1000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return false;
}

static bool holds_page(const char *path)
{
    FILE *f = fopen(path, "r");
    char head[64] = "";
    if (f) {
        if (!fgets(head, sizeof head, f))
            head[0] = 0;
        fclose(f);
    }
    return strncmp(head, "<!doctype html", 14) == 0;
}

/* --report PATH replaces only a regular file (or a new name): a symbolic
 * link stays a link (its file gets the page), a FIFO stays a FIFO (its
 * reader gets the page), a device is written in place; a directory or a
 * socket is refused with the reason. */
static void report_replaces_only_regular_files(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char link[1100], target[1100], fifo[1100], copy[1100], devlink[1100], sock[1100];
    snprintf(target, sizeof target, "%s/page.html", dir);
    snprintf(link, sizeof link, "%s/latest.html", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo.html", dir);
    snprintf(copy, sizeof copy, "%s/copy.html", dir);
    snprintf(devlink, sizeof devlink, "%s/null.html", dir);
    snprintf(sock, sizeof sock, "%s/sock", dir);
    const char *scenario = example("h100x8-training.json");
    struct stat st;

    /* A link to a regular file: the file is replaced, the link stays. */
    put_file(dir, "page.html", "old", 3);
    assert_int_equal(symlink("page.html", link), 0);
    tool_result r = run_tool((const char *[]){"check", "--duration", "0", "--sim", scenario, "--report", link, NULL}, env);
    if (r.exit_code < 0 || r.exit_code > 2)
        fail_msg("--report LINK: exit %d: %s", r.exit_code, r.err);
    tool_result_free(&r);
    assert_int_equal(lstat(link, &st), 0);
    if (!S_ISLNK(st.st_mode))
        fail_msg("--report LINK replaced the link by a file");
    assert_true(holds_page(target));

    /* A FIFO: written in place, its reader gets the page. */
    assert_int_equal(mkfifo(fifo, 0644), 0);
    pid_t reader = fifo_reader(fifo, copy);
    r = run_tool((const char *[]){"check", "--duration", "0", "--sim", scenario, "--report", fifo, NULL}, env);
    bool read_whole = reaped(reader);
    if (r.exit_code < 0 || r.exit_code > 2)
        fail_msg("--report FIFO: exit %d: %s", r.exit_code, r.err);
    tool_result_free(&r);
    assert_int_equal(lstat(fifo, &st), 0);
    if (!S_ISFIFO(st.st_mode))
        fail_msg("--report FIFO replaced the FIFO by a file");
    assert_true(read_whole);
    assert_true(holds_page(copy));

    /* A link to /dev/null: the device takes the page (as root a rename
     * would replace the device node itself). */
    assert_int_equal(symlink("/dev/null", devlink), 0);
    r = run_tool((const char *[]){"check", "--duration", "0", "--sim", scenario, "--report", devlink, NULL}, env);
    if (r.exit_code < 0 || r.exit_code > 2)
        fail_msg("--report LINK-TO-/dev/null: exit %d: %s", r.exit_code, r.err);
    tool_result_free(&r);
    assert_int_equal(lstat(devlink, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));

    /* A socket and a directory: refused before the window, with the reason. */
    pid_t binder = fork();
    if (binder == 0) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        if (strlen(sock) >= sizeof sa.sun_path)
            _exit(1);
        memcpy(sa.sun_path, sock, strlen(sock) + 1);
        _exit(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 ? 0 : 1);
    }
    int bound = reaped(binder);
    const char *refused[][2] = {{sock, "socket"}, {dir, "directory"}};
    for (size_t i = 0; i < 2; i++) {
        if (i == 0 && !bound)
            continue; /* a path too long for a socket's name */
        r = run_tool((const char *[]){"check", "--duration", "0", "--sim", scenario, "--report", refused[i][0], NULL},
                     env);
        if (r.exit_code != 3 || !strstr(r.err, refused[i][1]))
            fail_msg("--report %s: exit %d: %s", refused[i][1], r.exit_code, r.err);
        tool_result_free(&r);
    }
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_stop_before_the_handler_still_gives_the_report),
        cmocka_unit_test(two_signals_during_the_report_do_not_lose_it),
        cmocka_unit_test(report_replaces_only_regular_files),
        cmocka_unit_test(bench_stress_stopped_keeps_its_report_and_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
