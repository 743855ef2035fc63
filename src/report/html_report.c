/* SPDX-License-Identifier: Apache-2.0 */
/* The HTML page of `check` and `run` (docs/report.md): verdict, findings,
 * the GPUs in numbers and in curves, the job, the topology, what was and
 * was not checked. One file: inline style and SVG, nothing fetched. */
#include "gpudoctor/checks.h"
#include "checked.h"
#include "html_escape.h"
#include "html_page.h"
#include "bench_nodes_report.h"
#include "html_plots.h"
#include "verdict.h"

#include "analysis/topology.h"
#include "analysis/window.h"
#include "gpudoctor/pcie.h"

#include <math.h>
#include <string.h>

/* What the page is about, from what is known: the host name, else the
 * scenario's or the capture's file name, else "this machine". */
static void subject(const gd_facts *f, char *buf, size_t len)
{
    const char *src = f->simulated && strncmp(f->source, "sim:", 4) == 0      ? f->source + 4
                      : f->captured && strncmp(f->source, "capture:", 8) == 0 ? f->source + 8
                                                                              : "";
    const char *base = strrchr(src, '/');
    base = base ? base + 1 : src;
    if (f->host.hostname[0])
        snprintf(buf, len, "%s", f->host.hostname);
    else if (base[0])
        snprintf(buf, len, "%s %s", f->simulated ? "simulation of" : "capture", base);
    else
        snprintf(buf, len, "this machine");
}

static void header(FILE *out, const gd_facts *f)
{
    char about[300];
    subject(f, about, sizeof about);
    fputs("<h1>gpudoctor report: ", out);
    gd_html_text(out, about);
    fputs("</h1>\n", out);
    if (f->simulated) {
        fputs("<div class=\"banner\">SIMULATION of <code>", out);
        gd_html_text(out, f->source + 4);
        fputs("</code>: no real GPU was read.</div>\n", out);
    }
    if (f->captured) {
        fputs("<div class=\"banner\">CAPTURE <code>", out);
        gd_html_text(out, f->source + 8);
        fputs("</code> (", out);
        gd_html_text(out, f->capture_formats);
        fputs("): read from files, not this machine.</div>\n", out);
    }
    fputs("<p class=\"meta\">", out);
    if (gd_facts_no_nvidia_gpu(f)) {
        fputs("No NVIDIA GPU on this machine (no NVIDIA display or 3D controller on its PCI bus): nothing to check.",
              out);
    } else if (!f->driver_loaded) {
        fputs("No NVIDIA driver: ", out);
        gd_html_text(out, f->driver_error);
    } else {
        fprintf(out, "%zu GPU%s", f->gpu_count, f->gpu_count == 1 ? "" : "s");
        if (f->gpu_count) {
            fputs(" (", out);
            gd_html_text(out, f->gpus[0].name[0] ? f->gpus[0].name : "unnamed");
            fputc(')', out);
        }
        fputs(", driver ", out);
        gd_html_text(out, f->driver_version[0] ? f->driver_version : "unknown");
        if (gd_ok(f->cuda_driver_version))
            fprintf(out, " (CUDA %d.%d)", (int)f->cuda_driver_version.v / 1000,
                    ((int)f->cuda_driver_version.v % 1000) / 10);
    }
    const gd_series *s = &f->series;
    if (s->n > 1)
        fprintf(out, ", %s %.1f s, %zu samples%s", f->captured ? "capture of" : "window",
                gd_series_t(s, s->n - 1) - gd_series_t(s, 0), s->n, f->capture_untimed ? " (1 s apart assumed)" : "");
    else
        fputs(", one snapshot", out);
    if (f->host.kernel[0]) {
        fputs("; kernel ", out);
        gd_html_text(out, f->host.kernel);
    }
    fputs("</p>\n", out);
}

