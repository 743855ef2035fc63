/* SPDX-License-Identifier: Apache-2.0 */
/* `gpudoctor fleet`: verdict, the groups' baselines, the outliers and shared
 * causes with their fixes, the nodes, what was not compared or read. */
#include "report/fleet_report.h"
#include "core/strf.h"
#include "core/json_util.h"
#include "core/text_safe.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/svg_plot.h"
#include "report/text_finding.h"
#include "report/text_util.h"
#include "report/verdict_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const metric_keys[3] = {"sm_clock_mhz", "temp_c", "power_w"};

/* What grows with the fleet (nodes not judged, with findings of their own,
 * given twice, not read; the fleet's finding blocks) the text lists a few
 * of, then counts: 10 000 idle reports were 10 000 lines. The JSON has all. */
#define LIST_FEW 5
#define FINDING_BLOCKS 10

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Nodes that an outlier finding names: its findings' node names, sorted and counted once each. */
static size_t outlier_nodes(const gd_fleet_run *run)
{
    const gd_findings *fs = &run->result->findings;
    const char **names = malloc((fs->n + 1) * sizeof *names);
    if (!names)
        return 0;
    size_t m = 0, n = 0;
    for (size_t i = 0; i < fs->n; i++) {
        const json_t *node = json_object_get(fs->v[i].evidence, "node");
        if (strcmp(fs->v[i].id, "fleet.common_finding") != 0 && json_is_string(node))
            names[m++] = json_string_value(node);
    }
    qsort(names, m, sizeof *names, by_name);
    for (size_t i = 0; i < m; i++)
        n += i == 0 || strcmp(names[i], names[i - 1]) != 0;
    free(names);
    return n;
}

/* The worst severity of a node's own report's findings (GD_SEV_INFO: none). */
static gd_severity node_worst(const gd_fleet_node *n)
{
    gd_severity w = GD_SEV_INFO;
    for (size_t i = 0; i < n->nfindings; i++)
        w = n->findings[i].severity > w ? n->findings[i].severity : w;
    return w;
}

/* The names of the first LIST_FEW nodes for which pick() holds (and
 * reason, where given, is theirs), ", "-joined after buf's first `used`
 * bytes, then "and N more"; how many there are. */
static size_t node_names(const gd_fleet_run *run, bool (*pick)(const gd_fleet_run *, size_t), const char *reason,
                         char *buf, size_t len, size_t used)
{
    size_t n = 0, from = used;
    if (used < len)
        buf[used] = '\0';
    for (size_t k = 0; k < run->fleet->n; k++) {
        if (!pick(run, k) || (reason && strcmp(run->result->nodes[k].why, reason) != 0))
            continue;
        if (n++ >= LIST_FEW || used + 1 >= len)
            continue;
        char name[128];
        gd_text_safe(run->fleet->nodes[k].name, name, sizeof name);
        int w = snprintf(buf + used, len - used, "%s%s", used > from ? ", " : "", name);
        used = w > 0 && used + (size_t)w < len ? used + (size_t)w : len - 1;
    }
    if (n > LIST_FEW && used + 1 < len)
        snprintf(buf + used, len - used, " and %zu more", n - LIST_FEW);
    return n;
}

/* The count of nodes for which pick() holds. */
static size_t node_count(const gd_fleet_run *run, bool (*pick)(const gd_fleet_run *, size_t))
{
    size_t n = 0;
    for (size_t k = 0; k < run->fleet->n; k++)
        n += pick(run, k);
    return n;
}

/* A few distinct strings counted (finding ids, reasons not judged), in
 * the order first seen; more than TALLY_MAX are counted as others. */
#define TALLY_MAX 16
typedef struct tally {
    const char *key[TALLY_MAX];
    size_t count[TALLY_MAX], n, other;
} tally;

