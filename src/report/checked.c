/* SPDX-License-Identifier: Apache-2.0 */
/* "What was checked": the registry's groups with their outcome, so a clean
 * report still shows what it covered (text "Checked" section, JSON
 * "checked" array). */
#include "checked.h"

#include "gpudoctor/checks.h"
#include "gpudoctor/stack.h"
#include "text_util.h"

#include <string.h>

static const struct {
    const char *group, *label;
} labels[] = {
    {"stack", "software stack"},
    {"config", "configuration"},
    {"health", "health"},
    {"bench", "benchmarks"},
};

static const char *group_label(const char *g)
{
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        if (strcmp(labels[i].group, g) == 0)
            return labels[i].label;
    return g;
}

static const char *group_of(const char *id)
{
    for (size_t i = 0; i < gd_checks_count; i++)
        if (strcmp(gd_checks[i].id, id) == 0)
            return gd_checks[i].group;
    return NULL;
}

/* Counts of one group: checks, findings by severity, skips. */
typedef struct group_count {
    size_t checks, sev[3], skips;
} group_count;

static group_count count_group(const gd_findings *fs, const char *g)
{
    group_count c = {0};
    for (size_t i = 0; i < gd_checks_count; i++)
        c.checks += strcmp(gd_checks[i].group, g) == 0;
    for (size_t i = 0; i < fs->n; i++) {
        const char *fg = group_of(fs->v[i].id);
        if (fg && strcmp(fg, g) == 0)
            c.sev[fs->v[i].severity]++;
    }
    for (size_t i = 0; i < fs->nskips; i++) {
        const char *fg = group_of(fs->skips[i].check);
        c.skips += fg && strcmp(fg, g) == 0;
    }
    return c;
}

/* Calls fn for each distinct group, in registry order. */
static void each_group(void (*fn)(void *ud, const char *g), void *ud)
{
    for (size_t i = 0; i < gd_checks_count; i++) {
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen |= strcmp(gd_checks[j].group, gd_checks[i].group) == 0;
        if (!seen)
            fn(ud, gd_checks[i].group);
    }
}

/* What the stack group looked at, in words. */
static void stack_scope(const gd_facts *f, char *buf, size_t len)
{
    const gd_stack_facts *s = f->stack;
    if (!s) {
        snprintf(buf, len, "not collected");
        return;
    }
    size_t used = (size_t)snprintf(buf, len, "runtimes:");
    for (size_t i = 0; i < s->runtime_count && used < len; i++) {
        const gd_cuda_runtime *rt = &s->runtimes[i];
        if (rt->kind == GD_RT_TOOLKIT && rt->version > 0) { /* "CUDA 13.0 toolkit", not "toolkit 13.0.96.dist" */
            used += (size_t)snprintf(buf + used, len - used, "%s CUDA %d.%d toolkit", i ? "," : "", rt->version / 1000,
                                     (rt->version % 1000) / 10);
            continue;
        }
        const char *what =
            rt->kind == GD_RT_TOOLKIT || rt->kind == GD_RT_LDCACHE ? gd_runtime_kind_name(rt->kind) : rt->framework;
        used += (size_t)snprintf(buf + used, len - used, "%s %s %s", i ? "," : "", what,
                                 rt->version_text[0] ? rt->version_text : "(no CUDA)");
    }
    if (s->runtime_count == 0 && used < len)
        used += (size_t)snprintf(buf + used, len - used, " none found");
    if (used < len)
        snprintf(buf + used, len - used, "; environment: %s", s->env_read ? s->env_source : "not read");
}

/* Each GPU's memory at its last reading and who holds it, for the vram group. */
static void vram_scope(const gd_facts *f, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "memory used (MiB, last sample):");
    for (size_t g = 0; g < f->gpu_count && used < len; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        gd_value mib = gd_missing(GD_ST_UNREAD);
        for (size_t i = f->series.n; i-- > 0 && !gd_ok(mib);)
            mib = gd_series_at(&f->series, i, g, GD_M_MEM_USED_MIB);
        char amount[48] = "n/a", procs[32] = "process list n/a"; /* "n/a" once, not "n/a/n/a" */
        if (gd_ok(mib) && gd_ok(gpu->mem_total_mib))
            snprintf(amount, sizeof amount, "%.0f/%.0f", mib.v, gpu->mem_total_mib.v);
        else if (gd_ok(mib))
            snprintf(amount, sizeof amount, "%.0f of n/a", mib.v);
        else if (gd_ok(gpu->mem_total_mib))
            snprintf(amount, sizeof amount, "n/a of %.0f", gpu->mem_total_mib.v);
        if (gd_ok(gpu->processes_status))
            snprintf(procs, sizeof procs, "%zu process%s", gpu->process_count, gpu->process_count == 1 ? "" : "es");
        used += (size_t)snprintf(buf + used, len - used, "%s GPU %d %s (%s)", g ? "," : "", gpu->index, amount, procs);
    }
}

