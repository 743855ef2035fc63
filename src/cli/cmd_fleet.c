/* SPDX-License-Identifier: Apache-2.0 */
/* gpudoctor fleet: many nodes' check reports compared (docs/fleet.md). */
#include "analysis/fleet.h"
#include "analysis/fleet_dedup.h"
#include "core/input.h"
#include "formats/fleet/fleet_read.h"
#include "cli.h"
#include "report/fleet_report.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

/* More reports than any fleet sends to one command: beyond, say so. */
#define MAX_REPORTS 100000
/* Reports given twice or not read said on stderr one by one; the rest counted. */
#define STDERR_FEW 5

const char gd_fleet_help[] =
    "usage: gpudoctor fleet REPORT.json...|DIR [--json] [--report FILE.html] [--exit-findings]\n"
    "\n"
    "Compares many nodes' 'gpudoctor check --json' reports (one per node; a directory\n"
    "means its *.json files) and names the outliers: GPUs, grouped by model, whose SM\n"
    "clock, temperature or power under load stand out from the group's median by more\n"
    "than 3 scaled MADs and by more than a margin that matters (clock 5 % lower,\n"
    "power 15 % lower, 8 C hotter); and the findings that half the nodes or more share\n"
    "(at least 3): one cause rolled out to many nodes. Rules: docs/fleet.md.\n"
    "A 'bench nccl --nodes --json' report among them adds its nodes: each node's\n"
    "network findings and the run's findings on the node they name (a slow port's\n"
    "node), merged into that node's own check report where there is one.\n"
    "\n"
    "  --json           the comparison as JSON (docs/interface.md)\n"
    "  --report FILE    also write one HTML page: findings, groups, a bar per node\n"
    "  --exit-findings  exit 1 on warnings, 2 on critical findings (as check does),\n"
    "                   the nodes' own reports' findings counted; 3 when nothing\n"
    "                   was found but a node could not be judged\n"
    "\n"
    "A report that cannot be read (truncated, not a check report, a newer schema) is\n"
    "counted under 'Not read' and the others are compared; none readable is exit 3.\n"
    "A node not judged (no GPU, none under load, too few of its model) is counted\n"
    "under 'Not judged'; a report given twice (a file, or a node's name) is read once.\n"
    "The text names the first 5 of each list and counts the rest; --json lists all.\n"
    "Exit: 0, or with --exit-findings 0, 1, 2, 3; 3 could not compare.\n"
    "\n"
    "Example, a Slurm cluster (docs/slurm.md):\n"
    "  srun -N16 --ntasks-per-node=1 -o 'reports/%N.json' gpudoctor check --json\n"
    "  gpudoctor fleet reports/\n";

const struct option gd_fleet_options[] = {
    {"json", no_argument, NULL, 'j'},
    {"report", required_argument, NULL, 'H'},
    {"exit-findings", no_argument, NULL, 'x'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct paths {
    char **v;
    size_t n, cap;
} paths;

static int push(paths *p, const char *s)
{
    if (p->n == MAX_REPORTS)
        return gd_cli_error("more than %d reports: compare them in parts", MAX_REPORTS);
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        char **v = realloc(p->v, cap * sizeof *v);
        if (!v)
            return gd_cli_error("out of memory");
        p->v = v;
        p->cap = cap;
    }
    if (!(p->v[p->n] = strdup(s)))
        return gd_cli_error("out of memory");
    p->n++;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's *.json files, sorted; anything else is itself. */
static int add_path(paths *p, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return push(p, path); /* the reader says what is wrong with it */
    DIR *d = opendir(path);
    if (!d)
        return gd_cli_error("cannot read the directory %s: %s", path, strerror(errno));
    size_t first = p->n;
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l < 6 || strcmp(e->d_name + l - 5, ".json") != 0)
            continue;
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", path, e->d_name);
        rc = push(p, full);
    }
    closedir(d);
    if (!rc && p->n == first)
        return gd_cli_error("%s holds no report (*.json)", path);
    if (!rc)
        qsort(p->v + first, p->n - first, sizeof *p->v, cmp_str);
    return rc;
}

static int note_duplicate(char **dups, size_t *n, const char *file, const char *first, const char *how)
{
    size_t len = strlen(file) + strlen(first) + strlen(how) + 32;
    char *msg = malloc(len);
    if (!msg)
        return gd_cli_error("out of memory");
    snprintf(msg, len, "%s: %s %s, read once", file, how, first);
    dups[(*n)++] = msg;
    return 0;
}

/* What a file is, stat'ed once: a file that cannot be, or is not a regular
 * file, is never the same as another (the reader says what is wrong with it). */
static gd_fleet_file_key file_key(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return (gd_fleet_file_key){0};
    return (gd_fleet_file_key){(uint64_t)sb.st_dev, (uint64_t)sb.st_ino, true};
}

