/* SPDX-License-Identifier: Apache-2.0 */
/* `run --profile`: the joined report's section (text, JSON, HTML). */
#include "report/profile_report.h"
#include "core/json_util.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/html_plots.h"
#include "report/svg_plot.h"
#include "report/text_util.h"
#include "report/trace_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const gd_profile_proc *main_proc(const gd_profile *p)
{
    const gd_profile_proc *best = NULL;
    for (size_t i = 0; i < p->nprocs; i++) {
        const gd_profile_proc *q = &p->procs[i];
        if (q->torch[0] && (!best || (q->trace[0] && !best->trace[0]) || q->steps > best->steps))
            best = q;
    }
    return best;
}

static const char *mode_text(const gd_profile_proc *m)
{
    const char *mode = m->mode;
    if (strcmp(mode, "optimizer") == 0 && strcmp(m->optimizer_hook, "_optimizer_step_code") == 0)
        return "a step = an optimizer step (the step entry of torch 1.13's profiler)";
    if (strcmp(mode, "optimizer") == 0)
        return "a step = an optimizer step (torch's global optimizer hook)";
    if (strcmp(mode, "batch") == 0)
        return "a step = a DataLoader batch (this torch has no global optimizer hook, or it was turned off)";
    return "no step counted";
}

/* One line of evidence for humans: a finding's title, or the job's CPU. */
static void evidence_line(const json_t *e, char *buf, size_t len)
{
    const char *title = json_string_value(json_object_get(e, "title"));
    if (title) {
        snprintf(buf, len, "%s", title);
        return;
    }
    const json_t *ev = json_object_get(e, "evidence");
    if (json_is_number(json_object_get(ev, "busy_mean_pct"))) {
        snprintf(buf, len, "the job's %lld GPU%s busy %.0f%% on average",
                 json_integer_value(json_object_get(ev, "gpus")),
                 json_integer_value(json_object_get(ev, "gpus")) == 1 ? "" : "s",
                 json_number_value(json_object_get(ev, "busy_mean_pct")));
        return;
    }
    const char *comm = json_string_value(json_object_get(ev, "top_thread_comm"));
    double core = json_number_value(json_object_get(ev, "top_thread_core_share_mean"));
    double cores = json_number_value(json_object_get(ev, "job_cores_mean"));
    long procs = (long)json_integer_value(json_object_get(ev, "processes_max"));
    const json_t *runnable = json_object_get(ev, "top_thread_runnable_pct");
    char wants[96] = "";
    if (json_is_number(runnable))
        snprintf(wants, sizeof wants, " and was runnable in %.0f%% of the samples", json_number_value(runnable));
    if (comm)
        snprintf(buf, len,
                 "its busiest thread (%s, tid %lld%s) ran at %.0f%% of a core%s; the job used %.2f cores in %ld "
                 "process%s%s",
                 comm, json_integer_value(json_object_get(ev, "top_thread_tid")),
                 json_is_true(json_object_get(ev, "top_thread_is_main")) ? ", the main thread" : "", core * 100, wants,
                 cores, procs, procs == 1 ? "" : "es", procs <= 1 ? " (no DataLoader workers)" : "");
    else
        snprintf(buf, len, "the job used %.2f cores", cores);
}

static void proc_text(FILE *out, const gd_profile *p)
{
    const gd_profile_proc *m = main_proc(p);
    size_t traced = 0;
    for (size_t i = 0; i < p->nprocs; i++)
        traced += p->procs[i].trace[0] != 0;
    fprintf(out, "Profiled (run --profile): steps %ld to %ld", p->first, p->last);
    if (m)
        fprintf(out, ", torch %s, %s", gd_safe(m->torch), mode_text(m));
    fprintf(out, "; %zu trace%s from %zu Python process%s\n", traced, traced == 1 ? "" : "s", p->nprocs,
            p->nprocs == 1 ? "" : "es");
    for (size_t r = 0; r < p->nranks; r++) {
        const gd_trace_result *t = &p->ranks[r];
        const gd_profile_proc *q = gd_profile_proc_of(p, r);
        fprintf(out, "  rank %d (PID %ld): %zu steps analyzed%s, median %.1f ms", t->rank, q ? q->pid : -1L, t->nsteps,
                t->last_step_dropped ? " (the last one left out, as HTA does)" : "", t->step_median_us / 1000);
        if (!isnan(t->dataloader_pct))
            fprintf(out, ", DataLoader %.1f%% of the steps", t->dataloader_pct);
        if (t->has_gpu)
            fprintf(out, ", GPU idle %.1f%% (compute %.1f%%)", t->idle_pct, t->compute_pct);
        else
            fprintf(out, ", no GPU operation in the trace");
        if (t->item_calls)
            fprintf(out, ", %.1f .item() per step (%.1f%%)", (double)t->item_calls / (double)t->nsteps, t->item_pct);
        fputc('\n', out);
    }
    if (!isnan(p->overhead_pct) && m)
        fprintf(out,
                "  profiling cost: profiled steps %.1f ms against %.1f ms without the profiler (%+.0f%%), "
                "writing the trace %.2f s once\n",
                m->step_s_profiled * 1000, m->step_s_unprofiled * 1000, p->overhead_pct,
                isnan(m->export_s) ? 0.0 : m->export_s);
    else if (p->nranks)
        fputs("  profiling cost: not measured (the job ended before steps without the profiler were timed)\n", out);
    if (p->kept)
        fprintf(out, "  traces kept in %s ('gpudoctor trace %s' shows them in full)\n", gd_safe(p->dir),
                gd_safe(p->dir));
}

