/* SPDX-License-Identifier: Apache-2.0 */
/* `gpudoctor trace`: verdict first, then per rank the step bars, the numbers, the findings. */
#include "report/trace_report.h"
#include "checks/trace_checks.h"
#include "core/json_util.h"
#include "report/text_finding.h"
#include "report/text_util.h"
#include "report/verdict_text.h"

#include <math.h>
#include <string.h>

static double ms(double us)
{
    return us / 1000.0;
}

#define BAR 40 /* the most columns of a step's bar */
#define BAR_MIN 8

/* The step bar's columns at this width: the line ("    #N  ms  bar  [D...]  NN%" and
 * `tail` more columns) fits in it, the bar between BAR_MIN and BAR columns. */
static int bar_width(const gd_text_style *st, int tail)
{
    int w = st->width - 41 - tail;
    return w > BAR ? BAR : w < BAR_MIN ? BAR_MIN : w;
}

/* What follows a step's bars: its syncs and reads. */
static int step_tail(const gd_trace_step *s, char *buf, size_t len)
{
    int n = 0;
    buf[0] = 0;
    if (s->syncs)
        n += snprintf(buf, len, "  %zu sync%s", s->syncs, s->syncs == 1 ? "" : "s");
    if (s->reads && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "  %zu read%s (%.*f ms)", s->reads, s->reads == 1 ? "" : "s",
                      s->read_blocked_us >= 10000 ? 0 : 1, ms(s->read_blocked_us));
    return n;
}

static const char *class_name(gd_kclass c)
{
    static const char *const n[] = {"compute", "memory", "communication", "other"};
    return c < GD_K_NCLASS ? n[c] : "other";
}

static void verdict(FILE *out, const gd_trace_run *run, const gd_text_style *st)
{
    const gd_findings *fs = run->findings;
    size_t crit = gd_findings_count(fs, GD_SEV_CRITICAL), warn = gd_findings_count(fs, GD_SEV_WARNING);
    if (fs->n == 0 || (crit == 0 && warn == 0)) {
        /* Busy of the step time where every rank has steps (the time a user waits for), else
         * of the time from the first GPU operation to the last (HTA's temporal breakdown). */
        double idle = 0;
        size_t k = 0;
        bool steps = true;
        for (size_t i = 0; i < run->nranks; i++)
            steps = steps && (!run->ranks[i].has_gpu || !isnan(run->ranks[i].step_idle_pct));
        for (size_t i = 0; i < run->nranks; i++)
            if (run->ranks[i].has_gpu)
                idle += steps ? run->ranks[i].step_idle_pct : run->ranks[i].idle_pct, k++;
        char rest[256];
        if (k)
            snprintf(rest, sizeof rest, "no bottleneck found: the GPU is busy %.1f%% of the %s", 100 - idle / (double)k,
                     steps ? "step time" : "time from its first operation to its last");
        else
            snprintf(rest, sizeof rest, "no bottleneck found (no GPU operations in the trace: a CPU-only run)");
        gd_text_verdict_line(out, st, "OK", rest);
        return;
    }
    /* The word of the findings, then the first of them: what to look at. */
    const gd_finding *top = &fs->v[0];
    char rest[sizeof top->title + 160];
    int n = snprintf(rest, sizeof rest, "%s", top->title);
    if (!isnan(top->impact_pct) && n > 0 && (size_t)n < sizeof rest)
        snprintf(rest + n, sizeof rest - (size_t)n, " (about %.0f%% of the step to gain%s)", top->impact_pct,
                 json_object_get(top->evidence, GD_TRACE_TOO_SHORT) ? ", in the steps it holds" : "");
    gd_text_verdict_line(out, st, gd_verdict_word(fs, true), rest);
    (void)crit;
}

/* A trace finding's place: its rank ("rank 0"), else the trace. */
static void trace_where(const gd_finding *x, char *buf, size_t len)
{
    const json_t *r = json_object_get(x->evidence, "rank");
    if (json_is_integer(r))
        snprintf(buf, len, "rank %lld", (long long)json_integer_value(r));
    else
        snprintf(buf, len, "trace");
}

/* A trace's gain is of the step, and says when it shares its time with another's. */
static void trace_impact(const gd_finding *x, char *buf, size_t len)
{
    const json_t *shared = json_object_get(x->evidence, GD_TRACE_GAIN_SHARED);
    int n = snprintf(buf, len, "about %.1f%% of the step", x->impact_pct);
    if (json_is_string(shared) && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ", out of the same time as %s (these gains overlap: do not add them)",
                 json_string_value(shared));
}

