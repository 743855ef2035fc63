/* SPDX-License-Identifier: Apache-2.0 */
/* `gpudoctor topo`: the GPU-to-GPU matrix as nvidia-smi topo -m shows it. */
#include "pcie_report.h"
#include "text_util.h"

#include "core/json_util.h"
#include "gpudoctor/pcie.h"
#include "analysis/topology.h"
#include "core/pcie_util.h"

#include <math.h>

#include <string.h>

static const char *const legend[][2] = {
    {"X", "Self"},
    {"SYS", "Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)"},
    {"NODE", "Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node"},
    {"PHB", "Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)"},
    {"PXB", "Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)"},
    {"PIX", "Connection traversing at most a single PCIe bridge"},
    {"NV#", "Connection traversing a bonded set of # NVLinks"},
};

static json_t *hop_json(const gd_pcie_hop *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "bdf", json_string(h->bdf));
    json_object_set_new(o, "role", json_string(h->role));
    json_object_set_new(o, "speed_gts", gd_json_value(h->speed_gts));
    json_object_set_new(o, "speed_max_gts", gd_json_value(h->speed_max_gts));
    json_object_set_new(o, "gen", gd_json_value(h->gen));
    json_object_set_new(o, "gen_max", gd_json_value(h->gen_max));
    json_object_set_new(o, "width", gd_json_value(h->width));
    json_object_set_new(o, "width_max", gd_json_value(h->width_max));
    return o;
}

/* Whether the matrix can show NVLinks: an nvidia-smi topo capture, or NVML
 * (live, simulated) that reports each GPU's links. lspci sees PCIe only. */
static bool nvlink_visible(const gd_facts *f)
{
    if (!f->captured || (f->pcie && strstr(f->pcie->source, "topo:")))
        return true;
    for (size_t g = 0; g < f->gpu_count; g++)
        if (f->gpus[g].nvlink_count > 0)
            return true;
    return false;
}

static const char nvlink_note[] =
    "lspci cannot see NVLink: the GPU-to-GPU links shown are PCIe paths only. Run 'nvidia-smi topo -m' or "
    "'gpudoctor topo' on the machine (or add 'nvidia-smi topo -m' output with --from) to see NVLink.";

/* The level between NIC n and each GPU, as nvidia-smi topo -m's NIC columns. */
static int nic_level(const gd_pcie_facts *p, size_t nic, size_t gpu)
{
    const gd_pcie_nic_place *x = &p->nics[nic];
    if (x->level_count) /* nvidia-smi topo -m said it */
        return gpu < x->level_count ? x->levels[gpu] : GD_TOPO_UNKNOWN;
    return gd_topo_pair_level(&p->gpus[gpu], &x->where);
}

static json_t *nics_json(const gd_pcie_facts *p)
{
    json_t *arr = json_array();
    for (size_t k = 0; p && k < p->nic_count; k++) {
        const gd_pcie_nic_place *x = &p->nics[k];
        json_t *o = json_object(), *links = json_array();
        json_object_set_new(o, "name", json_string(x->name));
        json_object_set_new(o, "model", x->model[0] ? json_string(x->model) : json_null());
        json_object_set_new(o, "pci_bus_id", x->where.bdf[0] ? json_string(x->where.bdf) : json_null());
        json_object_set_new(o, "numa_node", gd_json_value(x->where.numa_node));
        for (size_t g = 0; g < p->gpu_count; g++)
            json_array_append_new(links, json_string(gd_topo_level_name(nic_level(p, k, g))));
        json_object_set_new(o, "links", links);
        json_array_append_new(arr, o);
    }
    return arr;
}

/* nvidia-smi topo -p2p r's codes of an nvmlGpuP2PStatus_t (DIS: a registry
 * key switched it off, which nvidia-smi has no code for); NULL: not read. */
static const char *p2p_code(const gd_facts *f, size_t pa, size_t pb)
{
    const gd_pcie_facts *p = f->pcie;
    if (!f->p2p_status || !p->gpus[pa].matched || !p->gpus[pb].matched)
        return NULL;
    size_t a = (size_t)p->gpus[pa].gpu, b = (size_t)p->gpus[pb].gpu, n = f->gpu_count;
    if (a >= n || b >= n)
        return NULL;
    static const char *const codes[] = {"OK", "CNS", "GNS", "TNS", "DIS", "NS", "U"};
    int st = f->p2p_status[a * n + b];
    return a == b ? "X" : st >= 0 && st <= 6 ? codes[st] : "?";
}

