/* SPDX-License-Identifier: Apache-2.0 */
/* The PCIe model (include/gpudoctor/pcie.h): storage, link rates, bus ids,
 * CPU lists. Pure: read by sources, formats, analyses and checks alike. */
#include "gpudoctor/pcie.h"
#include "core/pcie_util.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gd_pcie_copy(char *dst, size_t len, const char *src)
{
    if (len == 0)
        return;
    size_t n = src ? strnlen(src, len - 1) : 0;
    memcpy(dst, src ? src : "", n);
    dst[n] = '\0';
}

void gd_pcie_facts_free(gd_pcie_facts *p)
{
    if (!p)
        return;
    if (p->bench)
        free(p->bench->gpus);
    free(p->bench);
    free(p->gpus);
    free(p->matrix);
    free(p->nics);
    free(p);
}

gd_pcie_facts *gd_pcie_facts_get(gd_facts *f)
{
    if (!f->pcie) {
        f->pcie = calloc(1, sizeof *f->pcie);
        if (f->pcie)
            f->pcie->job.pid = -1;
    }
    return f->pcie;
}

gd_pcie_gpu *gd_pcie_gpu_add(gd_pcie_facts *p)
{
    gd_pcie_gpu *v = realloc(p->gpus, (p->gpu_count + 1) * sizeof *v);
    if (!v)
        return NULL;
    p->gpus = v;
    /* The matrix is sized by the GPU count: a new GPU invalidates it. */
    free(p->matrix);
    p->matrix = NULL;
    gd_pcie_gpu *g = &v[p->gpu_count++];
    memset(g, 0, sizeof *g);
    g->gpu = -1;
    return g;
}

double gd_pcie_parse_speed(const char *s)
{
    while (s && isspace((unsigned char)*s))
        s++;
    if (!s || !isdigit((unsigned char)*s))
        return NAN; /* "Unknown", "Unknown speed", "unknown" */
    char *end;
    double v = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (strncmp(end, "GT/s", 4) != 0 || !(v > 0 && v < 1000))
        return NAN;
    return v;
}

int gd_pcie_gen_of_speed(double gts)
{
    static const double rates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    for (int i = 0; i < 6; i++)
        if (fabs(gts - rates[i]) < 0.01)
            return i + 1;
    return 0;
}

double gd_pcie_link_gbps(int gen, int width)
{
    /* Per lane and direction after line encoding (research/facts.md 2.1):
     * 8b/10b for Gen1-2, 128b/130b for Gen3-5, FLIT 242/256 for Gen6. */
    static const double lane[] = {
        0, 0.25, 0.5, 8.0 * 128 / 130 / 8, 16.0 * 128 / 130 / 8, 32.0 * 128 / 130 / 8, 64.0 * 242 / 256 / 8};
    if (gen < 1 || gen > 6 || width < 1 || width > 32)
        return NAN;
    return lane[gen] * width;
}

