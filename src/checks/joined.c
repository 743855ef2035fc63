/* SPDX-License-Identifier: Apache-2.0 */
/* `run --profile`: the machine's, the job's and the trace's findings joined
 * into causes, ranked by the time each could win back (docs/run.md). */
#include "checks/joined.h"
#include "core/json_util.h"
#include "gpudoctor/job.h"
#include "input_job.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Symptoms, not causes: the idle time the causes explain (causes.c's
 * table, its rules of the GPU's idle time). Which ids are one cause seen by
 * several sources is causes.c's table too (gd_cause_rule_of). */
static bool symptom(const char *id)
{
    const gd_symptom_rule *r = gd_symptom_rule_of(id);
    return r && r->idle;
}

/* What gpudoctor says about itself or the machine's lack of GPUs: no cause of a wait. */
static bool no_cause(const char *id)
{
    static const char *const ids[] = {"gpu.none", "driver.missing", "cuda.framework_cpu_only"};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        if (strcmp(id, ids[i]) == 0)
            return true;
    return strncmp(id, "bench.", 6) == 0 || strncmp(id, "vram.", 5) == 0;
}

static bool has_prefix(const char *id, const char *p)
{
    return strncmp(id, p, strlen(p)) == 0;
}

const char *gd_cause_kind_name(gd_cause_kind k)
{
    return k == GD_CAUSE_HARDWARE ? "hardware" : k == GD_CAUSE_JOB ? "job" : "trace";
}

static const char *source_of(const char *id)
{
    if (has_prefix(id, "trace."))
        return "trace";
    if (has_prefix(id, "input.") || has_prefix(id, "env.") || has_prefix(id, "cuda.") || has_prefix(id, "config."))
        return "job";
    return "gpus";
}

/* Whether a cause's key is one of the table's causes of GPU idle time. */
static bool in_idle(const gd_cause *c)
{
    for (size_t i = 0; i < c->nids; i++) {
        const gd_cause_rule *r = gd_cause_rule_of(c->ids[i]);
        if (r && strcmp(r->key, c->key) == 0)
            return r->in_idle;
    }
    return false;
}

static void add_evidence(gd_cause *c, const char *source, const gd_finding *x, json_t *ev)
{
    json_t *e = json_object();
    json_object_set_new(e, "source", json_string(source));
    json_object_set_new(e, "finding", x ? json_string(x->id) : json_null());
    if (x)
        json_object_set_new(e, "title", json_string(x->title));
    json_object_set_new(e, "evidence", ev ? ev : json_object());
    json_array_append_new(c->evidence, e);
}

static bool has_source(const gd_cause *c, const char *source)
{
    json_t *e;
    size_t i;
    json_array_foreach(c->evidence, i, e)
    {
        if (strcmp(json_string_value(json_object_get(e, "source")), source) == 0)
            return true;
    }
    return false;
}

static gd_cause *cause_for(gd_causes *out, const char *key, gd_cause_kind kind, const char *title, const char *fix)
{
    for (size_t i = 0; i < out->n; i++)
        if (strcmp(out->v[i].key, key) == 0)
            return &out->v[i];
    if (out->n >= GD_CAUSE_MAX)
        return NULL;
    gd_cause *c = &out->v[out->n++];
    *c = (gd_cause){.kind = kind, .win_pct = NAN, .seen_pct = NAN, .evidence = json_array()};
    snprintf(c->key, sizeof c->key, "%s", key);
    snprintf(c->title, sizeof c->title, "%s", title);
    snprintf(c->fix, sizeof c->fix, "%s", fix);
    return c;
}