/* One step: its GPU bar (none when the trace has no GPU operation: nothing to draw, not
 * all idle), its DataLoader bar and share. */
static void step_bar(FILE *out, const gd_trace_step *s, bool gpu, int W, const gd_text_style *st)
{
    char bar[BAR + 1];
    double d = s->dur_us > 0 ? s->dur_us : 1;
    int c = (int)lround(W * s->compute_us / d), n = (int)lround(W * s->non_compute_us / d);
    if (c > W)
        c = W;
    if (c + n > W)
        n = W - c;
    for (int i = 0; i < W; i++)
        bar[i] = i < c ? '#' : i < c + n ? '=' : '.';
    bar[W] = 0;
    int dl = (int)lround(10 * s->dataloader_us / d);
    char dlbar[11];
    for (int i = 0; i < 10; i++)
        dlbar[i] = i < dl ? 'D' : ' ';
    dlbar[10] = 0;
    fprintf(out, "    #%-6ld %8.1f  ", s->number, ms(s->dur_us));
    if (gpu)
        fprintf(out, "%s%.*s%s%.*s%s%s%s  ", gd_c(st, GD_ANSI_GREEN), c, bar, gd_c(st, GD_ANSI_CYAN), n, bar + c,
                gd_c(st, GD_ANSI_DIM), bar + c + n, gd_c(st, GD_ANSI_RESET));
    char tail[96];
    step_tail(s, tail, sizeof tail);
    fprintf(out, "[%s] %3.0f%%%s\n", dlbar, 100 * s->dataloader_us / d, tail);
}

