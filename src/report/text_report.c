/* SPDX-License-Identifier: Apache-2.0 */
/* The human report of `check`: verdict first, then findings by severity. */
#include "checked.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/stack.h"
#include "text_finding.h"
#include "text_group.h"
#include "gpu_table.h"
#include "text_util.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *sev_color(gd_severity s)
{
    return s == GD_SEV_CRITICAL ? GD_ANSI_RED : s == GD_SEV_WARNING ? GD_ANSI_YELLOW : GD_ANSI_CYAN;
}

static void header_text(FILE *out, const gd_facts *f, const gd_text_style *st);

/* The header, wrapped to the width like every other line. */
static void print_header(FILE *out, const gd_facts *f, const gd_text_style *st)
{
    gd_wrapped w;
    header_text(gd_wrapped_open(&w, out), f, st);
    gd_wrapped_close(&w, st);
}

static void header_text(FILE *out, const gd_facts *f, const gd_text_style *st)
{
    gd_text_banner(out, f, "", st);
    fprintf(out, "host %s, ", f->host.hostname[0] ? gd_safe(f->host.hostname) : "unknown");
    if (!f->driver_loaded) {
        /* A capture without nvidia-smi output says nothing of the driver. */
        fprintf(out, "%s\n",
                f->captured                 ? "no nvidia-smi output in the capture (driver and GPUs' state unknown)"
                : gd_facts_no_nvidia_gpu(f) ? "no NVIDIA GPU"
                                            : "no NVIDIA driver");
        return;
    }
    fprintf(out, "%zu GPU%s", f->gpu_count, f->gpu_count == 1 ? "" : "s");
    if (f->gpu_count)
        fprintf(out, " (%s)", f->gpus[0].name[0] ? gd_safe(f->gpus[0].name) : "unnamed");
    fprintf(out, ", driver %s", f->driver_version[0] ? gd_safe(f->driver_version) : "unknown");
    if (gd_ok(f->cuda_driver_version))
        fprintf(out, " (CUDA %d.%d)", (int)f->cuda_driver_version.v / 1000,
                ((int)f->cuda_driver_version.v % 1000) / 10);
    const gd_series *s = &f->series;
    if (s->n > 1 && f->captured)
        fprintf(out, ", capture of %zu samples over %.1f s%s\n", s->n, gd_series_t(s, s->n - 1),
                f->capture_untimed ? " (1 s apart assumed)" : "");
    else if (f->captured)
        fprintf(out, ", capture: one snapshot\n");
    else if (s->n > 1)
        fprintf(out, ", window %.1f s, %zu samples\n", gd_series_t(s, s->n - 1), s->n);
    else
        fprintf(out, ", snapshot\n");
    /* Without the driver's byte counters PCIe throughput is a 20 ms call:
     * read about once a second per GPU, which the reader should know. */
    if (s->n > 1 && strstr(f->pcie_throughput.source, "nvmlDeviceGetPcieThroughput") && f->pcie_throughput.every_s > 0)
        fprintf(out,
                "PCIe throughput read every %.1f s per GPU (the driver has no byte counters; each read takes "
                "20 ms)\n",
                f->pcie_throughput.every_s);
}

static void print_verdict(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_text_style *st)
{
    size_t c = gd_findings_count(fs, GD_SEV_CRITICAL), w = gd_findings_count(fs, GD_SEV_WARNING),
           i = gd_findings_count(fs, GD_SEV_INFO);
    char judged[256], missing[256], rest[1024];
    size_t groups = gd_judged_summary(f, fs, judged, sizeof judged, missing, sizeof missing);
    const char *absent = f->captured ? "not in this capture" : "not readable";
    const char *word = gd_facts_no_nvidia_gpu(f) ? "NOT CHECKED"
                       : c                       ? "CRITICAL"
                       : w                       ? "WARNING"
                       : groups == 0             ? "NOT CHECKED"
                                                 : "OK";
    fputc('\n', out);
    fprintf(out, "%sVerdict: %s%s",
            gd_c(st, c                  ? GD_ANSI_RED
                     : w || groups == 0 ? GD_ANSI_YELLOW
                                        : GD_ANSI_GREEN),
            word, gd_c(st, GD_ANSI_RESET));
    size_t used = 0;
    if (gd_facts_no_nvidia_gpu(f))
        used = (size_t)snprintf(rest, sizeof rest,
                                "- no NVIDIA GPU on this machine: no NVIDIA display or 3D controller on its PCI bus, "
                                "so there is nothing to check (exit 3)");
    else if (c + w == 0 && groups == 0)
        used = (size_t)snprintf(rest, sizeof rest, "- nothing of the GPUs' own state could be judged: %s %s%s", missing,
                                absent,
                                f->captured && strstr(f->capture_formats, "topo")
                                    ? " (a topology matrix shows how the GPUs are wired, not their state)"
                                    : "");
    else if (c + w == 0 && missing[0])
        used = (size_t)snprintf(rest, sizeof rest, "on what could be checked: %s; %s %s", judged, missing, absent);
    else if (c + w + i == 0)
        used = (size_t)snprintf(rest, sizeof rest, "- no problem found on %zu GPU%s", f->gpu_count,
                                f->gpu_count == 1 ? "" : "s");
    else
        used =
            (size_t)snprintf(rest, sizeof rest, "- %zu critical, %zu warning%s, %zu info", c, w, w == 1 ? "" : "s", i);
    if (c + w == 0 && (groups == 0 || missing[0]) && i && used < sizeof rest)
        used += (size_t)snprintf(rest + used, sizeof rest - used, "; %zu info", i);
    size_t ignored = gd_findings_ignored(fs);
    if (ignored && used < sizeof rest)
        snprintf(rest + used, sizeof rest - used, ", %zu ignored", ignored);
    fputc(' ', out);
    gd_wrap(out, st, 4, (int)(strlen("Verdict: ") + strlen(word) + 1), rest);
    if (c + w && missing[0]) {
        snprintf(rest, sizeof rest, "Judged: %s; %s %s", judged, missing, absent);
        gd_wrap(out, st, 4, 0, rest);
    }
    /* A file not read: the verdict stands on the others (docs/interface.md, exit codes). */
    for (size_t k = 0; k < f->capture_refused_count && k < GD_CAPTURE_REFUSED; k++) {
        snprintf(rest, sizeof rest, "Not read: %s", f->capture_refused[k]);
        gd_wrap(out, st, 4, 0, rest);
    }
}

