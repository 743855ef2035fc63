/* SPDX-License-Identifier: Apache-2.0 */
/* gpudoctor check: collect a window, run every check, report. */
#include "gpudoctor/session.h"
#include "cli.h"
#include "gpudoctor/checks.h"
#include "report/recorder.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char gd_check_help[] = "usage: gpudoctor check [--duration SEC] [--interval MS] [--pid PID] [--json]\n"
                             "                       [--python PATH]... [--ignore ID[@GPU]]... [--config FILE]\n"
                             "                       [--fail-on warning|critical] [--record FILE.jsonl]\n"
                             "                       [--report FILE.html] [--summary] [--gpus LIST]\n"
                             "                       [--exit-codes nagios|npd|npd-healthy] [--details]\n"
                             "                       [--sim SCENARIO | --from FILE...]\n"
                             "\n"
                             "Samples every GPU for a window, then judges what it saw: throttling, heat,\n"
                             "lost GPUs and more. Run it while the training job runs: idle GPUs lower their\n"
                             "clocks and PCIe speed on purpose, so some problems only show under load.\n"
                             "\n"
                             "  --duration SEC   length of the window (default 10; 0 = one snapshot); a unit\n"
                             "                   ms, s, m or h may follow (500ms, 2m)\n"
                             "  --interval MS    time between samples (default 100; 250ms, 1s also work)\n"
                             "  --pid PID        the training process, for the checks that look at the job\n"
                             "  --python PATH    a Python (an environment or an interpreter) whose frameworks to\n"
                             "                   check (repeatable)\n"
                             "  --json           the report as JSON: GPUs, findings (id, severity, gpu,\n"
                             "                   evidence, impact_pct, fix) and what was not checked\n"
                             "  --ignore ID[@GPU]  accept a known finding (repeatable): it is still shown,\n"
                             "                   marked ignored, and does not count for the exit status\n"
                             "  --config FILE    read this config file instead of /etc/gpudoctor.conf and\n"
                             "                   $XDG_CONFIG_HOME/gpudoctor.conf (docs/interface.md)\n"
                             "  --fail-on SEV    warning (default): exit 1 on warnings; critical: only\n"
                             "                   critical findings fail (exit 2), warnings exit 0\n"
                             "  --report FILE    also write the report as one HTML page (plots of every GPU\n"
                             "                   over the window; self-contained, opens offline)\n"
                             "  --record FILE    also write the session to FILE (JSON Lines, gzip when FILE\n"
                             "                   ends in .gz, samples older than the checks' hour thinned);\n"
                             "                   --from FILE replays it anywhere to the same findings\n"
                             "  --details        also every check: what each group judged, and why some\n"
                             "                   checks could not (\"Checked\", \"Not checked\"); by default the\n"
                             "                   report says what was judged in a line or two\n"
                             "  --summary        one line instead of the report: the findings that count, by\n"
                             "                   id with their GPUs (\"health.xid GPU 3,4; thermal.throttling\n"
                             "                   GPU 5\"), or \"no problem found\"\n"
                             "  --gpus LIST      judge only these GPUs (indices or UUIDs, comma-separated, as\n"
                             "                   in SLURM_JOB_GPUS or CUDA_VISIBLE_DEVICES): findings on\n"
                             "                   other GPUs are left out; node-wide findings stay\n"
                             "  --exit-codes MAP nagios (default): the codes below; npd: node-problem-\n"
                             "                   detector's 0 ok, 1 problem, 2 unknown; npd-healthy: 1 ok,\n"
                             "                   0 problem, 2 unknown, for a condition that is true when\n"
                             "                   healthy (docs/interface.md)\n"
                             "  --sim SCENARIO   run against a simulated machine (examples/*.json)\n"
                             "  --from FILE      diagnose captured evidence instead of this machine (repeatable):\n"
                             "                   nvidia-smi -q, -q -x, dmon, --query-gpu csv; lspci -vv; topo -m;\n"
                             "                   dmesg / journalctl -k; a --record file; the RDMA NICs: ibstat,\n"
                             "                   ibstatus, ibv_devinfo, ibdev2netdev, show_gids, lsmod, ip -br a,\n"
                             "                   rdma link, lspci -vvv | grep ACSCtl. '-' reads standard input;\n"
                             "                   pipes work. Shell prompts in a paste are skipped, several\n"
                             "                   commands' outputs in one paste each read; a file that cannot be\n"
                             "                   read is named, the others judged\n"
                             "\n"
                             "Ctrl-C, SIGTERM (a scheduler's time limit) or SIGHUP end the window early:\n"
                             "the report covers what was sampled until then.\n"
                             "\n"
                             "Exit status: 0 no problem, 1 warnings, 2 critical findings, 3 could not check\n"
                             "(also when a --from file could not be read and nothing critical was found;\n"
                             "when nothing of the GPUs' own state could be judged and nothing was found:\n"
                             "a topo matrix alone is not a healthy machine, a clean kernel log is OK on\n"
                             "what it shows; and on a machine without an NVIDIA GPU on its PCI bus).\n"
                             "Usable as a Slurm or cron health check as is. NO_COLOR disables colour;\n"
                             "COLUMNS sets the width of the text report.\n";

