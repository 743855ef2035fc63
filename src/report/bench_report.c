/* SPDX-License-Identifier: Apache-2.0 */
/* `gpudoctor bench pcie`: measured bandwidth against the link's rate. */
#include "pcie_report.h"
#include "text_util.h"
#include "gpudoctor/report.h"

#include "core/json_util.h"
#include "gpudoctor/pcie.h"
#include "core/pcie_util.h"

#include <math.h>
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
        if (json_is_object(link)) { /* the link that carried the copies */
            json_object_set_new(link, "measured_gen", gd_json_value(bg->link_gen));
            json_object_set_new(link, "measured_width", gd_json_value(bg->link_width));
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
    /* The findings as the check report writes them. */
    json_t *rep = gd_report_json(f, fs);
    json_object_set(root, "findings", json_object_get(rep, "findings"));
    json_object_set(root, "not_checked", json_object_get(rep, "not_checked"));
    json_decref(rep);
}

static void cell(FILE *out, double v, double theo)
{
    if (isnan(v))
        fprintf(out, "  %14s", "n/a");
    else if (isnan(theo))
        fprintf(out, "  %8.2f      ", v);
    else
        fprintf(out, "  %8.2f (%2.0f%%)", v, 100 * v / theo);
}

void gd_bench_pcie_text(FILE *out, const gd_facts *f, const gd_findings *fs)
{
    const gd_pcie_bench *b = f->pcie ? f->pcie->bench : NULL;
    if (!b)
        return;
    fprintf(
        out,
        "PCIe host<->device bandwidth, GB/s (%% of the link's theoretical rate), %zu MiB copies, median of %d%s\n\n",
        b->bytes >> 20, b->reps, f->simulated ? "  [SIMULATION]" : "");
    fprintf(out, "%-5s %-13s %-10s  %14s  %14s  %14s  %14s\n", "GPU", "bus id", "link", "H2D pinned", "D2H pinned",
            "H2D pageable", "D2H pageable");
    for (int pass = 0; pass < (b->gpu_count > 1 ? 2 : 1); pass++) {
        if (pass == 1)
            fprintf(out, "\nAll %zu GPUs at once:\n", b->gpu_count);
        for (size_t i = 0; i < b->gpu_count; i++) {
            const gd_pcie_bench_gpu *bg = &b->gpus[i];
            double theo;
            json_t *l = link_json(f, bg->gpu, &theo);
            char link[32] = "n/a", idx[16] = "?";
            /* As measured during the copies; what it should reach where that was not read. */
            if (gd_ok(bg->link_gen) && gd_ok(bg->link_width))
                snprintf(link, sizeof link, "Gen%.0f x%.0f", bg->link_gen.v, bg->link_width.v);
            else if (json_is_object(l))
                snprintf(link, sizeof link, "Gen%lld x%lld", json_integer_value(json_object_get(l, "gen")),
                         json_integer_value(json_object_get(l, "width")));
            json_decref(l);
            if (bg->gpu >= 0)
                snprintf(idx, sizeof idx, "%d", bg->gpu);
            fprintf(out, "%-5s %-13s %-10s", idx, gd_safe(bg->bdf), link);
            if (bg->error[0] && pass == 0) {
                fprintf(out, "  not measured: %s\n", gd_safe(bg->error));
                continue;
            }
            const double(*v)[2] = pass ? bg->concurrent_gbps : bg->single_gbps;
            cell(out, v[GD_BW_H2D][GD_BW_PINNED], theo);
            cell(out, v[GD_BW_D2H][GD_BW_PINNED], theo);
            cell(out, v[GD_BW_H2D][GD_BW_PAGEABLE], theo);
            cell(out, v[GD_BW_D2H][GD_BW_PAGEABLE], theo);
            fputc('\n', out);
        }
    }
    fprintf(out,
            "\nHealthy links reach about %.0f%% of theoretical with pinned memory (Gen3 x16 15.75, Gen4 31.5, "
            "Gen5 63 GB/s per direction).\n",
            100 * HEALTHY_RATIO);
    if (fs->n == 0)
        fprintf(out, "No finding.\n");
    for (size_t i = 0; i < fs->n; i++)
        fprintf(out, "\n%s [%s] %s\n  fix: %s\n", gd_severity_name(fs->v[i].severity), fs->v[i].id,
                gd_safe(fs->v[i].title), gd_safe(fs->v[i].fix));
}
