/* SPDX-License-Identifier: Apache-2.0 */
/* `run --profile` (docs/run.md): the job's start-up hook, its traces, the joined report. */
#include "run_profile.h"
#include "formats/trace/profile_read.h"
#include "checks/joined.h"
#include "checks/trace_checks.h"
#include "cli.h"
#include "report/profile_report.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HOOK_DIR "profile-hook"
#define HOOK_FILE "sitecustomize.py"

int gd_run_profile_option(gd_run_profile *rp, int c, const char *arg)
{
    if (!rp->first) {
        rp->first = GD_PROFILE_FIRST_STEP;
        rp->last = GD_PROFILE_LAST_STEP;
    }
    switch (c) {
    case 'P': rp->on = true; return 0;
    case 'D':
        if (!*arg)
            return gd_cli_error("--profile-dir wants a folder");
        rp->keep_dir = arg;
        rp->on = true;
        return 0;
    default: break;
    }
    const char *colon = strchr(arg, ':');
    char a[32];
    long lo, hi;
    size_t n = colon ? (size_t)(colon - arg) : 0;
    if (!colon || n == 0 || n >= sizeof a)
        return gd_cli_error("--profile-steps takes A:B, two step numbers with 1 <= A <= B, not '%s'", arg);
    memcpy(a, arg, n);
    a[n] = 0;
    if (gd_cli_integer(a, 1, 1000000, &lo) || gd_cli_integer(colon + 1, 1, 1000000, &hi) || hi < lo ||
        hi - lo >= GD_PROFILE_MAX_STEPS - 1)
        return gd_cli_error("--profile-steps takes A:B, two step numbers with 1 <= A <= B and at most %d steps, not "
                            "'%s'",
                            GD_PROFILE_MAX_STEPS - 2, arg);
    rp->first = lo;
    rp->last = hi;
    rp->on = true;
    return 0;
}

/* The hook's folder: beside the binary (the build tree), else where make
 * install puts it (libexec/gpudoctor, found from bin/ as the simulated
 * libraries are). */
static int find_hook(char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = 0;
    const char *const where[] = {"",
#ifdef GD_LIBEXEC_FROM_BIN
                                 "/" GD_LIBEXEC_FROM_BIN
#endif
    };
    for (size_t i = 0; i < sizeof where / sizeof *where; i++) {
        char probe[PATH_MAX + 128];
        snprintf(probe, sizeof probe, "%s%s/" HOOK_DIR "/" HOOK_FILE, exe, where[i]);
        if (access(probe, R_OK) == 0) {
            size_t k = strlen(probe) - strlen("/" HOOK_FILE);
            if (k >= len)
                return -1;
            memcpy(out, probe, k);
            out[k] = 0;
            return 0;
        }
    }
    return -1;
}

static bool holds_profile(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *e;
    bool found = false;
    while ((e = readdir(d)) && !found)
        found = strncmp(e->d_name, "hook-", 5) == 0;
    closedir(d);
    return found;
}

/* The command is a Python interpreter started with -S: its `site` never
 * imports the hook, and nothing would take the hook's folder off its sys.path. */
static bool python_without_site(char *const *argv)
{
    const char *base = argv && argv[0] ? strrchr(argv[0], '/') : NULL;
    base = base ? base + 1 : argv && argv[0] ? argv[0] : "";
    if (strncmp(base, "python", 6) != 0)
        return false;
    for (size_t i = 1; argv[i] && argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "--") != 0; i++) {
        if (argv[i][1] == '-')
            continue; /* --version, --help, ...: no -S inside */
        for (const char *c = argv[i] + 1; *c; c++) {
            if (*c == 'S')
                return true;
            if (strchr("cm", *c))
                return false; /* the program starts here */
            if (strchr("WXQ", *c)) { /* an option with a value: the rest, or the next word */
                if (!c[1] && argv[i + 1])
                    i++;
                break;
            }
        }
    }
    return false;
}

