/* SPDX-License-Identifier: Apache-2.0 */
/* One block for one cause across GPUs (text_group.h). */
#include "text_group.h"
#include "text_finding.h"
#include "text_util.h"
#include "checks/causes.h"
#include "core/stats.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* text with its own GPU taken out ("GPU 3" -> "GPU #"): causes.c's rule. */
static void generic(const char *text, int gpu, char *buf, size_t len)
{
    gd_cause_generic_text(text, gpu, buf, len);
}

static bool same_cause(const gd_finding *a, const gd_finding *b)
{
    if (strcmp(a->id, b->id) != 0 || a->severity != b->severity || a->gpu == GD_NO_GPU || b->gpu == GD_NO_GPU)
        return false;
    char fa[sizeof a->fix], fb[sizeof b->fix];
    generic(a->fix, a->gpu, fa, sizeof fa);
    generic(b->fix, b->gpu, fb, sizeof fb);
    return strcmp(fa, fb) == 0;
}

size_t gd_text_group_within(const gd_findings *fs, const size_t *set, size_t nset, size_t start, bool *used,
                            size_t *members)
{
    size_t n = 0;
    members[n++] = set[start];
    used[start] = true;
    for (size_t j = start + 1; j < nset; j++)
        if (!used[j] && same_cause(&fs->v[set[start]], &fs->v[set[j]])) {
            members[n++] = set[j];
            used[j] = true;
        }
    return n;
}

void gd_text_group_each(const gd_findings *fs, const size_t *set, size_t nset,
                        void (*fn)(const size_t *m, size_t n, size_t first, void *ud), void *ud)
{
    bool *used = calloc(nset + 1, sizeof *used);
    size_t *m = malloc((nset + 1) * sizeof *m);
    for (size_t i = 0; used && m && i < nset; i++)
        if (!used[i])
            fn(m, gd_text_group_within(fs, set, nset, i, used, m), i, ud);
    free(used);
    free(m);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The members' GPU indexes, sorted (the members are in report order). */
/* The members' GPUs, sorted, each once (two episodes of one GPU are one
 * GPU, not "GPUs 3,3"); their count in *k. */
static int *member_gpus(const gd_findings *fs, const size_t *m, size_t n, size_t *k)
{
    int *g = malloc(n * sizeof *g);
    *k = 0;
    for (size_t i = 0; g && i < n; i++)
        g[i] = fs->v[m[i]].gpu;
    if (!g)
        return NULL;
    gd_sort(g, n, sizeof *g, cmp_int);
    for (size_t i = 0; i < n; i++)
        if (*k == 0 || g[*k - 1] != g[i])
            g[(*k)++] = g[i];
    return g;
}

/* Evidence keys worth a column: scalars; those equal on every GPU go on one
 * shared line instead. */
typedef struct column {
    const char *key;
    int width;
    bool varies;
} column;

#define MAX_COLUMNS 24

static size_t columns_of(const gd_findings *fs, const size_t *m, size_t n, column *cols)
{
    size_t nc = 0;
    const char *key;
    json_t *v;
    json_object_foreach(fs->v[m[0]].evidence, key, v)
    {
        if (strcmp(key, "source") == 0 || json_is_object(v) || json_is_array(v) || nc == MAX_COLUMNS)
            continue;
        column c = {.key = key, .width = (int)strlen(key)};
        char first[64], val[64];
        gd_json_scalar_text(v, first, sizeof first);
        for (size_t i = 0; i < n; i++) {
            gd_json_scalar_text(json_object_get(fs->v[m[i]].evidence, key), val, sizeof val);
            c.varies |= strcmp(val, first) != 0;
            if ((int)strlen(val) > c.width)
                c.width = (int)strlen(val);
        }
        cols[nc++] = c;
    }
    return nc;
}

static void print_table(FILE *out, const gd_text_style *st, const gd_findings *fs, const size_t *m, size_t n,
                        const column *cols, size_t nc)
{
    /* The columns that fit the terminal, in evidence order (strongest first). */
    int room = (st->width > 40 ? st->width : 100) - 13 - 5, used = 0;
    bool show[MAX_COLUMNS] = {false};
    for (size_t c = 0; c < nc; c++)
        if (cols[c].varies && used + cols[c].width + 2 <= room) {
            show[c] = true;
            used += cols[c].width + 2;
        }
    if (used == 0)
        return;
    fprintf(out, "    %sper GPU%s  %-5s", gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET), "GPU");
    for (size_t c = 0; c < nc; c++)
        if (show[c])
            fprintf(out, "  %*s", cols[c].width, cols[c].key);
    fputc('\n', out);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%13s%-5d", "", fs->v[m[i]].gpu);
        for (size_t c = 0; c < nc; c++) {
            if (!show[c])
                continue;
            char val[64];
            gd_json_scalar_text(json_object_get(fs->v[m[i]].evidence, cols[c].key), val, sizeof val);
            fprintf(out, "  %*s", cols[c].width, val);
        }
        fputc('\n', out);
    }
}

