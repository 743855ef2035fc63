/* SPDX-License-Identifier: Apache-2.0 */
/* The job beside its GPUs in the reports of `run` and `check --pid`: what was
 * sampled, and a per-second timeline of GPU busy next to the job's and the
 * host's CPU, so a bursty GPU beside a busy CPU shows at a glance. */
#include "analysis/job_timeline.h"
#include "analysis/job_tree.h"
#include "core/json_util.h"
#include "text_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GD_TIMELINE_MAX 3600 /* buckets kept for JSON: an hour of seconds */
#define GD_TIMELINE_LABEL 13 /* "  GPU busy   " */
#define GD_TIMELINE_TAIL 22 /* "  mean 100% of 128 CPUs" and so on */

/* Eight levels, then a space for zero and '?' for unknown. */
static const char *const bars[] = {"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};

static void put_bar(FILE *out, double v, double full)
{
    if (isnan(v)) {
        fputc('?', out);
        return;
    }
    double x = full > 0 ? v / full : 0;
    if (x < 0.02) {
        fputc(' ', out);
        return;
    }
    int k = (int)ceil(x * 8) - 1;
    fputs(bars[k < 0 ? 0 : k > 7 ? 7 : k], out);
}

typedef double (*pick_fn)(const gd_job_second *b);
static double pick_gpu(const gd_job_second *b)
{
    return b->gpu_busy_pct;
}
static double pick_job(const gd_job_second *b)
{
    return b->job_cores;
}
static double pick_top(const gd_job_second *b)
{
    return b->top_thread_core;
}
static double pick_host(const gd_job_second *b)
{
    return b->host_busy_pct;
}
static double pick_disk(const gd_job_second *b)
{
    return b->disk_wait;
}

static double mean_of(const gd_job_second *v, size_t n, pick_fn pick)
{
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(pick(&v[i])))
            sum += pick(&v[i]), k++;
    return k ? sum / (double)k : NAN;
}

/* One row: the label, a bar per bucket (full at `full`), the mean times
 * `scale` with its unit. */
static void row(FILE *out, const char *label, const gd_job_second *v, size_t n, pick_fn pick, double full, double scale,
                const char *unit)
{
    fprintf(out, "  %-11s", label);
    for (size_t i = 0; i < n; i++)
        put_bar(out, pick(&v[i]), full);
    double m = mean_of(v, n, pick);
    if (isnan(m))
        fprintf(out, "  mean n/a\n");
    else
        fprintf(out, "  mean %.*f%s\n", scale == 1 && full <= 64 && full != 100 ? 1 : 0, m * scale, unit);
}

/* Columns the bars may take at this width. */
static size_t bar_columns(const gd_text_style *st)
{
    int w = st->width > 0 ? st->width : 80;
    int cols = w - GD_TIMELINE_LABEL - GD_TIMELINE_TAIL;
    return cols < 10 ? 10 : (size_t)cols;
}

/* One role's processes: "trainer pid 101 (train.py, rank 0)"; returns how many. */
static size_t name_role(char *buf, size_t len, const gd_job_facts *j, const gd_job_role *roles, gd_job_role role)
{
    size_t n = 0, used = 0, shown = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < j->proc_count; i++) {
        if (roles[i] != role)
            continue;
        n++;
        const gd_job_proc *p = &j->procs[i];
        if (shown == 8 || used + 80 > len)
            continue;
        shown++;
        char rank[24] = "", name[200] = "";
        if (p->rank >= 0)
            snprintf(rank, sizeof rank, ", rank %d", p->rank);
        const char *prog = p->prog[0] ? p->prog : p->comm;
        if (prog[0] || rank[0]) /* a process gone before its name was read has none */
            snprintf(name, sizeof name, " (%s%s)", prog[0] ? prog : "?", rank);
        int w = snprintf(buf + used, len - used, "%s%d%s", shown > 1 ? ", " : "", p->pid, name);
        used += w > 0 ? (size_t)w : 0;
    }
    if (n > shown && used + 20 < len)
        snprintf(buf + used, len - used, ", %zu more", n - shown);
    return n;
}