static void rank_text(FILE *out, const gd_trace_result *r, bool name_file, const gd_text_style *st)
{
    fprintf(out, "\n%srank %d%s", gd_c(st, GD_ANSI_BOLD), r->rank, gd_c(st, GD_ANSI_RESET));
    if (name_file && r->file) {
        const char *slash = strrchr(r->file, '/');
        fprintf(out, " (%s)", gd_safe(slash ? slash + 1 : r->file));
    }
    if (r->legacy)
        fprintf(out, " (legacy profiler format: no GPU events)");
    else if (r->tf_gpu >= 0)
        fprintf(out, " (TensorFlow %s, /device:GPU:%d)",
                r->format && strcmp(r->format, "tf_timeline") == 0 ? "Timeline" : "profile", r->tf_gpu);
    fputc('\n', out);
    if (r->note[0])
        fprintf(out, "  %snote:%s %s\n", gd_c(st, GD_ANSI_YELLOW), gd_c(st, GD_ANSI_RESET), gd_safe(r->note));
    if (r->skipped)
        fprintf(out, "  %llu events were not objects and were skipped\n", (unsigned long long)r->skipped);
    if (r->dropped)
        fprintf(out,
                "  %snote:%s the memory cap (%zu MiB for this rank, trace --max-memory) was reached: the last %llu "
                "of %llu events were left out, so this analysis covers the trace up to there\n",
                gd_c(st, GD_ANSI_YELLOW), gd_c(st, GD_ANSI_RESET), r->memory_cap_mib, (unsigned long long)r->dropped,
                (unsigned long long)r->events);
    if (r->nsteps)
        fprintf(out, "  steps: %zu analyzed of %zu%s; step time median %.1f ms, p90 %.1f ms, slowest #%ld %.1f ms\n",
                r->nsteps, r->steps_in_trace, r->last_step_dropped ? " (the last left out, as HTA does)" : "",
                ms(r->step_median_us), ms(r->step_p90_us), r->step_slowest, ms(r->step_max_us));
    else
        fprintf(out, "  steps: no ProfilerStep# in the trace; numbers cover the whole trace\n");
    if (r->has_gpu) {
        if (!isnan(r->step_idle_pct))
            fprintf(out, "  GPU busy %.1f%% of the step time (%.1f of %.1f ms), idle %.1f%%\n",
                    100 - r->step_idle_pct, ms(r->step_total_us - r->step_idle_us), ms(r->step_total_us),
                    r->step_idle_pct);
        fprintf(out,
                "  GPU time from its first operation to its last (HTA temporal breakdown, %.1f ms): compute %.1f%%, "
                "non-compute %.1f%%, idle %.1f%%\n",
                ms(r->span_us), r->compute_pct, r->non_compute_pct, r->idle_pct);
        for (size_t i = 0; i < r->nstreams; i++) {
            const gd_trace_stream *s = &r->streams[i];
            double t = s->idle_us != 0 ? s->idle_us : 1;
            fprintf(out, "    stream %lld: idle %.1f ms (host wait %.1f%%, kernel wait %.1f%%, other %.1f%%)\n",
                    (long long)s->stream, ms(s->idle_us), 100 * s->host_wait_us / t, 100 * s->kernel_wait_us / t,
                    100 * s->other_us / t);
        }
    } else {
        fprintf(out, "  GPU time: no GPU operations in the trace\n");
    }
    if (!isnan(r->dataloader_pct))
        fprintf(out, "  DataLoader: %.1f%% of the step time (%zu calls%s)\n", r->dataloader_pct, r->dataloader_events,
                r->dataloader_events ? (r->dataloader_multiprocess ? ", worker processes" : ", num_workers=0") : "");
    if (r->nsteps) {
        if (r->has_gpu)
            fprintf(out, "  per step (ms; %s#%s compute, %s=%s non-compute, . idle; [D] DataLoader):\n",
                    gd_c(st, GD_ANSI_GREEN), gd_c(st, GD_ANSI_RESET), gd_c(st, GD_ANSI_CYAN), gd_c(st, GD_ANSI_RESET));
        else
            fprintf(out, "  per step (ms; no GPU activity in the trace, so no GPU bar; [D] DataLoader):\n");
        size_t shown = r->nsteps <= 24 ? r->nsteps : 24;
        int tail = 0; /* one bar length for all the steps: the longest tail fits */
        for (size_t i = 0; i < shown; i++) {
            char buf[96];
            int n = step_tail(&r->steps[i], buf, sizeof buf);
            tail = n > tail ? n : tail;
        }
        for (size_t i = 0; i < shown; i++)
            step_bar(out, &r->steps[i], r->has_gpu, bar_width(st, tail), st);
        if (shown < r->nsteps)
            fprintf(out, "    ... %zu more steps (--json has them all)\n", r->nsteps - shown);
    }
    for (int c = 0; c < GD_K_NCLASS; c++) {
        if (!r->ntop[c] || c == GD_K_OTHER)
            continue;
        fprintf(out, "  top %s kernels (%.1f ms in %zu):\n", class_name((gd_kclass)c), ms(r->class_us[c]),
                r->class_count[c]);
        size_t shown = c == GD_K_COMPUTE ? 5 : 3;
        for (size_t i = 0; i < r->ntop[c] && i < shown; i++) {
            const gd_trace_kernel *k = &r->top[c][i];
            /* The name cut to the line (C++ template names run to hundreds of columns). */
            int room = st->width - 35 > 20 ? st->width - 35 : 20;
            const char *nm = gd_safe(k->name);
            bool cut = (int)strlen(nm) > room;
            fprintf(out, "    %5.1f%% %9.1f ms %7zux  %.*s%s\n", k->share_pct, ms(k->total_us), k->count,
                    cut ? room - 3 : room, nm, cut ? "..." : "");
        }
    }
    if (r->launches)
        fprintf(out,
                "  launches: %zu; %zu kernels shorter than their launch; median launch %.1f us on the CPU, "
                "delay %.1f us\n",
                r->launches, r->short_kernels, r->launch_cpu_median_us, r->launch_delay_median_us);
    for (int k = 0; k < GD_COPY_NKINDS; k++) {
        const gd_trace_copies *c = &r->copies[k];
        if (c->count)
            fprintf(out, "  copies %-12s %6zu, %9.1f MB in %8.1f ms%s%.1f GB/s\n", gd_copy_kind_name((gd_copy_kind)k),
                    c->count, c->bytes / 1e6, ms(c->time_us), isnan(c->gbps) ? "" : ", ",
                    isnan(c->gbps) ? 0.0 : c->gbps);
    }
    if (r->syncs)
        fprintf(out,
                "  synchronizations: %zu (%.1f per step), host blocked %.1f ms (%.1f%% of the steps), most in %s\n",
                r->syncs, r->sync_per_step, ms(r->sync_us), r->sync_pct, gd_safe(r->sync_top));
    if (r->reads)
        fprintf(out, "  host reads of GPU values: %zu (%zu in .item()), host blocked %.1f ms (%.1f%% of the steps)\n",
                r->reads, r->reads_item, ms(r->read_blocked_us), r->read_blocked_pct);
    else if (r->item_calls)
        fprintf(out, "  .item() calls: %zu (%.1f per step), %.1f ms on the host (%.1f%% of the steps)\n", r->item_calls,
                (double)r->item_calls / (double)r->nsteps, ms(r->item_us), r->item_pct);
    if (r->step_copies)
        fprintf(out, "  host-to-device copies in the steps: %zu, %.1f ms with no compute beside them (%.1f%%)\n",
                r->step_copies, ms(r->step_copy_exposed_us), r->step_copy_exposed_pct);
    if (!isnan(r->comm_overlap_pct))
        fprintf(out, "  communication overlapped by compute: %.1f%%\n", r->comm_overlap_pct);
}