static const char p2p_legend[] = "P2P (nvmlDeviceGetP2PStatus, read): OK, CNS chipset not supported, GNS GPU not "
                                 "supported, TNS topology not supported, DIS disabled by a registry key, NS not "
                                 "supported, U unknown, ? not read";

static json_t *p2p_json(const gd_facts *f)
{
    const gd_pcie_facts *p = f->pcie;
    size_t n = p ? p->gpu_count : 0;
    if (!n || !f->p2p_status)
        return json_null();
    json_t *m = json_array();
    for (size_t a = 0; a < n; a++) {
        json_t *row = json_array();
        for (size_t b = 0; b < n; b++) {
            const char *c = p2p_code(f, a, b);
            json_array_append_new(row, c ? json_string(c) : json_null());
        }
        json_array_append_new(m, row);
    }
    return m;
}

json_t *gd_topo_json(const gd_facts *f)
{
    const gd_pcie_facts *p = f->pcie;
    json_t *root = json_object();
    json_object_set_new(root, "source", json_string(p ? p->source : ""));
    json_t *gpus = json_array(), *matrix = json_array();
    size_t n = p ? p->gpu_count : 0;
    for (size_t a = 0; a < n; a++) {
        const gd_pcie_gpu *g = &p->gpus[a];
        json_t *o = json_object();
        json_object_set_new(o, "index", json_integer(g->gpu));
        /* false: a GPU of an lspci or topo capture that no nvidia-smi capture names */
        json_object_set_new(o, "matched", json_boolean(g->matched || f->gpu_count == 0));
        json_object_set_new(o, "pci_bus_id", json_string(g->bdf));
        json_object_set_new(o, "numa_node", gd_json_value(g->numa_node));
        json_object_set_new(o, "cpu_affinity", g->cpulist[0] ? json_string(g->cpulist) : json_null());
        json_object_set_new(o, "host_bridge", g->host_bridge[0] ? json_string(g->host_bridge) : json_null());
        json_t *path = json_array(), *nics = json_array();
        for (size_t k = 0; k < g->hop_count; k++)
            json_array_append_new(path, hop_json(&g->hops[k]));
        for (size_t k = 0; k < g->nic_count; k++) {
            json_t *x = json_object();
            json_object_set_new(x, "name", json_string(g->nics[k].name));
            json_object_set_new(x, "pci_bus_id", g->nics[k].bdf[0] ? json_string(g->nics[k].bdf) : json_null());
            json_object_set_new(x, "link", json_string(gd_topo_level_name(g->nics[k].level)));
            json_array_append_new(nics, x);
        }
        json_object_set_new(o, "path", path);
        json_object_set_new(o, "nics", nics);
        json_array_append_new(gpus, o);
        json_t *row = json_array();
        for (size_t b = 0; b < n; b++) {
            char cell[16] = "?";
            if (p->matrix)
                gd_topo_cell_label(p->matrix[a * n + b], cell, sizeof cell);
            json_array_append_new(row, json_string(cell));
        }
        json_array_append_new(matrix, row);
    }
    json_object_set_new(root, "gpus", gpus);
    json_object_set_new(root, "matrix", matrix);
    /* links: one per GPU, in the order of "gpus" */
    json_object_set_new(root, "nics", nics_json(p));
    bool nv = nvlink_visible(f);
    json_object_set_new(root, "nvlink_visible", json_boolean(nv));
    json_object_set_new(root, "note", nv ? json_null() : json_string(nvlink_note));
    json_t *leg = json_object();
    for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++)
        json_object_set_new(leg, legend[i][0], json_string(legend[i][1]));
    json_object_set_new(root, "legend", leg);
    json_object_set_new(root, "p2p", p2p_json(f));
    json_object_set_new(root, "p2p_legend", json_string(p2p_legend));
    return root;
}

/* Cells of the matrices: 6 columns each ("NV18  "), after an 8-column label. */
#define TOPO_LABEL 8
#define TOPO_CELL 6

/* Rows of a matrix, `per` GPU columns at a time (a block per fit of the
 * width): row_label(k) and cell(k, b) say what to print. */
typedef void (*topo_cell_fn)(const gd_facts *f, size_t row, size_t col, char *buf, size_t len);