void gd_profile_steps_text(FILE *out, const gd_profile_view *v, const gd_text_style *st)
{
    const gd_profile *p = v->p;
    if (!p || p->not_profiled[0])
        return; /* said under the verdict, with the causes */
    fputc('\n', out);
    gd_wrapped w; /* long lines wrapped at the terminal's width */
    proc_text(gd_wrapped_open(&w, out), p);
    gd_wrapped_close(&w, st);
}

bool gd_profile_cause_said(const gd_finding *x, const void *ud)
{
    const gd_causes *c = ((const gd_profile_view *)ud)->causes;
    for (size_t i = 0; c && i < c->n; i++)
        for (size_t k = 0; k < c->v[i].nids; k++)
            if (strcmp(c->v[i].ids[k], x->id) == 0)
                return true;
    return false;
}

void gd_profile_causes_text(FILE *out, const gd_profile_view *v, const gd_text_style *st)
{
    const gd_profile *p = v->p;
    const gd_causes *c = v->causes;
    if (!p && c->n == 0)
        return; /* a run without --profile and nothing holding it back: the verdict says it */
    fputc('\n', out);
    if (p && p->not_profiled[0]) {
        char line[1024];
        snprintf(line, sizeof line,
                 "Not profiled: %s. The job ran unprofiled; the causes below are the GPUs' and "
                 "the job's.",
                 gd_safe(p->not_profiled));
        gd_wrap(out, st, 4, 0, line);
    }
    if (c->n == 0) {
        fprintf(out, "%sNo cause%s: nothing in %s holds the job back.\n", gd_c(st, GD_ANSI_GREEN),
                gd_c(st, GD_ANSI_RESET),
                p->not_profiled[0] ? "the GPUs or the job" : "the GPUs, the job or the profiled steps");
        return;
    }
    fprintf(out, "%sCauses, ranked by the time each could win back%s (of the %s, each once)\n", gd_c(st, GD_ANSI_BOLD),
            gd_c(st, GD_ANSI_RESET), p && p->nranks ? "step" : "job's time");
    for (size_t i = 0; i < c->n; i++) {
        const gd_cause *x = &c->v[i];
        char win[32];
        if (isnan(x->win_pct))
            snprintf(win, sizeof win, "   ?  ");
        else
            snprintf(win, sizeof win, "%5.1f%%", x->win_pct);
        fprintf(out, "%2zu. %s%s%s  %-8s ", i + 1,
                gd_c(st, x->severity == GD_SEV_CRITICAL ? GD_ANSI_RED : GD_ANSI_YELLOW), win, gd_c(st, GD_ANSI_RESET),
                gd_cause_kind_name(x->kind));
        char head[640];
        size_t used = (size_t)snprintf(head, sizeof head, "%s [", gd_safe(x->title));
        for (size_t k = 0; k < x->nids && used < sizeof head; k++)
            used += (size_t)snprintf(head + used, sizeof head - used, "%s%s", k ? ", " : "", x->ids[k]);
        if (used < sizeof head)
            snprintf(head + used, sizeof head - used, "]");
        gd_wrap(out, st, 6, 21, head); /* after " 1.  79.2%  job      ": column 21 */
        json_t *e;
        size_t k;
        json_array_foreach(x->evidence, k, e)
        {
            char line[640];
            evidence_line(e, line, sizeof line);
            fprintf(out, "      %-6s ", json_string_value(json_object_get(e, "source")));
            gd_wrap(out, st, 13, 13, line);
        }
        if (x->overlap[0]) {
            fputs("      overlap ", out);
            gd_wrap(out, st, 14, 14, x->overlap);
        }
        if (isnan(x->win_pct)) {
            fputs("      win     ", out);
            gd_wrap(out, st, 14, 14, "not estimated: no source measured the time it costs");
        }
        fputs("      fix    ", out);
        gd_wrap(out, st, 13, 13, x->fix);
    }
}

