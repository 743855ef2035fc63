/* SPDX-License-Identifier: Apache-2.0 */
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
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

/*
 * Starts gpudoctor as run_tool_start does, and more: with signal `sig`
 * already pending and blocked (0: none), as a signal sent before gpudoctor
 * could install a handler is (a launcher that holds its signals blocked
 * across exec delivers it the moment they are unblocked); with `in` (len
 * bytes, at most a pipe's 64 KiB) on its standard input through a pipe
 * (NULL: the test's own). env: "NAME=VALUE" entries ("NAME=": unset).
 */
/* run_tool_start_with: signal sig pending (0: none), `in` on stdin (NULL: none). */
static tool_proc spawn(const char *const *argv, const char *const *extra, int sig, const void *in, size_t len)
{
    tool_spawn how = {.pending_signal = sig, .stdin_data = in, .stdin_len = len};
    return run_tool_start_with(argv, extra, NULL, &how);
}

static tool_proc start_with_pending(const char *const *argv, int sig)
{
    return spawn(argv, env, sig, NULL, 0);
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

/* A watchdog: kills the child that is still running after `seconds`. */
typedef struct watchdog {
    pid_t pid;
    int seconds;
    volatile int done, fired;
    pthread_t thread;
} watchdog;

static void *watch_child(void *arg)
{
    watchdog *w = arg;
    for (int i = 0; i < w->seconds * 10 && !w->done; i++)
        usleep(100 * 1000);
    if (!w->done) {
        w->fired = 1;
        kill(w->pid, SIGKILL);
    }
    return NULL;
}

/* run_tool_wait, but a gpudoctor that hangs is killed after `seconds`
 * (far beyond what the case needs on a loaded machine) and the test fails. */
static tool_result wait_bounded(tool_proc *p, int seconds, const char *what)
{
    watchdog w = {.pid = p->pid, .seconds = seconds};
    assert_int_equal(pthread_create(&w.thread, NULL, watch_child, &w), 0);
    tool_result r = run_tool_wait(p);
    w.done = 1;
    pthread_join(w.thread, NULL);
    if (w.fired)
        fail_msg("%s: still running after %d s (it hangs)", what, seconds);
    return r;
}

static tool_result run_bounded(const char *const *argv, const char *const *extra, const char *what)
{
    tool_proc p = spawn(argv, extra, 0, NULL, 0);
    return wait_bounded(&p, 60, what);
}

/* Every file gpudoctor opens goes through the bounded, non-blocking reader:
 * a FIFO nobody writes, /dev/zero, a FIFO named like a library in a scanned
 * environment is refused or passed by, never waited on for ever. */
static void nothing_it_opens_can_hang_it(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char fifo[1100];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    const char *scenario = example("h100x8-training.json");
    static const struct {
        const char *argv[10];
        const char *says;
    } refused[] = {
        {{"check", "--duration", "0", "--config", "@FIFO", "--sim", "@SIM", NULL}, "FIFO"},
        {{"check", "--duration", "0", "--config", "/dev/zero", "--sim", "@SIM", NULL}, "character device"},
        {{"vram", "--config", "@FIFO", "--gpu-memory", "80G", NULL}, "FIFO"},
        {{"check", "--duration", "0", "--record", "@FIFO", "--sim", "@SIM", NULL}, "FIFO nobody reads"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const char *argv[10];
        for (size_t k = 0; k < 10; k++) {
            const char *a = refused[i].argv[k];
            argv[k] = a && strcmp(a, "@FIFO") == 0 ? fifo : a && strcmp(a, "@SIM") == 0 ? scenario : a;
        }
        char what[3 * 4096 + 8]; /* three arguments, each a path at most */
        snprintf(what, sizeof what, "%s %s %s", argv[0], argv[1], argv[2]);
        tool_result r = run_bounded(argv, env, what);
        if (r.exit_code != 3 || !strstr(r.err, refused[i].says))
            fail_msg("%s: exit %d, stderr: %s", what, r.exit_code, r.err);
        tool_result_free(&r);
    }
    /* trace of a FIFO nobody writes: an empty trace, said at once. */
    tool_result r = run_bounded((const char *[]){"trace", fifo, NULL}, env, "trace FIFO");
    assert_int_equal(r.exit_code, 3);
    tool_result_free(&r);

    /* A FIFO named torch/lib/libtorch_cuda.so, in --python's environment and
     * in VIRTUAL_ENV's: the check goes on, the library's list unread. */
    char lib[1200], venv[1200];
    put_file(dir, "py/lib/python3.11/site-packages/torch/version.py", "__version__ = '2.1.0+cu121'\ncuda = '12.1'\n",
             strlen("__version__ = '2.1.0+cu121'\ncuda = '12.1'\n"));
    snprintf(lib, sizeof lib, "%s/py/lib/python3.11/site-packages/torch/lib", dir);
    make_dirs(lib);
    strcat(lib, "/libtorch_cuda.so");
    assert_int_equal(mkfifo(lib, 0644), 0);
    snprintf(venv, sizeof venv, "VIRTUAL_ENV=%s/py", dir);
    const char *const with_venv[] = {"NO_COLOR=", "GPUDOCTOR_SIM_TIMESCALE=", venv, NULL};
    r = run_bounded((const char *[]){"check", "--json", "--duration", "0", "--python", venv + 12, "--sim", scenario,
                                     NULL},
                    env, "check --python ENV-WITH-A-FIFO");
    if (!r.json || r.exit_code > 2)
        fail_msg("check --python: exit %d, stderr: %s", r.exit_code, r.err);
    tool_result_free(&r);
    r = run_bounded((const char *[]){"check", "--json", "--duration", "0", "--sim", scenario, NULL}, with_venv,
                    "check with VIRTUAL_ENV holding a FIFO");
    if (!r.json || r.exit_code > 2)
        fail_msg("check, VIRTUAL_ENV: exit %d, stderr: %s", r.exit_code, r.err);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* trace /dev/stdin from a pipe reads every byte: the first two, read to
 * tell gzip from JSON, are not lost. */
static void trace_reads_a_pipe_whole(void **state)
{
    (void)state;
    static const char trace[] =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"ts\":100,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":0,\"dur\":5,"
        "\"args\":{\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"ts\":10,\"dur\":80,"
        "\"args\":{\"stream\":7,\"correlation\":1}}]}";
    tool_proc p = spawn((const char *[]){"trace", "/dev/stdin", "--json", NULL}, env, 0, trace, strlen(trace));
    tool_result r = wait_bounded(&p, 60, "trace /dev/stdin");
    if (r.exit_code != 0 || !r.json)
        fail_msg("trace /dev/stdin (JSON): exit %d, stderr: %s", r.exit_code, r.err);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r.json, "trace"), "events")), 4);
    tool_result_free(&r);
    /* gzip through the pipe too. */
    char gz[2048];
    snprintf(gz, sizeof gz, "%s/trace-tf/trace.json.gz", GD_FIXTURES_DIR);
    FILE *f = fopen(gz, "rb");
    assert_non_null(f);
    char data[65536];
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    tool_result ref = run_tool((const char *[]){"trace", gz, "--json", NULL}, env);
    assert_int_equal(ref.exit_code, 0);
    p = spawn((const char *[]){"trace", "/dev/stdin", "--json", NULL}, env, 0, data, n);
    r = wait_bounded(&p, 60, "trace /dev/stdin (gzip)");
    if (r.exit_code != 0 || !r.json)
        fail_msg("trace /dev/stdin (gzip): exit %d, stderr: %s", r.exit_code, r.err);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r.json, "trace"), "events")),
                     json_integer_value(json_object_get(json_object_get(ref.json, "trace"), "events")));
    tool_result_free(&r);
    tool_result_free(&ref);
}