/* Adds x's GPUs, its pairs' too (a slow pair is on both its GPUs), to g[0..*k). */
static void add_gpus(const gd_finding *x, int *g, size_t cap, size_t *k)
{
    int one[64];
    size_t got = gd_finding_gpus(x, one, 64);
    for (size_t j = 0; j < got; j++) {
        bool seen = false;
        for (size_t q = 0; q < *k && !seen; q++)
            seen = g[q] == one[j];
        if (!seen && *k < cap)
            g[(*k)++] = one[j];
    }
}

static void where_of(int *g, size_t k, char *buf, size_t len)
{
    gd_sort(g, k, sizeof *g, cmp_int);
    char ranges[256] = "";
    gd_gpu_ranges(g, k, true, ranges, sizeof ranges);
    if (k == 0)
        snprintf(buf, len, "host");
    else
        snprintf(buf, len, "GPU%s %s", k == 1 ? "" : "s", ranges);
}

/* "GPUs 0-3", "GPU 2", "host": where findings m[0..n) are. */
void gd_text_group_where(const gd_findings *fs, const size_t *m, size_t n, char *buf, size_t len)
{
    int g[256] = {0};
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        add_gpus(&fs->v[m[i]], g, 256, &k);
    where_of(g, k, buf, len);
}

void gd_text_finding_where(const gd_finding *x, char *buf, size_t len)
{
    int g[64] = {0};
    size_t k = 0;
    add_gpus(x, g, 64, &k);
    where_of(g, k, buf, len);
}

void gd_text_group_headline(const gd_findings *fs, const size_t *m, size_t n, char *buf, size_t len)
{
    const gd_finding *x = &fs->v[m[0]];
    if (n == 1) {
        snprintf(buf, len, "%s", x->title);
        return;
    }
    char ranges[256] = "";
    size_t ng = n;
    int *g = member_gpus(fs, m, n, &ng);
    if (g) {
        gd_gpu_ranges(g, ng, true, ranges, sizeof ranges);
        free(g);
    }
    /* The headline: the first GPU's, said of all when the sentences agree. */
    char title[sizeof x->title + 64], other[sizeof x->title + 64], head[sizeof x->title + 400];
    generic(x->title, x->gpu, title, sizeof title);
    bool alike = true;
    for (size_t i = 1; i < n; i++) {
        generic(fs->v[m[i]].title, fs->v[m[i]].gpu, other, sizeof other);
        alike &= strcmp(title, other) == 0;
    }
    if (alike) {
        gd_fill_placeholder(head, sizeof head, title, "GPU #", "");
        /* "GPU # runs hot" -> "8 GPUs: runs hot" reads better than an empty subject. */
        char *lead = head;
        while (*lead == ' ' || *lead == ':')
            lead++;
        snprintf(buf, len, "%zu GPU%s (%.200s): %.300s", ng, ng == 1 ? "" : "s", ranges, lead);
    } else {
        snprintf(buf, len, "%zu GPU%s (%.200s), GPU %d first: %.190s", ng, ng == 1 ? "" : "s", ranges, x->gpu,
                 x->title);
    }
}