static json_t *proc_json(const gd_profile_proc *q)
{
    json_t *o = json_object();
    json_object_set_new(o, "pid", json_integer(q->pid));
    json_object_set_new(o, "rank", q->rank >= 0 ? json_integer(q->rank) : json_null());
    json_object_set_new(o, "torch", q->torch[0] ? json_string(q->torch) : json_null());
    json_object_set_new(o, "tensorflow", json_boolean(q->tensorflow));
    json_object_set_new(o, "step", q->mode[0] ? json_string(q->mode) : json_null());
    json_object_set_new(o, "steps", json_integer(q->steps));
    json_object_set_new(o, "trace", q->trace[0] ? json_string(q->trace) : json_null());
    json_object_set_new(o, "error", q->error[0] ? json_string(q->error) : json_null());
    json_object_set_new(o, "stepped_aside", q->stepped_aside[0] ? json_string(q->stepped_aside) : json_null());
    json_object_set_new(o, "step_ms_profiled", gd_json_number(round(q->step_s_profiled * 1e5) / 100));
    json_object_set_new(o, "step_ms_unprofiled", gd_json_number(round(q->step_s_unprofiled * 1e5) / 100));
    json_object_set_new(o, "export_s", gd_json_number(round(q->export_s * 1000) / 1000));
    return o;
}

static json_t *causes_json(const gd_causes *c)
{
    json_t *a = json_array();
    for (size_t i = 0; i < c->n; i++) {
        const gd_cause *x = &c->v[i];
        json_t *o = json_object();
        json_object_set_new(o, "place", json_integer((json_int_t)i + 1));
        json_object_set_new(o, "cause", json_string(x->key));
        json_object_set_new(o, "kind", json_string(gd_cause_kind_name(x->kind)));
        json_object_set_new(o, "severity", json_string(gd_severity_name(x->severity)));
        json_object_set_new(o, "title", json_string(x->title));
        json_object_set_new(o, "win_pct", gd_json_number(x->win_pct));
        json_object_set_new(o, "seen_pct", gd_json_number(x->seen_pct));
        json_t *ids = json_array(), *sources = json_array(), *e;
        for (size_t k = 0; k < x->nids; k++)
            json_array_append_new(ids, json_string(x->ids[k]));
        size_t k;
        json_array_foreach(x->evidence, k, e)
        {
            const char *s = json_string_value(json_object_get(e, "source"));
            bool dup = false;
            json_t *d;
            size_t m;
            json_array_foreach(sources, m, d) dup = dup || strcmp(json_string_value(d), s) == 0;
            if (!dup)
                json_array_append_new(sources, json_string(s));
        }
        json_object_set_new(o, "findings", ids);
        json_object_set_new(o, "sources", sources);
        json_object_set(o, "evidence", x->evidence);
        json_object_set_new(o, "overlap", x->overlap[0] ? json_string(x->overlap) : json_null());
        json_object_set_new(o, "fix", json_string(x->fix));
        json_array_append_new(a, o);
    }
    return a;
}

json_t *gd_profile_report_json(const gd_profile_view *v)
{
    const gd_profile *p = v->p;
    json_t *o = json_object();
    json_object_set_new(o, "steps", json_pack("[ii]", (json_int_t)p->first, (json_int_t)p->last));
    json_object_set_new(o, "dir", p->kept ? json_string(p->dir) : json_null());
    json_object_set_new(o, "profiled", json_boolean(!p->not_profiled[0]));
    json_object_set_new(o, "not_profiled", p->not_profiled[0] ? json_string(p->not_profiled) : json_null());
    json_object_set_new(o, "unread", p->unread[0] ? json_string(p->unread) : json_null());
    json_t *procs = json_array();
    for (size_t i = 0; i < p->nprocs; i++)
        json_array_append_new(procs, proc_json(&p->procs[i]));
    json_object_set_new(o, "processes", procs);
    json_object_set_new(o, "overhead_pct", gd_json_number(round(p->overhead_pct * 10) / 10));
    if (p->nranks) { /* the trace's numbers and findings, as `trace --json` gives them */
        gd_trace_run run = {.files = p->nranks,
                            .files_found = p->nranks,
                            .path = p->dir,
                            .ranks = p->ranks,
                            .nranks = p->nranks,
                            .findings = v->trace};
        json_object_set_new(o, "trace", gd_trace_report_json(&run));
    } else {
        json_object_set_new(o, "trace", json_null());
    }
    json_object_set_new(o, "idle_pct", gd_json_number(v->causes->idle_pct));
    json_object_set_new(o, "idle_source", v->causes->idle_source ? json_string(v->causes->idle_source) : json_null());
    json_object_set_new(o, "causes", causes_json(v->causes));
    return o;
}

