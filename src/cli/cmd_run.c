/* SPDX-License-Identifier: Apache-2.0 */
/* gpudoctor run: start a training command, watch it and its GPUs, report. */
#include "checks/joined.h"
#include "cli.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/job.h"
#include "gpudoctor/session.h"
#include "report/profile_report.h"
#include "report/recorder.h"
#include "run_nccl_log.h"
#include "run_profile.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char gd_run_help[] = "usage: gpudoctor run [--duration SEC] [--interval MS] [--json] [--details]\n"
                           "                     [--output FILE] [--exit-findings] [--kill-at-end]\n"
                           "                     [--record FILE.jsonl] [--report FILE.html] [--sim SCENARIO]\n"
                           "                     [--profile] [--profile-steps A:B] [--profile-dir DIR]\n"
                           "                     [--nccl-log] [--nccl-log-dir DIR]\n"
                           "                     -- COMMAND [ARGS...]\n"
                           "\n"
                           "Starts COMMAND and watches it with its GPUs for its whole life (or --duration):\n"
                           "its process tree and threads from /proc beside the GPUs' utilisation, then\n"
                           "reports what holds the job back (input.single_thread, input.starved,\n"
                           "input.few_workers, input.io_wait, ...), its causes ranked right under the\n"
                           "verdict, with a per-second timeline of GPU busy beside the job's CPU.\n"
                           "COMMAND keeps gpudoctor's stdin, stdout and stderr.\n"
                           "The report goes to standard output, shared with COMMAND's own (written out at\n"
                           "once when the watch ends, even while COMMAND runs on); --output FILE puts it in\n"
                           "a file of its own instead.\n"
                           "\n"
                           "  --duration SEC   watch at most this long (default: until COMMAND ends); the\n"
                           "                   command runs on after the report unless --kill-at-end\n"
                           "  --interval MS    time between samples (default 100)\n"
                           "  --json           the report as JSON, as 'check --json'\n"
                           "  --details        also every check in the text report, as 'check --details'\n"
                           "  --output FILE    write the report (text or --json) to FILE, not to stdout\n"
                           "  --exit-findings  exit with check's codes (0, 1 warnings, 2 critical) instead\n"
                           "                   of COMMAND's own exit code\n"
                           "  --kill-at-end    send COMMAND SIGTERM when --duration ends the watch\n"
                           "  --report FILE    also write the report as one HTML page: the GPUs' plots and\n"
                           "                   the job's CPU against the GPUs' work over time\n"
                           "  --record FILE    also write the session to FILE (gzip when it ends in .gz;\n"
                           "                   replay it with 'check --from FILE')\n"
                           "  --sim SCENARIO   simulated GPUs (examples/*.json) beside the real COMMAND;\n"
                           "                   scenario time runs at wall speed, as COMMAND's own\n"
                           "  --profile        also profile a few training steps of a PyTorch COMMAND, unmodified:\n"
                           "                   a Python start-up hook (sitecustomize on a private PYTHONPATH entry)\n"
                           "                   runs torch.profiler over steps 10 to 14 (an optimizer step where\n"
                           "                   torch lets it count them, 1.13 and newer, else a DataLoader batch;\n"
                           "                   one trace per rank); then ONE report ranks the GPUs', the job's\n"
                           "                   and the trace's causes by the time each could win back, right\n"
                           "                   under the verdict (docs/run.md)\n"
                           "  --profile-steps A:B  profile steps A to B instead (implies --profile)\n"
                           "  --profile-dir DIR    keep the traces and hook notes in DIR (implies --profile)\n"
                           "  --nccl-log       have the job's NCCL write its INFO log (NCCL_DEBUG=INFO,\n"
                           "                   NCCL_DEBUG_FILE) into a private folder, never into COMMAND's\n"
                           "                   own output, and judge what NCCL chose (network, GPUDirect RDMA,\n"
                           "                   transports, versions: the nccl_log.* checks) in the report;\n"
                           "                   where the environment sets NCCL_DEBUG or NCCL_DEBUG_FILE,\n"
                           "                   NCCL logs as it says and nothing is read (docs/nccl-log.md)\n"
                           "  --nccl-log-dir DIR   keep NCCL's log files in DIR (implies --nccl-log)\n"
                           "\n"
                           "SIGINT, SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 sent to gpudoctor go to COMMAND\n"
                           "(Ctrl-C reaches both from the terminal); SIGINT, SIGTERM and SIGHUP also end\n"
                           "the watch: the report covers what was seen. gpudoctor then waits for COMMAND.\n"
                           "\n"
                           "Exit status: COMMAND's own (128+N when killed by signal N; 127 when it cannot\n"
                           "be started), or with --exit-findings 0, 1, 2; 3 could not check.\n";