static bool hidden(const char *key, const char *const *hide)
{
    for (size_t i = 0; hide && hide[i]; i++)
        if (strcmp(key, hide[i]) == 0)
            return true;
    return false;
}

static void print_evidence(FILE *out, const gd_text_style *st, const json_t *ev, const char *const *hide)
{
    char line[1024] = "";
    size_t used = 0;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)ev, key, v)
    {
        if (strcmp(key, "source") == 0 || hidden(key, hide))
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

void gd_text_finding(FILE *out, const gd_text_style *st, const gd_finding *x, const gd_text_finding_how *how)
{
    static const gd_text_finding_how check_how = {.series = true};
    how = how ? how : &check_how;
    bool series = how->series;
    char where[300] = "host";
    if (how->at)
        snprintf(where, sizeof where, "%s", how->at);
    else if (how->where)
        how->where(x, where, sizeof where);
    else if (x->gpu != GD_NO_GPU)
        snprintf(where, sizeof where, "GPU %d", x->gpu);
    fprintf(out, "\n%s%-8s%s %-6s %s%s%s\n", gd_c(st, sev_color(x->severity)), gd_severity_name(x->severity),
            gd_c(st, GD_ANSI_RESET), gd_safe(where), gd_c(st, GD_ANSI_DIM), gd_safe(x->id), gd_c(st, GD_ANSI_RESET));
    fprintf(out, "    %s", gd_c(st, GD_ANSI_BOLD));
    gd_wrap(out, st, 4, 4, x->title);
    fputs(gd_c(st, GD_ANSI_RESET), out);
    print_evidence(out, st, x->evidence, how->hide);
    if (x->timeline[0] && series) { /* one sample has no timeline to tell */
        fprintf(out, "    %stimeline%s ", gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET));
        gd_wrap(out, st, 13, 13, x->timeline);
    }
    if (!isnan(x->impact_pct)) {
        char impact[400];
        if (how->impact)
            how->impact(x, impact, sizeof impact);
        else
            snprintf(impact, sizeof impact, "~%.0f%% of training throughput", x->impact_pct);
        fprintf(out, "    %simpact%s   ", gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET));
        gd_wrap(out, st, 13, 13, impact);
    }
    if (x->fix[0]) {
        fprintf(out, "    %sfix%s      ", gd_c(st, GD_ANSI_GREEN), gd_c(st, GD_ANSI_RESET));
        gd_wrap(out, st, 13, 13, x->fix);
    }
}

/* A skip's reason with its own GPU's number taken out ("GPU 3 was idle" ->
 * "the GPU was idle"), so that the same reason on eight GPUs is one line. */
static void generic_reason(const gd_skip *k, char *buf, size_t len)
{
    char own[32];
    snprintf(own, sizeof own, "GPU %d ", k->gpu);
    const char *at = k->gpu == GD_NO_GPU ? NULL : strstr(k->reason, own);
    if (!at) {
        snprintf(buf, len, "%s", k->reason);
        return;
    }
    snprintf(buf, len, "%.*sthe GPU %s", (int)(at - k->reason), k->reason, at + strlen(own));
}

typedef struct skip_line {
    char checks[512];
    char gpus[128];
    char reason[300];
    bool plural;
} skip_line;