int gd_run_profile_prepare(gd_run_profile *rp, char *const *argv)
{
    if (!rp->on)
        return 0;
    if (find_hook(rp->hook_dir, sizeof rp->hook_dir) != 0)
        return gd_cli_error("--profile: the start-up hook (" HOOK_DIR "/" HOOK_FILE
                            ") is neither beside gpudoctor nor in its libexec folder: a broken install");
    if (rp->keep_dir) {
        if (mkdir(rp->keep_dir, 0777) != 0 && errno != EEXIST)
            return gd_cli_error("--profile-dir %s: %s", rp->keep_dir, strerror(errno));
        if (access(rp->keep_dir, W_OK | X_OK) != 0)
            return gd_cli_error("--profile-dir %s: not a folder gpudoctor may write in", rp->keep_dir);
        if (holds_profile(rp->keep_dir))
            return gd_cli_error("--profile-dir %s already holds a profile (hook-*.status): give a new or empty folder",
                                rp->keep_dir);
        if (!realpath(rp->keep_dir, rp->dir))
            return gd_cli_error("--profile-dir %s: %s", rp->keep_dir, strerror(errno));
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(rp->dir, sizeof rp->dir, "%s/gpudoctor-profile-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(rp->dir))
            return gd_cli_error("--profile: cannot make a folder for the traces (%s): %s", rp->dir, strerror(errno));
    }
    rp->prof = (gd_profile){.first = rp->first, .last = rp->last, .dir = rp->dir, .kept = rp->keep_dir != NULL};
    rp->prof.no_site = python_without_site(argv);
    if (rp->prof.no_site)
        return 0; /* the job's environment stays as it was: nothing to restore */
    /* The command inherits these; gpudoctor's own environment is restored once it started. */
    const char *old = getenv("PYTHONPATH");
    rp->had_pythonpath = old != NULL;
    rp->saved_pythonpath = old ? strdup(old) : NULL;
    char *path = malloc(strlen(rp->hook_dir) + (old ? strlen(old) : 0) + 2);
    if (!path || (old && !rp->saved_pythonpath))
        return free(path), gd_cli_error("out of memory");
    sprintf(path, "%s%s%s", rp->hook_dir, old && *old ? ":" : "", old && *old ? old : "");
    char steps[64];
    snprintf(steps, sizeof steps, "%ld:%ld", rp->first, rp->last);
    setenv("PYTHONPATH", path, 1);
    setenv("GPUDOCTOR_PROFILE_DIR", rp->dir, 1);
    setenv("GPUDOCTOR_PROFILE_STEPS", steps, 1);
    free(path);
    return 0;
}

void gd_run_profile_started(gd_run_profile *rp)
{
    if (!rp->on)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    rp->prof.t0_unix = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    if (rp->prof.no_site)
        return; /* nothing was set */
    if (rp->had_pythonpath)
        setenv("PYTHONPATH", rp->saved_pythonpath, 1);
    else
        unsetenv("PYTHONPATH");
    unsetenv("GPUDOCTOR_PROFILE_DIR");
    unsetenv("GPUDOCTOR_PROFILE_STEPS");
}

static void more_json(json_t *report, const void *ud)
{
    json_object_set_new(report, "profile", gd_profile_report_json(ud));
}

static void more_text(FILE *out, const gd_text_style *st, const void *ud)
{
    gd_profile_steps_text(out, ud, st);
}

static void more_top(FILE *out, const gd_text_style *st, const void *ud)
{
    gd_profile_causes_text(out, ud, st);
}

static void render_html(FILE *out, const void *ud)
{
    gd_profile_report_html(out, ud);
}

int gd_run_profile_report(gd_run_profile *rp, const gd_facts *f, const gd_findings *fs, int json, const char *html_path,
                          int *report_failed)
{
    char err[512];
    gd_profile *p = &rp->prof;
    if (gd_profile_read(p, err, sizeof err) != 0) {
        snprintf(p->not_profiled, sizeof p->not_profiled, "%s", err);
    }
    gd_findings trace = {0};
    if (p->nranks)
        gd_trace_checks_run(p->ranks, p->nranks, &trace);
    gd_causes causes;
    gd_join_causes(f, fs, p, &trace, &causes);
    gd_profile_view v = {f, fs, p, &trace, &causes};
    int code = gd_findings_exit_code(fs), tcode = gd_findings_exit_code(&trace);
    if (tcode > code)
        code = tcode;
    gd_cli_report_more more = {more_json, more_text, &v, more_top, rp->details, gd_profile_cause_said};
    if (gd_cli_print_report_more(f, fs, json, &more) == GD_EXIT_ERROR)
        code = GD_EXIT_ERROR;
    if (html_path && gd_cli_write_report(html_path, render_html, &v) != 0)
        code = *report_failed = GD_EXIT_ERROR;
    gd_causes_free(&causes);
    gd_findings_free(&trace);
    return code;
}

/* The temporary folder's files (the hook's and the traces), then itself. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[4096 + 256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

void gd_run_profile_end(gd_run_profile *rp)
{
    if (!rp->on)
        return;
    if (!rp->keep_dir && rp->dir[0])
        remove_dir(rp->dir);
    gd_profile_free(&rp->prof);
    free(rp->saved_pythonpath);
    rp->saved_pythonpath = NULL;
}