static void report_text(FILE *out, const gd_trace_run *run, const gd_text_style *st);

/* Every line wrapped to the width, as check's report is (gd_wrap_block). */
void gd_trace_report_text(FILE *out, const gd_trace_run *run, const gd_text_style *st)
{
    gd_wrapped w;
    report_text(gd_wrapped_open(&w, out), run, st);
    gd_wrapped_close(&w, st);
}

static void report_text(FILE *out, const gd_trace_run *run, const gd_text_style *st)
{
    unsigned long long events = 0;
    for (size_t i = 0; i < run->nranks; i++)
        events += run->ranks[i].events;
    fprintf(out, "%sgpudoctor %s  trace%s: %zu file%s, %zu rank%s, %llu events\n  from %s\n", gd_c(st, GD_ANSI_BOLD),
            GD_VERSION, gd_c(st, GD_ANSI_RESET), run->files, run->files == 1 ? "" : "s", run->nranks,
            run->nranks == 1 ? "" : "s", events, gd_safe(run->path));
    if (run->files_found > run->files)
        fprintf(out,
                "%snote:%s %zu trace files found: the first %zu by name were analysed, %zu left out (pass a smaller "
                "directory, or --rank)\n",
                gd_c(st, GD_ANSI_YELLOW), gd_c(st, GD_ANSI_RESET), run->files_found, run->files,
                run->files_found - run->files);
    verdict(out, run, st);
    for (size_t i = 0; i < run->nranks; i++)
        rank_text(out, &run->ranks[i], run->files > 1, st);
    const gd_findings *fs = run->findings;
    fprintf(out, "\n%sFindings%s\n", gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET));
    if (!fs->n)
        fprintf(out, "  none\n");
    static const char *const hide[] = {GD_TRACE_GAIN_SHARED, NULL};
    gd_text_findings(
        out, st, fs,
        &(gd_text_finding_how){.series = false, .where = trace_where, .impact = trace_impact, .hide = hide});
}

static json_t *num(double v)
{
    return gd_json_number(isnan(v) ? v : round(v * 100) / 100);
}

