/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nccl-tests output (all_reduce_perf and its siblings) for --from: the
 * command line where the paste kept it, the run header and rank list, the
 * rows, the trailer and an abort, into f->net->tables
 * (gpudoctor/nccl_tests.h). A file may hold several runs: each header, or
 * a column header after rows, begins a table. What the paste lacks (no
 * header, no trailer, a last row cut) is said in the table's `cut`.
 */
#include "formats/capture/capture_formats.h"
#include "core/strf.h"
#include "formats/capture/import.h"
#include "gpudoctor/nccl_tests.h"
#include "gpudoctor/net.h"
#include "nt_line.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two rows in a row, a run header or a column header within the first lines. */
long gd_detect_nccl_tests(const gd_capture_view *v)
{
    int rows = 0;
    for (size_t i = v->first; i < v->nlines; i++) {
        char plain[512];
        const char *launcher;
        gd_nt_plain(v->lines[i].text, strlen(v->lines[i].text), plain, sizeof plain, &launcher);
        if (gd_nt_is_header(plain) || (plain[0] == '#' && gd_nt_is_columns(plain)))
            return (long)i;
        if (gd_nt_parse_row(plain, NULL)) {
            if (++rows == 2)
                return (long)i - 1;
        } else {
            rows = 0;
        }
    }
    return -1;
}

/* "#  Rank  0 Group  0 Pid   6899 on HOST device  0 [0000:04:00] NAME" (older: no Group). */
typedef struct hosts {
    size_t n;
    char name[GD_NT_MAX_HOSTS][64];
    int ranks[GD_NT_MAX_HOSTS];
    bool overflow; /* more hosts than counted */
} hosts;

typedef struct parse {
    gd_nccl_tests *t;
    gd_nt_table *cur; /* NULL: none begun */
    bool columns_seen; /* the current table's column header */
    bool cur_has_rows;
    const char *file;
    /* What came before the table (command line, NCCL version) for the next one. */
    char binary[32], env[320], algo[16], version[32], launcher[16];
    int np, npernode, g, th;
    int cmd[GD_NT_MAX_TABLES][4]; /* each table's np, npernode, g, t as its command line gave them */
    gd_facts *f;
    hosts hosts; /* the current table's */
    char last_partial[80]; /* a last line that began a row but did not parse */
    long last_partial_line;
    char cmdbuf[2048]; /* a command line continued with '\\' so far */
} parse;

static gd_nt_table *begin(parse *p, long line)
{
    if (p->t->count >= GD_NT_MAX_TABLES) {
        p->t->dropped++;
        p->cur = NULL;
        return NULL;
    }
    gd_nt_table *x = &p->t->tables[p->t->count++];
    memset(x, 0, sizeof *x);
    snprintf(x->file, sizeof x->file, "%s", p->file);
    x->first_line = line;
    x->nthread = x->ngpus = x->iters = x->warmup = -1;
    x->ranks = x->nodes = x->ranks_per_node = -1;
    x->wrong_total = -1;
    x->oob_values = -1;
    x->avg_busbw_gbps = NAN;
    snprintf(x->binary, sizeof x->binary, "%s", p->binary);
    x->op = gd_nt_op_of_binary(p->binary);
    snprintf(x->env, sizeof x->env, "%s", p->env);
    snprintf(x->algo, sizeof x->algo, "%s", p->algo);
    snprintf(x->nccl_version, sizeof x->nccl_version, "%s", p->version);
    snprintf(x->launcher, sizeof x->launcher, "%s", p->launcher);
    memset(&p->hosts, 0, sizeof p->hosts);
    int *c = p->cmd[p->t->count - 1];
    c[0] = p->np, c[1] = p->npernode, c[2] = p->g, c[3] = p->th;
    p->cur = x;
    p->columns_seen = p->cur_has_rows = false;
    return x;
}

/* The current table, or a new one where the line begins a new run. */
static gd_nt_table *table_for(parse *p, long line, bool starts_run)
{
    if (!p->cur || (starts_run && (p->cur_has_rows || p->cur->abort[0])))
        return begin(p, line);
    return p->cur;
}