/* Reads each report once into fleet (its nodes sized for every file): one
 * given twice (the same file, or a second report of a node's name; the
 * first counts) is noted in dups, one that cannot be read in unread, each
 * in the order given. 0, or an exit code. */
/* The nodes of `bench nccl --nodes` reports, one list per report. */
typedef struct run_nodes {
    size_t n;
    gd_fleet_node **nodes;
    size_t *count;
} run_nodes;

/* A run's nodes into the fleet: a node that has its own check report gains
 * the run's findings on it (once each), another joins the fleet with them
 * alone (no GPUs of its own: compared with nothing). 0, or an exit code. */
static int merge_runs(run_nodes *runs, gd_fleet *fleet)
{
    int rc = 0;
    for (size_t r = 0; r < runs->n; r++) {
        for (size_t k = 0; k < runs->count[r]; k++) {
            gd_fleet_node *x = &runs->nodes[r][k];
            gd_fleet_node *into = NULL;
            for (size_t i = 0; i < fleet->n && !into; i++)
                if (strcmp(fleet->nodes[i].name, x->name) == 0)
                    into = &fleet->nodes[i];
            if (!into && !rc) {
                gd_fleet_node *grown = realloc(fleet->nodes, (fleet->n + 1) * sizeof *grown);
                if (!grown) {
                    rc = gd_cli_error("out of memory");
                } else {
                    fleet->nodes = grown;
                    fleet->nodes[fleet->n++] = *x; /* the fleet owns its findings now */
                    x->findings = NULL;
                    continue;
                }
            }
            gd_fleet_finding *more =
                into && !rc ? realloc(into->findings, (into->nfindings + x->nfindings + 1) * sizeof *more) : NULL;
            if (into && !rc && !more)
                rc = gd_cli_error("out of memory");
            for (size_t f = 0; more && f < x->nfindings; f++) {
                bool have = false;
                for (size_t g = 0; g < into->nfindings && !have; g++)
                    have = strcmp(more[g].id, x->findings[f].id) == 0 && more[g].gpu == x->findings[f].gpu;
                if (!have)
                    more[into->nfindings++] = x->findings[f];
            }
            if (more)
                into->findings = more;
            free(x->findings);
        }
        free(runs->nodes[r]);
    }
    return rc;
}

static int read_reports(const paths *files, gd_fleet *fleet, run_nodes *runs, char **unread, size_t *nunread,
                        char **dups, size_t *ndups)
{
    size_t n = files->n;
    gd_fleet_file_key *keys = calloc(n + 1, sizeof *keys);
    size_t *same_file = calloc(n + 1, sizeof *same_file), *same_node = calloc(n + 1, sizeof *same_node);
    size_t *file_of = calloc(n + 1, sizeof *file_of); /* a node's index in files */
    int rc = 0;
    if (!keys || !same_file || !same_node || !file_of)
        rc = gd_cli_error("out of memory");
    for (size_t i = 0; !rc && i < n; i++)
        keys[i] = file_key(files->v[i]);
    if (!rc && gd_fleet_first_same_file(keys, n, same_file) != 0)
        rc = gd_cli_error("out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        char err[1024];
        if (same_file[i] != GD_FLEET_FIRST)
            continue;
        size_t len = 0;
        char *buf = gd_input_read(files->v[i], GD_INPUT_FILE, GD_FLEET_REPORT_MAX, &len, err, sizeof err);
        int run = buf ? gd_fleet_parse_run(buf, len, files->v[i], &runs->nodes[runs->n], &runs->count[runs->n], err,
                                           sizeof err)
                      : -1;
        if (run == 0) { /* a run across nodes: its nodes join the fleet's after the reports (merge_runs) */
            runs->n++;
            free(buf);
            continue;
        }
        if (run < 0 || gd_fleet_parse_report(buf, len, files->v[i], &fleet->nodes[fleet->n], err, sizeof err) != 0) {
            free(buf);
            if (!(unread[(*nunread)++] = strdup(err)))
                rc = gd_cli_error("out of memory");
            continue;
        }
        free(buf);
        file_of[fleet->n++] = i;
    }
    bool named = !rc && gd_fleet_first_same_node(fleet, same_node) == 0;
    if (!rc && !named)
        rc = gd_cli_error("out of memory");
    /* Every node is kept or freed, even when a note fails: the fleet stays whole to free. */
    size_t k = 0, kept = 0;
    for (size_t i = 0; named && i < n; i++) {
        if (same_file[i] != GD_FLEET_FIRST) { /* a file and its directory, a link: counts once */
            if (!rc)
                rc = note_duplicate(dups, ndups, files->v[i], files->v[same_file[i]], "the same file as");
            continue;
        }
        if (k == fleet->n || file_of[k] != i)
            continue; /* not read */
        gd_fleet_node *node = &fleet->nodes[k];
        if (same_node[k] != GD_FLEET_FIRST) { /* one node, two reports: the first counts */
            char how[200];
            snprintf(how, sizeof how, "the same node (%.120s) as", node->name);
            if (!rc)
                rc = note_duplicate(dups, ndups, files->v[i], files->v[file_of[same_node[k]]], how);
            free(node->gpus);
            free(node->findings);
        } else {
            fleet->nodes[kept++] = *node;
        }
        k++;
    }
    if (named) {
        memset(fleet->nodes + kept, 0, (fleet->n - kept) * sizeof *fleet->nodes);
        fleet->n = kept;
    }
    free(keys);
    free(same_file);
    free(same_node);
    free(file_of);
    return rc;
}