static json_t *rank_json(const gd_trace_result *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "rank", json_integer(r->rank));
    json_object_set_new(o, "file", r->file ? json_string(r->file) : json_null());
    json_object_set_new(o, "steps", json_integer((json_int_t)r->nsteps));
    json_object_set_new(o, "steps_in_trace", json_integer((json_int_t)r->steps_in_trace));
    json_object_set_new(o, "last_step_dropped", json_boolean(r->last_step_dropped));
    json_object_set_new(o, "events", json_integer((json_int_t)r->events));
    json_object_set_new(o, "events_skipped", json_integer((json_int_t)r->skipped));
    json_object_set_new(o, "truncated", json_boolean(r->truncated));
    json_object_set_new(o, "dropped_events", json_integer((json_int_t)r->dropped));
    json_object_set_new(o, "memory_cap_mib", json_integer((json_int_t)r->memory_cap_mib));
    if (r->note[0])
        json_object_set_new(o, "note", json_string(r->note));
    json_object_set_new(o, "legacy_format", json_boolean(r->legacy));
    json_object_set_new(o, "format", json_string(r->format ? r->format : "kineto"));
    if (r->tf_gpu >= 0) {
        json_object_set_new(o, "tf_gpu", json_integer(r->tf_gpu));
        json_object_set_new(o, "tf_other_gpu_events", json_integer((json_int_t)r->tf_other_gpu_events));
    }
    json_object_set_new(o, "gpu_events", json_integer((json_int_t)r->gpu_events));
    if (r->has_gpu) {
        json_t *t = json_object();
        json_object_set_new(t, "span_us", num(r->span_us));
        json_object_set_new(t, "idle_us", num(r->idle_us));
        json_object_set_new(t, "compute_us", num(r->compute_us));
        json_object_set_new(t, "non_compute_us", num(r->non_compute_us));
        json_object_set_new(t, "idle_pct", num(r->idle_pct));
        json_object_set_new(t, "compute_pct", num(r->compute_pct));
        json_object_set_new(t, "non_compute_pct", num(r->non_compute_pct));
        json_object_set_new(o, "temporal", t);
    } else {
        json_object_set_new(o, "temporal", json_null());
    }
    json_object_set_new(o, "step_idle_us", num(r->step_idle_us));
    json_object_set_new(o, "step_idle_pct", num(r->step_idle_pct));
    json_t *ss = json_array();
    for (size_t i = 0; i < r->nstreams; i++) {
        const gd_trace_stream *s = &r->streams[i];
        json_t *x = json_object();
        json_object_set_new(x, "stream", json_integer(s->stream));
        json_object_set_new(x, "idle_us", num(s->idle_us));
        json_object_set_new(x, "host_wait_us", num(s->host_wait_us));
        json_object_set_new(x, "kernel_wait_us", num(s->kernel_wait_us));
        json_object_set_new(x, "other_us", num(s->other_us));
        json_object_set_new(x, "events", json_integer((json_int_t)s->events));
        json_array_append_new(ss, x);
    }
    json_object_set_new(o, "streams", ss);
    json_object_set_new(o, "dataloader_pct", num(r->dataloader_pct));
    json_t *st = json_object();
    json_object_set_new(st, "median_us", num(r->step_median_us));
    json_object_set_new(st, "p90_us", num(r->step_p90_us));
    json_object_set_new(st, "max_us", num(r->step_max_us));
    json_object_set_new(st, "slowest", r->step_slowest >= 0 ? json_integer(r->step_slowest) : json_null());
    json_object_set_new(o, "step_time", st);
    json_t *per = json_array();
    for (size_t i = 0; i < r->nsteps; i++) {
        const gd_trace_step *s = &r->steps[i];
        json_t *x = json_object();
        json_object_set_new(x, "step", json_integer(s->number));
        json_object_set_new(x, "dur_us", num(s->dur_us));
        json_object_set_new(x, "compute_us", num(s->compute_us));
        json_object_set_new(x, "non_compute_us", num(s->non_compute_us));
        json_object_set_new(x, "idle_us", num(s->idle_us));
        json_object_set_new(x, "dataloader_us", num(s->dataloader_us));
        json_object_set_new(x, "syncs", json_integer((json_int_t)s->syncs));
        json_object_set_new(x, "reads", json_integer((json_int_t)s->reads));
        json_object_set_new(x, "read_blocked_us", num(s->read_blocked_us));
        json_object_set_new(x, "copy_exposed_us", num(s->copy_exposed_us));
        json_array_append_new(per, x);
    }
    json_object_set_new(o, "per_step", per);
    json_t *ks = json_object();
    for (int c = 0; c < GD_K_NCLASS; c++) {
        json_t *x = json_object();
        json_object_set_new(x, "total_us", num(r->class_us[c]));
        json_object_set_new(x, "count", json_integer((json_int_t)r->class_count[c]));
        json_t *top = json_array();
        for (size_t i = 0; i < r->ntop[c]; i++) {
            const gd_trace_kernel *k = &r->top[c][i];
            json_t *y = json_object();
            json_object_set_new(y, "name", json_string(k->name));
            json_object_set_new(y, "total_us", num(k->total_us));
            json_object_set_new(y, "share_pct", num(k->share_pct));
            json_object_set_new(y, "count", json_integer((json_int_t)k->count));
            json_array_append_new(top, y);
        }
        json_object_set_new(x, "top", top);
        json_object_set_new(ks, class_name((gd_kclass)c), x);
    }
    json_object_set_new(o, "kernels", ks);
    json_t *l = json_object();
    json_object_set_new(l, "count", json_integer((json_int_t)r->launches));
    json_object_set_new(l, "short_kernels", json_integer((json_int_t)r->short_kernels));
    json_object_set_new(l, "runtime_outliers", json_integer((json_int_t)r->runtime_outliers));
    json_object_set_new(l, "launch_delay_outliers", json_integer((json_int_t)r->delay_outliers));
    json_object_set_new(l, "cpu_median_us", num(r->launch_cpu_median_us));
    json_object_set_new(l, "delay_median_us", num(r->launch_delay_median_us));
    json_object_set_new(l, "kernel_median_us", num(r->kernel_median_us));
    json_object_set_new(o, "launches", l);
    json_t *cp = json_object();
    for (int k = 0; k < GD_COPY_NKINDS; k++) {
        const gd_trace_copies *c = &r->copies[k];
        json_t *x = json_object();
        json_object_set_new(x, "count", json_integer((json_int_t)c->count));
        json_object_set_new(x, "bytes", gd_json_number(c->bytes));
        json_object_set_new(x, "time_us", num(c->time_us));
        json_object_set_new(x, "gbps", num(c->gbps));
        json_object_set_new(cp, gd_copy_kind_name((gd_copy_kind)k), x);
    }
    json_object_set_new(o, "copies", cp);
    json_t *sy = json_object();
    json_object_set_new(sy, "count", json_integer((json_int_t)r->syncs));
    json_object_set_new(sy, "blocked_us", num(r->sync_us));
    json_object_set_new(sy, "blocked_pct", num(r->sync_pct));
    json_object_set_new(sy, "per_step", num(r->sync_per_step));
    json_object_set_new(sy, "top_call", r->sync_top[0] ? json_string(r->sync_top) : json_null());
    json_object_set_new(o, "syncs", sy);
    json_t *rd = json_object();
    json_object_set_new(rd, "count", json_integer((json_int_t)r->reads));
    json_object_set_new(rd, "via_item", json_integer((json_int_t)r->reads_item));
    json_object_set_new(rd, "item_calls", json_integer((json_int_t)r->item_calls));
    json_object_set_new(rd, "item_us", num(r->item_us));
    json_object_set_new(rd, "item_pct", num(r->item_pct));
    json_object_set_new(rd, "blocked_us", num(r->read_blocked_us));
    json_object_set_new(rd, "blocked_pct", num(r->read_blocked_pct));
    json_object_set_new(rd, "sync_us", num(r->read_sync_us));
    json_object_set_new(rd, "median_bytes", num(r->read_bytes_median));
    json_object_set_new(o, "reads", rd);
    json_t *sc = json_object();
    json_object_set_new(sc, "count", json_integer((json_int_t)r->step_copies));
    json_object_set_new(sc, "bytes", gd_json_number(r->step_copy_bytes));
    json_object_set_new(sc, "time_us", num(r->step_copy_us));
    json_object_set_new(sc, "exposed_us", num(r->step_copy_exposed_us));
    json_object_set_new(sc, "exposed_pct", num(r->step_copy_exposed_pct));
    json_object_set_new(sc, "host_waited", json_integer((json_int_t)r->step_copies_waited));
    json_object_set_new(o, "step_copies", sc);
    json_object_set_new(o, "comm_overlap_pct", num(r->comm_overlap_pct));
    return o;
}

