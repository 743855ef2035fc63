/* SPDX-License-Identifier: Apache-2.0 */
#include "run_tool.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdbool.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void append(char **buf, size_t *len, const char *data, size_t n)
{
    *buf = realloc(*buf, *len + n + 1);
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = '\0';
}

/*
 * The checks read the job's environment (CUDA_*, NCCL_*, ...). Tests start
 * gpudoctor without any of the caller's such variables, so that a CI runner's
 * CUDA_VISIBLE_DEVICES cannot change their findings; a test sets what it needs.
 */
void hermetic_environment(void)
{
    static const char *const prefixes[] = {"CUDA_",  "CUBLAS_", "NCCL_",      "PYTORCH_",
                                           "TORCH_", "NVIDIA_", "GPUDOCTOR_", "TF_"};
    static const char *const names[] = {"VIRTUAL_ENV",     "CONDA_PREFIX",   "LD_LIBRARY_PATH", "NSIGHT_CUDA_DEBUGGER",
                                        "COMPUTE_PROFILE", "OPENCL_PROFILE", "NO_COLOR",        "OMP_NUM_THREADS",
                                        "COLUMNS"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unsetenv(names[i]);
    /* Nor the caller's ~/.config/gpudoctor.conf (a test names its own). */
    setenv("XDG_CONFIG_HOME", "/nonexistent/gpudoctor-tests", 1);
    /* The test jobs are Python scripts of the source tree: no __pycache__ there. */
    setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
    for (bool again = true; again;) {
        again = false;
        for (char **e = environ; *e && !again; e++)
            for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++)
                if (strncmp(*e, prefixes[k], strlen(prefixes[k])) == 0) {
                    char name[256];
                    snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
                    unsetenv(name); /* changes environ: start over */
                    again = true;
                    break;
                }
    }
}

static tool_proc start_wrapped(const char *const *wrapper, const char *const *argv, const char *const *env,
                               const char *stdout_path)
{
    tool_spawn how = {.wrapper = wrapper};
    return run_tool_start_with(argv, env, stdout_path, &how);
}

tool_proc run_tool_start_with(const char *const *argv, const char *const *env, const char *stdout_path,
                              const tool_spawn *how)
{
    static const tool_spawn plain = {0};
    if (!how)
        how = &plain;
    tool_proc p = {.pid = -1, .out = -1, .err = -1};
    int out[2], err[2], in[2] = {-1, -1};
    if (pipe(out) != 0 || pipe(err) != 0)
        abort();
    if (how->stdin_data) {
        if (how->stdin_len > 65536 || pipe(in) != 0 ||
            write(in[1], how->stdin_data, how->stdin_len) != (ssize_t)how->stdin_len)
            abort(); /* a pipe holds 64 KiB unread */
        close(in[1]);
    }
    sigset_t held, old;
    sigemptyset(&held);
    if (how->pending_signal)
        sigaddset(&held, how->pending_signal);
    sigprocmask(SIG_BLOCK, &held, &old); /* the child inherits it blocked */
    p.pid = fork();
    if (p.pid == 0) {
        int fd = stdout_path && *stdout_path ? open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : out[1];
        if (fd < 0)
            _exit(127);
        if (stdout_path && !*stdout_path)
            close(1);
        else
            dup2(fd, 1);
        dup2(err[1], 2);
        if (how->stdin_data)
            dup2(in[0], 0);
        close(out[0]);
        close(err[0]);
        hermetic_environment();
        for (const char *const *e = env; e && *e; e++) {
            const char *eq = strchr(*e, '=');
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
            if (eq[1])
                setenv(name, eq + 1, 1);
            else
                unsetenv(name);
        }
        if (how->as_nobody && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(126);
        if (how->pending_signal)
            kill(getpid(), how->pending_signal);
        size_t n = 0, w = 0;
        const char *const *wrapper = how->wrapper;
        while (argv[n])
            n++;
        while (wrapper && wrapper[w])
            w++;
        char **args = calloc(w + n + 2, sizeof *args);
        for (size_t i = 0; i < w; i++)
            args[i] = (char *)wrapper[i];
        args[w] = (char *)GD_BINARY;
        for (size_t i = 0; i < n; i++)
            args[w + i + 1] = (char *)argv[i];
        if (w)
            execvp(args[0], args);
        else
            execv(GD_BINARY, args);
        _exit(127);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (how->stdin_data)
        close(in[0]);
    close(out[1]);
    close(err[1]);
    p.out = out[0];
    p.err = err[0];
    return p;
}

tool_result run_tool_wait(tool_proc *p)
{
    tool_result r = {.exit_code = -1};
    size_t olen = 0, elen = 0;
    r.out = calloc(1, 1);
    r.err = calloc(1, 1);
    struct pollfd fds[2] = {{p->out, POLLIN, 0}, {p->err, POLLIN, 0}};
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0)
            break;
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP)))
                continue;
            char buf[8192];
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            } else if (i == 0) {
                append(&r.out, &olen, buf, (size_t)n);
            } else {
                append(&r.err, &elen, buf, (size_t)n);
            }
        }
    }
    int status = 0;
    waitpid(p->pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.json = json_loads(r.out, 0, NULL);
    return r;
}

