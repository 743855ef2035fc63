/* SPDX-License-Identifier: Apache-2.0 */
/* The causes of a report in text (text_causes.h). */
#include "text_causes.h"
#include "text_group.h"
#include "text_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GPUS 256

static const char *sev_color(gd_severity s)
{
    return s == GD_SEV_CRITICAL ? GD_ANSI_RED : s == GD_SEV_WARNING ? GD_ANSI_YELLOW : GD_ANSI_CYAN;
}

/* "on GPU 3", "on GPUs 2-3", "on 8 GPUs", "host-wide". */
static void where_phrase(const int *g, size_t n, char *buf, size_t len)
{
    char ranges[256];
    gd_gpu_ranges(g, n < MAX_GPUS ? n : MAX_GPUS, true, ranges, sizeof ranges);
    if (n == 0)
        snprintf(buf, len, "host-wide");
    else if (n == 1)
        snprintf(buf, len, "on GPU %s", ranges);
    else if (n <= 4)
        snprintf(buf, len, "on GPUs %s", ranges);
    else
        snprintf(buf, len, "on %zu GPUs", n);
}

void gd_causes_phrase(const gd_findings *fs, const gd_grouped_causes *c, char *buf, size_t len)
{
    size_t crit = gd_grouped_causes_count(c, GD_SEV_CRITICAL), warn = gd_grouped_causes_count(c, GD_SEV_WARNING);
    int gpus[MAX_GPUS];
    size_t ng = gd_grouped_causes_gpus(fs, c, GD_SEV_WARNING, gpus, MAX_GPUS, NULL);
    char where[300];
    where_phrase(gpus, ng, where, sizeof where);
    if (crit + warn == 1)
        snprintf(buf, len, "1 cause, %s", where);
    else if (crit && warn)
        snprintf(buf, len, "%zu causes (%zu critical, %zu warning%s), %s", crit + warn, crit, warn,
                 warn == 1 ? "" : "s", where);
    else
        snprintf(buf, len, "%zu causes, %s", crit + warn, where);
}

/* The members of cause c with id `id`, into m; how many. */
static size_t with_id(const gd_findings *fs, const size_t *set, size_t n, const char *id, size_t *m)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(fs->v[set[i]].id, id) == 0)
            m[k++] = set[i];
    return k;
}

/* "gpu.underutilized on GPUs 0-7; pcie.bandwidth_low on GPU 2": what a cause explains. */
static void symptoms_text(const gd_findings *fs, const gd_grouped_cause *c, char *buf, size_t len)
{
    size_t used = 0, *m = malloc((c->nsymptoms + 1) * sizeof *m);
    buf[0] = '\0';
    for (size_t i = 0; m && i < c->nsymptoms && used < len; i++) {
        const char *id = fs->v[c->symptoms[i]].id;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(fs->v[c->symptoms[j]].id, id) == 0;
        if (seen)
            continue;
        size_t k = with_id(fs, c->symptoms, c->nsymptoms, id, m);
        char where[300];
        gd_text_group_where(fs, m, k, where, sizeof where);
        used += (size_t)snprintf(buf + used, len - used, "%s%s %s%s", used ? "; " : "", id,
                                 strcmp(where, "host") == 0 ? "on the " : "on ", where);
    }
    free(m);
}

void gd_text_causes_list(FILE *out, const gd_text_style *st, const gd_findings *fs, const gd_grouped_causes *c,
                         bool info)
{
    size_t rank = 0, *m = malloc((fs->n + 1) * sizeof *m);
    for (size_t k = 0; m && k < c->n; k++) {
        const gd_grouped_cause *x = &c->v[k];
        if (x->severity < GD_SEV_WARNING && !info)
            continue;
        const gd_finding *lead = &fs->v[x->members[0]];
        char where[300], ids[300] = "";
        gd_text_group_where(fs, x->members, x->nmembers, where, sizeof where);
        size_t used = 0;
        for (size_t i = 0; i < x->nmembers && used < sizeof ids; i++) {
            const char *id = fs->v[x->members[i]].id;
            if (!strstr(ids, id))
                used += (size_t)snprintf(ids + used, sizeof ids - used, "%s%s", used ? ", " : "", id);
        }
        fprintf(out, "\n%zu. %s%-8s%s %s  %s%s%s\n", ++rank, gd_c(st, sev_color(x->severity)),
                gd_severity_name(x->severity), gd_c(st, GD_ANSI_RESET), where, gd_c(st, GD_ANSI_DIM), ids,
                gd_c(st, GD_ANSI_RESET));
        size_t n = with_id(fs, x->members, x->nmembers, lead->id, m);
        char head[sizeof lead->title + 400], fix[sizeof lead->fix + 256], also[1024];
        gd_text_group_headline(fs, m, n, head, sizeof head);
        fprintf(out, "   %s", gd_c(st, GD_ANSI_BOLD));
        gd_wrap(out, st, 3, 3, head);
        fputs(gd_c(st, GD_ANSI_RESET), out);
        symptoms_text(fs, x, also, sizeof also);
        if (also[0]) {
            fprintf(out, "   %sexplains%s ", gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET));
            gd_wrap(out, st, 12, 12, also);
        }
        gd_text_group_fix(fs, m, n, fix, sizeof fix);
        if (fix[0]) {
            fprintf(out, "   %sfix%s      ", gd_c(st, GD_ANSI_GREEN), gd_c(st, GD_ANSI_RESET));
            gd_wrap(out, st, 12, 12, fix);
        }
    }
    free(m);
}