/* The command line: the binary, the NCCL_* settings, mpirun's and srun's counts. */
static void command_line(parse *p, const char *plain)
{
    p->binary[0] = p->env[0] = p->algo[0] = '\0';
    p->np = p->npernode = p->g = p->th = 0;
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", plain);
    bool launcher_args = true; /* mpirun's or srun's, before the binary */
    const char *prev = "";
    for (char *w = strtok(buf, " \\"); w; prev = w, w = strtok(NULL, " \\")) {
        const char *base = strrchr(w, '/') ? strrchr(w, '/') + 1 : w;
        if (gd_nt_op_of_binary(base) != GD_NT_UNKNOWN) {
            snprintf(p->binary, sizeof p->binary, "%s", base);
            launcher_args = false; /* from here on nccl-tests' own: its -n is iterations */
        }
        if (strncmp(w, "NCCL_", 5) == 0 && strchr(w, '=')) {
            size_t used = strlen(p->env);
            if (used + strlen(w) + 2 < sizeof p->env)
                snprintf(p->env + used, sizeof p->env - used, "%s%s", used ? " " : "", w);
            if (strncmp(w, "NCCL_ALGO=", 10) == 0)
                snprintf(p->algo, sizeof p->algo, "%s", w + 10);
        }
        long lv = strtol(w, NULL, 10);
        int v = lv > 0 && lv <= 1000000 ? (int)lv : 0; /* no launcher starts more */
        if (v > 0 && isdigit((unsigned char)w[0]) && !launcher_args) {
            if (!strcmp(prev, "-g"))
                p->g = v;
            else if (!strcmp(prev, "-t"))
                p->th = v;
        } else if (v > 0 && isdigit((unsigned char)w[0])) {
            if (!strcmp(prev, "-np") || !strcmp(prev, "-n") || !strcmp(prev, "--np") || !strcmp(prev, "--ntasks"))
                p->np = v;
            else if (!strcmp(prev, "-npernode") || !strcmp(prev, "--npernode") || !strcmp(prev, "--ntasks-per-node"))
                p->npernode = v;
        }
    }
}

static void run_header(gd_nt_table *x, const char *plain)
{
    const char *s = strstr(plain, "nThread");
    x->header = true;
    unsigned long long mn = 0, mx = 0;
    if (sscanf(s, "nThread %d nGpus %d minBytes %llu maxBytes %llu", &x->nthread, &x->ngpus, &mn, &mx) == 4) {
        x->min_bytes = (size_t)mn;
        x->max_bytes = (size_t)mx;
    }
    const char *w = strstr(s, "warmup iters:");
    if (w)
        sscanf(w, "warmup iters: %d", &x->warmup);
    const char *it = w ? strstr(w + 13, "iters:") : NULL;
    if (it)
        sscanf(it, "iters: %d", &x->iters);
}

static void rank_line(gd_nt_table *x, hosts *h, const char *plain)
{
    const char *on = strstr(plain, " on ");
    int rank;
    if (!on || sscanf(strstr(plain, "Rank"), "Rank %d", &rank) != 1)
        return;
    char host[64] = "";
    if (sscanf(on, " on %63s", host) != 1)
        return;
    x->ranks = x->ranks < 0 ? 1 : x->ranks + 1;
    size_t i = 0;
    while (i < h->n && strcmp(h->name[i], host) != 0)
        i++;
    if (i == h->n && h->n < GD_NT_MAX_HOSTS)
        snprintf(h->name[h->n++], sizeof h->name[0], "%s", host);
    else if (i == h->n)
        h->overflow = true;
    if (i < h->n)
        h->ranks[i]++;
    x->nodes = h->overflow ? -1 : (int)h->n;
    if (i < h->n && h->ranks[i] > x->ranks_per_node)
        x->ranks_per_node = h->ranks[i];
    const char *close = strchr(on, ']');
    if (close) {
        const char *name = close + 1;
        while (*name == ' ')
            name++;
        if (!x->gpu[0])
            snprintf(x->gpu, sizeof x->gpu, "%s", name);
        else if (strcmp(x->gpu, name) != 0)
            x->gpus_mixed = true;
    }
}

/* "#  Rank  0 Group ..." (or without the '#', as some pastes lose it): not NCCL's own "rank" lines. */
static bool is_rank_line(const char *plain)
{
    const char *p = plain + (plain[0] == '#');
    while (*p == ' ')
        p++;
    return strncmp(p, "Rank ", 5) == 0 && strstr(p, " on ") && strstr(p, "device");
}

static bool is_abort(const char *plain)
{
    return strstr(plain, "NCCL failure") || strstr(plain, "CUDA failure") || strstr(plain, "Test failure");
}

static void add_row(parse *p, gd_nt_table *x, const gd_nt_row *r)
{
    if (x->row_count < GD_NT_MAX_ROWS)
        x->rows[x->row_count++] = *r;
    else
        x->rows_dropped++;
    p->cur_has_rows = true;
    x->has_root = r->root >= 0 || x->has_root;
    if (r->oop.wrong >= 0 || r->ip.wrong >= 0)
        x->wrong_total = (x->wrong_total < 0 ? 0 : x->wrong_total) + (r->oop.wrong > 0 ? r->oop.wrong : 0) +
                         (r->ip.wrong > 0 ? r->ip.wrong : 0);
    if (!isnan(r->oop.error) || !isnan(r->ip.error))
        x->old_columns = true;
}