/* "a to b unit" of a metric over the window, "n/a" without a sample. */
static void range_text(const gd_facts *f, size_t g, gd_metric m, double scale, const char *unit, bool median, char *buf,
                       size_t len)
{
    gd_stats st;
    if (gd_stats_of(f, g, m, &st) == 0)
        snprintf(buf, len, "n/a");
    else if (st.min == st.max)
        snprintf(buf, len, "%.10g %s", st.min * scale, unit);
    else if (median)
        snprintf(buf, len, "%.10g to %.10g %s (median %.10g)", st.min * scale, st.max * scale, unit,
                 gd_window_median(f, g, m) * scale);
    else
        snprintf(buf, len, "%.10g to %.10g %s", st.min * scale, st.max * scale, unit);
}

static void limit_text(gd_value v, const char *unit, char *buf, size_t len)
{
    if (gd_ok(v))
        snprintf(buf, len, "%.10g%s%s", v.v, *unit ? " " : "", unit);
    else
        snprintf(buf, len, "n/a");
}

static void reasons_seen(const gd_facts *f, size_t g, char *buf, size_t len)
{
    unsigned long long seen = 0;
    for (size_t i = 0; i < f->series.n; i++) {
        gd_value r = gd_series_at(&f->series, i, g, GD_M_EVENT_REASONS);
        if (gd_ok(r))
            seen |= (unsigned long long)r.v;
    }
    size_t used = 0;
    buf[0] = 0;
    for (size_t k = 0; k < gd_reason_names_count && used < len; k++)
        if (seen & gd_reason_names[k].bit)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", gd_reason_names[k].name);
    if (!buf[0])
        snprintf(buf, len, "none");
}

static void gpu_table(FILE *out, const gd_facts *f)
{
    if (f->gpu_count == 0)
        return;
    /* Ten columns, each reading beside its limit, cells that wrap: it fits the
     * page (fifteen columns of unbroken cells took 1744 pixels of 1180). */
    fputs("<h2 id=\"gpus\">GPUs</h2>\n<table id=\"gpu-table\">\n", out);
    const char *head[] = {"GPU",   "name",        "bus id",       "temperature", "SM clock",
                          "power", "utilisation", "memory (MiB)", "PCIe",        "clock event reasons seen"};
    gd_html_row(out, "th", head, sizeof head / sizeof head[0]);
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        char idx[16], a[96], b[48], temp[160], clk[160], pw[160], util[96], mem[160], link[48], linkmax[48], pcie[112],
            reasons[256];
        snprintf(idx, sizeof idx, "%d%s", gpu->index, gpu->lost ? " (lost)" : "");
        range_text(f, g, GD_M_TEMP_C, 1, "C", true, a, sizeof a);
        limit_text(gpu->temp_slowdown_c, "C", b, sizeof b);
        snprintf(temp, sizeof temp, "%s; slowdown %s", a, b);
        range_text(f, g, GD_M_SM_CLOCK_MHZ, 1, "MHz", true, a, sizeof a);
        limit_text(gpu->clock_max_sm_mhz, "MHz", b, sizeof b);
        snprintf(clk, sizeof clk, "%s; max %s", a, b);
        range_text(f, g, GD_M_POWER_W, 1, "W", true, a, sizeof a);
        limit_text(gpu->power_limit_w, "W", b, sizeof b);
        snprintf(pw, sizeof pw, "%s; limit %s", a, b);
        range_text(f, g, GD_M_UTIL_GPU_PCT, 1, "%", true, util, sizeof util);
        range_text(f, g, GD_M_MEM_USED_MIB, 1, "", true, a, sizeof a);
        limit_text(gpu->mem_total_mib, "", b, sizeof b);
        snprintf(mem, sizeof mem, "%s of %s", a, b);
        long last_gen = gd_last_valid(f, g, GD_M_PCIE_GEN), last_w = gd_last_valid(f, g, GD_M_PCIE_WIDTH);
        if (last_gen >= 0 && last_w >= 0)
            snprintf(link, sizeof link, "Gen%.0f x%.0f", gd_series_at(&f->series, (size_t)last_gen, g, GD_M_PCIE_GEN).v,
                     gd_series_at(&f->series, (size_t)last_w, g, GD_M_PCIE_WIDTH).v);
        else
            snprintf(link, sizeof link, "n/a");
        if (gd_ok(gpu->pcie_gen_max) && gd_ok(gpu->pcie_width_max))
            snprintf(linkmax, sizeof linkmax, "Gen%.0f x%.0f", gpu->pcie_gen_max.v, gpu->pcie_width_max.v);
        else
            snprintf(linkmax, sizeof linkmax, "n/a");
        snprintf(pcie, sizeof pcie, "%s (last); max %s", link, linkmax);
        reasons_seen(f, g, reasons, sizeof reasons);
        const char *cells[] = {idx, gpu->name, gpu->pci_bus_id, temp, clk, pw, util, mem, pcie, reasons};
        gd_html_row(out, "td", cells, sizeof cells / sizeof cells[0]);
    }
    fputs("</table>\n", out);
    bool procs = false;
    for (size_t g = 0; g < f->gpu_count; g++)
        procs |= f->gpus[g].process_count > 0;
    if (!procs)
        return;
    fputs("<h3>Processes</h3>\n<table>\n", out);
    const char *ph[] = {"GPU", "PID", "name", "user", "memory (MiB)"};
    gd_html_row(out, "th", ph, 5);
    for (size_t g = 0; g < f->gpu_count; g++)
        for (size_t k = 0; k < f->gpus[g].process_count; k++) {
            const gd_process *p = &f->gpus[g].processes[k];
            char gi[16], pid[16], mib[32];
            snprintf(gi, sizeof gi, "%d", f->gpus[g].index);
            snprintf(pid, sizeof pid, "%u", p->pid);
            if (gd_ok(p->used_mib))
                snprintf(mib, sizeof mib, "%.0f", p->used_mib.v);
            else
                snprintf(mib, sizeof mib, "n/a");
            const char *cells[] = {gi, pid, p->name, p->user, mib};
            gd_html_row(out, "td", cells, 5);
        }
    fputs("</table>\n", out);
}

