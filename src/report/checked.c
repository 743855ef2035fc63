/* SPDX-License-Identifier: Apache-2.0 */
/* "What was checked": the registry's groups with their outcome, so a clean
 * report still shows what it covered (text "Checked" section, JSON
 * "checked" array). */
#include "checked.h"

#include "gpudoctor/checks.h"
#include "gpudoctor/stack.h"
#include "text_util.h"

#include <string.h>

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

typedef struct text_ctx {
    FILE *out;
    const gd_facts *f;
    const gd_findings *fs;
    const gd_text_style *st;
} text_ctx;

/* Why a group could not have applied here. */
static const char *not_applicable(const gd_facts *f, const char *g)
{
    if (strcmp(g, "capture") == 0)
        return strstr(f->source, "replayed from recording:") ? "not used: a recording of a live run is replayed"
                                                             : "not used: no --from capture";
    if (strcmp(g, "bench") == 0)
        return "not run: 'gpudoctor bench' measures them";
    if (f->captured && strcmp(g, "network") == 0)
        return "not applicable: the capture holds no RDMA device list, lsmod, ACS lines, NCCL log or nccl-tests "
               "table";
    if (f->captured)
        return "not applicable: a capture holds no job, environment or software stack";
    return "not applicable";
}

/* What the health group looked at, in words: only what it judged. */
static void health_scope(const gd_facts *f, const gd_findings *fs, char *buf, size_t len)
{
    char why[256];
    gd_check_state ecc = gd_check_coverage(gd_check_find("health.ecc_uncorrectable"), f, fs, why, sizeof why);
    const gd_stack_facts *s = f->stack;
    size_t used = 0;
    buf[0] = '\0';
    if (ecc >= GD_CHECK_PART)
        used = (size_t)snprintf(buf, len, "ECC, row remapping, retired pages");
    else
        used = (size_t)snprintf(buf, len, "ECC, row remapping, retired pages: %s",
                                f->captured ? "not in this capture" : why);
    if (used < len)
        snprintf(buf + used, len - used, "; kernel log: %s",
                 s && s->kernel_log_read ? s->kernel_log_source : "not read");
}

static void text_group(void *ud, const char *g)
{
    text_ctx *c = ud;
    group_count n = count_group(c->fs, g);
    gd_coverage cov;
    gd_group_coverage(c->f, c->fs, g, &cov);
    size_t found = n.sev[GD_SEV_CRITICAL] + n.sev[GD_SEV_WARNING] + n.sev[GD_SEV_INFO];
    char status[160], counted[64];
    if (strcmp(g, "capture") == 0 && c->f->captured) {
        if (n.skips)
            fprintf(c->out, "    %-15s notes on what the files could not show (%zu, under Not checked)\n", cov.label,
                    n.skips);
        else
            fprintf(c->out, "    %-15s read whole: no note\n", cov.label);
        return;
    }
    if (cov.state == GD_CHECK_NOT_APPLICABLE) {
        fprintf(c->out, "    %-15s %s\n", cov.label, not_applicable(c->f, g));
        return;
    }
    if (cov.state == GD_CHECK_NOT_JUDGED) {
        fprintf(c->out, "    %-15s not judged (%zu check%s): ", cov.label, cov.applicable,
                cov.applicable == 1 ? "" : "s");
        gd_wrap(c->out, c->st, 20, 34, cov.brief);
        return;
    }
    if (found == 0)
        snprintf(status, sizeof status, "ok");
    else
        snprintf(status, sizeof status, "%zu critical, %zu warning, %zu info", n.sev[GD_SEV_CRITICAL],
                 n.sev[GD_SEV_WARNING], n.sev[GD_SEV_INFO]);
    const char *color = found == 0 ? GD_ANSI_GREEN : n.sev[GD_SEV_CRITICAL] ? GD_ANSI_RED : GD_ANSI_YELLOW;
    /* A group is ok only for what it judged: "ok on 4 of 21 checks". */
    if (cov.state == GD_CHECK_JUDGED)
        snprintf(counted, sizeof counted, "(%zu check%s)", cov.applicable, cov.applicable == 1 ? "" : "s");
    else
        snprintf(counted, sizeof counted, "on %zu of %zu checks (the others under Not checked)", cov.judged_checks,
                 cov.applicable);
    fprintf(c->out, "    %-15s %s%s%s ", cov.label, gd_c(c->st, color), status, gd_c(c->st, GD_ANSI_RESET));
    gd_wrap(c->out, c->st, 20, 20 + (int)strlen(status) + 1, counted);
    char scope[1200] = "";
    if (strcmp(g, "stack") == 0)
        stack_scope(c->f, scope, sizeof scope);
    else if (strcmp(g, "vram") == 0 && c->f->gpu_count)
        vram_scope(c->f, scope, sizeof scope);
    else if (strcmp(g, "health") == 0)
        health_scope(c->f, c->fs, scope, sizeof scope);
    if (scope[0]) {
        fprintf(c->out, "%*s", 20, "");
        gd_wrap(c->out, c->st, 20, 20, scope);
    }
}

void gd_report_checked_text(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_text_style *st)
{
    fprintf(out, "\n%sChecked%s\n", gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET));
    text_ctx c = {out, f, fs, st};
    gd_coverage_each_group(text_group, &c);
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
    json_object_set_new(o, "checks", ids);
    json_object_set_new(o, "findings", json_integer((json_int_t)(n.sev[0] + n.sev[1] + n.sev[2])));
    json_object_set_new(o, "not_checked", json_integer((json_int_t)n.skips));
    gd_coverage cov;
    gd_group_coverage(c->f, c->fs, g, &cov);
    static const char *const states[] = {"not applicable", "not judged", "in part", "judged"};
    json_object_set_new(o, "label", json_string(cov.label));
    bool notes = strcmp(g, "capture") == 0 && c->f->captured; /* what the files could not show */
    json_object_set_new(o, "state", json_string(notes ? "notes" : states[cov.state]));
    json_object_set_new(o, "judged", json_boolean(cov.state >= GD_CHECK_PART));
    json_object_set_new(o, "checks_applicable", json_integer((json_int_t)cov.applicable));
    json_object_set_new(o, "checks_judged", json_integer((json_int_t)cov.judged_checks));
    if (cov.state == GD_CHECK_NOT_APPLICABLE && !notes)
        json_object_set_new(o, "reason", json_string(not_applicable(c->f, g)));
    else if (cov.state == GD_CHECK_NOT_JUDGED) {
        json_object_set_new(o, "reason", json_string(cov.why[0] ? cov.why : cov.brief));
        json_object_set_new(o, "brief", json_string(cov.brief)); /* as the text says it */
    }
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
    gd_coverage_each_group(json_group, &c);
    return c.a;
}