/* A line that starts as a row (a size, then a count) but is none. */
static bool row_like(const char *plain)
{
    size_t d = 0;
    while (isdigit((unsigned char)plain[d]))
        d++;
    return d >= 1 && plain[d] == ' ' && isdigit((unsigned char)plain[d + 1 + strspn(plain + d + 1, " ")]);
}

static void one_line(parse *p, const char *plain, long line, const char *launcher)
{
    if (launcher[0] && !p->launcher[0])
        snprintf(p->launcher, sizeof p->launcher, "%s", launcher);
    if (!plain[0])
        return;
    size_t pl = strlen(plain);
    if (plain[pl - 1] == '\\' || p->cmdbuf[0]) { /* a command line continued over lines */
        size_t used = strlen(p->cmdbuf);
        snprintf(p->cmdbuf + used, sizeof p->cmdbuf - used, "%s ", plain);
        if (plain[pl - 1] == '\\')
            return;
        if (strstr(p->cmdbuf, "_perf"))
            command_line(p, p->cmdbuf);
        p->cmdbuf[0] = '\0';
        if (p->cur && p->cur_has_rows)
            p->cur = NULL;
        return;
    }
    gd_nt_row r;
    if (gd_nt_parse_row(plain, &r)) {
        gd_nt_table *x = table_for(p, line, false);
        if (x) {
            r.line = line;
            add_row(p, x, &r);
        }
        p->last_partial[0] = '\0';
        return;
    }
    p->last_partial[0] = '\0';
    if (gd_nt_is_header(plain)) {
        gd_nt_table *x = table_for(p, line, true);
        if (x)
            run_header(x, plain);
    } else if (gd_nt_is_columns(plain)) {
        gd_nt_table *x = table_for(p, line, p->columns_seen || p->cur_has_rows);
        if (x)
            x->has_root = strstr(plain, "root") != NULL;
        p->columns_seen = true;
    } else if (is_rank_line(plain)) {
        gd_nt_table *x = table_for(p, line, p->cur_has_rows);
        if (x)
            rank_line(x, &p->hosts, plain);
    } else if (strstr(plain, "Out of bounds values")) {
        const char *c = strchr(plain, ':');
        if (p->cur && c)
            p->cur->oob_values = strtol(c + 1, NULL, 10);
    } else if (strstr(plain, "Avg bus bandwidth")) {
        const char *c = strchr(plain, ':');
        if (p->cur && c)
            p->cur->avg_busbw_gbps = strtod(c + 1, NULL);
        if (p->cur && !isfinite(p->cur->avg_busbw_gbps))
            p->cur->avg_busbw_gbps = NAN;
    } else if (is_abort(plain)) {
        gd_nt_table *x = table_for(p, line, false);
        if (x && !x->abort[0]) {
            gd_strf(x->abort, sizeof x->abort, "%s", plain);
            x->abort_line = line;
        }
    } else if (strncmp(plain, "NCCL version ", 13) == 0 || strstr(plain, "nccl-tests version")) {
        const char *v = strncmp(plain, "NCCL version ", 13) == 0 ? plain + 13 : strstr(plain, "nccl-library=");
        snprintf(p->version, sizeof p->version, "%.31s", v ? v : "");
        if (p->cur && !p->cur_has_rows)
            snprintf(p->cur->nccl_version, sizeof p->cur->nccl_version, "%s", p->version);
    } else if (strstr(plain, "Collective test starting:")) {
        char name[32] = "";
        sscanf(strstr(plain, "starting:") + 9, " %31s", name);
        snprintf(p->binary, sizeof p->binary, "%s", name);
        if (p->cur && !p->cur_has_rows && p->cur->op == GD_NT_UNKNOWN) {
            snprintf(p->cur->binary, sizeof p->cur->binary, "%s", name);
            p->cur->op = gd_nt_op_of_binary(name);
        }
    } else if (strstr(plain, "_perf") && plain[0] != '#') {
        gd_nt_table *before = p->cur;
        command_line(p, plain);
        if (before && p->cur_has_rows)
            p->cur = NULL; /* a new command: its output is a new table */
    } else if (row_like(plain)) {
        gd_strf(p->last_partial, sizeof p->last_partial, "%s", plain);
        p->last_partial_line = line;
    }
}

/* The op where the command line did not name it: only all-reduce's busbw
 * exceeds its algbw; a root with a reduction is reduce, without broadcast. */