static void topology(FILE *out, const gd_facts *f)
{
    const gd_pcie_facts *p = f->pcie;
    if (!p || p->gpu_count == 0 || !p->matrix)
        return;
    size_t n = p->gpu_count;
    fputs("<h2 id=\"topology\">Topology</h2>\n<table>\n<tr><th></th>", out);
    for (size_t b = 0; b < n; b++)
        fprintf(out, "<th>GPU%d</th>", p->gpus[b].gpu);
    fputs("<th>CPU affinity</th><th>NUMA</th><th>bus id</th></tr>\n", out);
    for (size_t a = 0; a < n; a++) {
        fprintf(out, "<tr><th>GPU%d</th>", p->gpus[a].gpu);
        for (size_t b = 0; b < n; b++) {
            char cell[16] = "?";
            gd_topo_cell_label(p->matrix[a * n + b], cell, sizeof cell);
            fputs("<td>", out);
            gd_html_text(out, cell);
            fputs("</td>", out);
        }
        char node[16] = "n/a";
        if (gd_ok(p->gpus[a].numa_node))
            snprintf(node, sizeof node, "%.0f", p->gpus[a].numa_node.v);
        fputs("<td>", out);
        gd_html_text(out, p->gpus[a].cpulist[0] ? p->gpus[a].cpulist : "n/a");
        fprintf(out, "</td><td>%s</td><td><code>", node);
        gd_html_text(out, p->gpus[a].bdf);
        fputs("</code></td></tr>\n", out);
    }
    fputs("</table>\n<p class=\"meta\">NV#: a bonded set of # NVLinks; PIX, PXB: through one or several PCIe "
          "bridges; PHB: through a host bridge; NODE: between host bridges of one NUMA node; SYS: across NUMA "
          "nodes. Source: ",
          out);
    gd_html_text(out, p->source);
    fputs(".</p>\n", out);
}

