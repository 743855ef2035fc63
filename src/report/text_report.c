/* SPDX-License-Identifier: Apache-2.0 */
/* The human report of `check`: the answer first, then the findings by cause. */
#include "checked.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/stack.h"
#include "text_causes.h"
#include "text_finding.h"
#include "verdict.h"
#include "text_group.h"
#include "gpu_table.h"
#include "nccl_tests_report.h"
#include "text_util.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

/* The verdict: the causes counted once, what was judged in a line or two. */
static void print_verdict(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_grouped_causes *causes,
                          const gd_text_style *st)
{
    char rest[1024];
    const char *word = gd_report_verdict(f, fs, causes, rest, sizeof rest);
    fputc('\n', out);
    fprintf(out, "%sVerdict: %s%s",
            gd_c(st, strcmp(word, "CRITICAL") == 0 ? GD_ANSI_RED
                     : strcmp(word, "OK") == 0     ? GD_ANSI_GREEN
                                                   : GD_ANSI_YELLOW),
            word, gd_c(st, GD_ANSI_RESET));
    fputc(' ', out);
    gd_wrap(out, st, 4, (int)(strlen("Verdict: ") + strlen(word) + 1), rest);
    if (!gd_facts_no_nvidia_gpu(f)) {
        char line[900];
        gd_coverage_line(f, fs, line, sizeof line);
        snprintf(rest, sizeof rest, "%s%s", line, st->details ? "" : "; each check: --details");
        fputs("    ", out);
        gd_wrap(out, st, 4, 4, rest);
    }
    /* A file not read: the verdict stands on the others (docs/interface.md, exit codes). */
    for (size_t k = 0; k < f->capture_refused_count && k < GD_CAPTURE_REFUSED; k++) {
        snprintf(rest, sizeof rest, "Not read: %s", f->capture_refused[k]);
        gd_wrap(out, st, 4, 0, rest);
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
static void print_skips(FILE *out, const gd_text_style *st, const gd_facts *f, const gd_findings *fs)
{
    skip_line *lines = calloc(fs->nskips, sizeof *lines);
    bool *done = calloc(fs->nskips, sizeof *done);
    int *gpus = calloc(fs->nskips, sizeof *gpus);
    size_t nlines = 0;
    for (size_t i = 0; lines && done && gpus && i < fs->nskips; i++) {
        const gd_skip *k = &fs->skips[i];
        if (done[i] || !gd_skip_applies(f, k))
            continue;
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

void gd_report_text(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_text_style *st)
{
    gd_report_text_with(out, f, fs, st, NULL);
}

void gd_report_text_with(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_text_style *st,
                         const gd_text_extra *x)
{
    gd_grouped_causes causes;
    if (gd_group_causes(fs, &causes) != 0)
        causes = (gd_grouped_causes){0}; /* out of memory: the findings below still say it */
    print_header(out, f, st);
    print_verdict(out, f, fs, &causes, st);
    /* The answer first: the causes ranked, with what to do (a command's own
     * ranking in their place: said once); then the GPUs. */
    bool own = x && x->under_verdict;
    if (own)
        x->under_verdict(out, st, x->ud);
    else
        gd_text_causes_list(out, st, fs, &causes, false);
    gd_nccl_tests_text(out, f, st);
    if (f->gpu_count && f->series.n) {
        fputc('\n', out);
        gd_gpu_table(out, f, 0, st);
    }
    gd_text_causes_details(
        out, st, fs, &causes,
        &(gd_text_finding_how){
            .series = f->series.n > 1, .ranked = !own, .said = own ? x->said : NULL, .said_ud = own ? x->ud : NULL});
    gd_grouped_causes_free(&causes);
    gd_report_job_text(out, f, st);
    print_ignored(out, st, fs);
    if (x && x->at_end) /* before --details' long lists */
        x->at_end(out, st, x->ud);
    if (!st->details)
        return;
    gd_report_checked_text(out, f, fs, st);
    if (fs->nskips) {
        fprintf(out, "\n%sNot checked%s\n", gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET));
        print_skips(out, st, f, fs);
    }
}