/* With no GPU read (no driver, or none found), the groups that judge only
 * what GPUs report looked at nothing: that is "not checked", not "ok". */
static bool nothing_to_judge(const gd_facts *f, const char *g)
{
    static const char *const gpu_only[] = {"thermal", "power", "clocks",      "pcie",  "topology",
                                           "nvlink",  "vram",  "utilization", "config"};
    for (size_t i = 0; f->gpu_count == 0 && i < sizeof gpu_only / sizeof gpu_only[0]; i++)
        if (strcmp(gpu_only[i], g) == 0)
            return true;
    return false;
}

typedef struct text_ctx {
    FILE *out;
    const gd_facts *f;
    const gd_findings *fs;
    const gd_text_style *st;
} text_ctx;

static void text_group(void *ud, const char *g)
{
    text_ctx *c = ud;
    group_count n = count_group(c->fs, g);
    char status[64];
    if (nothing_to_judge(c->f, g) && n.sev[GD_SEV_CRITICAL] + n.sev[GD_SEV_WARNING] + n.sev[GD_SEV_INFO] == 0) {
        fprintf(c->out, "    %-15s not checked: no GPU was read (%zu check%s)\n", group_label(g), n.checks,
                n.checks == 1 ? "" : "s");
        return;
    }
    if (strcmp(g, "capture") == 0 && !c->f->captured) {
        /* A recording replayed with --from is a live run's facts, not a capture. */
        fprintf(c->out, "    %-15s %s\n", group_label(g),
                strstr(c->f->source, "replayed from recording:") ? "not used: a recording of a live run is replayed"
                                                                 : "not used: no --from capture");
        return;
    }
    if (strcmp(g, "bench") == 0 && !c->f->bench) {
        fprintf(c->out, "    %-15s not run: 'gpudoctor bench' measures them\n", group_label(g));
        return;
    }
    /* Without GPUs, health judged the kernel log at most: ECC and remapping are GPU counters. */
    bool log_only = c->f->gpu_count == 0 && strcmp(g, "health") == 0;
    if (log_only && n.sev[GD_SEV_CRITICAL] + n.sev[GD_SEV_WARNING] + n.sev[GD_SEV_INFO] == 0) {
        bool log = c->f->stack && c->f->stack->kernel_log_read;
        fprintf(c->out, "    %-15s %s: no GPU was read (%zu checks)\n", group_label(g),
                log ? "kernel log only" : "not checked", n.checks);
        if (log) {
            char scope[600];
            snprintf(scope, sizeof scope, "no Xid in %s; ECC, row remapping, retired pages not checked",
                     c->f->stack->kernel_log_source);
            fprintf(c->out, "%*s", 20, "");
            gd_wrap(c->out, c->st, 20, 20, scope);
        }
        return;
    }
    gd_coverage cov;
    gd_group_coverage(c->f, c->fs, g, &cov);
    if (!cov.judged && strcmp(g, "capture") != 0) {
        fprintf(c->out, "    %-15s not checked (%zu check%s)\n", group_label(g), n.checks, n.checks == 1 ? "" : "s");
        fprintf(c->out, "%*s", 20, "");
        gd_wrap(c->out, c->st, 20, 20, cov.why);
        return;
    }
    if (n.sev[GD_SEV_CRITICAL] + n.sev[GD_SEV_WARNING] + n.sev[GD_SEV_INFO] == 0)
        snprintf(status, sizeof status, "%sok%s", gd_c(c->st, GD_ANSI_GREEN), gd_c(c->st, GD_ANSI_RESET));
    else
        snprintf(status, sizeof status, "%s%zu critical, %zu warning, %zu info%s",
                 gd_c(c->st, n.sev[GD_SEV_CRITICAL] ? GD_ANSI_RED : GD_ANSI_YELLOW), n.sev[GD_SEV_CRITICAL],
                 n.sev[GD_SEV_WARNING], n.sev[GD_SEV_INFO], gd_c(c->st, GD_ANSI_RESET));
    fprintf(c->out, "    %-15s %s (%zu check%s%s", group_label(g), status, n.checks, n.checks == 1 ? "" : "s",
            n.skips ? ", some not checked" : "");
    fputs(")\n", c->out);
    char scope[1200] = "";
    if (strcmp(g, "stack") == 0)
        stack_scope(c->f, scope, sizeof scope);
    else if (strcmp(g, "vram") == 0 && c->f->gpu_count)
        vram_scope(c->f, scope, sizeof scope);
    else if (strcmp(g, "health") == 0 && c->f->stack)
        snprintf(scope, sizeof scope, "ECC, row remapping, retired pages; kernel log: %s",
                 c->f->stack->kernel_log_read ? c->f->stack->kernel_log_source : "not read");
    if (scope[0]) {
        fprintf(c->out, "%*s", 20, "");
        gd_wrap(c->out, c->st, 20, 20, scope);
    }
}

