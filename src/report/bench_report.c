/* SPDX-License-Identifier: Apache-2.0 */
/* `gpudoctor bench pcie`: measured bandwidth against the link's rate. */
#include "pcie_report.h"
#include "text_finding.h"
#include "verdict_text.h"
#include "text_util.h"
#include "text_causes.h"
#include "gpudoctor/bench_nodes.h"
#include "gpudoctor/report.h"

#include "core/json_util.h"
#include "gpudoctor/pcie.h"
#include "core/pcie_util.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dir_names[2] = {"h2d", "d2h"};
static const char *const mem_names[2] = {"pinned", "pageable"};
#define HEALTHY_RATIO GD_PCIE_BW_HEALTHY_RATIO

/* The link the GPU should reach in its slot, as JSON, and its rate. */
static json_t *link_json(const gd_facts *f, int gpu, double *theo)
{
    *theo = NAN;
    for (size_t g = 0; g < f->gpu_count; g++) {
        int gen, width;
        if (f->gpus[g].index != gpu || !gd_pcie_expected_link(f, g, &gen, &width))
            continue;
        *theo = gd_pcie_link_gbps(gen, width);
        json_t *o = json_object();
        json_object_set_new(o, "gen", json_integer(gen));
        json_object_set_new(o, "width", json_integer(width));
        json_object_set_new(o, "theoretical_gbps", gd_json_number(round(*theo * 100) / 100));
        json_object_set_new(o, "healthy_gbps", gd_json_number(round(HEALTHY_RATIO * *theo * 100) / 100));
        return o; /* what the link should reach; the measured one is added by the caller */
    }
    return json_null();
}

static void add_result(json_t *a, const char *mode, int d, int m, double v, double theo)
{
    json_t *o = json_object();
    json_object_set_new(o, "mode", json_string(mode));
    json_object_set_new(o, "direction", json_string(dir_names[d]));
    json_object_set_new(o, "memory", json_string(mem_names[m]));
    json_object_set_new(o, "gbps", isnan(v) ? json_null() : gd_json_number(round(v * 100) / 100));
    json_object_set_new(o, "ratio",
                        isnan(v) || isnan(theo) ? json_null() : gd_json_number(round(v / theo * 1000) / 1000));
    json_array_append_new(a, o);
}

json_t *gd_bench_pcie_json(const gd_facts *f, const gd_findings *fs)
{
    const gd_pcie_bench *b = f->pcie ? f->pcie->bench : NULL;
    json_t *root = json_object();
    json_object_set_new(root, "bench", json_string("pcie"));
    json_object_set_new(root, "source", json_string(f->source));
    json_object_set_new(root, "simulated", json_boolean(f->simulated));
    json_object_set_new(root, "bytes", json_integer(b ? (json_int_t)b->bytes : 0));
    json_object_set_new(root, "reps", json_integer(b ? b->reps : 0));
    json_object_set_new(root, "unit", json_string("GB/s (1e9 bytes per second)"));
    json_t *gpus = json_array();
    double sums[2][2] = {{0, 0}, {0, 0}};
    for (size_t i = 0; b && i < b->gpu_count; i++) {
        const gd_pcie_bench_gpu *bg = &b->gpus[i];
        json_t *o = json_object();
        double theo;
        json_object_set_new(o, "index", bg->gpu < 0 ? json_null() : json_integer(bg->gpu));
        json_object_set_new(o, "cuda_device", json_integer(bg->cuda_device));
        json_object_set_new(o, "pci_bus_id", json_string(bg->bdf));
        json_t *link = link_json(f, bg->gpu, &theo);
        if (json_is_object(link)) { /* the link read after the copies, and the one that carried them */
            json_object_set_new(link, "measured_gen", gd_json_value(bg->link_gen));
            json_object_set_new(link, "measured_width", gd_json_value(bg->link_width));
            size_t g = 0;
            while (g < f->gpu_count && f->gpus[g].index != bg->gpu)
                g++;
            int cg, cw;
            bool as_read, known = gd_pcie_bench_link(f, g, bg, &cg, &cw, &as_read);
            json_object_set_new(link, "copies_gen", known ? json_integer(cg) : json_null());
            json_object_set_new(link, "copies_width", known ? json_integer(cw) : json_null());
        }
        json_object_set_new(o, "link", link);
        json_object_set_new(o, "error", bg->error[0] ? json_string(bg->error) : json_null());
        json_t *res = json_array();
        for (int d = 0; d < 2; d++)
            for (int m = 0; m < 2; m++) {
                add_result(res, "single", d, m, bg->single_gbps[d][m], theo);
                if (b->gpu_count > 1) {
                    add_result(res, "concurrent", d, m, bg->concurrent_gbps[d][m], theo);
                    if (!isnan(bg->concurrent_gbps[d][m]))
                        sums[d][m] += bg->concurrent_gbps[d][m];
                }
            }
        json_object_set_new(o, "results", res);
        json_array_append_new(gpus, o);
    }
    json_object_set_new(root, "gpus", gpus);
    json_t *tot = json_object();
    for (int d = 0; d < 2 && b && b->gpu_count > 1; d++)
        for (int m = 0; m < 2; m++) {
            char key[48];
            snprintf(key, sizeof key, "%s_%s_gbps", dir_names[d], mem_names[m]);
            json_object_set_new(tot, key, gd_json_number(round(sums[d][m] * 100) / 100));
        }
    json_object_set_new(root, "concurrent_total", tot);
    gd_bench_add_findings(root, f, fs);
    return root;
}