static void topo_matrix(FILE *out, const gd_facts *f, size_t rows, const char *row_prefix, topo_cell_fn cell,
                        size_t per)
{
    const gd_pcie_facts *p = f->pcie;
    size_t n = p->gpu_count;
    for (size_t from = 0; from < n; from += per) {
        size_t to = from + per < n ? from + per : n;
        if (from)
            fputc('\n', out);
        fprintf(out, "%-*s", TOPO_LABEL, "");
        for (size_t b = from; b < to; b++) {
            char h[16];
            snprintf(h, sizeof h, "GPU%d", p->gpus[b].gpu);
            fprintf(out, "%-*s", b + 1 < to ? TOPO_CELL : 0, h);
        }
        fputc('\n', out);
        for (size_t k = 0; k < rows; k++) {
            char label[32];
            if (strcmp(row_prefix, "GPU") == 0)
                snprintf(label, sizeof label, "GPU%d", p->gpus[k].gpu);
            else
                snprintf(label, sizeof label, "%s%zu", row_prefix, k);
            fprintf(out, "%-*s", TOPO_LABEL, label);
            for (size_t b = from; b < to; b++) {
                char c[16];
                cell(f, k, b, c, sizeof c);
                fprintf(out, "%-*s", b + 1 < to ? TOPO_CELL : 0, c);
            }
            fputc('\n', out);
        }
    }
}

static void gpu_cell(const gd_facts *f, size_t a, size_t b, char *buf, size_t len)
{
    const gd_pcie_facts *p = f->pcie;
    snprintf(buf, len, "?");
    if (p->matrix)
        gd_topo_cell_label(p->matrix[a * p->gpu_count + b], buf, len);
}

static void p2p_cell(const gd_facts *f, size_t a, size_t b, char *buf, size_t len)
{
    const char *c = p2p_code(f, a, b);
    snprintf(buf, len, "%s", c ? c : "?");
}

static void nic_cell(const gd_facts *f, size_t k, size_t b, char *buf, size_t len)
{
    snprintf(buf, len, "%s", gd_topo_level_name(nic_level(f->pcie, k, b)));
}

/* "Gen5 x16", "x8", or "n/a". */
static void link_words(gd_value gen, gd_value width, char *buf, size_t len)
{
    if (gd_ok(gen) && gd_ok(width))
        snprintf(buf, len, "Gen%.0f x%.0f", gen.v, width.v);
    else if (gd_ok(width))
        snprintf(buf, len, "x%.0f", width.v);
    else if (gd_ok(gen))
        snprintf(buf, len, "Gen%.0f", gen.v);
    else
        snprintf(buf, len, "n/a");
}

/* Each GPU's own PCIe link now and at most (the tree's, else the driver's),
 * and the slowest link of the bridges on its way to the CPU where one is
 * slower than the GPU's own: what a 'bench pcie' or NCCL figure is held to. */