/* The job's roles and GPU links, as both reports show them. */
typedef struct tree_view {
    gd_job_role *roles; /* by j->procs */
    gd_link_rule *rule; /* by GPU */
    char *why; /* GD_LINK_WHY_LEN bytes per GPU */
    size_t linked;
} tree_view;

static bool tree_view_open(tree_view *v, const gd_facts *f)
{
    v->roles = calloc(f->job->proc_count + 1, sizeof *v->roles);
    v->rule = calloc(f->gpu_count + 1, sizeof *v->rule);
    v->why = calloc(f->gpu_count + 1, GD_LINK_WHY_LEN);
    if (!v->roles || !v->rule || !v->why)
        return false;
    gd_job_roles(f, v->roles);
    v->linked = gd_job_link(f, v->rule, v->why, GD_LINK_WHY_LEN);
    return true;
}

static void tree_view_close(tree_view *v)
{
    free(v->roles);
    free(v->rule);
    free(v->why);
}

/* The tree's roles and the GPUs linked to the job, one line each. */
static void job_tree_text(FILE *out, const gd_facts *f, const gd_text_style *st)
{
    const gd_job_facts *j = f->job;
    tree_view v;
    if (!tree_view_open(&v, f))
        goto out;
    gd_job_role *roles = v.roles;
    gd_link_rule *rule = v.rule;
    const char *why = v.why;
    static const struct {
        gd_job_role role;
        const char *one, *many;
    } kinds[] = {{GD_ROLE_LAUNCHER, "launcher", "launchers"},
                 {GD_ROLE_TRAINER, "trainer", "trainers"},
                 {GD_ROLE_WORKER, "worker", "workers"}};
    char line[1200], part[700];
    size_t used = 0;
    line[0] = '\0';
    for (size_t k = 0; k < 3; k++) {
        size_t n = name_role(part, sizeof part, j, roles, kinds[k].role);
        if (n == 0)
            continue;
        int w = snprintf(line + used, sizeof line - used, "%s%zu %s: pid %s", used ? "; " : "", n,
                         n == 1 ? kinds[k].one : kinds[k].many, part);
        used += w > 0 && (size_t)w < sizeof line - used ? (size_t)w : 0;
    }
    if (used) {
        fprintf(out, "  ");
        gd_wrap(out, st, 4, 4, line);
    }
    size_t linked = v.linked;
    for (size_t g = 0; g < f->gpu_count; g++) { /* each rule once: its first GPU, then the others' indexes */
        if (rule[g] == GD_LINK_NONE)
            continue;
        bool first = true;
        for (size_t k = 0; k < g && first; k++)
            first = rule[k] != rule[g];
        if (!first)
            continue;
        used = (size_t)snprintf(line, sizeof line, "%s", why + g * GD_LINK_WHY_LEN);
        size_t also = 0;
        for (size_t k = g + 1; k < f->gpu_count && used + 16 < sizeof line; k++)
            if (rule[k] == rule[g]) {
                int w = snprintf(line + used, sizeof line - used, "%s%d", also++ ? ", " : "; so are GPUs ",
                                 f->gpus[k].index);
                used += w > 0 ? (size_t)w : 0;
            }
        fprintf(out, "  ");
        gd_wrap(out, st, 4, 4, line);
    }
    if (linked == 0 && f->gpu_count > 0) {
        gd_job_link_none(f, line, sizeof line);
        fprintf(out, "  ");
        gd_wrap(out, st, 4, 4, line);
    }
out:
    tree_view_close(&v);
}