static void tally_add(tally *t, const char *key)
{
    size_t j = 0;
    while (j < t->n && strcmp(t->key[j], key) != 0)
        j++;
    if (j == t->n && t->n < TALLY_MAX)
        t->key[t->n++] = key;
    if (j < t->n)
        t->count[j]++;
    else
        t->other++;
}

static bool pick_critical(const gd_fleet_run *run, size_t k)
{
    return node_worst(&run->fleet->nodes[k]) >= GD_SEV_CRITICAL;
}

static bool pick_warning(const gd_fleet_run *run, size_t k)
{
    return node_worst(&run->fleet->nodes[k]) == GD_SEV_WARNING;
}

static bool pick_unjudged(const gd_fleet_run *run, size_t k)
{
    return k < run->result->nnodes && !run->result->nodes[k].judged;
}

/* The nodes not judged, by reason in the order first seen, a few names of
 * each: "a, b (no GPU under load in its window), c (no GPU in its
 * report)", "a, b, c, d, e and 2395 more (...)"; how many there are. */
static size_t unjudged_names(const gd_fleet_run *run, char *buf, size_t len)
{
    tally whys = {0};
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < run->fleet->n; k++)
        if (pick_unjudged(run, k))
            tally_add(&whys, run->result->nodes[k].why);
    for (size_t j = 0; j < whys.n && used + 1 < len; j++) {
        size_t from = used ? used + 2 : 0;
        if (used)
            used += (size_t)snprintf(buf + used, len - used, ", ");
        if (used + 1 >= len)
            break;
        node_names(run, pick_unjudged, whys.key[j], buf, len, from);
        used = strlen(buf);
        if (used + 1 < len)
            used += (size_t)snprintf(buf + used, len - used, " (%s)", whys.key[j]);
    }
    size_t total = whys.other;
    for (size_t j = 0; j < whys.n; j++)
        total += whys.count[j];
    return total;
}

static size_t compared_groups(const gd_fleet_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->ngroups; i++)
        n += r->groups[i].compared;
    return n;
}

/*
 * The verdict: the fleet's own findings, then what the comparison cannot
 * see: nodes whose own reports are critical or warn, and nodes that could
 * not be judged at all (no GPU, none under load). "No outlier" is said only
 * of the nodes that were compared.
 */
static const char *verdict_line(const gd_fleet_run *run, char *line, size_t len);

static void text_verdict(FILE *out, const gd_fleet_run *run, const gd_text_style *st)
{
    char line[2400];
    const char *word = verdict_line(run, line, sizeof line);
    gd_text_verdict_line(out, st, word, line);
}

/* The verdict's word (docs/interface.md, "One vocabulary": the word that
 * --exit-findings turns into check's code), and what it rests on into line,
 * the fleet's own findings counted in severity words. */
static const char *verdict_line(const gd_fleet_run *run, char *line, size_t len)
{
    const gd_findings *fs = &run->result->findings;
    size_t crit = gd_findings_count(fs, GD_SEV_CRITICAL), warn = gd_findings_count(fs, GD_SEV_WARNING);
    char crit_nodes[800], warn_nodes[800], unjudged[1200];
    size_t ncrit = node_names(run, pick_critical, NULL, crit_nodes, sizeof crit_nodes, 0);
    size_t nwarn = node_names(run, pick_warning, NULL, warn_nodes, sizeof warn_nodes, 0);
    size_t nun = unjudged_names(run, unjudged, sizeof unjudged);
    size_t nodes = run->fleet->n, judged = nodes - nun;
    const char *word = crit || ncrit ? "CRITICAL" : warn || nwarn ? "WARNING" : nun ? "NOT CHECKED" : "OK";
    size_t used = 0;
#define ADD(...) used += (size_t)snprintf(line + used, used < len ? len - used : 0, __VA_ARGS__)
    if (crit + warn)
        ADD("%zu critical, %zu warning%s across the fleet: outliers on %zu of %zu nodes", crit, warn,
            warn == 1 ? "" : "s", outlier_nodes(run), nodes);
    else if (compared_groups(run->result) && judged)
        ADD("no outlier and no shared cause among the %zu node%s compared", judged, judged == 1 ? "" : "s");
    else
        ADD("nothing could be compared: no model with %d GPUs under load on %d nodes", GD_FLEET_MIN_GPUS,
            GD_FLEET_MIN_NODES);
    if (ncrit)
        ADD("; critical in their own reports: %zu node%s (%s)", ncrit, ncrit == 1 ? "" : "s", crit_nodes);
    if (nwarn)
        ADD("; warnings in their own reports: %zu node%s (%s)", nwarn, nwarn == 1 ? "" : "s", warn_nodes);
    if (nun)
        ADD("; not judged: %zu of %zu node%s: %s", nun, nodes, nodes == 1 ? "" : "s", unjudged);
#undef ADD
    return word;
}