/* The progress line on a terminal: a sink of the session. */
static void progress(void *ud, const gd_facts *f, size_t i)
{
    double total_s = *(const double *)ud;
    fprintf(stderr, "\rsampling %zu GPU%s: %4.1f of %.1f s (Ctrl-C ends the window early)", f->gpu_count,
            f->gpu_count == 1 ? "" : "s", gd_series_t(&f->series, i), total_s);
    fflush(stderr);
}

#define MAX_FILES 32

typedef struct check_opts {
    double duration_s, interval_ms;
    long pid;
    int json;
    bool details; /* --details: every check in the text */
    const char *sim;
    const char *record;
    const char *report; /* --report FILE.html, or NULL */
    const char *from[MAX_FILES];
    size_t from_count;
    const char *python[MAX_FILES];
    size_t python_count;
    const char *config;
    gd_cli_settings settings;
    bool fail_on_given;
    gd_severity fail_on;
    bool summary;
    const char *gpus; /* --gpus LIST, or NULL */
    int exit_map; /* EXIT_MAP_* */
} check_opts;

enum { EXIT_MAP_NAGIOS, EXIT_MAP_NPD, EXIT_MAP_NPD_HEALTHY };

/* One option a line, as the other commands' tables. */
/* clang-format off */
const struct option gd_check_options[] = {
    {"duration", required_argument, NULL, 'd'},
    {"interval", required_argument, NULL, 'i'},
    {"pid", required_argument, NULL, 'p'},
    {"json", no_argument, NULL, 'j'},
    {"sim", required_argument, NULL, 's'},
    {"from", required_argument, NULL, 'f'},
    {"help", no_argument, NULL, 'h'},
    {"python", required_argument, NULL, 'y'},
    {"ignore", required_argument, NULL, 'x'},
    {"config", required_argument, NULL, 'c'},
    {"fail-on", required_argument, NULL, 'F'},
    {"record", required_argument, NULL, 'R'},
    {"report", required_argument, NULL, 'H'},
    {"summary", no_argument, NULL, 'S'},
    {"gpus", required_argument, NULL, 'G'},
    {"exit-codes", required_argument, NULL, 'E'},
    {"details", no_argument, NULL, 'D'},
    {NULL, 0, NULL, 0},
};
/* clang-format on */