static void print_evidence(FILE *out, const gd_text_style *st, const json_t *ev)
{
    char line[1024] = "";
    size_t used = 0;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)ev, key, v)
    {
        if (strcmp(key, "source") == 0)
            continue;
        char val[400]; /* a structured value's first words (the JSON report has all) */
        gd_json_scalar_text(v, val, sizeof val);
        int n = snprintf(line + used, sizeof line - used, "%s%s=%s", used ? "  " : "", key, val);
        if (n < 0 || (size_t)n >= sizeof line - used)
            break;
        used += (size_t)n;
    }
    if (used) {
        fprintf(out, "    %sevidence%s ", gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET));
        gd_wrap(out, st, 13, 13, line);
    }
    gd_print_source(out, st, json_object_get(ev, "source"));
}

/* One finding alone: its structured evidence in words too. */
static void print_finding(FILE *out, const gd_text_style *st, const gd_findings *fs, size_t i,
                          const gd_text_group_opts *o)
{
    const gd_finding *x = &fs->v[i];
    char where[300];
    gd_text_group_where(fs, &i, 1, where, sizeof where);
    fprintf(out, "\n%s%-8s%s %-6s %s%s%s%s\n", gd_c(st, sev_color(x->severity)), gd_severity_name(x->severity),
            gd_c(st, GD_ANSI_RESET), where, gd_c(st, GD_ANSI_DIM), gd_safe(x->id), o->mark ? o->mark : "",
            gd_c(st, GD_ANSI_RESET));
    fprintf(out, "    %s", gd_c(st, GD_ANSI_BOLD));
    gd_wrap(out, st, 4, 4, x->title);
    fputs(gd_c(st, GD_ANSI_RESET), out);
    print_evidence(out, st, x->evidence);
    if (x->timeline[0] && o->series) { /* one sample has no timeline to tell */
        fprintf(out, "    %stimeline%s ", gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET));
        gd_wrap(out, st, 13, 13, x->timeline);
    }
    if (!isnan(x->impact_pct))
        fprintf(out, "    %simpact%s   ~%.0f%% of training throughput\n", gd_c(st, GD_ANSI_DIM),
                gd_c(st, GD_ANSI_RESET), x->impact_pct);
    if (x->fix[0] && o->fix) {
        fprintf(out, "    %sfix%s      ", gd_c(st, GD_ANSI_GREEN), gd_c(st, GD_ANSI_RESET));
        gd_wrap(out, st, 13, 13, x->fix);
    }
}

/* Whether a block's fix says something the cause's fix did not. */
static bool own_fix(const gd_findings *fs, const size_t *m, size_t n, const char *cause_fix)
{
    char fix[sizeof fs->v[0].fix + 256];
    gd_text_group_fix(fs, m, n, fix, sizeof fix);
    return fix[0] && strcmp(fix, cause_fix) != 0;
}

typedef struct block_ctx {
    FILE *out;
    const gd_text_style *st;
    const gd_findings *fs;
    const char *cause_fix;
    bool symptoms;
    const gd_text_group_opts *base;
} block_ctx;

static void block(const size_t *m, size_t n, size_t first, void *ud)
{
    (void)first;
    const block_ctx *c = ud;
    gd_text_group_opts o = *c->base;
    o.fix = !c->symptoms && (!c->cause_fix || own_fix(c->fs, m, n, c->cause_fix));
    if (n == 1)
        print_finding(c->out, c->st, c->fs, m[0], &o);
    else
        gd_text_group_print(c->out, c->st, c->fs, m, n, &o);
}

/* The blocks of set[0..nset): one per group of one id, severity and fix. */
static void blocks(FILE *out, const gd_text_style *st, const gd_findings *fs, const size_t *set, size_t nset,
                   const char *cause_fix, bool symptoms, const gd_text_group_opts *base)
{
    block_ctx c = {out, st, fs, cause_fix, symptoms, base};
    gd_text_group_each(fs, set, nset, block, &c);
}

void gd_text_causes_details(FILE *out, const gd_text_style *st, const gd_findings *fs, const gd_grouped_causes *c,
                            bool series, bool ranks)
{
    if (c->n == 0)
        return;
    fprintf(out, "\n%sFindings%s, by cause\n", gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET));
    size_t rank = 0, *m = malloc((fs->n + 1) * sizeof *m);
    for (size_t k = 0; m && k < c->n; k++) {
        const gd_grouped_cause *x = &c->v[k];
        bool ranked = x->severity >= GD_SEV_WARNING;
        char mark[48] = "", smark[48] = "", fix[sizeof fs->v[0].fix + 256] = "";
        if (ranked) {
            rank++;
            if (ranks) {
                snprintf(mark, sizeof mark, "  (cause %zu)", rank);
                snprintf(smark, sizeof smark, "  (symptom of cause %zu)", rank);
            } else {
                snprintf(smark, sizeof smark, "  (a symptom of the above)");
            }
            size_t n = with_id(fs, x->members, x->nmembers, fs->v[x->members[0]].id, m);
            gd_text_group_fix(fs, m, n, fix, sizeof fix);
        }
        gd_text_group_opts o = {.series = series, .mark = mark};
        blocks(out, st, fs, x->members, x->nmembers, ranked ? fix : NULL, false, &o);
        o.mark = smark;
        blocks(out, st, fs, x->symptoms, x->nsymptoms, NULL, true, &o);
    }
    free(m);
}