tool_proc run_tool_start(const char *const *argv, const char *const *env, const char *stdout_path)
{
    return start_wrapped(NULL, argv, env, stdout_path);
}

tool_result run_tool_wrapped(const char *const *wrapper, const char *const *argv, const char *const *env)
{
    tool_proc p = start_wrapped(wrapper, argv, env, NULL);
    return run_tool_wait(&p);
}

tool_result run_tool(const char *const *argv, const char *const *env)
{
    tool_proc p = run_tool_start(argv, env, NULL);
    return run_tool_wait(&p);
}

void tool_result_free(tool_result *r)
{
    free(r->out);
    free(r->err);
    json_decref(r->json);
    memset(r, 0, sizeof *r);
}

/* dir/name in one of 8 buffers, reused in turn. */
static const char *joined(const char *dir, const char *name)
{
    static char path[8][1024];
    static int k;
    k = (k + 1) % 8;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

const char *example(const char *name)
{
    return joined(GD_EXAMPLES_DIR, name);
}

const char *realdata(const char *rel)
{
    return joined(GD_REALDATA_DIR, rel);
}

void run_first_in_line(void)
{
    (void)setsid(); /* fails only for a session or group leader, which keeps its own */
    FILE *ag = fopen("/proc/self/autogroup", "w");
    bool group = ag && fputs("-20", ag) >= 0;
    if (ag)
        group = fclose(ag) == 0 && group;
    bool self = setpriority(PRIO_PROCESS, 0, -20) == 0;
    if (!group || !self)
        print_message("note: could not raise this test's CPU priority (%s): on a busy machine the CPU shares it "
                      "judges may come out low\n",
                      !self ? "not root?" : "no scheduler autogroup");
}

static bool realdata_skipped;

void need_component(bool have, const char *what, const char *fix)
{
    if (have)
        return;
    const char *ci = getenv("CI");
    if (ci && strcmp(ci, "true") == 0)
        fail_msg("%s: missing, and CI=true: it is required (%s)", what, fix);
    print_message("%s: missing, skipped: %s\n", what, fix);
    realdata_skipped = true;
    skip();
}

void need_realdata(void)
{
    char what[1200];
    snprintf(what, sizeof what, "the real captures (a folder with SOURCES.md) at %s", GD_REALDATA_DIR);
    need_component(access(realdata("SOURCES.md"), R_OK) == 0, what, GD_FIX_REALDATA);
}

int realdata_exit(int rc)
{
    return rc == 0 && realdata_skipped ? GD_SKIP_EXIT : rc;
}

char *temp_dir(void)
{
    const char *base = getenv("TMPDIR");
    char *t = malloc(1024);
    snprintf(t, 1024, "%s/gpudoctor-e2e-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(t))
        abort();
    return t;
}

char *write_temp_file(const char *dir, const char *name, const char *content)
{
    char *p = malloc(2048);
    snprintf(p, 2048, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f)
        abort();
    fputs(content, f);
    fclose(f);
    return p;
}

void make_dirs(const char *path)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0755);
            *p = '/';
        }
    mkdir(buf, 0755);
}

void put_file(const char *dir, const char *rel, const void *data, size_t len)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    make_dirs(path);
    *slash = '/';
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        abort();
}

void remove_tree(const char *dir)
{
    pid_t pid = fork();
    if (pid == 0) {
        execlp("rm", "rm", "-rf", dir, (char *)NULL);
        _exit(127);
    }
    waitpid(pid, NULL, 0);
}

size_t count_findings(json_t *report, const char *id, int gpu)
{
    size_t n = 0, i;
    json_t *f;
    json_array_foreach(json_object_get(report, "findings"), i, f)
    {
        json_t *g = json_object_get(f, "gpu");
        if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0 &&
            (gpu == -2 || (gpu == -1 && json_is_null(g)) || (json_is_integer(g) && json_integer_value(g) == gpu)))
            n++;
    }
    return n;
}