static volatile pid_t child_pid;
/* A child ended since the last look: waitpid is asked then, not at every
 * sample (a syscall a tick, 10 a second, for a command that runs for days). */
static volatile sig_atomic_t child_ended = 1;

static void on_child(int sig)
{
    (void)sig;
    child_ended = 1;
}

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};
#define FORWARDED (sizeof forwarded / sizeof forwarded[0])

/* A signal for the command: sent on, unless the terminal sent it to the
 * whole process group already (si_code SI_KERNEL). INT, TERM, HUP end the watch. */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (child_pid > 0 && (!si || si->si_code != SI_KERNEL))
        kill(child_pid, sig);
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
        gd_cli_stop = 1;
}

typedef struct run_opts {
    double duration_s, interval_ms;
    int json, exit_findings, kill_at_end;
    const char *sim;
    const char *record; /* --record FILE.jsonl, or NULL */
    const char *report; /* --report FILE.html, or NULL */
    const char *output; /* --output FILE: the report's own destination, or NULL (stdout) */
    char **argv; /* COMMAND ARGS..., NULL-terminated */
    gd_run_profile profile; /* --profile, --profile-steps, --profile-dir */
    gd_run_nccl_log nccl_log; /* --nccl-log, --nccl-log-dir */
} run_opts;

const struct option gd_run_options[] = {
    {"duration", required_argument, NULL, 'd'},
    {"interval", required_argument, NULL, 'i'},
    {"json", no_argument, NULL, 'j'},
    {"sim", required_argument, NULL, 's'},
    {"exit-findings", no_argument, NULL, 'e'},
    {"kill-at-end", no_argument, NULL, 'k'},
    {"record", required_argument, NULL, 'R'},
    {"report", required_argument, NULL, 'H'},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {"profile", no_argument, NULL, 'P'},
    {"profile-dir", required_argument, NULL, 'D'},
    {"profile-steps", required_argument, NULL, 'S'},
    {"details", no_argument, NULL, 'T'},
    {"nccl-log", no_argument, NULL, 'N'},
    {"nccl-log-dir", required_argument, NULL, 'L'},
    {NULL, 0, NULL, 0},
};