static void links_table(FILE *out, const gd_facts *f, const gd_text_style *st)
{
    const gd_pcie_facts *p = f->pcie;
    bool below = false, known = false;
    for (size_t a = 0; a < p->gpu_count; a++) {
        const gd_pcie_gpu *g = &p->gpus[a];
        const gd_series *sr = &f->series;
        known |= (g->hop_count && gd_ok(g->hops[0].width)) ||
                 (g->matched && (size_t)g->gpu < f->gpu_count && sr->n &&
                  gd_ok(gd_series_at(sr, sr->n - 1, (size_t)g->gpu, GD_M_PCIE_WIDTH)));
    }
    if (!known) {
        fputc('\n', out);
        gd_wrap(out, st, 0, 0,
                "PCIe links: not in this capture ('nvidia-smi topo -m' shows no link speed; add 'lspci -vv' or "
                "'nvidia-smi -q' output with --from)");
        return;
    }
    fputc('\n', out);
    gd_wrap(out, st, 0, 0, "PCIe links of each GPU, now and at most; the slowest on its way to the CPU:");
    fprintf(out, "%-*s%-10s%-10s%s\n", TOPO_LABEL, "", "now", "max", "path to the CPU");
    for (size_t a = 0; a < p->gpu_count; a++) {
        const gd_pcie_gpu *g = &p->gpus[a];
        gd_value gen = gd_missing(GD_ST_UNREAD), width = gen, gen_max = gen, width_max = gen;
        if (g->hop_count) {
            gen = g->hops[0].gen, width = g->hops[0].width;
            gen_max = g->hops[0].gen_max, width_max = g->hops[0].width_max;
        }
        if (g->matched && (size_t)g->gpu < f->gpu_count) { /* the driver's word where the tree has none */
            const gd_gpu *d = &f->gpus[g->gpu];
            const gd_series *sr = &f->series;
            if (!gd_ok(gen) && sr->n)
                gen = gd_series_at(sr, sr->n - 1, (size_t)g->gpu, GD_M_PCIE_GEN);
            if (!gd_ok(width) && sr->n)
                width = gd_series_at(sr, sr->n - 1, (size_t)g->gpu, GD_M_PCIE_WIDTH);
            if (!gd_ok(gen_max))
                gen_max = d->pcie_gen_max;
            if (!gd_ok(width_max))
                width_max = d->pcie_width_max;
        }
        char now[24], max[24], path[160] = "n/a", label[16];
        link_words(gen, width, now, sizeof now);
        link_words(gen_max, width_max, max, sizeof max);
        below |= gd_ok(gen) && gd_ok(gen_max) && gen.v < gen_max.v;
        if (g->hop_count > 1) {
            /* The bridges' links, slowest first by what each carries. */
            double own = gd_ok(gen) && gd_ok(width) ? gd_pcie_link_gbps((int)gen.v, (int)width.v) : NAN;
            const gd_pcie_hop *slow = NULL;
            double slow_gbps = NAN;
            for (size_t k = 1; k < g->hop_count; k++) {
                const gd_pcie_hop *h = &g->hops[k];
                double r = gd_ok(h->gen) && gd_ok(h->width) ? gd_pcie_link_gbps((int)h->gen.v, (int)h->width.v) : NAN;
                if (!isnan(r) && (isnan(slow_gbps) || r < slow_gbps))
                    slow = h, slow_gbps = r;
            }
            if (!slow)
                snprintf(path, sizeof path, "%zu bridge%s, links n/a", g->hop_count - 1, g->hop_count == 2 ? "" : "s");
            else if (!isnan(own) && slow_gbps < own) {
                char l[24];
                link_words(slow->gen, slow->width, l, sizeof l);
                char role[16];
                snprintf(role, sizeof role, "%s", slow->role);
                for (char *u = strchr(role, '_'); u; u = strchr(u, '_'))
                    *u = ' '; /* "switch port" */
                snprintf(path, sizeof path, "slowest %s at %s (%s)", l, slow->bdf, role);
            } else
                snprintf(path, sizeof path, "%zu bridge%s, none slower", g->hop_count - 1,
                         g->hop_count == 2 ? "" : "s");
        }
        snprintf(label, sizeof label, "GPU%d", g->gpu);
        fprintf(out, "%-*s%-10s%-10s%s\n", TOPO_LABEL, label, now, max, path);
    }
    if (below)
        gd_wrap(out, st, 0, 0,
                "An idle GPU's link trains down (to Gen1) and rises under load: 'gpudoctor bench pcie' loads it.");
}