/* The first messages on stderr, the others counted: a fleet's 10 000 are no message. */
static void say_few(const char *const *msgs, size_t n, const char *what)
{
    for (size_t i = 0; i < n && i < STDERR_FEW; i++)
        fprintf(stderr, "gpudoctor: %s\n", msgs[i]);
    if (n > STDERR_FEW)
        fprintf(stderr, "gpudoctor: and %zu more %s\n", n - STDERR_FEW, what);
}

static void render_html(FILE *out, const void *ud)
{
    gd_fleet_report_html(out, ud);
}

int gd_cmd_fleet(int argc, char **argv)
{
    int json = 0, exit_findings = 0;
    const char *report = NULL;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", gd_fleet_options, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'H': report = optarg; break;
        case 'x': exit_findings = 1; break;
        case 'h': gd_cli_help_print(stdout, gd_fleet_help); return GD_EXIT_OK;
        case ':': return gd_cli_error("%s needs a value (see 'gpudoctor fleet --help')", argv[optind - 1]);
        default: return gd_cli_error("unknown option '%s' (see 'gpudoctor fleet --help')", argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        gd_cli_help_print(stderr, gd_fleet_help);
        return gd_cli_error("fleet needs the nodes' reports: files, or a directory of them");
    }
    if (report && gd_cli_report_writable(report) != 0)
        return GD_EXIT_ERROR;
    paths files = {0};
    int rc = 0;
    for (int i = optind; i < argc && !rc; i++)
        rc = add_path(&files, argv[i]);
    gd_fleet fleet = {0};
    char **unread = rc ? NULL : calloc(files.n + 1, sizeof *unread);
    size_t nunread = 0;
    fleet.nodes = rc ? NULL : calloc(files.n + 1, sizeof *fleet.nodes);
    if (!rc && (!unread || !fleet.nodes))
        rc = gd_cli_error("out of memory");
    run_nodes runs = {0};
    runs.nodes = rc ? NULL : calloc(files.n + 1, sizeof *runs.nodes);
    runs.count = rc ? NULL : calloc(files.n + 1, sizeof *runs.count);
    if (!rc && (!runs.nodes || !runs.count))
        rc = gd_cli_error("out of memory");
    char **dups = rc ? NULL : calloc(files.n + 1, sizeof *dups);
    size_t ndups = 0;
    if (!rc && !dups)
        rc = gd_cli_error("out of memory");
    if (!rc)
        rc = read_reports(&files, &fleet, &runs, unread, &nunread, dups, &ndups);
    if (!rc)
        rc = merge_runs(&runs, &fleet);
    free(runs.nodes);
    free(runs.count);
    say_few((const char *const *)dups, ndups, "given twice, read once (the JSON's duplicates[])");
    if (!rc && fleet.n == 0) {
        say_few((const char *const *)unread, nunread, "that could not be read");
        rc = gd_cli_error("no report could be read (%s%s): nothing to compare", nunread ? unread[0] : "none given",
                          nunread > 1 ? ", ..." : "");
    }
    gd_fleet_result res = {0};
    if (!rc && gd_fleet_analyze(&fleet, &res) != 0)
        rc = gd_cli_error("out of memory");
    if (!rc) {
        gd_fleet_run run = {&fleet, &res, nunread, (const char *const *)unread, ndups, (const char *const *)dups};
        if (json) {
            json_t *j = gd_fleet_report_json(&run);
            if (gd_cli_print_json(j) != 0)
                rc = GD_EXIT_ERROR;
            json_decref(j);
        } else {
            gd_text_style st = gd_cli_text_style();
            gd_fleet_report_text(stdout, &run, &st);
        }
        if (!rc && report && gd_cli_write_report(report, render_html, &run) != 0)
            rc = GD_EXIT_ERROR;
        if (!rc && exit_findings) {
            rc = gd_fleet_exit_code(&fleet, &res);
            if (rc == GD_EXIT_ERROR)
                fprintf(stderr, "gpudoctor: no finding, but not every node could be judged (exit 3: could not "
                                "check them all)\n");
        }
    }
    gd_fleet_result_free(&res);
    gd_fleet_free(&fleet);
    for (size_t i = 0; i < nunread; i++)
        free(unread[i]);
    free(unread);
    for (size_t i = 0; i < ndups; i++)
        free(dups[i]);
    free(dups);
    for (size_t i = 0; i < files.n; i++)
        free(files.v[i]);
    free(files.v);
    return rc;
}