/* Reads fd until what was read parses as JSON, at most 60 s: the text. */
static char *read_json_from(int fd, const char *what)
{
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap + 1);
    for (int waited = 0; waited < 600;) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, 100) != 1) {
            waited++;
            continue;
        }
        if (len == cap)
            buf = realloc(buf, (cap *= 2) + 1);
        ssize_t n = read(fd, buf + len, cap - len);
        if (n <= 0)
            break;
        len += (size_t)n;
        buf[len] = 0;
        json_t *j = json_loads(buf, 0, NULL);
        if (j) {
            json_decref(j);
            return buf;
        }
    }
    fail_msg("%s: no whole JSON report on stdout within 60 s (%zu bytes)", what, len);
    return NULL;
}

/* run --duration: the report reaches stdout when the watch ends, while
 * COMMAND runs on (it used to wait in stdio's buffer for COMMAND's end, and
 * a SIGKILL in between lost it). --output FILE gives the report a
 * destination of its own, apart from COMMAND's output. */
static void run_report_goes_out_when_the_watch_ends(void **state)
{
    (void)state;
    const char *scenario = example("h100x8-training.json");
    tool_proc p = spawn((const char *[]){"run", "--duration", "0.5", "--json", "--sim", scenario, "--", "sleep", "600",
                                         NULL},
                        env, 0, NULL, 0);
    char *report = read_json_from(p.out, "run --duration 0.5 -- sleep 600");
    free(report);
    assert_int_equal(kill(p.pid, SIGTERM), 0); /* forwarded: sleep ends, then run */
    tool_result r = wait_bounded(&p, 60, "run after SIGTERM");
    assert_int_equal(r.exit_code, 128 + SIGTERM);
    tool_result_free(&r);

    char *dir = temp_dir();
    char out[1100];
    snprintf(out, sizeof out, "%s/report.json", dir);
    r = run_bounded((const char *[]){"run", "--duration", "0.3", "--json", "--output", out, "--sim", scenario, "--",
                                     "sh", "-c", "echo from-the-command; sleep 1", NULL},
                    env, "run --output");
    if (r.exit_code != 0 || strcmp(r.out, "from-the-command\n") != 0)
        fail_msg("run --output: exit %d, stdout '%s', stderr: %s", r.exit_code, r.out, r.err);
    tool_result_free(&r);
    json_t *j = json_load_file(out, 0, NULL);
    if (!json_object_get(j, "findings"))
        fail_msg("run --output: %s holds no JSON report", out);
    json_decref(j);
    /* Text too, and --help says where the report goes. */
    r = run_bounded((const char *[]){"run", "--duration", "0.3", "--output", out, "--sim", scenario, "--", "true",
                                     NULL},
                    env, "run --output (text)");
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, "");
    tool_result_free(&r);
    r = run_tool((const char *[]){"run", "--help", NULL}, env);
    /* A paragraph wraps where the width says: its lines joined (a line break
     * and the next line's indent as one space), the words read. */
    char *q = r.out;
    for (const char *c = r.out; *c; c++) {
        if (*c == '\n') {
            while (c[1] == ' ')
                c++;
            *q++ = ' ';
        } else {
            *q++ = *c;
        }
    }
    *q = '\0';
    if (!strstr(r.out, "--output FILE") || !strstr(r.out, "The report goes to standard output"))
        fail_msg("run --help does not say where the report goes:\n%s", r.out);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* A recording cut short (a full disk) or JSON that cannot be written is an
 * error that says why: exit 3 with a message, the report still written
 * where it can be. */
