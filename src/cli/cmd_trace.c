/* SPDX-License-Identifier: Apache-2.0 */
/* gpudoctor trace: why the GPU waits, from a PyTorch profiler trace (docs/trace.md). */
#include "analysis/trace/trace.h"
#include "formats/trace/trace_read.h"
#include "checks/trace_checks.h"
#include "cli.h"
#include "report/trace_report.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char gd_trace_help[] = "usage: gpudoctor trace FILE.json[.gz]|DIR [--json] [--report FILE.html] [--rank N]\n"
                             "                       [--steps A:B] [--exit-findings]\n"
                             "\n"
                             "Why the GPU waits, from a PyTorch profiler trace (torch.profiler / Kineto\n"
                             "Chrome trace JSON, plain or gzip, or the legacy format of builds without\n"
                             "Kineto). A directory holds one trace per rank. Reports Holistic Trace\n"
                             "Analysis' temporal and idle time breakdowns with its defaults (the last\n"
                             "profiler step left out, 30 us kernel-wait cut-off), the steps, the\n"
                             "DataLoader's share, kernels, launches, copies and synchronizations, and\n"
                             "findings with fixes (docs/trace.md).\n"
                             "\n"
                             "  --json          the numbers and findings as JSON (docs/trace.md)\n"
                             "  --report FILE   also write the report as one HTML page: step bars, top\n"
                             "                  kernels, the ranks compared (self-contained, opens offline)\n"
                             "  --rank N        only rank N (of a directory, or the file's own rank)\n"
                             "  --steps A:B     only ProfilerStep#A to #B (inclusive)\n"
                             "  --include-last-step  keep the last profiler step (HTA leaves it out)\n"
                             "  --exit-findings  exit 1 on warnings, 2 on critical findings (check's codes;\n"
                             "                   a rank of fewer than 3 steps is too short to judge: its\n"
                             "                   findings are warnings at most)\n"
                             "  --max-memory MIB  what the ranks analysed at once may keep in all (default 1024;\n"
                             "                    each of N at once gets 1/N): a rank that reaches its share\n"
                             "                    is analysed up to there, and the report says so\n"
                             "\n"
                             "A directory of more than 1024 traces: the first 1024 by name are analysed, the\n"
                             "report says how many were left out.\n"
                             "\n"
                             "Exit: 0 analyzed (whatever was found; with --exit-findings 0, 1, 2 as the\n"
                             "verdict says), 3 the trace could not be read, or --steps names no step it has.\n";

#define MAX_FILES 1024

typedef struct job {
    char path[4096];
    const gd_trace_opts *opts;
    size_t max_bytes; /* this rank's share of --max-memory */
    gd_trace_result result;
    int rc;
    char err[4096 + 512];
} job;

static void run_job(job *j)
{
    gd_trace_acc *acc = gd_trace_acc_new();
    gd_trace_meta meta;
    char err[384] = "";
    if (!acc) {
        snprintf(j->err, sizeof j->err, "%s: out of memory", j->path);
        j->rc = -1;
        return;
    }
    gd_trace_acc_cap(acc, j->max_bytes);
    if (gd_trace_read_file(j->path, acc, &meta, err, sizeof err) != 0 ||
        gd_trace_analyze(acc, &meta, j->opts, &j->result, err, sizeof err) != 0) {
        snprintf(j->err, sizeof j->err, "%s: %s", j->path, err);
        j->rc = -1;
    }
    gd_trace_acc_free(acc);
}

typedef struct pool {
    job *jobs;
    size_t n, next;
    pthread_mutex_t mu;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->next++;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n)
            return NULL;
        run_job(&p->jobs[i]);
    }
}

/* Ranks analysed at once: one per core, at most 64 and at most n. */
static size_t threads_for(size_t n)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = cores > 1 ? (size_t)cores : 1;
    if (threads > 64)
        threads = 64;
    return threads > n ? n : threads;
}