static int parse(int argc, char **argv, check_opts *o)
{
    *o = (check_opts){.duration_s = 10, .interval_ms = 100, .pid = -1};
    static gd_policy cli_ignores; /* --ignore adds to what the config files say */
    memset(&cli_ignores, 0, sizeof cli_ignores);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+:h", gd_check_options, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (gd_cli_duration(optarg, 1, 0, 86400, &o->duration_s) != 0)
                return gd_cli_error(
                    "--duration wants seconds between 0 and 86400 (like 30, 2.5, 500ms or 5m), not '%s'", optarg);
            break;
        case 'i':
            if (gd_cli_interval(optarg, &o->interval_ms) != 0)
                return GD_EXIT_ERROR;
            break;
        case 'p':
            if (gd_cli_integer(optarg, 1, 4194304, &o->pid) != 0)
                return gd_cli_error("--pid wants a process id (a whole number), not '%s'", optarg);
            break;
        case 'j': o->json = 1; break;
        case 's': o->sim = gd_cli_scenario(optarg); break;
        case 'f':
            if (o->from_count == MAX_FILES)
                return gd_cli_error("at most %d --from files", MAX_FILES);
            o->from[o->from_count++] = optarg;
            break;
        case 'y':
            if (o->python_count == MAX_FILES)
                return gd_cli_error("at most %d --python paths", MAX_FILES);
            o->python[o->python_count++] = optarg;
            break;
        case 'x':
            if (gd_cli_ignore_arg(optarg, &cli_ignores) != 0)
                return GD_EXIT_ERROR;
            break;
        case 'c': o->config = optarg; break;
        case 'F':
            if (gd_cli_fail_on(optarg, &o->fail_on) != 0)
                return gd_cli_error("--fail-on wants warning or critical, not '%s'", optarg);
            o->fail_on_given = true;
            break;
        case 'h': gd_cli_help_print(stdout, gd_check_help); return -1;
        case 'R': o->record = optarg; break;
        case 'H': o->report = optarg; break;
        case 'S': o->summary = true; break;
        case 'D': o->details = true; break;
        case 'G': o->gpus = optarg; break;
        case 'E':
            if (strcmp(optarg, "nagios") == 0)
                o->exit_map = EXIT_MAP_NAGIOS;
            else if (strcmp(optarg, "npd") == 0)
                o->exit_map = EXIT_MAP_NPD;
            else if (strcmp(optarg, "npd-healthy") == 0)
                o->exit_map = EXIT_MAP_NPD_HEALTHY;
            else
                return gd_cli_error("--exit-codes wants nagios, npd or npd-healthy, not '%s'", optarg);
            break;
        case ':': return gd_cli_error("%s needs a value (see 'gpudoctor check --help')", argv[optind - 1]);
        default: return gd_cli_error("unknown option '%s' (see 'gpudoctor check --help')", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return gd_cli_error("unexpected argument '%s' (see 'gpudoctor check --help')", argv[optind]);
    o->settings.fail_on = GD_SEV_WARNING;
    int rc = gd_cli_settings_load(o->config, getenv("XDG_CONFIG_HOME"), getenv("HOME"), &o->settings);
    if (rc != 0)
        return rc;
    gd_policy *p = &o->settings.policy;
    for (size_t i = 0; i < cli_ignores.nignore; i++) {
        if (p->nignore == GD_POLICY_MAX)
            return gd_cli_error("at most %d ignored findings", GD_POLICY_MAX);
        p->ignore[p->nignore++] = cli_ignores.ignore[i];
    }
    if (o->fail_on_given)
        o->settings.fail_on = o->fail_on;
    if (o->summary && (o->json || o->report))
        return gd_cli_error("--summary prints one line: it goes without --json and --report");
    if (o->sim && o->from_count)
        return gd_cli_error("--sim and --from exclude each other: one describes a machine, the other captured files");
    if (o->report && gd_cli_report_writable(o->report) != 0)
        return GD_EXIT_ERROR;
    /* Under --sim the job lives in the scenario's host.proc; --from describes another machine. */
    if (o->pid > 0 && !o->sim && o->from_count == 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld", o->pid);
        if (access(path, F_OK) != 0)
            return gd_cli_error("--pid %ld: no such process", o->pid);
    }
    return 0;
}

/* Whether GPU g (its index and UUID) is one of LIST's entries. */
static bool gpu_listed(const char *list, const gd_gpu *g)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", list);
    char *save = NULL;
    for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        char *end;
        long n = strtol(t, &end, 10);
        if (*end == '\0' && end != t ? n == g->index : strncmp(g->uuid, t, strlen(t)) == 0)
            return true;
    }
    return false;
}

/* --gpus: every entry names a GPU of this machine (a UUID may be a unique
 * prefix, as CUDA_VISIBLE_DEVICES allows); the findings on other GPUs go. */
static int keep_gpus(const char *list, const gd_facts *f, gd_findings *fs)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", list);
    char *save = NULL;
    for (char *t = strtok_r(copy, ", ", &save); f->gpu_count && t; t = strtok_r(NULL, ", ", &save)) {
        size_t hits = 0;
        for (size_t g = 0; g < f->gpu_count; g++)
            hits += gpu_listed(t, &f->gpus[g]);
        if (hits != 1)
            return gd_cli_error("--gpus: '%s' %s of the %zu GPUs here (an index or a UUID)", t,
                                hits ? "names more than one" : "is none", f->gpu_count);
    }
    size_t kept = 0;
    for (size_t i = 0; i < fs->n; i++) {
        gd_finding *x = &fs->v[i];
        bool keep = x->gpu == GD_NO_GPU;
        for (size_t g = 0; g < f->gpu_count && !keep; g++)
            keep = f->gpus[g].index == x->gpu && gpu_listed(list, &f->gpus[g]);
        if (keep)
            fs->v[kept++] = *x;
        else
            json_decref(x->evidence);
    }
    fs->n = kept;
    return 0;
}