/* Columns of UTF-8 text (each character one). */
static int text_columns(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* A name cut to cols columns, '...' (one column, U+2026) marking the cut. */
static void cut_name(const char *name, char *out, size_t len, size_t cols)
{
    char safe[256];
    gd_text_safe(name, safe, sizeof safe);
    size_t n = 0, i = 0, keep = 0;
    for (; safe[i]; i++)
        if (((unsigned char)safe[i] & 0xC0) != 0x80 && ++n == cols)
            keep = i; /* where the last column that stays before the mark begins */
    if (n <= cols) {
        snprintf(out, len, "%s", safe);
        return;
    }
    snprintf(out, len, "%.*s\u2026", (int)keep, safe);
}

static void fmt_num(double v, const char *unit, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.0f %s", v, unit);
}

/* The columns a name column takes: its longest name's, at least `least`,
 * at most what the width leaves beside the `rest` columns of the line (a
 * name was cut at 24 whatever the width). */
static int name_columns(const gd_fleet_run *run, bool models, int least, int rest, const gd_text_style *st)
{
    int longest = 0, width = st && st->width > 0 ? st->width : 80;
    size_t n = models ? run->result->ngroups : run->fleet->n;
    for (size_t i = 0; i < n; i++) {
        char safe[256];
        gd_text_safe(models ? run->result->groups[i].model : run->fleet->nodes[i].name, safe, sizeof safe);
        int c = text_columns(safe);
        longest = c > longest ? c : longest;
    }
    int most = width - rest > least ? width - rest : least;
    return longest < least ? least : longest > most ? most : longest;
}

/* A fleet finding and the block it is shown in: one per cause and node
 * (the same finding on several GPUs of a node), a finding of no node alone. */
typedef struct block_ref {
    const char *id, *node;
    gd_severity severity;
    size_t at; /* in the findings' order */
} block_ref;

static int by_block_then_at(const void *a, const void *b)
{
    const block_ref *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    if (!c && (x->node || y->node))
        c = !x->node ? -1 : !y->node ? 1 : strcmp(x->node, y->node);
    if (!c && x->severity != y->severity)
        c = x->severity < y->severity ? -1 : 1;
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

static bool same_block(const block_ref *x, const block_ref *y)
{
    return x->node && y->node && x->severity == y->severity && strcmp(x->id, y->id) == 0 &&
           strcmp(x->node, y->node) == 0;
}

/* A block: refs[from, to), shown where its first finding is. */
typedef struct block_span {
    size_t from, to, first;
} block_span;

static int by_first(const void *a, const void *b)
{
    const block_span *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* One finding block at its node and GPUs, check's layout (text_finding.h). */
static void text_block(FILE *out, const gd_fleet_run *run, const gd_text_style *st, const block_ref *refs,
                       const block_span *b)
{
    const gd_finding *f = &run->result->findings.v[refs[b->from].at];
    const char *node = refs[b->from].node;
    size_t ng = b->to - b->from;
    int gpus[256];
    size_t listed = 0;
    for (size_t j = b->from; j < b->to && listed < sizeof gpus / sizeof *gpus; j++)
        gpus[listed++] = run->result->findings.v[refs[j].at].gpu;
    gd_finding shown = *f;
    char at[420], list[200] = "";
    const char *rest = strstr(f->title, ": ");
    if (ng > 1 && rest) {
        gd_gpu_ranges(gpus, listed, true, list, sizeof list);
        /* a long title is cut at the title's size, as every title is */
        gd_strf(shown.title, sizeof shown.title, "%s GPUs %s (%zu)%s", node ? node : "?", list, ng, rest);
        snprintf(at, sizeof at, "%s GPUs %s", node ? node : "fleet", list);
    } else if (node && f->gpu != GD_NO_GPU) {
        snprintf(at, sizeof at, "%s GPU %d", node, f->gpu);
    } else {
        snprintf(at, sizeof at, "%s", node ? node : "fleet");
    }
    gd_text_finding(out, st, &shown, &(gd_text_finding_how){.series = false, .at = at});
}

/* The fleet's findings, one block per cause and node, sorted into blocks
 * (a fleet of thousands of outliers is not each compared with each); the
 * first FINDING_BLOCKS shown, the others counted by id. */
static void text_findings(FILE *out, const gd_fleet_run *run, const gd_text_style *st)
{
    const gd_findings *fs = &run->result->findings;
    if (!fs->n)
        return;
    fputs("\nFindings:\n", out);
    block_ref *refs = malloc(fs->n * sizeof *refs);
    block_span *blocks = malloc(fs->n * sizeof *blocks);
    if (!refs || !blocks) {
        free(refs);
        free(blocks);
        return;
    }
    for (size_t i = 0; i < fs->n; i++)
        refs[i] = (block_ref){fs->v[i].id, json_string_value(json_object_get(fs->v[i].evidence, "node")),
                              fs->v[i].severity, i};
    qsort(refs, fs->n, sizeof *refs, by_block_then_at);
    size_t nb = 0;
    for (size_t i = 0; i < fs->n; i++) {
        if (i == 0 || !same_block(&refs[i - 1], &refs[i]))
            blocks[nb++] = (block_span){i, i, refs[i].at};
        blocks[nb - 1].to = i + 1;
    }
    qsort(blocks, nb, sizeof *blocks, by_first);
    for (size_t b = 0; b < nb && b < FINDING_BLOCKS; b++)
        text_block(out, run, st, refs, &blocks[b]);
    if (nb > FINDING_BLOCKS) {
        tally ids = {0}; /* the rest by id: a few ids, however many nodes */
        for (size_t b = FINDING_BLOCKS; b < nb; b++)
            tally_add(&ids, refs[blocks[b].from].id);
        char line[1024];
        size_t used = (size_t)snprintf(line, sizeof line, "and %zu more (", nb - FINDING_BLOCKS);
        for (size_t j = 0; j < ids.n && used < sizeof line; j++)
            used +=
                (size_t)snprintf(line + used, sizeof line - used, "%s%s %zu", j ? ", " : "", ids.key[j], ids.count[j]);
        if (ids.other && used < sizeof line)
            used += (size_t)snprintf(line + used, sizeof line - used, ", others %zu", ids.other);
        if (used < sizeof line)
            snprintf(line + used, sizeof line - used, "), one per cause and node: see --json");
        fputs("\n  ", out);
        gd_wrap(out, st, 4, 2, line);
    }
    free(refs);
    free(blocks);
}

/* A node's name in its column, then text wrapped under it. */
static void text_node_line(FILE *out, const gd_text_style *st, const char *node_name, int node_w, const char *text)
{
    char name[300];
    cut_name(node_name, name, sizeof name, (size_t)node_w);
    fprintf(out, "  %s%*s ", name, node_w - text_columns(name), "");
    gd_wrap(out, st, node_w + 3, node_w + 3, text);
}

/* The first LIST_FEW nodes with findings of their own, their ids; the others counted. */
static void text_nodes(FILE *out, const gd_fleet_run *run, const gd_text_style *st, int node_w)
{
    size_t quiet = 0, listed = 0;
    fputs("\nNodes (their own reports' warning and critical findings):\n", out);
    for (size_t k = 0; k < run->fleet->n; k++) {
        const gd_fleet_node *n = &run->fleet->nodes[k];
        if (!n->nfindings) {
            quiet++;
            continue;
        }
        if (listed++ >= LIST_FEW)
            continue;
        char ids[400] = "";
        size_t used = 0, nlisted = 0;
        const char *seen[64]; /* what ids holds: a report of 300k findings is not compared with itself */
        for (size_t i = 0; i < n->nfindings && used < sizeof ids - 1 && nlisted < 64; i++) {
            bool dup = false;
            for (size_t j = 0; j < nlisted && !dup; j++)
                dup = strcmp(seen[j], n->findings[i].id) == 0;
            if (!dup) {
                seen[nlisted++] = n->findings[i].id;
                used += (size_t)snprintf(ids + used, sizeof ids - used, "%s%s", used ? ", " : "", n->findings[i].id);
            }
        }
        text_node_line(out, st, n->name, node_w, ids);
    }
    if (listed > LIST_FEW)
        fprintf(out, "  and %zu more with findings: see --json\n", listed - LIST_FEW);
    fprintf(out, "  %zu node%s: none\n", quiet, quiet == 1 ? "" : "s");
}

/* The first LIST_FEW nodes not judged and why; the others counted by why. */
static void text_unjudged(FILE *out, const gd_fleet_run *run, const gd_text_style *st, int node_w)
{
    tally whys = {0}; /* a few reasons (fleet.c), however many nodes */
    size_t listed = 0;
    for (size_t k = 0; k < run->fleet->n; k++) {
        if (!pick_unjudged(run, k))
            continue;
        const char *why = run->result->nodes[k].why;
        if (listed++ == 0)
            fputs("\nNot judged (no GPU held to a group's median):\n", out);
        if (listed <= LIST_FEW)
            text_node_line(out, st, run->fleet->nodes[k].name, node_w, why);
        else
            tally_add(&whys, why);
    }
    if (listed <= LIST_FEW)
        return;
    char line[1024];
    size_t used = (size_t)snprintf(line, sizeof line, "and %zu more (", listed - LIST_FEW);
    for (size_t j = 0; j < whys.n && used < sizeof line; j++)
        used +=
            (size_t)snprintf(line + used, sizeof line - used, "%s%zu: %s", j ? "; " : "", whys.count[j], whys.key[j]);
    if (used < sizeof line)
        snprintf(line + used, sizeof line - used, "): see --json");
    fputs("  ", out);
    gd_wrap(out, st, 4, 2, line);
}

/* A section of messages (given twice, not read): the first LIST_FEW, the others counted. */
static void text_messages(FILE *out, const gd_text_style *st, const char *title, const char *const *msgs, size_t n,
                          int indent)
{
    if (!n)
        return;
    fprintf(out, "\n%s:\n", title);
    for (size_t i = 0; i < n && i < LIST_FEW; i++) {
        fputs("  ", out);
        gd_wrap(out, st, indent, 2, msgs[i]);
    }
    if (n > LIST_FEW)
        fprintf(out, "  and %zu more: see --json\n", n - LIST_FEW);
}

void gd_fleet_report_text(FILE *out, const gd_fleet_run *run, const gd_text_style *st)
{
    const gd_fleet_result *r = run->result;
    const gd_findings *fs = &r->findings;
    /* Models beside 56 columns of figures; nodes beside 40 of finding ids. */
    int model_w = name_columns(run, true, 24, 56, st), node_w = name_columns(run, false, 24, 40, st);
    fprintf(out, "%sgpudoctor %s fleet%s: %zu report%s read", gd_c(st, GD_ANSI_BOLD), GD_VERSION,
            gd_c(st, GD_ANSI_RESET), run->fleet->n, run->fleet->n == 1 ? "" : "s");
    if (run->nunread)
        fprintf(out, ", %zu not", run->nunread);
    fputs("\n", out);
    text_verdict(out, run, st);
    fputs("\nGroups (medians under load: SM clock, temperature, power):\n", out);
    gd_wrapped w; /* the group lines wrap as check's lines do */
    FILE *gout = gd_wrapped_open(&w, out);
    for (size_t i = 0; i < r->ngroups; i++) {
        const gd_fleet_group *g = &r->groups[i];
        char c[32], t[32], p[32], model[300];
        fmt_num(g->median[0], "MHz", c, sizeof c);
        fmt_num(g->median[1], "C", t, sizeof t);
        fmt_num(g->median[2], "W", p, sizeof p);
        /* Names from reports are anyone's: no control or bidi character reaches the terminal. */
        cut_name(g->model, model, sizeof model, (size_t)model_w);
        fprintf(gout, "  %s%*s %3zu GPUs %3zu nodes  %-8s %-4s %-5s%s\n", model, model_w - text_columns(model), "",
                g->gpus, g->nodes, c, t, p, g->compared ? "" : "  not compared");
    }
    gd_wrapped_close(&w, st);
    text_findings(out, run, st);
    text_nodes(out, run, st, node_w);
    text_unjudged(out, run, st, node_w);
    text_messages(out, st, "Given twice (read once)", run->duplicates, run->nduplicates, 4);
    if (fs->nskips) {
        fputs("\nNot compared:\n", out);
        for (size_t i = 0; i < fs->nskips; i++) {
            fputs("  ", out);
            gd_wrap(out, st, 2, 2, fs->skips[i].reason);
        }
    }
    text_messages(out, st, "Not read", run->unread, run->nunread, 2);
}

json_t *gd_fleet_report_json(const gd_fleet_run *run)
{
    const gd_fleet_result *r = run->result;
    json_t *root = json_object(), *tool = json_object();
    json_object_set_new(root, "schema_version", json_integer(GD_JSON_SCHEMA_VERSION));
    json_object_set_new(tool, "name", json_string("gpudoctor"));
    json_object_set_new(tool, "version", json_string(GD_VERSION));
    json_object_set_new(root, "tool", tool);
    json_t *nodes = json_array();
    for (size_t k = 0; k < run->fleet->n; k++) {
        const gd_fleet_node *n = &run->fleet->nodes[k];
        json_t *o = json_object(), *ids = json_array();
        json_object_set_new(o, "name", json_string(n->name));
        json_object_set_new(o, "file", json_string(n->file));
        json_object_set_new(o, "gpus", json_integer((json_int_t)n->ngpus));
        for (size_t i = 0; i < n->nfindings; i++) {
            json_t *f = json_object();
            json_object_set_new(f, "id", json_string(n->findings[i].id));
            json_object_set_new(f, "severity", json_string(gd_severity_name(n->findings[i].severity)));
            json_object_set_new(f, "gpu",
                                n->findings[i].gpu == GD_NO_GPU ? json_null() : json_integer(n->findings[i].gpu));
            json_array_append_new(ids, f);
        }
        json_object_set_new(o, "findings", ids);
        bool judged = k < run->result->nnodes && run->result->nodes[k].judged;
        json_object_set_new(o, "judged", json_boolean(judged));
        json_object_set_new(o, "not_judged",
                            judged || k >= run->result->nnodes ? json_null() : json_string(run->result->nodes[k].why));
        json_array_append_new(nodes, o);
    }
    json_object_set_new(root, "nodes", nodes);
    json_t *groups = json_array();
    for (size_t i = 0; i < r->ngroups; i++) {
        const gd_fleet_group *g = &r->groups[i];
        json_t *o = json_object(), *med = json_object(), *mad = json_object();
        json_object_set_new(o, "model", json_string(g->model));
        json_object_set_new(o, "gpus", json_integer((json_int_t)g->gpus));
        json_object_set_new(o, "nodes", json_integer((json_int_t)g->nodes));
        json_object_set_new(o, "compared", json_boolean(g->compared));
        for (int m = 0; m < 3; m++) {
            json_object_set_new(med, metric_keys[m], gd_json_number(g->median[m]));
            json_object_set_new(mad, metric_keys[m], gd_json_number(round(g->mad[m] * 100) / 100));
        }
        json_object_set_new(o, "median", med);
        json_object_set_new(o, "mad_scaled", mad);
        json_array_append_new(groups, o);
    }
    json_object_set_new(root, "groups", groups);
    json_object_set_new(root, "findings", gd_report_findings_json(&r->findings, false));
    json_t *skips = json_array();
    for (size_t i = 0; i < r->findings.nskips; i++)
        json_array_append_new(skips, json_string(r->findings.skips[i].reason));
    json_object_set_new(root, "not_compared", skips);
    json_t *unread = json_array();
    for (size_t i = 0; i < run->nunread; i++)
        json_array_append_new(unread, json_string(run->unread[i]));
    json_object_set_new(root, "not_read", unread);
    json_t *sum = json_object();
    json_object_set_new(sum, "critical", json_integer((json_int_t)gd_findings_count(&r->findings, GD_SEV_CRITICAL)));
    json_object_set_new(sum, "warning", json_integer((json_int_t)gd_findings_count(&r->findings, GD_SEV_WARNING)));
    json_object_set_new(sum, "outlier_nodes", json_integer((json_int_t)outlier_nodes(run)));
    json_object_set_new(sum, "nodes_critical", json_integer((json_int_t)node_count(run, pick_critical)));
    json_object_set_new(sum, "nodes_warning", json_integer((json_int_t)node_count(run, pick_warning)));
    json_object_set_new(sum, "not_judged_nodes", json_integer((json_int_t)node_count(run, pick_unjudged)));
    json_object_set_new(root, "summary", sum);
    json_t *dups = json_array();
    for (size_t i = 0; i < run->nduplicates; i++)
        json_array_append_new(dups, json_string(run->duplicates[i]));
    json_object_set_new(root, "duplicates", dups);
    return root;
}

/* Each node's median over its GPUs of one model, one bar per node. */
static void html_metric_bars(FILE *out, const gd_fleet_run *run, const gd_fleet_group *g, int m)
{
    static const char *const titles[3] = {"SM clock under load", "temperature under load", "power under load"};
    static const char *const units[3] = {"MHz", "C", "W"};
    size_t n = run->fleet->n;
    double *v = calloc(n + 1, sizeof *v), *tmp = calloc(64 + 1, sizeof *tmp);
    const char **labels = calloc(n + 1, sizeof *labels);
    if (!v || !tmp || !labels)
        goto done;
    for (size_t k = 0; k < n; k++) {
        const gd_fleet_node *node = &run->fleet->nodes[k];
        size_t c = 0;
        for (size_t i = 0; i < node->ngpus && c < 64; i++) {
            const gd_fleet_gpu *x = &node->gpus[i];
            double val = m == 0 ? x->sm_clock_mhz : m == 1 ? x->temp_c : x->power_w;
            if (strcmp(x->model, g->model) == 0 && !isnan(val))
                tmp[c++] = val;
        }
        /* The node's extreme GPU in the metric's bad direction: the one an outlier would be. */
        double e = c ? tmp[0] : 0;
        for (size_t i = 1; i < c; i++)
            e = m == 1 ? (tmp[i] > e ? tmp[i] : e) : (tmp[i] < e ? tmp[i] : e);
        v[k] = e;
        labels[k] = node->name;
    }
    char title[160];
    snprintf(title, sizeof title, "%s, %s: each node's %s GPU", g->model, titles[m], m == 1 ? "hottest" : "lowest");
    static const char *const seg[] = {"node"}, *const cls[] = {"c0"};
    gd_svg_bars b = {.title = title,
                     .unit = units[m],
                     .ncat = n,
                     .nseg = 1,
                     .v = v,
                     .seg_label = seg,
                     .seg_cls = cls,
                     .cat_label = labels,
                     .width = 720,
                     .height = 220};
    gd_svg_bars_write(out, &b);
done:
    free(v);
    free(tmp);
    free(labels);
}

void gd_fleet_report_html(FILE *out, const gd_fleet_run *run)
{
    const gd_fleet_result *r = run->result;
    gd_html_begin(out, "gpudoctor fleet");
    fprintf(out, "<h1>Fleet: %zu node%s</h1>\n", run->fleet->n, run->fleet->n == 1 ? "" : "s");
    /* One verdict, the text's: the nodes' own reports count (the fleet's
     * findings alone said WARNING beside the text's CRITICAL). */
    char line[2400];
    const char *word = verdict_line(run, line, sizeof line);
    fprintf(out, "<div class=\"verdict %s\" id=\"verdict\">Verdict: %s &ndash; ",
            strcmp(word, "CRITICAL") == 0 ? "critical"
            : strcmp(word, "OK") == 0     ? "ok"
                                          : "warning",
            word);
    gd_html_text(out, line);
    fputs("</div>\n", out);
    gd_html_findings(out, &r->findings, false, false, false);
    fputs("<h2>Groups</h2>\n<table>\n", out);
    static const char *const head[] = {"model",       "GPUs",  "nodes",   "SM clock (median under load)",
                                       "temperature", "power", "compared"};
    gd_html_row(out, "th", head, 7);
    for (size_t i = 0; i < r->ngroups; i++) {
        const gd_fleet_group *g = &r->groups[i];
        char gp[24], nd[24], c[32], t[32], p[32];
        snprintf(gp, sizeof gp, "%zu", g->gpus);
        snprintf(nd, sizeof nd, "%zu", g->nodes);
        fmt_num(g->median[0], "MHz", c, sizeof c);
        fmt_num(g->median[1], "C", t, sizeof t);
        fmt_num(g->median[2], "W", p, sizeof p);
        const char *cells[] = {g->model, gp, nd, c, t, p, g->compared ? "yes" : "no"};
        gd_html_row(out, "td", cells, 7);
    }
    fputs("</table>\n", out);
    for (size_t i = 0; i < r->ngroups; i++)
        if (r->groups[i].compared)
            for (int m = 0; m < 3; m++)
                html_metric_bars(out, run, &r->groups[i], m);
    fputs("<h2>Nodes</h2>\n<table>\n", out);
    static const char *const nhead[] = {"node", "GPUs", "its report's warning and critical findings", "file"};
    gd_html_row(out, "th", nhead, 4);
    for (size_t k = 0; k < run->fleet->n; k++) {
        const gd_fleet_node *n = &run->fleet->nodes[k];
        char gp[24], ids[400] = "";
        size_t used = 0;
        snprintf(gp, sizeof gp, "%zu", n->ngpus);
        for (size_t i = 0; i < n->nfindings && used < sizeof ids - 1; i++)
            used += (size_t)snprintf(ids + used, sizeof ids - used, "%s%s", used ? ", " : "", n->findings[i].id);
        const char *cells[] = {n->name, gp, used ? ids : "none", n->file};
        gd_html_row(out, "td", cells, 4);
    }
    fputs("</table>\n", out);
    if (r->findings.nskips || run->nunread) {
        fputs("<h2>Not compared or not read</h2>\n<ul>\n", out);
        for (size_t i = 0; i < r->findings.nskips; i++) {
            fputs("<li>", out);
            gd_html_text(out, r->findings.skips[i].reason);
            fputs("</li>\n", out);
        }
        for (size_t i = 0; i < run->nunread; i++) {
            fputs("<li>", out);
            gd_html_text(out, run->unread[i]);
            fputs("</li>\n", out);
        }
        fputs("</ul>\n", out);
    }
    gd_html_end(out);
}
