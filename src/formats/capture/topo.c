/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nvidia-smi topo -m output -> topology facts: the GPU-to-GPU matrix (X,
 * NV#, PIX, PXB, PHB, NODE, SYS; SOC from old drivers), each GPU's CPU and
 * NUMA affinity, and the NICs behind the same switch (NIC columns and the
 * "NIC Legend"). Rows GPUk map to f->gpus[k]: nvidia-smi numbers GPUs as
 * NVML does. Tabs or spaces, with or without ANSI underline escapes.
 */
#include "import.h"

#include "gpudoctor/pcie.h"
#include "core/pcie_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOPO_MAX_DEVS 256
#define TOPO_MAX_TOKENS (TOPO_MAX_DEVS + 8)

typedef struct topo_row {
    int gpu; /* k of "GPUk" */
    char cells[TOPO_MAX_DEVS][8];
    char cpus[256];
    char numa[16];
} topo_row;

/* Removes ANSI escapes ("\033[4m") in place. */
static void strip_ansi(char *s)
{
    char *w = s;
    for (char *r = s; *r;) {
        if (*r == '\033' && r[1] == '[') {
            r += 2;
            while (*r && !((*r >= 'a' && *r <= 'z') || (*r >= 'A' && *r <= 'Z')))
                r++;
            if (*r)
                r++;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
}

static size_t split(char *s, char **tok, size_t max)
{
    size_t n = 0;
    char *save = NULL;
    for (char *t = strtok_r(s, " \t", &save); t && n < max; t = strtok_r(NULL, " \t", &save))
        tok[n++] = t;
    return n;
}

/* "GPU12" -> 12, "NIC3" -> 3 (*nic set), else -1. */
static int dev_label(const char *t, bool *nic)
{
    *nic = strncmp(t, "NIC", 3) == 0;
    if (strncmp(t, "GPU", 3) != 0 && !*nic)
        return -1;
    char *end;
    long k = strtol(t + 3, &end, 10);
    return end > t + 3 && !*end && k >= 0 && k < TOPO_MAX_DEVS ? (int)k : -1;
}

static gd_topo_cell parse_cell(const char *c)
{
    gd_topo_cell x = {GD_TOPO_UNKNOWN, 0};
    static const struct {
        const char *name;
        int level;
    } names[] = {
        {"X", GD_TOPO_SELF},    {"PIX", GD_TOPO_PIX}, {"PXB", GD_TOPO_PXB}, {"PHB", GD_TOPO_PHB},
        {"NODE", GD_TOPO_NODE}, {"SYS", GD_TOPO_SYS}, {"SOC", GD_TOPO_SYS},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(c, names[i].name) == 0)
            x.level = names[i].level;
    if (strncmp(c, "NV", 2) == 0)
        x.nvlinks = atoi(c + 2);
    return x;
}

static gd_pcie_gpu *entry_for(gd_pcie_facts *p, const gd_facts *f, int k)
{
    for (size_t i = 0; i < p->gpu_count; i++)
        if (p->gpus[i].gpu == k)
            return &p->gpus[i];
    gd_pcie_gpu *g = gd_pcie_gpu_add(p);
    if (!g)
        return NULL;
    g->gpu = k;
    g->numa_node = gd_missing(GD_ST_NOT_SUPPORTED);
    if ((size_t)k < f->gpu_count) {
        g->matched = true;
        g->gpu = f->gpus[k].index;
        gd_pcie_norm_bdf(f->gpus[k].pci_bus_id, g->bdf, sizeof g->bdf);
    }
    return g;
}

/* Parses the lines into rows; *cols gets the device columns (GPU or NIC). */
static int parse_lines(char *buf, topo_row *rows, size_t *nrows, int *colgpu, bool *colnic, size_t *ncols,
                       char nicname[][32])
{
    char *tok[TOPO_MAX_TOKENS], *save = NULL;
    bool header = false;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        line[strcspn(line, "\r")] = '\0';
        strip_ansi(line);
        int nicno;
        char nm[64];
        if (sscanf(line, " NIC%d: %63s", &nicno, nm) == 2 && nicno >= 0 && nicno < TOPO_MAX_DEVS) {
            gd_pcie_copy(nicname[nicno], 32, nm);
            continue;
        }
        size_t n = split(line, tok, TOPO_MAX_TOKENS);
        bool nic;
        if (n == 0)
            continue;
        if (!header && dev_label(tok[0], &nic) >= 0 &&
            (n == 1 || dev_label(tok[1], &nic) >= 0 || strcmp(tok[1], "CPU") == 0)) {
            header = true; /* the column line: GPU0 GPU1 ... NIC0 ... CPU Affinity ... */
            for (size_t i = 0; i < n && *ncols < TOPO_MAX_DEVS; i++) {
                int k = dev_label(tok[i], &nic);
                if (k < 0)
                    break;
                colgpu[*ncols] = k;
                colnic[(*ncols)++] = nic;
            }
            continue;
        }
        int k = dev_label(tok[0], &nic);
        if (!header || k < 0 || nic || n < 1 + *ncols || *nrows == TOPO_MAX_DEVS)
            continue;
        topo_row *r = &rows[(*nrows)++];
        memset(r, 0, sizeof *r);
        r->gpu = k;
        for (size_t c = 0; c < *ncols; c++)
            gd_pcie_copy(r->cells[c], sizeof r->cells[c], tok[1 + c]);
        if (n > 1 + *ncols)
            gd_pcie_copy(r->cpus, sizeof r->cpus, tok[1 + *ncols]);
        if (n > 2 + *ncols)
            gd_pcie_copy(r->numa, sizeof r->numa, tok[2 + *ncols]);
    }
    return header && *nrows > 0 ? 0 : -1;
}

/* The NIC columns as places: name, and the level to each GPU position. */
static int nic_places(gd_pcie_facts *p, const topo_row *rows, size_t nrows, const int *colgpu, const bool *colnic,
                      size_t ncols, char nicname[][32], const gd_facts *f)
{
    size_t want = 0;
    for (size_t c = 0; c < ncols; c++)
        want += colnic[c];
    if (!want)
        return 0;
    gd_pcie_nic_place *x = calloc(want, sizeof *x);
    if (!x)
        return -1;
    size_t k = 0;
    for (size_t c = 0; c < ncols; c++) {
        if (!colnic[c])
            continue;
        gd_pcie_nic_place *n = &x[k++];
        if (nicname[colgpu[c]][0])
            snprintf(n->name, sizeof n->name, "%s", nicname[colgpu[c]]);
        else
            snprintf(n->name, sizeof n->name, "NIC%d", colgpu[c]);
        n->where.numa_node = gd_missing(GD_ST_NOT_SUPPORTED);
        n->level_count = p->gpu_count < GD_PCIE_TOPO_MAX_GPUS ? p->gpu_count : GD_PCIE_TOPO_MAX_GPUS;
        for (size_t a = 0; a < n->level_count; a++)
            n->levels[a] = GD_TOPO_UNKNOWN;
        for (size_t r = 0; r < nrows; r++) {
            size_t a = 0;
            while (a + 1 < p->gpu_count && p->gpus[a].gpu != rows[r].gpu &&
                   !(p->gpus[a].matched && rows[r].gpu < (int)f->gpu_count &&
                     p->gpus[a].gpu == f->gpus[rows[r].gpu].index))
                a++;
            if (a < n->level_count)
                n->levels[a] = parse_cell(rows[r].cells[c]).level;
        }
    }
    p->nics = x;
    p->nic_count = want;
    return 0;
}

int gd_import_topo(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    char *buf = malloc(len + 1);
    topo_row *rows = malloc(TOPO_MAX_DEVS * sizeof *rows);
    char(*nicname)[32] = calloc(TOPO_MAX_DEVS, 32);
    int colgpu[TOPO_MAX_DEVS];
    bool colnic[TOPO_MAX_DEVS];
    size_t nrows = 0, ncols = 0;
    int rc = -1;
    if (!buf || !rows || !nicname) {
        snprintf(err, errlen, "%s: out of memory", name);
        goto out;
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (parse_lines(buf, rows, &nrows, colgpu, colnic, &ncols, nicname) != 0) {
        snprintf(err, errlen, "%s: no GPU matrix found; is this 'nvidia-smi topo -m' output?", name);
        goto out;
    }
    gd_pcie_facts *p = gd_pcie_facts_get(f);
    gd_pcie_gpu *e = NULL;
    for (size_t r = 0; p && r < nrows; r++)
        if (!(e = entry_for(p, f, rows[r].gpu)))
            break;
    if (p) { /* nvidia-smi's own matrix replaces one derived from an lspci capture */
        free(p->matrix);
        p->matrix = NULL;
    }
    if (!p || !e || !(p->matrix = calloc(p->gpu_count * p->gpu_count, sizeof *p->matrix))) {
        snprintf(err, errlen, "%s: out of memory", name);
        goto out;
    }
    size_t slen = strlen(p->source);
    snprintf(p->source + slen, sizeof p->source - slen, "%stopo:%s", slen ? ", " : "", name);
    size_t n = p->gpu_count;
    for (size_t i = 0; i < n * n; i++)
        p->matrix[i] = (gd_topo_cell){i % (n + 1) == 0 ? GD_TOPO_SELF : GD_TOPO_UNKNOWN, 0};
    for (size_t r = 0; r < nrows; r++) {
        size_t a = 0;
        while (a + 1 < n && p->gpus[a].gpu != rows[r].gpu &&
               !(p->gpus[a].matched && rows[r].gpu < (int)f->gpu_count && p->gpus[a].gpu == f->gpus[rows[r].gpu].index))
            a++;
        gd_pcie_gpu *g = &p->gpus[a];
        if (strcmp(rows[r].cpus, "N/A") != 0)
            gd_pcie_copy(g->cpulist, sizeof g->cpulist, rows[r].cpus);
        char *end;
        long node = strtol(rows[r].numa, &end, 10);
        if (end > rows[r].numa && !*end && node >= 0)
            g->numa_node = gd_val((double)node);
        for (size_t c = 0; c < ncols; c++) {
            gd_topo_cell cell = parse_cell(rows[r].cells[c]);
            if (colnic[c]) {
                if ((cell.level == GD_TOPO_PIX || cell.level == GD_TOPO_PXB) && g->nic_count < GD_PCIE_MAX_NICS) {
                    gd_pcie_nic *x = &g->nics[g->nic_count++];
                    snprintf(x->name, sizeof x->name, "%s", nicname[colgpu[c]][0] ? nicname[colgpu[c]] : "NIC");
                    x->level = cell.level;
                }
                continue;
            }
            for (size_t b = 0; b < n; b++)
                if (p->gpus[b].gpu == colgpu[c] ||
                    (p->gpus[b].matched && colgpu[c] < (int)f->gpu_count && p->gpus[b].gpu == f->gpus[colgpu[c]].index))
                    p->matrix[a * n + b] = cell;
        }
    }
    /* Every NIC of the matrix with its level to each GPU (a tree from sysfs
     * or lspci, where there is one, already places them). */
    rc = p->nic_count ? 0 : nic_places(p, rows, nrows, colgpu, colnic, ncols, nicname, f);
    if (rc != 0)
        snprintf(err, errlen, "%s: out of memory", name);
out:
    free(buf);
    free(rows);
    free(nicname);
    return rc;
}
