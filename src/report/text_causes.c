/* SPDX-License-Identifier: Apache-2.0 */
/* The causes of a report in text (text_causes.h). */
#include "text_causes.h"
#include "text_finding.h"
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
    const char *mark;
    const gd_text_finding_how *how;
} block_ctx;

static void block(const size_t *m, size_t n, size_t first, void *ud)
{
    (void)first;
    const block_ctx *c = ud;
    bool fix = !c->symptoms && (!c->cause_fix || own_fix(c->fs, m, n, c->cause_fix)) &&
               !(c->how->said && c->how->said(&c->fs->v[m[0]], c->how->said_ud));
    /* A caller that says where each finding is (a rank, a node) shows them alone. */
    if (n == 1 || c->how->where || c->how->at) {
        gd_text_finding_how h = *c->how;
        h.mark = c->mark;
        h.no_fix = !fix;
        for (size_t i = 0; i < n; i++)
            gd_text_finding(c->out, c->st, &c->fs->v[m[i]], &h);
        return;
    }
    gd_text_group_opts o = {.series = c->how->series, .fix = fix, .mark = c->mark};
    gd_text_group_print(c->out, c->st, c->fs, m, n, &o);
}

/* The blocks of set[0..nset): one per group of one id, severity and fix. */
static void blocks(FILE *out, const gd_text_style *st, const gd_findings *fs, const size_t *set, size_t nset,
                   const char *cause_fix, bool symptoms, const char *mark, const gd_text_finding_how *how)
{
    block_ctx c = {out, st, fs, cause_fix, symptoms, mark, how};
    gd_text_group_each(fs, set, nset, block, &c);
}

/* Each cause's blocks, then its symptoms' (text_finding.h). */
static void by_cause(FILE *out, const gd_text_style *st, const gd_findings *fs, const gd_grouped_causes *c,
                     const gd_text_finding_how *how)
{
    static const gd_text_finding_how check_how = {.series = true};
    how = how ? how : &check_how;
    size_t rank = 0, *m = malloc((fs->n + 1) * sizeof *m);
    for (size_t k = 0; m && k < c->n; k++) {
        const gd_grouped_cause *x = &c->v[k];
        bool counted = x->severity >= GD_SEV_WARNING;
        char mark[48] = "", smark[48] = "", fix[sizeof fs->v[0].fix + 256] = "";
        if (counted) {
            rank++;
            if (how->ranked) {
                snprintf(mark, sizeof mark, "  (cause %zu)", rank);
                snprintf(smark, sizeof smark, "  (symptom of cause %zu)", rank);
                /* The list above said the cause's fix: its blocks say only their own. */
                size_t n = with_id(fs, x->members, x->nmembers, fs->v[x->members[0]].id, m);
                gd_text_group_fix(fs, m, n, fix, sizeof fix);
            } else {
                snprintf(smark, sizeof smark, "  (a symptom of the above)");
            }
        }
        blocks(out, st, fs, x->members, x->nmembers, fix[0] ? fix : NULL, false, mark, how);
        blocks(out, st, fs, x->symptoms, x->nsymptoms, NULL, true, smark, how);
    }
    free(m);
}

void gd_text_causes_details(FILE *out, const gd_text_style *st, const gd_findings *fs, const gd_grouped_causes *c,
                            const gd_text_finding_how *how)
{
    if (c->n == 0)
        return;
    fprintf(out, "\n%sFindings%s, by cause\n", gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET));
    by_cause(out, st, fs, c, how);
}

void gd_text_findings(FILE *out, const gd_text_style *st, const gd_findings *fs, const gd_text_finding_how *how)
{
    gd_grouped_causes c;
    if (gd_group_causes(fs, &c) == 0) {
        by_cause(out, st, fs, &c, how);
        gd_grouped_causes_free(&c);
        return;
    }
    /* Out of memory: each finding alone, still said. */
    for (size_t i = 0; i < fs->n; i++)
        if (!fs->v[i].ignored)
            gd_text_finding(out, st, &fs->v[i], how);
}