static void infer_op(gd_nt_table *x)
{
    if (x->op != GD_NT_UNKNOWN || x->row_count == 0)
        return;
    const gd_nt_row *best = &x->rows[0];
    for (size_t i = 1; i < x->row_count; i++)
        if (x->rows[i].oop.algbw_gbps > best->oop.algbw_gbps)
            best = &x->rows[i];
    if (best->root >= 0)
        x->op = strcmp(best->redop, "none") == 0 ? GD_NT_BROADCAST : GD_NT_REDUCE;
    else if (best->oop.algbw_gbps >= 1 && best->oop.busbw_gbps > 1.05 * best->oop.algbw_gbps)
        x->op = GD_NT_ALL_REDUCE;
    x->op_inferred = x->op != GD_NT_UNKNOWN;
}

/* What the paste lacks, in words. */
static void cut_notes(const parse *p, gd_nt_table *x, bool last)
{
    size_t used = 0;
    char a[24], b[24];
    if (!x->header && x->ranks < 0)
        used += (size_t)snprintf(x->cut + used, sizeof x->cut - used,
                                 "no run header or rank list: ranks and nodes not known");
    else if (!x->header)
        used += (size_t)snprintf(x->cut + used, sizeof x->cut - used, "no run header ('# nThread ...')");
    if (x->row_count && isnan(x->avg_busbw_gbps) && !x->abort[0] && used < sizeof x->cut) {
        const gd_nt_row *l = &x->rows[x->row_count - 1];
        used += (size_t)snprintf(x->cut + used, sizeof x->cut - used, "%sthe table stops at %s", used ? "; " : "",
                                 gd_nt_size_text(l->bytes, a, sizeof a));
        if (x->max_bytes > l->bytes && used < sizeof x->cut)
            used += (size_t)snprintf(x->cut + used, sizeof x->cut - used, " of the %s asked",
                                     gd_nt_size_text(x->max_bytes, b, sizeof b));
        if (used < sizeof x->cut)
            used += (size_t)snprintf(x->cut + used, sizeof x->cut - used, ", before its trailer");
    }
    if (last && p->last_partial[0] && used < sizeof x->cut)
        snprintf(x->cut + used, sizeof x->cut - used, "%sline %ld is a row cut short", used ? "; " : "",
                 p->last_partial_line);
}

static void finish(parse *p, gd_nt_table *x, const int *c, bool last)
{
    long np = c[0], per = c[1], g = c[2] > 0 ? c[2] : 1, th = c[3] > 0 ? c[3] : 1;
    if (x->ranks < 0 && np > 0 && np * g * th <= 100000000) { /* each at most 10^6: no overflow */
        x->ranks = (int)(np * g * th);
        x->ranks_from_command = true;
        if (per > 0 && np % per == 0) {
            x->nodes = (int)(np / per);
            x->ranks_per_node = (int)(per * g * th);
        }
    }
    infer_op(x);
    cut_notes(p, x, last);
}

int gd_import_nccl_tests(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    if (!f->net && !(f->net = calloc(1, sizeof *f->net))) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    gd_nccl_tests *t = f->net->tables;
    if (!t && !(t = f->net->tables = calloc(1, sizeof *t))) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    parse *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    p->t = t;
    p->f = f;
    p->file = gd_import_base(name);
    size_t first = t->count;
    long line = 0;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        char plain[1024];
        const char *launcher;
        line++;
        gd_nt_plain(text + at, n, plain, sizeof plain, &launcher);
        one_line(p, plain, line, launcher);
        at += n + (nl ? 1 : 0);
    }
    for (size_t i = first; i < t->count; i++)
        finish(p, &t->tables[i], p->cmd[i], i + 1 == t->count);
    int rc = 0;
    size_t kept = first;
    for (size_t i = first; i < t->count; i++) {
        gd_nt_table *x = &t->tables[i];
        if (x->row_count == 0 && !x->abort[0]) {
            if (rc == 0)
                snprintf(err, errlen, "%s:%ld: nccl-tests output without a row that could be read and without an abort",
                         name, x->first_line);
            rc = -1;
            continue;
        }
        if (kept != i)
            t->tables[kept] = *x;
        kept++;
    }
    if (kept > first)
        rc = 0; /* the tables read count; an empty header beside them is no error */
    t->count = kept;
    if (kept == first && rc == 0) {
        snprintf(err, errlen, "%s: no nccl-tests table in it", name);
        rc = -1;
    }
    if (rc == 0)
        snprintf(f->net->source + strlen(f->net->source), sizeof f->net->source - strlen(f->net->source),
                 "%snccl-tests:%s", f->net->source[0] ? ", " : "", p->file);
    free(p);
    return rc;
}