/* The section of the HTML page: what was profiled and the causes ranked. */
static void html_section(FILE *out, const void *ud)
{
    const gd_profile_view *v = ud;
    const gd_profile *p = v->p;
    if (!p && v->causes->n == 0)
        return; /* a run without --profile and nothing holding it back: the verdict says it */
    fprintf(out, "<h2 id=\"profile\">Why the GPU waits: the causes ranked%s</h2>\n", p ? " (run --profile)" : "");
    if (p && p->not_profiled[0]) {
        fputs("<p class=\"meta\">Not profiled: ", out);
        gd_html_text(out, p->not_profiled);
        fputs(". The job ran unprofiled.</p>\n", out);
    } else if (p) {
        const gd_profile_proc *m = main_proc(p);
        fprintf(out, "<p class=\"meta\">Steps %ld to %ld profiled with torch.profiler", p->first, p->last);
        if (m) {
            fputs(" (torch ", out);
            gd_html_text(out, m->torch);
            fputs("; ", out);
            gd_html_text(out, mode_text(m));
            fputs(")", out);
        }
        if (!isnan(p->overhead_pct))
            fprintf(out, "; the profiler cost %+.0f%% per profiled step", p->overhead_pct);
        fputs(". The shaded spans of the job's timeline below are the profiled steps.</p>\n", out);
    }
    const gd_causes *c = v->causes;
    if (c->n == 0) { /* run --profile's own (a plain run without a cause has no section) */
        fprintf(out, "<p>No cause: nothing in %s holds the job back.</p>\n",
                p->not_profiled[0] ? "the GPUs or the job" : "the GPUs, the job or the profiled steps");
        return;
    }
    fputs("<ol class=\"causes\">\n", out);
    for (size_t i = 0; i < c->n; i++) {
        const gd_cause *x = &c->v[i];
        fprintf(out, "<li data-cause=\"%s\"><p><b>", x->key);
        if (isnan(x->win_pct))
            fputs("win not estimated", out);
        else
            fprintf(out, "%.1f %% of the %s to win back", x->win_pct, p && p->nranks ? "step" : "job's time");
        fprintf(out, "</b> (%s): ", gd_cause_kind_name(x->kind));
        gd_html_text(out, x->title);
        fputs("</p>\n<ul>\n", out);
        json_t *e;
        size_t k;
        json_array_foreach(x->evidence, k, e)
        {
            char line[640];
            evidence_line(e, line, sizeof line);
            fputs("<li><b>", out);
            gd_html_text(out, json_string_value(json_object_get(e, "source")));
            fputs("</b>: ", out);
            gd_html_text(out, line);
            fputs("</li>\n", out);
        }
        if (x->overlap[0]) {
            fputs("<li><b>overlap</b>: ", out);
            gd_html_text(out, x->overlap);
            fputs("</li>\n", out);
        }
        fputs("<li><b>fix</b>: ", out);
        gd_html_text(out, x->fix);
        fputs("</li>\n</ul></li>\n", out);
    }
    fputs("</ol>\n", out);
}

void gd_profile_report_html(FILE *out, const gd_profile_view *v)
{
    const gd_profile *p = v->p;
    gd_svg_span spans[GD_PROFILE_MAX_STEPS];
    char labels[GD_PROFILE_MAX_STEPS][32];
    size_t n = 0;
    const gd_profile_proc *m = p ? main_proc(p) : NULL;
    for (size_t i = 0; m && i < m->nsteps && n < GD_PROFILE_MAX_STEPS; i++) {
        const gd_profile_step *s = &m->steps_wall[i];
        snprintf(labels[n], sizeof labels[n], "profiled step %ld", s->number);
        double t0 = s->start_unix - p->t0_unix;
        spans[n] = (gd_svg_span){t0, t0 + s->dur_s, labels[n], 1};
        n++;
    }
    gd_html_extra x = {.section = html_section, .ud = v, .spans = spans, .nspans = n};
    gd_report_html_with(out, v->f, v->machine, &x);
}