/* check's code under --exit-codes (docs/interface.md). */
static int map_exit(int code, int map)
{
    if (map == EXIT_MAP_NAGIOS)
        return code;
    if (code == GD_EXIT_ERROR)
        return 2; /* unknown */
    bool problem = code == GD_EXIT_WARNING || code == GD_EXIT_CRITICAL;
    return map == EXIT_MAP_NPD ? problem : !problem;
}

static int check_main(check_opts *op);

int gd_cmd_check(int argc, char **argv)
{
    check_opts o;
    int rc = parse(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? GD_EXIT_OK : map_exit(rc, o.exit_map);
    return map_exit(check_main(&o), o.exit_map);
}

static int check_main(check_opts *op)
{
    check_opts o = *op;
    int rc;

    bool show_progress = isatty(STDERR_FILENO) && o.duration_s > 0 && o.from_count == 0;
    gd_session_opts so = {
        .sim_scenario = o.sim,
        .duration_s = o.duration_s,
        .interval_s = o.interval_ms / 1000.0,
        .stop = &gd_cli_stop,
        .pid = o.pid,
        .python = o.python,
        .python_count = o.python_count,
        .from = o.from,
        .from_count = o.from_count,
    };
    gd_ctx ctx;
    if ((rc = gd_cli_context(&ctx)) != 0)
        return rc;
    so.ctx = &ctx;
    gd_facts f;
    char err[4096];
    /* check is a loop over the session; the progress line is one of its sinks. */
    gd_session *s = gd_session_open(&so, &f, err, sizeof err);
    rc = s ? 0 : -1;
    gd_sink bar = {.on_sample = progress, .ud = &o.duration_s};
    if (s && show_progress)
        gd_session_add_sink(s, &bar);
    gd_recorder *rec = NULL;
    if (s && o.record && (rc = gd_cli_record(s, o.record, &rec, err, sizeof err)) != 0)
        s = (gd_session_close(s, NULL, 0), NULL);
    int step;
    while (s && (step = gd_session_step(s, err, sizeof err)) > 0)
        ;
    if (s && step < 0) {
        gd_session_close(s, NULL, 0);
        rc = -1;
    } else if (s) {
        rc = gd_session_close(s, err, sizeof err);
    }
    bool recorded = gd_recorder_close(rec); /* a recording cut short (a full disk) fails the run, after the report */
    if (show_progress)
        fputs("\r\033[K", stderr);
    if (rc != 0) {
        gd_facts_free(&f);
        return gd_cli_error("%s", err);
    }

    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    gd_findings_apply_policy(&fs, &o.settings.policy);
    if (o.gpus && keep_gpus(o.gpus, &f, &fs) != 0) {
        gd_findings_free(&fs);
        gd_facts_free(&f);
        return GD_EXIT_ERROR;
    }
    int printed;
    if (o.summary) {
        char line[1024];
        printed = gd_findings_exit_code(&fs);
        if (gd_facts_no_nvidia_gpu(&f))
            snprintf(line, sizeof line, "no NVIDIA GPU on this machine");
        else if (gd_report_summary_line(line, sizeof line, &fs, o.settings.fail_on) == 0)
            snprintf(line, sizeof line, "no problem found");
        puts(line);
    } else {
        gd_cli_report_more more = {.details = o.details};
        printed = gd_cli_print_report_more(&f, &fs, o.json, &more);
    }
    int code = printed == GD_EXIT_ERROR || !recorded ? GD_EXIT_ERROR : gd_cli_exit_code(&fs, o.settings.fail_on);
    if (code != GD_EXIT_ERROR)
        code = gd_cli_judged_exit(&f, &fs, code);
    if (o.report && gd_cli_html_report(o.report, &f, &fs) != 0)
        code = GD_EXIT_ERROR;
    gd_findings_free(&fs);
    gd_facts_free(&f);
    return code;
}