json_t *gd_trace_report_json(const gd_trace_run *run)
{
    json_t *root = json_object();
    json_t *t = json_object();
    unsigned long long events = 0, bytes = 0;
    for (size_t i = 0; i < run->nranks; i++)
        events += run->ranks[i].events, bytes += run->ranks[i].bytes;
    json_object_set_new(t, "files", json_integer((json_int_t)run->files));
    json_object_set_new(t, "files_found", json_integer((json_int_t)run->files_found));
    json_object_set_new(t, "files_left_out", json_integer((json_int_t)(run->files_found - run->files)));
    json_object_set_new(t, "events", json_integer((json_int_t)events));
    json_object_set_new(t, "ranks", json_integer((json_int_t)run->nranks));
    json_object_set_new(t, "json_bytes", json_integer((json_int_t)bytes));
    json_object_set_new(root, "trace", t);
    json_t *ranks = json_array();
    for (size_t i = 0; i < run->nranks; i++)
        json_array_append_new(ranks, rank_json(&run->ranks[i]));
    json_object_set_new(root, "ranks", ranks);
    json_object_set_new(root, "findings", gd_report_findings_json(run->findings, false));
    json_t *sum = json_object();
    json_object_set_new(sum, "critical", json_integer((json_int_t)gd_findings_count(run->findings, GD_SEV_CRITICAL)));
    json_object_set_new(sum, "warning", json_integer((json_int_t)gd_findings_count(run->findings, GD_SEV_WARNING)));
    json_object_set_new(sum, "info", json_integer((json_int_t)gd_findings_count(run->findings, GD_SEV_INFO)));
    json_object_set_new(root, "summary", sum);
    return root;
}