void gd_bench_add_findings(json_t *root, const gd_facts *f, const gd_findings *fs)
{
    /* The findings as the check report writes them, and the causes that group them. */
    json_t *rep = gd_report_json(f, fs);
    json_object_set(root, "findings", json_object_get(rep, "findings"));
    json_object_set(root, "causes", json_object_get(rep, "causes"));
    json_object_set(root, "not_checked", json_object_get(rep, "not_checked"));
    json_decref(rep);
}

static void cell(FILE *out, double v, double theo)
{
    char buf[32];
    if (isnan(v))
        snprintf(buf, sizeof buf, "n/a");
    else if (isnan(theo))
        snprintf(buf, sizeof buf, "%.1f", v);
    else
        snprintf(buf, sizeof buf, "%.1f (%.0f%%)", v, 100 * v / theo);
    fprintf(out, " %12s", buf);
}

void gd_bench_verdict_text(FILE *out, const gd_facts *f, const gd_findings *fs, const char *what,
                           const gd_text_style *st)
{
    char head[64], rest[600];
    snprintf(head, sizeof head, " bench %s", what);
    gd_wrapped w;
    gd_text_banner(gd_wrapped_open(&w, out), f, head, st);
    gd_wrapped_close(&w, st);
    gd_grouped_causes c;
    if (gd_group_causes(fs, &c) != 0)
        c = (gd_grouped_causes){0}; /* out of memory: the counts of findings say it */
    size_t crit = gd_findings_count(fs, GD_SEV_CRITICAL), warn = gd_findings_count(fs, GD_SEV_WARNING),
           info = gd_findings_count(fs, GD_SEV_INFO), ignored = gd_findings_ignored(fs);
    const char *word = gd_verdict_word(fs, true);
    size_t used = 0;
    if (crit + warn && c.n)
        gd_causes_phrase(fs, &c, rest, sizeof rest); /* one cause counted once */
    else if (crit + warn)
        gd_verdict_counts(fs, rest, sizeof rest);
    else if (f->bench && f->bench->nodes) {
        const gd_nccl_nodes *n = f->bench->nodes;
        int gpus = 0;
        for (int r = 0; r < n->world; r++)
            gpus += n->nodes[r].reported ? n->nodes[r].gpus : 0;
        snprintf(rest, sizeof rest, "no problem found in the all-reduce across %d node%s (%d GPUs)", n->world,
                 n->world == 1 ? "" : "s", gpus);
    } else
        snprintf(rest, sizeof rest, "no problem found in what was measured on %zu GPU%s", f->gpu_count,
                 f->gpu_count == 1 ? "" : "s");
    used = strlen(rest);
    if (info && used < sizeof rest)
        used += (size_t)snprintf(rest + used, sizeof rest - used, "; %zu info", info);
    if (ignored && used < sizeof rest)
        snprintf(rest + used, sizeof rest - used, ", %zu ignored", ignored);
    gd_text_verdict_line(out, st, word, rest);
    if (strcmp(what, "all") == 0) /* the answer first: its tables are long */
        gd_text_causes_list(out, st, fs, &c, true);
    gd_grouped_causes_free(&c);
    fputc('\n', out);
}

/* "Findings, by cause" in check's layout (text_finding.h): one vocabulary.
 * The bench's sections end with a blank line: the section's own first is
 * dropped, not doubled. */
static void findings_section(FILE *out, const gd_findings *fs, const gd_text_style *st, bool ranked)
{
    gd_grouped_causes c;
    if (gd_group_causes(fs, &c) != 0)
        return;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    gd_text_causes_details(mem ? mem : out, st, fs, &c, &(gd_text_finding_how){.series = false, .ranked = ranked});
    gd_grouped_causes_free(&c);
    if (!mem)
        return;
    fclose(mem);
    fputs(buf && buf[0] == '\n' ? buf + 1 : buf ? buf : "", out);
    free(buf);
}

void gd_bench_findings_text(FILE *out, const gd_findings *fs, const gd_text_style *st)
{
    findings_section(out, fs, st, false);
}

void gd_bench_details_text(FILE *out, const gd_findings *fs, const gd_text_style *st)
{
    findings_section(out, fs, st, true);
}

/* The link column: the link that carried the copies (gd_pcie_bench_link),
 * marked where it is below what the GPU should reach ('*') or where the
 * driver's reading after the copies was an idle one ('+'). */