void gd_report_checked_text(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_text_style *st)
{
    fprintf(out, "\n%sChecked%s\n", gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET));
    text_ctx c = {out, f, fs, st};
    each_group(text_group, &c);
}

typedef struct json_ctx {
    json_t *a;
    const gd_facts *f;
    const gd_findings *fs;
} json_ctx;

static void json_group(void *ud, const char *g)
{
    json_ctx *c = ud;
    group_count n = count_group(c->fs, g);
    json_t *o = json_object(), *ids = json_array();
    for (size_t i = 0; i < gd_checks_count; i++)
        if (strcmp(gd_checks[i].group, g) == 0)
            json_array_append_new(ids, json_string(gd_checks[i].id));
    json_object_set_new(o, "group", json_string(g));
    json_object_set_new(o, "label", json_string(group_label(g)));
    json_object_set_new(o, "checks", ids);
    json_object_set_new(o, "findings", json_integer((json_int_t)(n.sev[0] + n.sev[1] + n.sev[2])));
    json_object_set_new(o, "not_checked", json_integer((json_int_t)n.skips));
    if (nothing_to_judge(c->f, g))
        json_object_set_new(o, "reason", json_string("no GPU was read"));
    else if (strcmp(g, "bench") == 0 && !c->f->bench)
        json_object_set_new(o, "reason", json_string("measured by 'gpudoctor bench', not by check"));
    else if (c->f->gpu_count == 0 && strcmp(g, "health") == 0)
        json_object_set_new(o, "reason", json_string("no GPU was read: only the kernel log was judged"));
    gd_coverage cov;
    gd_group_coverage(c->f, c->fs, g, &cov);
    json_object_set_new(o, "judged", json_boolean(cov.judged || strcmp(g, "capture") == 0));
    if (!cov.judged && strcmp(g, "capture") != 0 && !json_object_get(o, "reason"))
        json_object_set_new(o, "reason", json_string(cov.why));
    const gd_stack_facts *s = c->f->stack;
    if (strcmp(g, "stack") == 0 && s) {
        json_t *rts = json_array();
        for (size_t i = 0; i < s->runtime_count; i++) {
            const gd_cuda_runtime *rt = &s->runtimes[i];
            json_t *r = json_object();
            json_object_set_new(r, "kind", json_string(gd_runtime_kind_name(rt->kind)));
            json_object_set_new(r, "cuda", rt->version_text[0] ? json_string(rt->version_text) : json_null());
            if (rt->kind != GD_RT_TOOLKIT && rt->kind != GD_RT_LDCACHE)
                json_object_set_new(r, "framework", json_string(rt->framework));
            json_object_set_new(r, "path", json_string(rt->path));
            json_array_append_new(rts, r);
        }
        json_object_set_new(o, "runtimes", rts);
        json_object_set_new(o, "environment", s->env_read ? json_string(s->env_source) : json_null());
    }
    if (strcmp(g, "health") == 0 && s)
        json_object_set_new(o, "kernel_log", s->kernel_log_read ? json_string(s->kernel_log_source) : json_null());
    json_array_append_new(c->a, o);
}

json_t *gd_report_checked_json(const gd_facts *f, const gd_findings *fs)
{
    json_ctx c = {json_array(), f, fs};
    each_group(json_group, &c);
    return c.a;
}