void gd_topo_text(FILE *out, const gd_facts *f, const gd_text_style *st)
{
    gd_wrapped w;
    gd_text_banner(gd_wrapped_open(&w, out), f, "", st);
    gd_wrapped_close(&w, st);
    fputc('\n', out);
    const gd_pcie_facts *p = f->pcie;
    size_t n = p ? p->gpu_count : 0;
    if (n == 0) {
        fprintf(out, "No GPU topology known (%s).\n", p ? gd_safe(p->source) : "no sysfs tree or capture");
        return;
    }
    int width = st && st->width > 0 ? st->width : 80;
    size_t per = width > TOPO_LABEL + TOPO_CELL ? (size_t)(width - TOPO_LABEL) / TOPO_CELL : 1;
    topo_matrix(out, f, n, "GPU", gpu_cell, per);
    /* Where each GPU sits: nvidia-smi's last three columns, as their own table. */
    fprintf(out, "\n%-*s%-16s%-15s%s\n", TOPO_LABEL, "", "CPU Affinity", "NUMA Affinity", "PCI bus id");
    for (size_t a = 0; a < n; a++) {
        const gd_pcie_gpu *g = &p->gpus[a];
        char label[16], node[16] = "N/A";
        snprintf(label, sizeof label, "GPU%d", g->gpu);
        if (gd_ok(g->numa_node))
            snprintf(node, sizeof node, "%.0f", g->numa_node.v);
        char cpus[160];
        snprintf(cpus, sizeof cpus, "%s", g->cpulist[0] ? gd_safe(g->cpulist) : "N/A");
        const char *bdf = g->bdf[0] ? gd_safe(g->bdf) : "n/a"; /* a topo -m capture gives none */
        if (strlen(cpus) > 15) /* a long CPU list on its own line */
            fprintf(out, "%-*s%s\n%-*s%-16s%-15s%s\n", TOPO_LABEL, label, cpus, TOPO_LABEL, "", "", node, bdf);
        else
            fprintf(out, "%-*s%-16s%-15s%s\n", TOPO_LABEL, label, cpus, node, bdf);
    }
    links_table(out, f, st);
    if (f->p2p_status) {
        bool all_ok = true;
        for (size_t a = 0; a < n; a++)
            for (size_t b = 0; b < n; b++) {
                const char *c = p2p_code(f, a, b);
                all_ok &= c && (strcmp(c, "OK") == 0 || strcmp(c, "X") == 0);
            }
        if (all_ok) {
            fprintf(out, "\nP2P: OK between every pair (nvmlDeviceGetP2PStatus)\n");
        } else {
            fprintf(out, "\nP2P, as the driver allows it (nvidia-smi topo -p2p r):\n");
            topo_matrix(out, f, n, "GPU", p2p_cell, per);
            gd_wrap(out, st, 2, 0, p2p_legend);
        }
    }
    if (p->nic_count) {
        fprintf(out, "\nNICs, as each GPU reaches them:\n");
        topo_matrix(out, f, p->nic_count, "NIC", nic_cell, per);
        fprintf(out, "\nNIC Legend:\n\n");
        for (size_t k = 0; k < p->nic_count; k++) {
            const gd_pcie_nic_place *x = &p->nics[k];
            bool named = x->where.bdf[0] && strcmp(x->name, x->where.bdf) != 0;
            char line[512];
            snprintf(line, sizeof line, "NIC%zu: %s%s%s%s%s", k, x->name, named ? " " : "", named ? x->where.bdf : "",
                     x->model[0] ? " " : "", x->model);
            fprintf(out, "  ");
            gd_wrap(out, st, 8, 2, line);
        }
    }
    bool any_nic = false;
    for (size_t a = 0; a < n; a++)
        any_nic |= p->gpus[a].nic_count > 0;
    if (any_nic) {
        fprintf(out, "\nNICs behind the same PCIe switch (pair them for GPUDirect RDMA):\n");
        for (size_t a = 0; a < n; a++) {
            const gd_pcie_gpu *g = &p->gpus[a];
            if (!g->nic_count)
                continue;
            char line[2048];
            size_t used = (size_t)snprintf(line, sizeof line, "GPU%d:", g->gpu);
            for (size_t k = 0; k < g->nic_count && used < sizeof line; k++)
                used += (size_t)snprintf(line + used, sizeof line - used, " %s (%s%s%s)", g->nics[k].name,
                                         gd_topo_level_name(g->nics[k].level),
                                         g->nics[k].bdf[0] && strcmp(g->nics[k].bdf, g->nics[k].name) ? ", " : "",
                                         strcmp(g->nics[k].bdf, g->nics[k].name) ? g->nics[k].bdf : "");
            fprintf(out, "  ");
            gd_wrap(out, st, 8, 2, line);
        }
    }
    bool unmatched = false;
    for (size_t a = 0; a < n && f->gpu_count > 0; a++)
        unmatched |= !p->gpus[a].matched;
    if (unmatched) {
        char line[4096];
        size_t used = (size_t)snprintf(
            line, sizeof line, "Not listed by the nvidia-smi capture (another machine's?), numbered in bus order:");
        const char *sep = " ";
        for (size_t a = 0; a < n && used < sizeof line; a++)
            if (!p->gpus[a].matched) {
                used += (size_t)snprintf(line + used, sizeof line - used, "%sGPU%d %s", sep, p->gpus[a].gpu,
                                         p->gpus[a].bdf[0] ? p->gpus[a].bdf : "(no bus id)");
                sep = ", ";
            }
        fputc('\n', out);
        gd_wrap(out, st, 2, 0, line);
    }
    if (!nvlink_visible(f)) {
        fprintf(out, "\nNote: ");
        gd_wrap(out, st, 6, 6, nvlink_note);
    }
    fprintf(out, "\nLegend:\n\n");
    for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++) {
        fprintf(out, "  %-4s = ", legend[i][0]);
        gd_wrap(out, st, 9, 9, legend[i][1]);
    }
    fprintf(out, "\nSource: ");
    gd_wrap(out, st, 8, 8, p->source);
}