static void link_cell(const gd_facts *f, const gd_pcie_bench_gpu *bg, char *buf, size_t len, char *mark)
{
    size_t g = 0;
    while (g < f->gpu_count && f->gpus[g].index != bg->gpu)
        g++;
    int gen, width, eg, ew;
    bool as_read;
    *mark = ' ';
    snprintf(buf, len, "n/a");
    if (bg->gpu < 0 || !gd_pcie_bench_link(f, g, bg, &gen, &width, &as_read))
        return;
    bool expected = g < f->gpu_count && gd_pcie_expected_link(f, g, &eg, &ew);
    if (!as_read)
        *mark = '+';
    else if (expected && (gen < eg || width < ew))
        *mark = '*';
    snprintf(buf, len, "Gen%d x%d%c", gen, width, *mark == ' ' ? '\0' : *mark);
}

static void pcie_body(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_text_style *st, bool findings);

void gd_bench_pcie_text(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_text_style *st)
{
    pcie_body(out, f, fs, st, true);
}

/* The tables and their legend; with `findings`, the findings after them. */
static void pcie_body(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_text_style *st, bool findings)
{
    const gd_pcie_bench *b = f->pcie ? f->pcie->bench : NULL;
    if (!b)
        return;
    char head[256];
    snprintf(head, sizeof head,
             "PCIe host<->device bandwidth, GB/s (%% of the theoretical rate of the link the GPU should reach), "
             "%zu MiB copies, median of %d%s",
             b->bytes >> 20, b->reps, f->simulated ? "  [SIMULATION]" : "");
    gd_wrap(out, st, 0, 0, head);
    fputc('\n', out);
    /* The table through check's wrapping: it fits 80 columns, and wraps on a narrower terminal. */
    gd_wrapped w;
    FILE *o = gd_wrapped_open(&w, out);
    fprintf(o, "%-3s %-12s %-9s %12s %12s %12s %12s\n", "GPU", "bus id", "link", "H2D pinned", "D2H pinned",
            "H2D pageable", "D2H pageable");
    bool below = false, idle = false;
    for (int pass = 0; pass < (b->gpu_count > 1 ? 2 : 1); pass++) {
        if (pass == 1)
            fprintf(o, "\nAll %zu GPUs at once:\n", b->gpu_count);
        for (size_t i = 0; i < b->gpu_count; i++) {
            const gd_pcie_bench_gpu *bg = &b->gpus[i];
            double theo;
            json_t *l = link_json(f, bg->gpu, &theo);
            json_decref(l);
            char link[32], idx[16] = "?", mark;
            link_cell(f, bg, link, sizeof link, &mark);
            below |= mark == '*';
            idle |= mark == '+';
            if (bg->gpu >= 0)
                snprintf(idx, sizeof idx, "%d", bg->gpu);
            fprintf(o, "%-3s %-12s %-9s", idx, gd_safe(bg->bdf), link);
            if (bg->error[0] && pass == 0) {
                fprintf(o, "  not measured: %s\n", gd_safe(bg->error));
                continue;
            }
            const double(*v)[2] = pass ? bg->concurrent_gbps : bg->single_gbps;
            cell(o, v[GD_BW_H2D][GD_BW_PINNED], theo);
            cell(o, v[GD_BW_D2H][GD_BW_PINNED], theo);
            cell(o, v[GD_BW_H2D][GD_BW_PAGEABLE], theo);
            cell(o, v[GD_BW_D2H][GD_BW_PAGEABLE], theo);
            fputc('\n', o);
        }
    }
    gd_wrapped_close(&w, st);
    fputc('\n', out);
    gd_wrap(out, st, 6, 0, "link: the link that carried the copies, as the driver read it right after them.");
    if (below) {
        fputs("  ", out);
        gd_wrap(out, st, 5, 2, "*: below the link the GPU should reach in its slot (the percentages are of that one).");
    }
    if (idle) {
        fputs("  ", out);
        gd_wrap(out, st, 5, 2,
                "+: the driver read a lower link after the copies than they needed: an idle link trains down, and "
                "rises under load; shown is the link the GPU should reach, which carried them.");
    }
    char healthy[256];
    snprintf(healthy, sizeof healthy,
             "Healthy links reach about %.0f%% of theoretical with pinned memory (Gen3 x16 15.75, Gen4 31.5, "
             "Gen5 63 GB/s per direction).",
             100 * HEALTHY_RATIO);
    gd_wrap(out, st, 0, 0, healthy);
    if (!findings)
        return;
    if (fs->n == 0)
        fprintf(out, "No finding.\n");
    else
        fputc('\n', out);
    gd_bench_findings_text(out, fs, st);
}

void gd_bench_pcie_tables_text(FILE *out, const gd_facts *f, const gd_text_style *st)
{
    gd_findings none = {0};
    pcie_body(out, f, &none, st, false);
}