void finding_key(json_t *f, char *buf, size_t len)
{
    json_t *g = json_object_get(f, "gpu");
    snprintf(buf, len, "%s@%lld", json_string_value(json_object_get(f, "id")),
             json_is_integer(g) ? (long long)json_integer_value(g) : -1LL);
}

void assert_exact_findings(const char *what, const tool_result *r, int exit_code, const char *const *ids)
{
    if (!r->json)
        fail_msg("%s: no JSON; stderr: %s", what, r->err);
    json_t *findings = json_object_get(r->json, "findings");
    size_t want = 0;
    while (ids[want])
        want++;
    char *dump = json_dumps(findings, JSON_COMPACT);
    if (json_array_size(findings) != want || r->exit_code != exit_code)
        fail_msg("%s: exit %d (want %d), findings %s", what, r->exit_code, exit_code, dump);
    bool used[64] = {false};
    for (size_t k = 0; k < want && k < 64; k++) {
        json_t *f = json_array_get(findings, k);
        char key[96];
        finding_key(f, key, sizeof key);
        size_t j = 0;
        while (j < want && (used[j] || strcmp(key, ids[j]) != 0))
            j++;
        if (j == want)
            fail_msg("%s: unexpected finding %s in %s", what, key, dump);
        used[j] = true;
        json_t *ev = json_object_get(f, "evidence");
        if (json_object_size(ev) < 2 || !json_is_string(json_object_get(ev, "source")))
            fail_msg("%s: %s has no evidence naming its source", what, key);
        if (strlen(json_string_value(json_object_get(f, "fix"))) < 40)
            fail_msg("%s: %s has no real fix", what, key);
    }
    free(dump);
}

const char *torch_python(void)
{
    static const char *found;
    static bool looked;
    if (looked)
        return found;
    looked = true;
    static const char *const candidates[] = {"/usr/bin/python3", "python3"};
    for (size_t i = 0; i < 2 && !found; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "%s -c 'import torch' >/dev/null 2>&1", candidates[i]);
        if (system(cmd) == 0)
            found = candidates[i];
    }
    return found;
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* The job's findings of a report, sorted: "id@gpu" joined by spaces. */
static void job_findings(json_t *report, char *buf, size_t len)
{
    char keys[64][80];
    size_t n = 0, used = 0;
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(report, "findings"), i, f)
    {
        const char *id = json_string_value(json_object_get(f, "id"));
        if (n < 64 && id && (strncmp(id, "input.", 6) == 0 || strcmp(id, "gpu.underutilized") == 0))
            finding_key(f, keys[n++], sizeof keys[0]);
    }
    qsort(keys, n, sizeof keys[0], key_cmp);
    buf[0] = '\0';
    for (size_t k = 0; k < n && used + 82 < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s ", keys[k]);
}

tool_result run_recorded(const char *const *argv, const char *const *env)
{
    char *dir = temp_dir(), rec[1100];
    snprintf(rec, sizeof rec, "%s/job.jsonl", dir);
    const char *args[64] = {argv[0], "--record", rec};
    size_t n = 3;
    for (size_t i = 1; argv[i] && n < 63; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    tool_result live = run_tool(args, env);
    if (live.json) {
        tool_result replay = run_tool((const char *[]){"check", "--json", "--from", rec, NULL}, env);
        if (!replay.json)
            fail_msg("replay of %s: exit %d: %s", rec, replay.exit_code, replay.err);
        char a[4096], b[4096];
        job_findings(live.json, a, sizeof a);
        job_findings(replay.json, b, sizeof b);
        if (strcmp(a, b) != 0)
            fail_msg("the replay's job findings differ: live [%s], replay [%s]", a, b);
        json_t *la = json_object_get(json_object_get(live.json, "job"), "gpus");
        json_t *lb = json_object_get(json_object_get(replay.json, "job"), "gpus");
        if (!json_equal(la, lb))
            fail_msg("the replay links other GPUs to the job");
        tool_result_free(&replay);
    }
    remove_tree(dir);
    free(dir);
    return live;
}

bool tool_catches(pid_t pid, int sig)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    bool yes = false;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "SigCgt:", 7) == 0)
            yes = (strtoull(line + 7, NULL, 16) >> (sig - 1)) & 1;
    if (f)
        fclose(f);
    return yes;
}