void gd_report_job_text(FILE *out, const gd_facts *f, const gd_text_style *st)
{
    const gd_job_facts *j = f->job;
    if (!j)
        return;
    fprintf(out, "\n%sThe job%s ", gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET));
    if (!j->read) {
        fprintf(out, "pid %ld: ", j->pid);
        gd_wrap(out, st, 4, 9, j->error[0] ? j->error : "not read");
        return;
    }
    char line[600], procs[96], cpu_text[200], comm[48] = "";
    if (j->comm[0])
        snprintf(comm, sizeof comm, " (%s)", j->comm);
    if (j->procs_max == 0) /* ended before a sample could count its processes */
        snprintf(procs, sizeof procs, "ended before its first sample");
    else
        snprintf(procs, sizeof procs, "%zu process%s at most, %zu seen", j->procs_max, j->procs_max == 1 ? "" : "es",
                 j->procs_seen);
    /* The job may run on (its affinity) beside what the host has online:
     * a container's cpuset can name CPUs the host counts differently. */
    if (j->affinity_cpus > 0 && j->host_cpus > 0)
        snprintf(cpu_text, sizeof cpu_text, "CPUs %s (%d allowed, %d online)", j->affinity[0] ? j->affinity : "?",
                 j->affinity_cpus, j->host_cpus);
    else if (j->affinity_cpus > 0)
        snprintf(cpu_text, sizeof cpu_text, "CPUs %s (%d allowed)", j->affinity[0] ? j->affinity : "?",
                 j->affinity_cpus);
    else
        snprintf(cpu_text, sizeof cpu_text, "CPUs unknown");
    snprintf(line, sizeof line, "pid %ld%s: %s; %s%s%s", j->pid, comm, procs, cpu_text,
             j->ended && j->procs_max ? "; ended in the window" : "",
             j->io_denied ? "; its I/O counters are not ours to read (another user's process)" : "");
    gd_wrap(out, st, 4, 8, line);
    job_tree_text(out, f, st);
    size_t cols = bar_columns(st);
    double span = gd_job_timeline_span(f);
    double bucket = span < (double)cols ? 1.0 : ceil((span + 1) / (double)cols);
    gd_job_second *v = calloc(cols, sizeof *v);
    size_t n = v ? gd_job_timeline(f, bucket, v, cols) : 0;
    if (n == 0) {
        free(v);
        return;
    }
    fprintf(out, "\n%sTimeline%s %.0f s per column, %.0f s (blank under 2 %%, low %s to full %s, ? unknown)\n",
            gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET), bucket, span, bars[0], bars[7]);
    int cpus = j->affinity_cpus > 0 ? j->affinity_cpus : j->host_cpus > 0 ? j->host_cpus : 1;
    char unit[32];
    row(out, "GPU busy", v, n, pick_gpu, 100, 1, "%");
    snprintf(unit, sizeof unit, " of %d CPUs", cpus);
    row(out, "job CPU", v, n, pick_job, cpus, 1, unit);
    row(out, "top thread", v, n, pick_top, 1, 100, "% of a core");
    row(out, "host CPU", v, n, pick_host, 100, 1, "%");
    double d = mean_of(v, n, pick_disk);
    if (!isnan(d) && d >= 0.05) /* a thread in D now and then is no pattern */
        row(out, "disk wait", v, n, pick_disk, 1, 1, " threads");
    free(v);
}

static json_t *num(double v, double scale)
{
    return isnan(v) ? json_null() : gd_json_number(round(v * scale) / scale);
}

/* job.processes (each with its role) and job.gpus (each with the rule that linked it). */
static void job_tree_json(json_t *o, const gd_facts *f)
{
    const gd_job_facts *j = f->job;
    tree_view v;
    if (!tree_view_open(&v, f))
        goto out;
    const gd_job_role *roles = v.roles;
    const gd_link_rule *rule = v.rule;
    const char *why = v.why;
    json_t *procs = json_array();
    for (size_t i = 0; i < j->proc_count; i++) {
        const gd_job_proc *p = &j->procs[i];
        json_t *devs = json_array();
        for (int m = 0; m < 64; m++)
            if (p->dev_minors & (1ull << m))
                json_array_append_new(devs, json_integer(m));
        json_array_append_new(procs, json_pack("{s:i, s:i, s:s, s:s, s:s, s:o, s:b, s:b, s:b, s:b, s:b, s:o, s:o}",
                                               "pid", p->pid, "ppid", p->ppid, "comm", p->comm, "program", p->prog,
                                               "role", gd_job_role_name(roles[i]), "rank",
                                               p->rank >= 0 ? json_integer(p->rank) : json_null(), "python", p->python,
                                               "torch", p->torch, "torch_cuda", p->torch_cuda, "cuda_runtime",
                                               p->cudart, "cuda_driver", p->cuda, "nvidia_devices", devs, "cores_mean",
                                               p->intervals ? num(p->busy_sum / p->intervals, 100) : json_null()));
    }
    json_object_set_new(o, "processes", procs);
    size_t linked = v.linked;
    json_t *gpus = json_array();
    for (size_t g = 0; g < f->gpu_count; g++)
        if (rule[g] != GD_LINK_NONE)
            json_array_append_new(gpus, json_pack("{s:i, s:s, s:s}", "gpu", f->gpus[g].index, "rule",
                                                  gd_link_rule_key(rule[g]), "why", why + g * GD_LINK_WHY_LEN));
    json_object_set_new(o, "gpus", gpus);
    if (linked == 0) {
        char line[600];
        gd_job_link_none(f, line, sizeof line);
        json_object_set_new(o, "gpus_not_linked", json_string(line));
    }
    json_object_set_new(o, "gpu_minors_from", json_string(j->gpu_minor_source));
out:
    tree_view_close(&v);
}