/* "Not checked": one line per reason, naming the checks and GPUs it applies to. */
static void print_skips(FILE *out, const gd_text_style *st, const gd_findings *fs)
{
    skip_line *lines = calloc(fs->nskips, sizeof *lines);
    bool *done = calloc(fs->nskips, sizeof *done);
    int *gpus = calloc(fs->nskips, sizeof *gpus);
    size_t nlines = 0;
    for (size_t i = 0; lines && done && gpus && i < fs->nskips; i++) {
        if (done[i])
            continue;
        const gd_skip *k = &fs->skips[i];
        char reason[sizeof k->reason + 16], other[sizeof k->reason + 16];
        generic_reason(k, reason, sizeof reason);
        size_t ngpus = 0;
        for (size_t j = i; j < fs->nskips; j++) {
            const gd_skip *o = &fs->skips[j];
            if (done[j] || strcmp(o->check, k->check) != 0 || (o->gpu == GD_NO_GPU) != (k->gpu == GD_NO_GPU))
                continue;
            generic_reason(o, other, sizeof other);
            if (strcmp(other, reason) != 0)
                continue;
            done[j] = true;
            if (o->gpu != GD_NO_GPU)
                gpus[ngpus++] = o->gpu;
        }
        skip_line l = {.plural = ngpus > 1};
        snprintf(l.checks, sizeof l.checks, "%s", k->check);
        gd_gpu_ranges(gpus, ngpus, true, l.gpus, sizeof l.gpus);
        snprintf(l.reason, sizeof l.reason, "%s", ngpus > 1 ? reason : k->reason);
        /* The same reason for the same GPUs from several checks: one line. */
        size_t m = 0;
        while (m < nlines && (strcmp(lines[m].reason, l.reason) != 0 || strcmp(lines[m].gpus, l.gpus) != 0))
            m++;
        if (m < nlines) {
            size_t used = strlen(lines[m].checks);
            snprintf(lines[m].checks + used, sizeof lines[m].checks - used, ", %s", l.checks);
        } else {
            lines[nlines++] = l;
        }
    }
    for (size_t i = 0; i < nlines; i++) {
        char head[700];
        if (lines[i].gpus[0])
            snprintf(head, sizeof head, "%s, GPU%s %s:", lines[i].checks, lines[i].plural ? "s" : "", lines[i].gpus);
        else
            snprintf(head, sizeof head, "%s:", lines[i].checks);
        fprintf(out, "    ");
        gd_wrap(out, st, 8, 4, head);
        fprintf(out, "        ");
        gd_wrap(out, st, 8, 8, lines[i].reason);
    }
    free(lines);
    free(done);
    free(gpus);
}

/* Ignored findings: one line each, so that what was accepted stays visible. */
static void print_ignored(FILE *out, const gd_text_style *st, const gd_findings *fs)
{
    size_t n = gd_findings_ignored(fs);
    if (!n)
        return;
    fprintf(out, "\n%sIgnored%s (--ignore or the config file; not counted for the exit status)\n",
            gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET));
    for (size_t i = 0; i < fs->n; i++) {
        const gd_finding *x = &fs->v[i];
        if (!x->ignored)
            continue;
        char line[400];
        snprintf(line, sizeof line, "%s %s: %s", gd_severity_name(x->severity), x->id, x->title);
        fputs("    ", out);
        gd_wrap(out, st, 8, 4, line);
    }
}

void gd_text_findings(FILE *out, const gd_text_style *st, const gd_findings *fs, const gd_text_finding_how *how)
{
    bool *used = calloc(fs->n + 1, sizeof *used);
    size_t *members = calloc(fs->n + 1, sizeof *members);
    for (size_t i = 0; used && i < fs->n; i++) /* shown in one line each, below */
        used[i] = fs->v[i].ignored;
    for (size_t i = 0; i < fs->n; i++) {
        if (fs->v[i].ignored)
            continue;
        if (used && used[i])
            continue;
        size_t n = used && members && !(how && (how->where || how->at)) ? gd_text_group_of(fs, i, used, members) : 1;
        if (n > 1) {
            gd_text_group_print(out, st, fs, members, n, how ? how->series : true);
            for (size_t k = 0; k < n; k++)
                used[members[k]] = true;
        } else {
            gd_text_finding(out, st, &fs->v[i], how);
        }
    }
    free(used);
    free(members);
}

void gd_report_text(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_text_style *st)
{
    gd_report_text_with(out, f, fs, st, NULL);
}

void gd_report_text_with(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_text_style *st,
                         const gd_text_extra *x)
{
    print_header(out, f, st);
    print_verdict(out, f, fs, st);
    if (x && x->under_verdict)
        x->under_verdict(out, st, x->ud);
    if (f->gpu_count && f->series.n) { /* the GPUs at a glance, under the verdict */
        fputc('\n', out);
        gd_gpu_table(out, f, 0, st);
    }
    gd_text_findings(out, st, fs, &(gd_text_finding_how){.series = f->series.n > 1});
    gd_report_job_text(out, f, st);
    print_ignored(out, st, fs);
    gd_report_checked_text(out, f, fs, st);
    if (fs->nskips) {
        fprintf(out, "\n%sNot checked%s\n", gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET));
        print_skips(out, st, fs);
    }
    if (x && x->at_end)
        x->at_end(out, st, x->ud);
}