static void checked(FILE *out, const gd_facts *f, const gd_findings *fs)
{
    json_t *groups = gd_report_checked_json(f, fs);
    fputs("<h2 id=\"checked\">Checked</h2>\n<table>\n", out);
    const char *head[] = {"group", "outcome", "checks"};
    gd_html_row(out, "th", head, 3);
    size_t i;
    json_t *g;
    json_array_foreach(groups, i, g)
    {
        json_int_t nf = json_integer_value(json_object_get(g, "findings")),
                   judged = json_integer_value(json_object_get(g, "checks_judged")),
                   applicable = json_integer_value(json_object_get(g, "checks_applicable"));
        const char *reason = json_string_value(json_object_get(g, "brief"));
        if (!reason)
            reason = json_string_value(json_object_get(g, "reason"));
        const char *state = json_string_value(json_object_get(g, "state"));
        char outcome[256], part[64] = "";
        if (state && strcmp(state, "in part") == 0)
            snprintf(part, sizeof part, " on %lld of %lld checks", (long long)judged, (long long)applicable);
        if (reason)
            snprintf(outcome, sizeof outcome, "%s", reason);
        else if (nf)
            snprintf(outcome, sizeof outcome, "%lld finding%s%s", (long long)nf, nf == 1 ? "" : "s", part);
        else
            snprintf(outcome, sizeof outcome, "ok%s", part);
        if (reason && state && strcmp(state, "not judged") == 0)
            snprintf(outcome, sizeof outcome, "not judged: %s", reason);
        if (state && strcmp(state, "notes") == 0) /* a capture's: under Not checked */
            snprintf(outcome, sizeof outcome, "notes on what the files could not show");
        char ids[2048] = "";
        size_t used = 0, k;
        json_t *id;
        json_array_foreach(json_object_get(g, "checks"), k, id)
        {
            if (used < sizeof ids)
                used += (size_t)snprintf(ids + used, sizeof ids - used, "%s%s", k ? ", " : "", json_string_value(id));
        }
        const char *cells[] = {json_string_value(json_object_get(g, "label")), outcome, ids};
        gd_html_row(out, "td", cells, 3);
    }
    fputs("</table>\n", out);
    json_decref(groups);
}

void gd_report_html(FILE *out, const gd_facts *f, const gd_findings *fs)
{
    gd_report_html_with(out, f, fs, NULL);
}

void gd_report_html_with(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_html_extra *x)
{
    char title[320], about[300];
    subject(f, about, sizeof about);
    snprintf(title, sizeof title, "gpudoctor: %s", about);
    gd_html_begin(out, title);
    header(out, f);
    /* The verdict and what was judged, as the text report says them. */
    gd_grouped_causes causes;
    if (gd_group_causes(fs, &causes) != 0)
        causes = (gd_grouped_causes){0};
    char rest[1024], line[900];
    const char *word = gd_report_verdict(f, fs, &causes, rest, sizeof rest);
    gd_grouped_causes_free(&causes);
    gd_html_verdict_line(out, word, rest);
    if (!gd_facts_no_nvidia_gpu(f)) {
        gd_coverage_line(f, fs, line, sizeof line);
        fputs("<p class=\"coverage\">", out);
        gd_html_text(out, line);
        fputs(" (<a href=\"#checked\">every check</a>)</p>\n", out);
    }
    for (size_t k = 0; k < f->capture_refused_count && k < GD_CAPTURE_REFUSED; k++) {
        fputs("<p class=\"coverage\">", out); /* the verdict stands on the other files */
        gd_html_text(out, "Not read: ");
        gd_html_text(out, f->capture_refused[k]);
        fputs("</p>\n", out);
    }
    /* A command's own causes (run --profile's, ranked) right under the verdict. */
    if (x && x->section)
        x->section(out, x->ud);
    gd_html_findings(out, fs, f->series.n > 1, f->series.n > 1 && f->gpu_count > 0, true);
    gd_html_bench_nodes(out, f);
    gd_html_gpu_plots(out, f, fs);
    gpu_table(out, f);
    gd_html_job_plot_spans(out, f, x ? x->spans : NULL, x ? x->nspans : 0);
    topology(out, f);
    checked(out, f, fs);
    gd_html_skips(out, fs);
    gd_html_end(out);
}