static void write_errors_are_said_and_exit_3(void **state)
{
    (void)state;
    if (access("/dev/full", W_OK) != 0)
        skip();
    const char *scenario = example("h100x8-training.json");
    tool_result r = run_bounded((const char *[]){"watch", "--count", "3", "--format", "csv", "--sim", scenario,
                                                 "--record", "/dev/full", NULL},
                                env, "watch --record /dev/full");
    if (r.exit_code != 3 || !strstr(r.err, "/dev/full"))
        fail_msg("watch --record /dev/full: exit %d, stderr: %s", r.exit_code, r.err);
    tool_result_free(&r);
    r = run_bounded((const char *[]){"run", "--json", "--sim", scenario, "--record", "/dev/full", "--", "true", NULL},
                    env, "run --record /dev/full");
    if (r.exit_code != 3 || !r.json || !strstr(r.err, "/dev/full"))
        fail_msg("run --record /dev/full: exit %d, stderr: %s", r.exit_code, r.err);
    tool_result_free(&r);

    /* --json into a full disk: trace and fleet say so. */
    char *dir = temp_dir();
    char report[1100], trace[1100];
    snprintf(report, sizeof report, "%s/node1.json", dir);
    tool_proc p = run_tool_start((const char *[]){"check", "--json", "--duration", "0", "--sim", scenario, NULL}, env,
                                 report);
    r = run_tool_wait(&p);
    tool_result_free(&r);
    snprintf(trace, sizeof trace, "%s/trace-tf/trace.json.gz", GD_FIXTURES_DIR);
    const char *const *cases[] = {
        (const char *[]){"trace", trace, "--json", NULL},
        (const char *[]){"fleet", "--json", report, NULL},
        (const char *[]){"bench", "gemm", "--force", "--json", "--seconds", "0.05", "--size", "256", "--no-concurrent",
                         "--sim", scenario, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        p = run_tool_start(cases[i], env, "/dev/full");
        r = wait_bounded(&p, 120, cases[i][0]);
        if (r.exit_code != 3 || !strstr(r.err, "cannot write"))
            fail_msg("%s --json into /dev/full: exit %d, stderr: %s", cases[i][0], r.exit_code, r.err);
        tool_result_free(&r);
    }
    remove_tree(dir);
    free(dir);
}

/* A $HOME that cannot be read (a job run as another user; a HOME that is a
 * file) holds no config gpudoctor must read: check runs, with a note. */
static void an_unreadable_home_does_not_stop_check(void **state)
{
    (void)state;
    const char *scenario = example("h100x8-training.json");
    const char *const file_home[] = {"NO_COLOR=", "GPUDOCTOR_SIM_TIMESCALE=", "XDG_CONFIG_HOME=",
                                     "HOME=/etc/hostname", NULL};
    tool_result r = run_bounded((const char *[]){"check", "--json", "--duration", "0", "--sim", scenario, NULL},
                                file_home, "check, HOME a file");
    if (r.exit_code > 2 || !r.json)
        fail_msg("check with HOME a file: exit %d, stderr: %s", r.exit_code, r.err);
    tool_result_free(&r);

    char home[] = "/tmp/gd-home-XXXXXX";
    assert_non_null(mkdtemp(home));
    char var[64];
    snprintf(var, sizeof var, "HOME=%s/inner", home);
    char inner[64];
    snprintf(inner, sizeof inner, "%s/inner", home);
    assert_int_equal(mkdir(inner, 0700), 0);
    assert_int_equal(chmod(home, geteuid() == 0 ? 0700 : 0), 0);
    const char *const locked[] = {"NO_COLOR=", "GPUDOCTOR_SIM_TIMESCALE=", "XDG_CONFIG_HOME=", var, NULL};
    tool_spawn nobody = {.as_nobody = geteuid() == 0}; /* root: run as nobody, who may not enter */
    tool_proc p = run_tool_start_with((const char *[]){"check", "--json", "--duration", "0", "--sim", scenario, NULL},
                                      locked, NULL, &nobody);
    r = wait_bounded(&p, 60, "check, HOME unreadable");
    chmod(home, 0700);
    rmdir(inner);
    rmdir(home);
    if (r.exit_code == 126)
        skip(); /* cannot become nobody */
    if (r.exit_code > 2 || !r.json)
        fail_msg("check with an unreadable HOME: exit %d, stderr: %s", r.exit_code, r.err);
    tool_result_free(&r);
}

/* The first byte of a control character (C0 but newline, DEL, C1) or a bidi
 * control (U+061C, U+200E/F, U+202A-E, U+2066-9) in text, or NULL. */
static const char *unsafe_in(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if ((*p < 0x20 && *p != '\n') || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) ||
            (p[0] == 0xd8 && p[1] == 0x9c))
            return (const char *)p;
        if (p[0] == 0xe2 && ((p[1] == 0x80 && (p[2] == 0x8e || p[2] == 0x8f || (p[2] >= 0xaa && p[2] <= 0xae))) ||
                             (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)))
            return (const char *)p;
    }
    return NULL;
}