static void join_finding(gd_causes *out, const gd_finding *x)
{
    if (x->ignored || x->severity == GD_SEV_INFO || no_cause(x->id) || symptom(x->id))
        return;
    const gd_cause_rule *r = gd_cause_rule_of(x->id);
    const char *src = source_of(x->id);
    gd_cause_kind kind = r ? r->kind : strcmp(src, "job") == 0 ? GD_CAUSE_JOB : GD_CAUSE_HARDWARE;
    gd_cause *c = cause_for(out, r ? r->key : x->id, kind, r ? r->title : x->title, x->fix);
    if (!c)
        return;
    bool seen = false;
    for (size_t i = 0; i < c->nids; i++)
        seen = seen || strcmp(c->ids[i], x->id) == 0;
    if (!seen && c->nids < GD_CAUSE_MAX_IDS)
        snprintf(c->ids[c->nids++], sizeof c->ids[0], "%s", x->id);
    if (x->severity > c->severity)
        c->severity = x->severity;
    if (!isnan(x->impact_pct) && (isnan(c->seen_pct) || x->impact_pct > c->seen_pct))
        c->seen_pct = x->impact_pct;
    if (!seen) /* the first GPU's (or rank's) evidence stands for the others: findings are sorted worst first */
        add_evidence(c, src, x, x->evidence ? json_deep_copy(x->evidence) : NULL);
}

/* The job's CPU as its /proc showed it: the busiest thread, the tree's cores. */
static json_t *job_cpu(const gd_facts *f)
{
    const gd_job_facts *j = f->job;
    if (!j || !j->read || j->n == 0)
        return NULL;
    const gd_job_thread *top = NULL;
    for (size_t i = 0; i < j->thread_count; i++) {
        const gd_job_thread *t = &j->threads[i];
        if (t->measured && (!top || t->busy_sum / t->measured > top->busy_sum / top->measured))
            top = t;
    }
    double cores = 0;
    size_t n = 0;
    for (size_t i = 0; i < j->n; i++) {
        const gd_job_sample *s = gd_job_at(j, i);
        if (!isnan(s->job_cores) && s->threads) {
            cores += s->job_cores;
            n++;
        }
    }
    json_t *ev = json_object();
    json_object_set_new(ev, "pid", json_integer(j->pid));
    json_object_set_new(ev, "job_cores_mean", n ? gd_json_number(round(100 * cores / (double)n) / 100) : json_null());
    json_object_set_new(ev, "processes_max", json_integer((json_int_t)j->procs_max));
    if (top) {
        json_object_set_new(ev, "top_thread_tid", json_integer(top->tid));
        json_object_set_new(ev, "top_thread_comm", json_string(top->comm));
        json_object_set_new(ev, "top_thread_core_share_mean",
                            gd_json_number(round(100 * top->busy_sum / top->measured) / 100));
        json_object_set_new(ev, "top_thread_is_main", json_boolean(top->tid == top->pid && top->pid == j->pid));
        /* Runnable (R) while below a full core: the host's other work held it back, not a wait. */
        json_object_set_new(ev, "top_thread_runnable_pct",
                            top->seen ? gd_json_number(round(1000.0 * top->running / top->seen) / 10) : json_null());
    }
    json_object_set_new(ev, "samples", json_integer((json_int_t)j->n));
    return ev;
}

/* The steps' idle share of the rank with the most GPU idle, NAN without GPU operations. */
static double trace_idle(const gd_profile *p)
{
    double worst = NAN;
    for (size_t r = 0; p && r < p->nranks; r++) {
        const gd_trace_result *t = &p->ranks[r];
        if (!t->has_gpu || t->step_total_us <= 0)
            continue;
        double idle = 0;
        for (size_t i = 0; i < t->nsteps; i++)
            idle += t->steps[i].idle_us;
        idle = 100 * idle / t->step_total_us;
        if (isnan(worst) || idle > worst)
            worst = idle;
    }
    return worst;
}

/* The job's GPUs' utilisation (input.c's reading); every GPU's when no GPU
 * lists a process (a machine whose NVML shows no processes). */
static gpu_wait job_gpus_busy(const gd_facts *f)
{
    gpu_wait w = gd_input_gpu_wait(f);
    if (w.gpus)
        return w;
    size_t n = 0;
    double sum = 0;
    for (size_t g = 0; g < f->gpu_count; g++)
        for (size_t i = 0; i < f->series.n; i++) {
            gd_value u = gd_series_at(&f->series, i, g, GD_M_UTIL_GPU_PCT);
            if (gd_ok(u)) {
                sum += u.v;
                n++;
            }
        }
    if (n) {
        w.gpus = f->gpu_count;
        w.busy_pct = sum / (double)n;
    }
    return w;
}