void gd_text_group_fix(const gd_findings *fs, const size_t *m, size_t n, char *buf, size_t len)
{
    const gd_finding *x = &fs->v[m[0]];
    if (n == 1) {
        snprintf(buf, len, "%s", x->fix);
        return;
    }
    /* The fix of one GPU, made to name them all (nvidia-smi -i takes a list). */
    char list[256] = "", fix[sizeof x->fix], fix_all[sizeof x->fix + 256], sel[300];
    size_t ng = 0;
    int *g = member_gpus(fs, m, n, &ng);
    if (g) {
        gd_gpu_ranges(g, ng, false, list, sizeof list);
        free(g);
    }
    generic(x->fix, x->gpu, fix, sizeof fix);
    snprintf(sel, sizeof sel, "-i %s", list);
    gd_fill_placeholder(fix_all, sizeof fix_all, fix, "-i #", sel);
    gd_fill_placeholder(buf, len, fix_all, "GPU #", "each GPU");
}

void gd_text_group_print(FILE *out, const gd_text_style *st, const gd_findings *fs, const size_t *m, size_t n,
                         const gd_text_group_opts *o)
{
    const gd_finding *x = &fs->v[m[0]];
    char where[300];
    gd_text_group_where(fs, m, n, where, sizeof where);
    fprintf(out, "\n%s%-8s%s %s  %s%s%s%s\n",
            gd_c(st, x->severity == GD_SEV_CRITICAL  ? GD_ANSI_RED
                     : x->severity == GD_SEV_WARNING ? GD_ANSI_YELLOW
                                                     : GD_ANSI_CYAN),
            gd_severity_name(x->severity), gd_c(st, GD_ANSI_RESET), where, gd_c(st, GD_ANSI_DIM), x->id,
            o && o->mark ? o->mark : "", gd_c(st, GD_ANSI_RESET));
    char head[sizeof x->title + 400], nth[40];
    gd_text_group_headline(fs, m, n, head, sizeof head);
    snprintf(nth, sizeof nth, "GPU %d", x->gpu);
    fprintf(out, "    %s", gd_c(st, GD_ANSI_BOLD));
    gd_wrap(out, st, 4, 4, head);
    fputs(gd_c(st, GD_ANSI_RESET), out);
    column cols[MAX_COLUMNS];
    size_t nc = columns_of(fs, m, n, cols);
    char shared[1024] = "";
    size_t used = 0;
    for (size_t c = 0; c < nc; c++) {
        if (cols[c].varies)
            continue;
        char val[64];
        gd_json_scalar_text(json_object_get(x->evidence, cols[c].key), val, sizeof val);
        int k = snprintf(shared + used, sizeof shared - used, "%s%s=%s", used ? "  " : "", cols[c].key, val);
        if (k < 0 || (size_t)k >= sizeof shared - used)
            break;
        used += (size_t)k;
    }
    if (used) {
        fprintf(out, "    %sevidence%s ", gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET));
        gd_wrap(out, st, 13, 13, shared);
    }
    print_table(out, st, fs, m, n, cols, nc);
    gd_print_source(out, st, json_object_get(x->evidence, "source"));
    if (x->timeline[0] && o && o->series) {
        char tl[sizeof x->timeline + 48];
        snprintf(tl, sizeof tl, "%s: %s", nth, x->timeline);
        fprintf(out, "    %stimeline%s ", gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET));
        gd_wrap(out, st, 13, 13, tl);
    }
    double lo = NAN, hi = NAN;
    for (size_t i = 0; i < n; i++) {
        double v = fs->v[m[i]].impact_pct;
        if (isnan(v))
            continue;
        lo = isnan(lo) || v < lo ? v : lo;
        hi = isnan(hi) || v > hi ? v : hi;
    }
    if (!isnan(lo) && round(lo) == round(hi))
        fprintf(out, "    %simpact%s   ~%.0f%% of training throughput%s\n", gd_c(st, GD_ANSI_DIM),
                gd_c(st, GD_ANSI_RESET), lo, n > 1 ? " on each" : "");
    else if (!isnan(lo))
        fprintf(out, "    %simpact%s   ~%.0f-%.0f%% of training throughput\n", gd_c(st, GD_ANSI_DIM),
                gd_c(st, GD_ANSI_RESET), lo, hi);
    if (x->fix[0] && o && o->fix) {
        char fix[sizeof x->fix + 256];
        gd_text_group_fix(fs, m, n, fix, sizeof fix);
        fprintf(out, "    %sfix%s      ", gd_c(st, GD_ANSI_GREEN), gd_c(st, GD_ANSI_RESET));
        gd_wrap(out, st, 13, 13, fix);
    }
}
