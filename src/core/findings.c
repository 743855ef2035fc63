/* SPDX-License-Identifier: Apache-2.0 */
/* Findings list: add, sort, count, exit code. */
#include "gpudoctor/findings.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gd_severity_name(gd_severity s)
{
    switch (s) {
    case GD_SEV_INFO: return "info";
    case GD_SEV_WARNING: return "warning";
    case GD_SEV_CRITICAL: return "critical";
    }
    return "?";
}

gd_finding *gd_finding_add(gd_findings *fs, const char *id, gd_severity sev, int gpu, json_t *evidence,
                           double impact_pct, const char *fix, const char *title_fmt, ...)
{
    if (fs->n == fs->cap) {
        size_t cap = fs->cap ? fs->cap * 2 : 16;
        gd_finding *v = realloc(fs->v, cap * sizeof *v);
        if (!v) {
            json_decref(evidence);
            return NULL;
        }
        fs->v = v;
        fs->cap = cap;
    }
    gd_finding *f = &fs->v[fs->n++];
    memset(f, 0, sizeof *f);
    snprintf(f->id, sizeof f->id, "%s", id);
    f->severity = sev;
    f->gpu = gpu;
    f->evidence = evidence ? evidence : json_object();
    f->impact_pct = impact_pct;
    snprintf(f->fix, sizeof f->fix, "%s", fix ? fix : "");
    va_list ap;
    va_start(ap, title_fmt);
    vsnprintf(f->title, sizeof f->title, title_fmt, ap);
    va_end(ap);
    return f;
}

void gd_fill_placeholder(char *buf, size_t len, const char *text, const char *placeholder, const char *value)
{
    size_t used = 0, plen = strlen(placeholder), vlen = strlen(value);
    if (len == 0)
        return;
    while (*text && used + 1 < len) {
        bool hit = plen && strncmp(text, placeholder, plen) == 0;
        const char *from = hit ? value : text;
        size_t n = hit ? vlen : 1;
        if (n > len - 1 - used)
            n = len - 1 - used;
        memcpy(buf + used, from, n);
        used += n;
        text += hit ? plen : 1;
    }
    buf[used] = '\0';
}

void gd_skip_add(gd_findings *fs, const char *check, int gpu, const char *reason_fmt, ...)
{
    if (fs->nskips == fs->skipcap) {
        size_t cap = fs->skipcap ? fs->skipcap * 2 : 16;
        gd_skip *v = realloc(fs->skips, cap * sizeof *v);
        if (!v)
            return;
        fs->skips = v;
        fs->skipcap = cap;
    }
    gd_skip *s = &fs->skips[fs->nskips++];
    snprintf(s->check, sizeof s->check, "%s", check);
    s->gpu = gpu;
    va_list ap;
    va_start(ap, reason_fmt);
    vsnprintf(s->reason, sizeof s->reason, reason_fmt, ap);
    va_end(ap);
}

int gd_severity_parse(const char *s, gd_severity *out)
{
    for (int v = GD_SEV_INFO; v <= GD_SEV_CRITICAL; v++)
        if (strcmp(s, gd_severity_name((gd_severity)v)) == 0) {
            *out = (gd_severity)v;
            return 0;
        }
    return -1;
}

static int cmp_finding(const void *pa, const void *pb)
{
    const gd_finding *a = pa, *b = pb;
    if (a->ignored != b->ignored)
        return a->ignored ? 1 : -1;
    if (a->severity != b->severity)
        return a->severity > b->severity ? -1 : 1;
    double ia = isnan(a->impact_pct) ? -1 : a->impact_pct;
    double ib = isnan(b->impact_pct) ? -1 : b->impact_pct;
    if (ia != ib)
        return ia > ib ? -1 : 1;
    if (a->gpu != b->gpu)
        return a->gpu < b->gpu ? -1 : 1;
    return strcmp(a->id, b->id);
}

void gd_findings_sort(gd_findings *fs)
{
    if (fs->n > 1)
        qsort(fs->v, fs->n, sizeof *fs->v, cmp_finding);
}

size_t gd_findings_count(const gd_findings *fs, gd_severity s)
{
    size_t n = 0;
    for (size_t i = 0; i < fs->n; i++)
        n += fs->v[i].severity == s && !fs->v[i].ignored;
    return n;
}

size_t gd_findings_ignored(const gd_findings *fs)
{
    size_t n = 0;
    for (size_t i = 0; i < fs->n; i++)
        n += fs->v[i].ignored;
    return n;
}

static bool rule_matches(const gd_policy_rule *r, const gd_finding *x)
{
    return strcmp(r->id, x->id) == 0 && (r->gpu == GD_NO_GPU || r->gpu == x->gpu);
}

void gd_findings_apply_policy(gd_findings *fs, const gd_policy *p)
{
    for (size_t i = 0; p && i < fs->n; i++) {
        gd_finding *x = &fs->v[i];
        for (size_t k = 0; k < p->nseverity; k++) /* the last rule that matches wins */
            if (rule_matches(&p->severity[k], x))
                x->severity = p->severity[k].severity;
        for (size_t k = 0; k < p->nignore && !x->ignored; k++)
            x->ignored = rule_matches(&p->ignore[k], x);
    }
    gd_findings_sort(fs);
}

int gd_findings_exit_code(const gd_findings *fs)
{
    if (gd_findings_count(fs, GD_SEV_CRITICAL))
        return 2;
    if (gd_findings_count(fs, GD_SEV_WARNING))
        return 1;
    return 0;
}

void gd_findings_free(gd_findings *fs)
{
    for (size_t i = 0; i < fs->n; i++)
        json_decref(fs->v[i].evidence);
    free(fs->v);
    free(fs->skips);
    memset(fs, 0, sizeof *fs);
}
