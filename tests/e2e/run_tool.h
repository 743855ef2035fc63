/* SPDX-License-Identifier: Apache-2.0 */
/* Runs build/gpudoctor as a child process and captures what it says. */
#ifndef GD_RUN_TOOL_H
#define GD_RUN_TOOL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct tool_result {
    int exit_code; /* -1 when killed by a signal */
    char *out; /* stdout, NUL-terminated */
    char *err; /* stderr */
    json_t *json; /* stdout parsed, or NULL */
} tool_result;

/*
 * Runs gpudoctor with argv (NULL-terminated, without the program name) and
 * extra environment entries "NAME=value" (NULL-terminated, may be NULL; an
 * entry "NAME=" with nothing after it unsets NAME).
 */
tool_result run_tool(const char *const *argv, const char *const *env);

/* The same in two steps, for a test that acts while gpudoctor runs (sends it
 * a signal). stdout_path: a file that receives its stdout (NULL: captured;
 * "": stdout closed). */
typedef struct tool_proc {
    pid_t pid;
    int out, err; /* the read ends of its stdout and stderr */
} tool_proc;
/* A python3 that imports torch (Debian's python3-torch first, then the one on
 * PATH), or NULL when none. */
const char *torch_python(void);

/* run_tool with "--record FILE" added after argv[0] (run or check), then the
 * recording replayed with 'check --json --from FILE': fails the test unless
 * the replay gives the job's findings (input.*, gpu.underutilized) and its
 * GPU links as the live run did. Returns the live run's result. */
tool_result run_recorded(const char *const *argv, const char *const *env);

/* gpudoctor started by a wrapper command (NULL-terminated: "unshare", ...,
 * then gpudoctor and argv), found on PATH. */
tool_result run_tool_wrapped(const char *const *wrapper, const char *const *argv, const char *const *env);

tool_proc run_tool_start(const char *const *argv, const char *const *env, const char *stdout_path);

/* run_tool_start, and more: gpudoctor starts with pending_signal (0: none)
 * already pending and blocked, as one sent before it could handle it (a
 * launcher that holds signals blocked across exec delivers it when they are
 * unblocked); with stdin_data (stdin_len bytes, at most 64 KiB) on its
 * standard input through a pipe (NULL: the test's own stdin); as user
 * nobody when as_nobody (a test run as root that needs permissions to
 * hold; exit 126 when that fails). */
typedef struct tool_spawn {
    int pending_signal;
    const void *stdin_data;
    size_t stdin_len;
    bool as_nobody;
    const char *const *wrapper; /* a command to run gpudoctor under (unshare ...), or NULL */
} tool_spawn;
tool_proc run_tool_start_with(const char *const *argv, const char *const *env, const char *stdout_path,
                              const tool_spawn *how);
tool_result run_tool_wait(tool_proc *p);

/* True once process pid catches signal sig (its handler is in place:
 * /proc/PID/status SigCgt). */
bool tool_catches(pid_t pid, int sig);

/* Files in a tree: the directories of path (mkdir -p), and dir/rel with its
 * parent directories. */
void make_dirs(const char *path);
void put_file(const char *dir, const char *rel, const void *data, size_t len);
void tool_result_free(tool_result *r);

/* Removes the caller's CUDA_*, NCCL_*, GPUDOCTOR_* ... variables and keeps Python from
 * writing __pycache__ beside the test jobs (in a child). */
void hermetic_environment(void);

/* examples/NAME as a path. */
const char *example(const char *name);

/*
 * The real captures (GD_REALDATA_DIR, ../shared/realdata unless CMake is told
 * -DGD_REALDATA_DIR=...). realdata(REL) is a path in them; example() and
 * realdata() return one of 8 buffers, reused in turn.
 * need_realdata(), first in a test that reads them: returns when they are
 * there; otherwise skips the test, or fails it when CI=true.
 * realdata_exit(rc), main's return value: cmocka's rc, or GD_SKIP_EXIT when
 * every test passed but one was skipped for want of the captures, so that
 * ctest (SKIP_RETURN_CODE) reports the test Skipped, not Passed.
 */
#define GD_SKIP_EXIT 77

/*
 * For a test that judges the CPU share of the processes it starts (a busy
 * loop that must read as a saturated thread, real training jobs): the test
 * and everything it starts from now on get the CPU they ask for on a
 * machine busy with other work. The test process leaves ctest's session for
 * one of its own, so that it has its own scheduler autogroup (Linux shares
 * the CPUs between sessions first, whatever their processes' nice values),
 * and raises that group and itself to nice -20. Without the right to (not
 * root), it says so and the test runs as it is.
 */
void run_first_in_line(void);
const char *realdata(const char *rel);
void need_realdata(void);
/* The same for any other component a test needs (a browser, torch,
 * O_DIRECT, root): returns when `have`; otherwise skips the test (the test
 * reports Skipped through realdata_exit), or fails it under CI=true naming
 * what is missing. `fix`: the one thing that brings it, said with the skip. */
void need_component(bool have, const char *what, const char *fix);
/* The fixes that most skips name. */
#define GD_FIX_TEST_PACKAGES "make test installs it (sudo bash scripts/install-deps.sh test), then configures again"
#define GD_FIX_ROOT "sudo make test runs the suite as root"
#define GD_FIX_REALDATA                                                                                                \
    "the real captures are kept outside this repository (CI has them beside the checkout); with a copy, "              \
    "cmake -S . -B build -DGD_REALDATA_DIR=DIR names it"
int realdata_exit(int rc);

/* A python3 that imports torch: Debian's first (a pyenv or venv python3 on
 * PATH may lack it), then the one on PATH; NULL when none. */
const char *torch_python(void);

/* A fresh temporary directory (mkdtemp) and a file written in it. */
char *temp_dir(void);
char *write_temp_file(const char *dir, const char *name, const char *content);
void remove_tree(const char *dir);

/* "id@gpu" of a finding ("id@-1" for a host-wide one). */
void finding_key(json_t *finding, char *buf, size_t len);

/*
 * Fails the test unless r exited with exit_code and its findings are exactly
 * `ids` ("id@gpu", NULL-terminated, any order), each with evidence that
 * names its source and a fix. `what` names the case in failure messages.
 */
void assert_exact_findings(const char *what, const tool_result *r, int exit_code, const char *const *ids);

/* findings[] entries with this id (and gpu; host-wide ones with gpu == -1, any with gpu == -2). */
size_t count_findings(json_t *report, const char *id, int gpu);

#endif