static int parse(int argc, char **argv, run_opts *o)
{
    *o = (run_opts){.duration_s = 86400, .interval_ms = 100};
    optind = 1;
    opterr = 0;
    int c;
    double v;
    while ((c = getopt_long(argc, argv, "+:h", gd_run_options, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (gd_cli_duration(optarg, 1, 0.1, 86400, &o->duration_s) != 0)
                return gd_cli_error("--duration wants seconds between 0.1 and 86400, not '%s'", optarg);
            break;
        case 'i':
            if (gd_cli_duration(optarg, 0.001, 0.01, 60, &v) != 0)
                return gd_cli_error("--interval wants milliseconds between 10 and 60000, not '%s'", optarg);
            o->interval_ms = v * 1000;
            break;
        case 'j': o->json = 1; break;
        case 's': o->sim = gd_cli_scenario(optarg); break;
        case 'e': o->exit_findings = 1; break;
        case 'k': o->kill_at_end = 1; break;
        case 'R': o->record = optarg; break;
        case 'H': o->report = optarg; break;
        case 'o': o->output = optarg; break;
        case 'P':
        case 'S':
        case 'D':
            if (gd_run_profile_option(&o->profile, c, optarg) != 0)
                return GD_EXIT_ERROR;
            break;
        case 'T': o->profile.details = true; break;
        case 'N':
        case 'L':
            if (gd_run_nccl_log_option(&o->nccl_log, c, optarg) != 0)
                return GD_EXIT_ERROR;
            break;
        case 'h': gd_cli_help_print(stdout, gd_run_help); return -1;
        case ':': return gd_cli_error("%s needs a value (see 'gpudoctor run --help')", argv[optind - 1]);
        default: return gd_cli_error("unknown option '%s' (see 'gpudoctor run --help')", argv[optind - 1]);
        }
    }
    /* getopt stops at "--" (and skips it) or at the first word of COMMAND. */
    if (optind >= argc)
        return gd_cli_error("no command to run: gpudoctor run [OPTIONS] -- COMMAND [ARGS...]");
    o->argv = &argv[optind];
    if (o->report && gd_cli_report_writable(o->report) != 0)
        return GD_EXIT_ERROR;
    if (o->output && gd_cli_report_writable(o->output) != 0)
        return GD_EXIT_ERROR;
    return 0;
}

typedef struct run_report {
    const gd_facts *f;
    const gd_findings *fs;
    const gd_profile_view *v; /* the causes ranked, right under the verdict */
    int json;
    int *failed;
    bool details;
} run_report;

static void causes_top(FILE *out, const gd_text_style *st, const void *ud)
{
    gd_profile_causes_text(out, ud, st);
}

static void render_page(FILE *out, const void *ud)
{
    gd_profile_report_html(out, ud);
}

static void render_report(FILE *out, const void *ud)
{
    const run_report *r = ud;
    if (r->json) {
        json_t *j = gd_report_json(r->f, r->fs);
        if (!j || gd_json_print(out, j) != 0)
            *r->failed = 1;
        else
            gd_cli_json_printed(); /* the report, not an error object, answers --json */
        json_decref(j);
    } else {
        gd_text_style st = {.color = false, .width = gd_cli_text_style().width, .details = r->details};
        gd_text_extra x = {.under_verdict = causes_top, .ud = r->v, .said = gd_profile_cause_said};
        gd_report_text_with(out, r->f, r->fs, &st, &x);
    }
}

/* The report: into --output FILE, or onto stdout and out of stdio's buffer
 * at once (a COMMAND that runs on and is killed must not take it along).
 * The findings' exit code, or GD_EXIT_ERROR after a message. */
static int write_report(const run_opts *o, const gd_facts *f, const gd_findings *fs, const gd_profile_view *v)
{
    if (o->output) {
        int failed = 0;
        run_report r = {f, fs, v, o->json, &failed, o->profile.details};
        if (gd_cli_write_report(o->output, render_report, &r) != 0 || failed)
            return GD_EXIT_ERROR;
        return gd_findings_exit_code(fs);
    }
    gd_cli_report_more more = {
        .ud = v, .top = causes_top, .details = o->profile.details, .said = gd_profile_cause_said};
    int code = gd_cli_print_report_more(f, fs, o->json, &more);
    if (fflush(stdout) != 0 || ferror(stdout))
        return gd_cli_error("cannot write the report: %s", strerror(errno ? errno : EIO));
    return code;
}

/* The joined report of --profile: to standard output, or to --output FILE
 * (standard output pointed at the file while it is written). */
static int profile_report(run_opts *o, const gd_facts *f, const gd_findings *fs, int *report_failed)
{
    if (!o->output)
        return gd_run_profile_report(&o->profile, f, fs, o->json, o->report, report_failed);
    int fd = open(o->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0)
        return gd_cli_error("cannot write the report to %s: %s", o->output, strerror(errno));
    fflush(stdout);
    int saved = dup(1);
    if (saved < 0 || dup2(fd, 1) < 0) {
        close(fd);
        if (saved >= 0)
            close(saved);
        return gd_cli_error("cannot write the report to %s: %s", o->output, strerror(errno));
    }
    close(fd);
    int code = gd_run_profile_report(&o->profile, f, fs, o->json, o->report, report_failed);
    if (fflush(stdout) != 0 || ferror(stdout))
        code = gd_cli_error("cannot write the report to %s: %s", o->output, strerror(errno ? errno : EIO));
    dup2(saved, 1);
    close(saved);
    return code;
}

/* This process's environment as the NUL-separated block /proc/PID/environ
 * holds: what the command it starts next inherits. */
static char *environ_block(size_t *len)
{
    size_t n = 0;
    for (char **e = environ; e && *e; e++)
        n += strlen(*e) + 1;
    char *buf = malloc(n + 1);
    if (!buf)
        return NULL;
    size_t at = 0;
    for (char **e = environ; e && *e; e++) {
        size_t k = strlen(*e) + 1;
        memcpy(buf + at, *e, k);
        at += k;
    }
    buf[at] = '\0';
    *len = at;
    return buf;
}

/* Starts the command; its exec error comes back through a close-on-exec pipe. */
static pid_t start(char **argv, int *exec_errno)
{
    int p[2];
    *exec_errno = 0;
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        execvp(argv[0], argv);
        int e = errno;
        if (write(p[1], &e, sizeof e) < 0)
            _exit(127);
        _exit(127);
    }
    close(p[1]);
    if (pid > 0 && read(p[0], exec_errno, sizeof *exec_errno) != (ssize_t)sizeof *exec_errno)
        *exec_errno = 0;
    close(p[0]);
    return pid;
}