static int cmp_cause(const void *a, const void *b)
{
    const gd_cause *x = a, *y = b;
    if (isnan(x->win_pct) != isnan(y->win_pct))
        return isnan(x->win_pct) ? 1 : -1;
    if (!isnan(x->win_pct) && x->win_pct != y->win_pct)
        return x->win_pct > y->win_pct ? -1 : 1;
    return (int)y->severity - (int)x->severity;
}

static double r1(double v)
{
    return round(v * 10) / 10;
}

/* Wins before overlaps: a source's own share, the idle time for a loader
 * only the job's /proc saw, a GPU slowdown on the GPU's busy share only. */
static void estimate(gd_cause *c, const gd_causes *out)
{
    c->win_pct = c->seen_pct;
    double idle = out->idle_pct;
    if (isnan(c->win_pct) && strcmp(c->key, "dataloader") == 0 && !isnan(idle)) {
        c->win_pct = r1(idle);
        snprintf(c->overlap, sizeof c->overlap,
                 "estimated as the GPUs' idle time (%.0f%%): the job's CPU shows the loader holding them back", idle);
    } else if (c->kind == GD_CAUSE_HARDWARE && !isnan(c->win_pct) && !isnan(idle) && idle > 0) {
        double busy = 100 - idle;
        snprintf(c->overlap, sizeof c->overlap,
                 "it slows the GPU's work, which fills %.0f%% of the time: %.1f%% of its %.1f%% is the job's", busy,
                 r1(c->win_pct * busy / 100), c->win_pct);
        c->win_pct = r1(c->win_pct * busy / 100);
    }
}

/* The causes inside the GPU's idle time share it in rank order: none is
 * given time another already has. */
static void share_idle(gd_causes *out)
{
    double idle = out->idle_pct, left = isnan(idle) ? 100 : idle;
    const gd_cause *first = NULL;
    for (size_t i = 0; i < out->n; i++) {
        gd_cause *c = &out->v[i];
        if (!in_idle(c) || isnan(c->win_pct))
            continue;
        double had = c->win_pct;
        if (had > left)
            c->win_pct = r1(left);
        if (!first) {
            first = c;
            if (!c->overlap[0] && !isnan(idle))
                snprintf(c->overlap, sizeof c->overlap,
                         "the %s IS the GPU idle time: %.1f%% of the step seen, %.1f%% idle (%s), so %.1f%% to win "
                         "back",
                         strcmp(c->key, "dataloader") == 0 ? "DataLoader wait" : "host's wait", had, idle,
                         strcmp(out->idle_source, "trace") == 0 ? "the trace" : "the GPUs' utilisation", c->win_pct);
            else if (!c->overlap[0])
                snprintf(c->overlap, sizeof c->overlap,
                         "no GPU in the trace: this share of the step is host time a fix gives back; on a GPU it "
                         "is time the GPU waits");
        } else {
            if (isnan(idle))
                snprintf(c->overlap, sizeof c->overlap,
                         "host time apart from the %s's: the two add up (%.1f%% of its %.1f%% fits in what the "
                         "causes above leave of the step)",
                         first->key, c->win_pct, had);
            else
                snprintf(c->overlap, sizeof c->overlap,
                         "inside the same GPU idle time as the %s: counted once (%.1f%% of its %.1f%% is left after "
                         "the causes above)",
                         first->key, c->win_pct, had);
        }
        left = fmax(0, left - c->win_pct);
    }
}