static double children_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

/* fleet over a 12 MB report of 300k findings: done in seconds of CPU (the
 * shared-finding search was quadratic: over 120 s); the report's hostname
 * and GPU model, holding bidi and control characters, reach the terminal
 * made safe. */
static void fleet_takes_a_huge_report_and_hostile_names(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char base[1100], big[1100];
    snprintf(base, sizeof base, "%s/base.json", dir);
    snprintf(big, sizeof big, "%s/big.json", dir);
    tool_proc p = run_tool_start(
        (const char *[]){"check", "--json", "--duration", "0", "--sim", example("h100x8-training.json"), NULL}, env,
        base);
    tool_result r = run_tool_wait(&p);
    tool_result_free(&r);
    json_t *rep = json_load_file(base, 0, NULL);
    assert_non_null(rep);
    json_object_set_new(json_object_get(rep, "host"), "hostname",
                        json_string("node\xe2\x80\xae" "10-kcar\x1b]0;owned\x07\xe2\x81\xa6x"));
    json_object_set_new(json_array_get(json_object_get(rep, "gpus"), 0), "name",
                        json_string("H100\xe2\x80\xae" "MBH\x1b[2J"));
    json_t *findings = json_array();
    for (int i = 0; i < 300000; i++) {
        char id[32];
        snprintf(id, sizeof id, i % 2 ? "clocks.x%d" : "thermal.y%d", i % 2 ? i : i % 977);
        json_array_append_new(findings, json_pack("{s:s,s:s,s:i}", "id", id, "severity", "warning", "gpu", i % 8));
    }
    json_object_set_new(rep, "findings", findings);
    assert_int_equal(json_dump_file(rep, big, JSON_COMPACT), 0);
    json_decref(rep);
    struct stat st;
    assert_int_equal(stat(big, &st), 0);
    assert_true(st.st_size > 12 * 1000 * 1000);

    double cpu0 = children_cpu_s();
    p = spawn((const char *[]){"fleet", big, NULL}, env, 0, NULL, 0);
    r = wait_bounded(&p, 300, "fleet over 300k findings");
    double cpu = children_cpu_s() - cpu0;
    if (r.exit_code != 0)
        fail_msg("fleet: exit %d, stderr: %s", r.exit_code, r.err);
    if (cpu > 30)
        fail_msg("fleet over 300k findings took %.1f s of CPU", cpu);
    const char *bad = unsafe_in(r.out);
    if (bad)
        fail_msg("fleet: byte 0x%02x at %td of its text reaches the terminal", (unsigned char)*bad, bad - r.out);
    assert_non_null(strstr(r.out, "node???10-kcar?]0;owned?")); /* the first 24 columns */
    assert_non_null(strstr(r.out, "H100???MBH?[2J"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* A directory of more traces than analysed says how many it left out (the
 * first 1024 by name are analysed, not the first 1024 readdir gives); a
 * rank past its memory cap is analysed up to there, and the report says so. */
static void trace_bounds_are_said(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char traces[1100];
    snprintf(traces, sizeof traces, "%s/ranks", dir);
    make_dirs(traces);
    for (int i = 1029; i >= 0; i--) {
        char name[32], text[512];
        snprintf(name, sizeof name, "r%04d.json", i);
        snprintf(text, sizeof text,
                 "{\"distributedInfo\":{\"rank\":%d},\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\","
                 "\"name\":\"gemm\",\"ts\":10,\"dur\":80,\"args\":{\"stream\":7,\"correlation\":1}}]}",
                 i);
        put_file(traces, name, text, strlen(text));
    }
    tool_result r = run_bounded((const char *[]){"trace", traces, "--json", NULL}, env, "trace DIR of 1030");
    if (r.exit_code != 0 || !r.json)
        fail_msg("trace DIR: exit %d, stderr: %s", r.exit_code, r.err);
    json_t *t = json_object_get(r.json, "trace");
    assert_int_equal(json_integer_value(json_object_get(t, "files")), 1024);
    assert_int_equal(json_integer_value(json_object_get(t, "files_found")), 1030);
    assert_int_equal(json_integer_value(json_object_get(t, "files_left_out")), 6);
    json_t *ranks = json_object_get(r.json, "ranks");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(ranks, 1023), "rank")), 1023);
    tool_result_free(&r);
    r = run_bounded((const char *[]){"trace", traces, NULL}, env, "trace DIR of 1030 (text)");
    assert_non_null(strstr(r.out, "1030 trace files found: the first 1024 by name were analysed, 6 left out"));
    tool_result_free(&r);

    /* 60 000 kernels and launches (about 8 MB): under a 1 MiB cap the first
     * part is analysed and the rest counted. */
    char big[1100];
    snprintf(big, sizeof big, "%s/big.json", dir);
    FILE *f = fopen(big, "w");
    assert_non_null(f);
    fputs("{\"traceEvents\":[", f);
    for (int i = 0; i < 30000; i++)
        fprintf(f,
                "%s{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":%d,\"dur\":5,"
                "\"args\":{\"correlation\":%d}},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_%d\",\"ts\":%d,"
                "\"dur\":80,\"args\":{\"stream\":7,\"correlation\":%d}}",
                i ? "," : "", i * 100, i, i % 50, i * 100 + 10, i);
    fputs("]}", f);
    fclose(f);
    r = run_bounded((const char *[]){"trace", big, "--json", "--max-memory", "1", NULL}, env, "trace --max-memory 1");
    if (r.exit_code != 0 || !r.json)
        fail_msg("trace --max-memory 1: exit %d, stderr: %s", r.exit_code, r.err);
    json_t *rk = json_array_get(json_object_get(r.json, "ranks"), 0);
    json_int_t dropped = json_integer_value(json_object_get(rk, "dropped_events"));
    if (dropped < 10000 || dropped >= 60000)
        fail_msg("trace --max-memory 1: %lld events dropped of 60000", (long long)dropped);
    assert_int_equal(json_integer_value(json_object_get(rk, "memory_cap_mib")), 1);
    tool_result_free(&r);
    r = run_bounded((const char *[]){"trace", big, "--max-memory", "1", NULL}, env, "trace --max-memory 1 (text)");
    assert_non_null(strstr(r.out, "the memory cap (1 MiB for this rank"));
    tool_result_free(&r);
    r = run_bounded((const char *[]){"trace", big, "--json", NULL}, env, "trace, the default cap");
    rk = json_array_get(json_object_get(r.json, "ranks"), 0);
    assert_int_equal(json_integer_value(json_object_get(rk, "dropped_events")), 0);
    tool_result_free(&r);
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
        cmocka_unit_test(nothing_it_opens_can_hang_it),
        cmocka_unit_test(trace_reads_a_pipe_whole),
        cmocka_unit_test(run_report_goes_out_when_the_watch_ends),
        cmocka_unit_test(write_errors_are_said_and_exit_3),
        cmocka_unit_test(an_unreadable_home_does_not_stop_check),
        cmocka_unit_test(fleet_takes_a_huge_report_and_hostile_names),
        cmocka_unit_test(trace_bounds_are_said),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