typedef struct watch {
    pid_t pid;
    int status;
    bool reaped;
    gd_facts *facts; /* the session's: the job is marked ended when reaped */
    gd_run_nccl_log *nccl_log; /* --nccl-log: NCCL's start seen when its log appears */
} watch;

/* After every sample: has the command ended? Then the watch ends. A command
 * reaped here after the sample saw it alive has ended all the same: its /proc
 * is gone before the next sample could say so. */
static void on_sample(void *ud, const gd_facts *f, size_t i)
{
    watch *w = ud;
    if (w->nccl_log && f->series.n > i)
        gd_run_nccl_log_poll(w->nccl_log, gd_series_t(&f->series, i));
    if (w->reaped || !child_ended)
        return;
    child_ended = 0; /* before waitpid: an end after it is seen at the next sample */
    if (waitpid(w->pid, &w->status, WNOHANG) == w->pid) {
        w->reaped = true;
        gd_cli_stop = 1;
        gd_job_facts *j = w->facts ? w->facts->job : NULL;
        if (j && j->read && !j->ended) {
            j->ended = true;
            j->ended_at_s = j->n ? gd_job_at(j, j->n - 1)->t : 0;
        }
    }
}

static int exit_of(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : GD_EXIT_ERROR;
}

int gd_cmd_run(int argc, char **argv)
{
    run_opts o;
    int rc = parse(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? GD_EXIT_OK : rc;
    gd_ctx ctx;
    if ((rc = gd_cli_context(&ctx)) != 0)
        return rc;
    if (o.sim && ctx.sim_pace <= 0)
        ctx.sim_pace = 1; /* a real command runs in wall time: so does the scenario */

    if ((rc = gd_run_profile_prepare(&o.profile, o.argv)) != 0)
        return (gd_run_profile_end(&o.profile), rc);
    if ((rc = gd_run_nccl_log_prepare(&o.nccl_log)) != 0)
        return (gd_run_profile_started(&o.profile), gd_run_profile_end(&o.profile), rc);
    int exec_errno;
    size_t env_len = 0;
    char *env_at_exec = environ_block(&env_len); /* the job's environment as it starts: NULL out of memory */
    pid_t pid = start(o.argv, &exec_errno);
    gd_run_profile_started(&o.profile);
    gd_run_nccl_log_started(&o.nccl_log);
    if (pid < 0) {
        rc = gd_cli_error("cannot start '%s': %s", o.argv[0], strerror(errno));
        free(env_at_exec);
        return (gd_run_profile_end(&o.profile), gd_run_nccl_log_end(&o.nccl_log), rc);
    }
    watch w = {.pid = pid, .nccl_log = &o.nccl_log};
    if (exec_errno) {
        waitpid(pid, &w.status, 0);
        gd_cli_error("cannot run '%s': %s", o.argv[0], strerror(exec_errno));
        free(env_at_exec);
        gd_run_profile_end(&o.profile);
        gd_run_nccl_log_end(&o.nccl_log);
        return 127;
    }
    child_pid = pid;
    struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART}, old[FORWARDED];
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < FORWARDED; i++)
        sigaction(forwarded[i], &sa, &old[i]);
    struct sigaction sc = {.sa_handler = on_child, .sa_flags = SA_RESTART | SA_NOCLDSTOP}, old_chld;
    sigemptyset(&sc.sa_mask);
    sigaction(SIGCHLD, &sc, &old_chld);
    child_ended = 1; /* it may have ended before the handler was there */
    /* A stop that came while the command started (main caught it) is the command's too. */
    if (gd_cli_stop_signal)
        kill(pid, gd_cli_stop_signal);

    gd_session_opts so = {
        .ctx = &ctx,
        .sim_scenario = o.sim,
        .duration_s = o.duration_s,
        .interval_s = o.interval_ms / 1000.0,
        .stop = &gd_cli_stop,
        .pid = pid,
        .job_live = true,
    };
    gd_facts f;
    char err[4096];
    gd_session *s = gd_session_open(&so, &f, err, sizeof err);
    w.facts = &f;
    /* The environment the command was started with, until /proc gives the
     * job's own: a job that ends before the first scan still has one. */
    if (s && f.job && !f.job->environ && env_at_exec) {
        f.job->environ = env_at_exec;
        f.job->environ_len = env_len;
        env_at_exec = NULL;
    }
    free(env_at_exec);
    gd_sink sink = {.on_sample = on_sample, .ud = &w};
    int step = 0;
    gd_recorder *rec = NULL;
    if (s && o.record && gd_cli_record(s, o.record, &rec, err, sizeof err) != 0)
        s = (gd_session_close(s, NULL, 0), NULL);
    if (s) {
        gd_session_add_sink(s, &sink);
        while ((step = gd_session_step(s, err, sizeof err)) > 0)
            ;
        rc = step < 0 ? (gd_session_close(s, NULL, 0), -1) : gd_session_close(s, err, sizeof err);
    } else {
        rc = -1;
    }
    int code = GD_EXIT_ERROR, report_failed = gd_recorder_close(rec) ? 0 : GD_EXIT_ERROR;
    if (rc != 0) {
        gd_cli_error("%s", err);
    } else {
        gd_findings fs = {.where = o.profile.on ? GD_AT_PROFILE : GD_AT_RUN};
        gd_run_nccl_log_read(&o.nccl_log, &f);
        gd_checks_run_all(&f, &fs);
        /* Without --profile the causes come from the GPUs' and the job's findings alone. */
        gd_findings no_trace = {.where = GD_AT_RUN};
        gd_causes causes;
        gd_join_causes(&f, &fs, NULL, &no_trace, &causes);
        gd_profile_view v = {&f, &fs, NULL, &no_trace, &causes};
        if (o.profile.on)
            code = profile_report(&o, &f, &fs, &report_failed);
        else
            code = write_report(&o, &f, &fs, &v);
        if (code == GD_EXIT_ERROR || report_failed)
            code = report_failed = GD_EXIT_ERROR;
        else
            code = gd_cli_no_nvidia_gpu(&f, code); /* said whatever the exit: --exit-findings makes it 3 */
        if (!o.profile.on && o.report && gd_cli_write_report(o.report, render_page, &v) != 0)
            code = report_failed = GD_EXIT_ERROR;
        gd_causes_free(&causes);
        gd_findings_free(&fs);
    }
    gd_facts_free(&f);
    if (!w.reaped && o.kill_at_end)
        kill(pid, SIGTERM);
    while (!w.reaped) { /* the command's life is its own: wait for it */
        if (waitpid(pid, &w.status, 0) == pid)
            w.reaped = true;
        else if (errno != EINTR)
            break;
    }
    for (size_t i = 0; i < FORWARDED; i++)
        sigaction(forwarded[i], &old[i], NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
    gd_run_profile_end(&o.profile);
    gd_run_nccl_log_end(&o.nccl_log);
    if (o.exit_findings || !w.reaped || report_failed) /* a report asked for and not written: an error */
        return code;
    return exit_of(w.status);
}