/* Every job, on as many threads as there are cores (a directory of ranks). */
static void run_all(job *jobs, size_t n)
{
    size_t threads = threads_for(n);
    pool p = {jobs, n, 0, PTHREAD_MUTEX_INITIALIZER};
    pthread_t tid[64];
    size_t started = 0;
    for (size_t i = 1; i < threads && i < 64; i++)
        if (pthread_create(&tid[started], NULL, worker, &p) == 0)
            started++;
    worker(&p);
    for (size_t i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
}

static bool trace_name(const char *n)
{
    size_t l = strlen(n);
    return (l > 5 && strcmp(n + l - 5, ".json") == 0) || (l > 3 && strcmp(n + l - 3, ".gz") == 0);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The trace files of path: itself, or a directory's *.json and *.gz, sorted
 * by name, the first MAX_FILES of them (*found: how many there were). */
static int list_files(const char *path, char ***out, size_t *n, size_t *found)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return gd_cli_error("cannot read %s: %s", path, strerror(errno));
    size_t cap = 64;
    *out = calloc(cap, sizeof **out);
    *n = *found = 0;
    if (!*out)
        return gd_cli_error("out of memory");
    if (!S_ISDIR(sb.st_mode)) {
        (*out)[(*n)++] = strdup(path);
        *found = 1;
        return 0;
    }
    DIR *d = opendir(path);
    if (!d)
        return gd_cli_error("cannot read the directory %s: %s", path, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        if (e->d_name[0] == '.' || !trace_name(e->d_name))
            continue;
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", path, e->d_name);
        struct stat fs;
        if (stat(full, &fs) != 0 || !S_ISREG(fs.st_mode))
            continue;
        if (*n == cap) { /* names only: which MAX_FILES come first is known once all are read */
            char **bigger = realloc(*out, cap * 2 * sizeof **out);
            if (!bigger) {
                rc = gd_cli_error("out of memory");
                break;
            }
            *out = bigger;
            cap *= 2;
        }
        if (!((*out)[*n] = strdup(full)))
            rc = gd_cli_error("out of memory");
        else
            (*n)++;
    }
    closedir(d);
    if (rc)
        return rc;
    if (*n == 0)
        return gd_cli_error("%s holds no trace file (*.json or *.gz)", path);
    qsort(*out, *n, sizeof **out, cmp_str);
    *found = *n;
    while (*n > MAX_FILES)
        free((*out)[--*n]);
    return 0;
}

static int parse_steps(const char *s, gd_trace_opts *o)
{
    const char *colon = strchr(s, ':');
    if (!colon)
        return -1;
    char a[32];
    size_t n = (size_t)(colon - s);
    if (n == 0 || n >= sizeof a)
        return -1;
    memcpy(a, s, n);
    a[n] = 0;
    long lo, hi;
    if (gd_cli_integer(a, 0, 1000000000, &lo) || gd_cli_integer(colon + 1, 0, 1000000000, &hi) || hi < lo)
        return -1;
    o->step_first = lo;
    o->step_last = hi;
    return 0;
}

/* --steps A:B that match no step of a rank: an error that names the steps it has. */
static int no_such_steps(const gd_trace_opts *o, const gd_trace_result *r)
{
    char have[96];
    if (r->step_first_in_trace < 0)
        snprintf(have, sizeof have, "it has no ProfilerStep#");
    else if (r->step_first_in_trace == r->step_last_in_trace)
        snprintf(have, sizeof have, "its only step is #%ld", r->step_first_in_trace);
    else
        snprintf(have, sizeof have, "its steps are #%ld to #%ld (%zu of them)", r->step_first_in_trace,
                 r->step_last_in_trace, r->steps_in_trace);
    return gd_cli_error("--steps %ld:%ld: no such step in %s (rank %d): %s", o->step_first, o->step_last,
                        r->file ? r->file : "the trace", r->rank, have);
}

static int cmp_rank(const void *a, const void *b)
{
    const gd_trace_result *x = a, *y = b;
    return x->rank - y->rank;
}

static void render_html(FILE *out, const void *ud)
{
    gd_trace_report_html(out, ud);
}

const struct option gd_trace_options[] = {
    {"json", no_argument, NULL, 'j'},
    {"rank", required_argument, NULL, 'r'},
    {"steps", required_argument, NULL, 's'},
    {"include-last-step", no_argument, NULL, 'l'},
    {"help", no_argument, NULL, 'h'},
    {"report", required_argument, NULL, 'H'},
    {"max-memory", required_argument, NULL, 'm'},
    {"exit-findings", no_argument, NULL, 'x'},
    {NULL, 0, NULL, 0},
};

int gd_cmd_trace(int argc, char **argv)
{
    gd_trace_opts opts;
    gd_trace_opts_default(&opts);
    int json = 0;
    bool exit_findings = false;
    int code = GD_EXIT_OK;
    long rank = -1, max_mib = 1024;
    const char *report = NULL;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", gd_trace_options, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'r':
            if (gd_cli_integer(optarg, 0, 1000000, &rank))
                return gd_cli_error("--rank takes a rank number, not '%s'", optarg);
            break;
        case 's':
            if (parse_steps(optarg, &opts))
                return gd_cli_error("--steps takes A:B, two step numbers with A <= B, not '%s'", optarg);
            break;
        case 'l': opts.include_last_step = true; break;
        case 'm':
            if (gd_cli_integer(optarg, 1, 1 << 20, &max_mib))
                return gd_cli_error("--max-memory takes MiB (a whole number, 1 or more), not '%s'", optarg);
            break;
        case 'H': report = optarg; break;
        case 'x': exit_findings = true; break;
        case 'h': gd_cli_help_print(stdout, gd_trace_help); return GD_EXIT_OK;
        default: gd_cli_help_print(stderr, gd_trace_help); return GD_EXIT_ERROR;
        }
    }
    if (optind != argc - 1) {
        gd_cli_help_print(stderr, gd_trace_help);
        return gd_cli_error(optind >= argc ? "trace needs a trace file or a directory of them"
                                           : "trace takes one file or directory");
    }
    const char *path = argv[optind];
    if (report && gd_cli_report_writable(report) != 0)
        return GD_EXIT_ERROR;
    char **files = NULL;
    size_t nfiles = 0, found = 0;
    int rc = list_files(path, &files, &nfiles, &found);
    job *jobs = rc ? NULL : calloc(nfiles, sizeof *jobs);
    gd_trace_result *ranks = rc ? NULL : calloc(nfiles, sizeof *ranks);
    gd_findings fs = {.where = GD_AT_TRACE};
    if (!rc && (!jobs || !ranks))
        rc = gd_cli_error("out of memory");
    if (!rc) {
        for (size_t i = 0; i < nfiles; i++) {
            snprintf(jobs[i].path, sizeof jobs[i].path, "%s", files[i]);
            jobs[i].opts = &opts;
            jobs[i].max_bytes = ((size_t)max_mib << 20) / threads_for(nfiles);
        }
        run_all(jobs, nfiles);
        for (size_t i = 0; i < nfiles && !rc; i++)
            if (jobs[i].rc)
                rc = gd_cli_error("%s", jobs[i].err);
    }
    size_t nr = 0;
    if (!rc) {
        /* A file without distributedInfo is rank 0 alone, or its place in the directory. */
        for (size_t i = 0; i < nfiles; i++) {
            ranks[nr] = jobs[i].result;
            ranks[nr].file = files[i];
            memset(&jobs[i].result, 0, sizeof jobs[i].result);
            if (nfiles > 1 && ranks[nr].rank == 0 && i > 0) {
                bool taken = false;
                for (size_t k = 0; k < nr; k++)
                    taken = taken || ranks[k].rank == 0;
                if (taken)
                    ranks[nr].rank = (int)i;
            }
            nr++;
        }
        qsort(ranks, nr, sizeof *ranks, cmp_rank);
        if (rank >= 0) {
            size_t k = 0;
            for (size_t i = 0; i < nr; i++) {
                if (ranks[i].rank == rank)
                    ranks[k++] = ranks[i];
                else
                    gd_trace_result_free(&ranks[i]);
            }
            if (k == 0)
                rc = gd_cli_error("no rank %ld in %s", rank, path);
            nr = k;
        }
    }
    for (size_t i = 0; !rc && opts.step_first >= 0 && i < nr; i++)
        if (ranks[i].nsteps == 0)
            rc = no_such_steps(&opts, &ranks[i]);
    if (!rc) {
        gd_trace_checks_run(ranks, nr, &fs);
        gd_trace_run run = {nfiles, found, path, ranks, nr, &fs};
        if (json) {
            json_t *j = gd_trace_report_json(&run);
            if (gd_cli_print_json(j) != 0)
                rc = GD_EXIT_ERROR;
            json_decref(j);
        } else {
            gd_text_style st = gd_cli_text_style();
            gd_trace_report_text(stdout, &run, &st);
        }
        if (report && gd_cli_write_report(report, render_html, &run) != 0)
            rc = GD_EXIT_ERROR;
        /* check's codes, as bench, run and fleet give them with the flag. */
        if (!rc && exit_findings)
            code = gd_cli_exit_code(&fs, GD_SEV_WARNING);
    }
    for (size_t i = 0; i < nr; i++)
        gd_trace_result_free(&ranks[i]);
    for (size_t i = 0; jobs && i < nfiles; i++)
        gd_trace_result_free(&jobs[i].result);
    for (size_t i = 0; files && i < nfiles; i++)
        free(files[i]);
    free(files);
    free(jobs);
    free(ranks);
    gd_findings_free(&fs);
    return rc ? GD_EXIT_ERROR : code;
}