int gd_pcie_norm_bdf(const char *in, char *out, size_t len)
{
    unsigned dom = 0, bus, dev, fn;
    char tail;
    if (!in)
        return -1;
    if (sscanf(in, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4) {
        dom = 0;
        if (sscanf(in, "%x:%x.%x%c", &bus, &dev, &fn, &tail) != 3)
            return -1;
    }
    if (bus > 0xff || dev > 0x1f || fn > 7)
        return -1;
    snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
    return 0;
}

/* Calls fn for every CPU range of a cpulist; stops (false) on garbage. */
static bool cpulist_walk(const char *list, bool (*fn)(void *, long, long), void *ud)
{
    const char *s = list;
    if (!s)
        return false;
    while (*s && *s != '\n') {
        char *end;
        if (!isdigit((unsigned char)*s))
            return false;
        long lo = strtol(s, &end, 10), hi = lo;
        s = end;
        if (*s == '-') {
            if (!isdigit((unsigned char)s[1]))
                return false;
            hi = strtol(s + 1, &end, 10);
            s = end;
        }
        if (hi < lo || hi > 1 << 20 || !fn(ud, lo, hi))
            return false;
        if (*s == ',')
            s++;
        else if (*s && *s != '\n')
            return false;
    }
    return true;
}

struct has_ctx {
    long cpu;
    bool hit;
};

static bool has_fn(void *ud, long lo, long hi)
{
    struct has_ctx *c = ud;
    c->hit |= c->cpu >= lo && c->cpu <= hi;
    return true;
}

bool gd_cpulist_has(const char *list, int cpu)
{
    struct has_ctx c = {cpu, false};
    return cpulist_walk(list, has_fn, &c) && c.hit;
}

static bool count_fn(void *ud, long lo, long hi)
{
    *(long *)ud += hi - lo + 1;
    return true;
}

int gd_cpulist_count(const char *list)
{
    long n = 0;
    return cpulist_walk(list, count_fn, &n) ? (int)n : 0;
}

const gd_pcie_gpu *gd_pcie_gpu_of(const gd_facts *f, int gpu)
{
    if (!f->pcie)
        return NULL;
    for (size_t i = 0; i < f->pcie->gpu_count; i++)
        if (f->pcie->gpus[i].matched && f->pcie->gpus[i].gpu == gpu)
            return &f->pcie->gpus[i];
    return NULL;
}

/* The first readable of a and b; b when neither is. */
static gd_value first_ok(gd_value a, gd_value b)
{
    return gd_ok(a) ? a : b;
}

/* a lowered to cap where both are readable. */
static gd_value capped(gd_value a, gd_value cap)
{
    return gd_ok(a) && gd_ok(cap) && cap.v < a.v ? cap : a;
}

static const gd_pcie_hop *port_above(const gd_pcie_gpu *pg)
{
    return pg && pg->hop_count > 1 ? &pg->hops[1] : NULL;
}

static const gd_pcie_hop *own_hop(const gd_pcie_gpu *pg)
{
    return pg && pg->hop_count > 0 ? &pg->hops[0] : NULL;
}

static const gd_value unknown = {.status = GD_ST_NOT_SUPPORTED};

bool gd_pcie_device_link(const gd_facts *f, size_t g, int *gen, int *width)
{
    const gd_gpu *gpu = &f->gpus[g];
    const gd_pcie_hop *own = own_hop(gd_pcie_gpu_of(f, gpu->index));
    gd_value mg = first_ok(gpu->pcie_gen_max_device, own ? own->gen_max : unknown);
    gd_value mw = first_ok(gpu->pcie_width_max_device, own ? own->width_max : unknown);
    *gen = gd_ok(mg) ? (int)mg.v : 0;
    *width = gd_ok(mw) ? (int)mw.v : 0;
    return gd_ok(mg) || gd_ok(mw);
}

bool gd_pcie_expected_link(const gd_facts *f, size_t g, int *gen, int *width)
{
    const gd_gpu *gpu = &f->gpus[g];
    const gd_pcie_gpu *pg = gd_pcie_gpu_of(f, gpu->index);
    const gd_pcie_hop *own = own_hop(pg), *slot = port_above(pg);
    /* Card and slot together; else the card's own (a capture without
     * nvidia-smi: the device's LnkCap), capped below by what the host and the
     * port above allow where known. */
    gd_value mg = first_ok(gpu->pcie_gen_max, first_ok(gpu->pcie_gen_max_device, own ? own->gen_max : unknown));
    gd_value mw = first_ok(gpu->pcie_width_max, first_ok(gpu->pcie_width_max_device, own ? own->width_max : unknown));
    if (!gd_ok(mg) || !gd_ok(mw))
        return false;
    mg = capped(capped(mg, gpu->pcie_gen_max_host), slot ? slot->gen_max : unknown);
    mw = capped(mw, slot ? slot->width_max : unknown);
    *gen = (int)mg.v;
    *width = (int)mw.v;
    return true;
}

/* Sets *dst to v when *dst is unknown and v is not; says whether it did. */
static bool fill(gd_value *dst, gd_value v)
{
    if (gd_ok(*dst) || !gd_ok(v))
        return false;
    *dst = v;
    return true;
}

void gd_pcie_fill_link_max(gd_facts *f, const char *source)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        gd_gpu *gpu = &f->gpus[g];
        const gd_pcie_gpu *pg = gd_pcie_gpu_of(f, gpu->index);
        const gd_pcie_hop *own = own_hop(pg), *slot = port_above(pg);
        if (!own)
            continue;
        bool used = fill(&gpu->pcie_gen_max_device, own->gen_max);
        used |= fill(&gpu->pcie_width_max_device, own->width_max);
        /* Together: only where the port above is known; without it the slot is not. */
        if (slot && gd_ok(slot->gen_max))
            used |= fill(&gpu->pcie_gen_max, capped(gpu->pcie_gen_max_device, slot->gen_max));
        if (slot && gd_ok(slot->width_max))
            used |= fill(&gpu->pcie_width_max, capped(gpu->pcie_width_max_device, slot->width_max));
        if (!used)
            continue;
        size_t n = strlen(gpu->pcie_max_source);
        snprintf(gpu->pcie_max_source + n, sizeof gpu->pcie_max_source - n, "%s%s", n ? "; " : "", source);
    }
}

bool gd_pcie_bench_link(const gd_facts *f, size_t g, const gd_pcie_bench_gpu *bg, int *gen, int *width, bool *as_read)
{
    *as_read = false;
    double fastest = NAN;
    for (int d = 0; d < 2; d++)
        for (int m = 0; m < 2; m++) {
            if (!isnan(bg->single_gbps[d][m]) && !(bg->single_gbps[d][m] <= fastest))
                fastest = bg->single_gbps[d][m];
            if (!isnan(bg->concurrent_gbps[d][m]) && !(bg->concurrent_gbps[d][m] <= fastest))
                fastest = bg->concurrent_gbps[d][m];
        }
    if (gd_ok(bg->link_gen) && gd_ok(bg->link_width) && bg->link_gen.v >= 1 && bg->link_width.v >= 1) {
        int rg = (int)bg->link_gen.v, rw = (int)bg->link_width.v;
        /* 5 % over the line rate: the rate is what no copy can pass */
        if (isnan(fastest) || fastest <= 1.05 * gd_pcie_link_gbps(rg, rw)) {
            *gen = rg;
            *width = rw;
            *as_read = true;
            return true;
        }
    }
    return g < f->gpu_count && gd_pcie_expected_link(f, g, gen, width);
}

void gd_pci_bus_id_norm(const char *in, char *out, size_t len)
{
    unsigned dom = 0, bus, dev, fn;
    int n = 0;
    out[0] = '\0';
    if (sscanf(in, "%x:%x:%x.%x%n", &dom, &bus, &dev, &fn, &n) == 4 && in[n] == '\0') {
    } else if (sscanf(in, "%x:%x.%x%n", &bus, &dev, &fn, &n) == 3 && in[n] == '\0') {
        dom = 0;
    } else {
        return;
    }
    if (bus > 0xff || dev > 0x1f || fn > 7)
        return;
    snprintf(out, len, "%08X:%02X:%02X.%X", dom, bus, dev, fn);
}