json_t *gd_report_job_json(const gd_facts *f)
{
    const gd_job_facts *j = f->job;
    if (!j)
        return NULL;
    json_t *o = json_object();
    json_object_set_new(o, "pid", json_integer(j->pid));
    json_object_set_new(o, "read", json_boolean(j->read));
    if (!j->read) {
        json_object_set_new(o, "error", json_string(j->error));
        return o;
    }
    json_object_set_new(o, "comm", json_string(j->comm));
    json_object_set_new(o, "samples", json_integer((json_int_t)j->n));
    json_object_set_new(o, "ended", json_boolean(j->ended));
    json_object_set_new(o, "ended_at_s", j->ended ? num(j->ended_at_s, 100) : json_null());
    json_object_set_new(o, "processes_max", json_integer((json_int_t)j->procs_max));
    json_object_set_new(o, "processes_seen", json_integer((json_int_t)j->procs_seen));
    json_object_set_new(o, "children_started", json_integer((json_int_t)j->children_started));
    json_object_set_new(o, "children_exited", json_integer((json_int_t)j->children_exited));
    json_object_set_new(o, "respawn_rounds", json_integer((json_int_t)j->respawn_rounds));
    json_object_set_new(o, "threads_seen", json_integer((json_int_t)(j->thread_count + j->threads_untracked)));
    json_object_set_new(o, "cpus_allowed", j->affinity[0] ? json_string(j->affinity) : json_null());
    json_object_set_new(o, "affinity_cpus", j->affinity_cpus ? json_integer(j->affinity_cpus) : json_null());
    json_object_set_new(o, "host_cpus", j->host_cpus ? json_integer(j->host_cpus) : json_null());
    json_object_set_new(o, "governor", j->governor[0] ? json_string(j->governor) : json_null());
    json_object_set_new(o, "scaling_driver", j->scaling_driver[0] ? json_string(j->scaling_driver) : json_null());
    json_object_set_new(o, "io_readable", json_boolean(!j->io_denied));
    json_object_set_new(o, "wall_paced", json_boolean(j->wall_paced));
    job_tree_json(o, f);
    gd_job_second *v = calloc(GD_TIMELINE_MAX, sizeof *v);
    size_t n = v ? gd_job_timeline(f, 1.0, v, GD_TIMELINE_MAX) : 0;
    json_t *tl = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *b = json_object();
        json_object_set_new(b, "t_s", gd_json_number(v[i].t0_s));
        json_object_set_new(b, "gpu_busy_pct", num(v[i].gpu_busy_pct, 10));
        json_object_set_new(b, "job_cores", num(v[i].job_cores, 100));
        json_object_set_new(b, "top_thread_core", num(v[i].top_thread_core, 100));
        json_object_set_new(b, "host_busy_pct", num(v[i].host_busy_pct, 10));
        json_object_set_new(b, "threads_runnable", num(v[i].runnable, 10));
        json_object_set_new(b, "threads_disk_wait", num(v[i].disk_wait, 10));
        json_array_append_new(tl, b);
    }
    free(v);
    json_object_set_new(o, "timeline", tl);
    return o;
}