void gd_join_causes(const gd_facts *f, const gd_findings *machine, const gd_profile *p, const gd_findings *trace,
                    gd_causes *out)
{
    *out = (gd_causes){.idle_pct = NAN};
    const gd_findings *all[2] = {machine, trace};
    for (size_t k = 0; k < 2; k++) {
        /* A finding another one explains (causes.c's symptoms: NCCL's log
         * saying GPUDirect is off, where the module is missing) is that
         * cause's, not a cause of its own. */
        bool *explained = all[k] && all[k]->n ? calloc(all[k]->n, sizeof *explained) : NULL;
        gd_grouped_causes g;
        if (explained && gd_group_causes(all[k], &g) == 0) {
            for (size_t c = 0; c < g.n; c++)
                for (size_t s = 0; s < g.v[c].nsymptoms; s++)
                    explained[g.v[c].symptoms[s]] = !symptom(all[k]->v[g.v[c].symptoms[s]].id);
            gd_grouped_causes_free(&g);
        }
        for (size_t i = 0; all[k] && i < all[k]->n; i++)
            if (!explained || !explained[i])
                join_finding(out, &all[k]->v[i]);
        free(explained);
    }
    out->idle_pct = trace_idle(p);
    out->idle_source = isnan(out->idle_pct) ? NULL : "trace";
    if (isnan(out->idle_pct) && f->gpu_count > 0 && f->series.n > 0) {
        gpu_wait w = job_gpus_busy(f);
        if (w.gpus) {
            out->idle_pct = r1(100 - w.busy_pct);
            out->idle_source = "gpus";
        }
    }
    for (size_t i = 0; i < out->n; i++)
        estimate(&out->v[i], out);
    qsort(out->v, out->n, sizeof *out->v, cmp_cause);
    share_idle(out);
    qsort(out->v, out->n, sizeof *out->v, cmp_cause);
    /* The job's CPU beside the host-side causes that no job finding backs. */
    json_t *cpu = job_cpu(f);
    gd_cause *idle_cause = NULL;
    for (size_t i = 0; i < out->n; i++) {
        gd_cause *c = &out->v[i];
        if (in_idle(c) && !idle_cause)
            idle_cause = c;
        if (cpu && in_idle(c) && !has_source(c, "job"))
            add_evidence(c, "job", NULL, json_deep_copy(cpu));
    }
    /* The symptoms go with the first cause of the idle time (it IS that
     * time), or stand as a cause of their own when nothing explains them. */
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; all[k] && i < all[k]->n; i++) {
            const gd_finding *x = &all[k]->v[i];
            if (!symptom(x->id) || x->ignored || x->severity == GD_SEV_INFO)
                continue;
            gd_cause *c = idle_cause;
            if (!c) {
                c = cause_for(out, "gpu_idle", GD_CAUSE_TRACE, "the GPU idles and no source says why", x->fix);
                if (!c)
                    continue;
                c->win_pct = c->seen_pct = isnan(out->idle_pct) ? x->impact_pct : out->idle_pct;
            }
            bool had_id = false;
            for (size_t m = 0; m < c->nids; m++)
                had_id = had_id || strcmp(c->ids[m], x->id) == 0;
            if (had_id)
                continue; /* one GPU's (or rank's) evidence stands for the others */
            if (c->nids < GD_CAUSE_MAX_IDS)
                snprintf(c->ids[c->nids++], sizeof c->ids[0], "%s", x->id);
            add_evidence(c, source_of(x->id), x, x->evidence ? json_deep_copy(x->evidence) : NULL);
        }
    json_decref(cpu);
    /* The GPUs' side of that idle time, as their utilisation showed it. */
    if (idle_cause && out->idle_source && strcmp(out->idle_source, "gpus") == 0 && !has_source(idle_cause, "gpus")) {
        gpu_wait w = job_gpus_busy(f);
        json_t *ev = json_object();
        json_object_set_new(ev, "source", json_string("nvml:nvmlDeviceGetUtilizationRates"));
        json_object_set_new(ev, "gpus", json_integer((json_int_t)w.gpus));
        json_object_set_new(ev, "busy_mean_pct", gd_json_number(r1(w.busy_pct)));
        json_object_set_new(ev, "low_pct", gd_json_number(round(1000 * w.low_share) / 10));
        add_evidence(idle_cause, "gpus", NULL, ev);
    }
    qsort(out->v, out->n, sizeof *out->v, cmp_cause);
}

void gd_causes_free(gd_causes *c)
{
    for (size_t i = 0; i < c->n; i++)
        json_decref(c->v[i].evidence);
    c->n = 0;
}
