/* PCIe facts: storage, link rates, bus ids and CPU lists. */
#include "gpudoctor/pcie.h"

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
    static const double lane[] = {0, 0.25, 0.5, 8.0 * 128 / 130 / 8, 16.0 * 128 / 130 / 8, 32.0 * 128 / 130 / 8,
                                  64.0 * 242 / 256 / 8};
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

bool gd_pcie_expected_link(const gd_facts *f, size_t g, int *gen, int *width)
{
    const gd_gpu *gpu = &f->gpus[g];
    const gd_pcie_gpu *pg = gd_pcie_gpu_of(f, gpu->index);
    gd_value mg = gpu->pcie_gen_max, mw = gpu->pcie_width_max;
    if (pg && pg->hop_count > 0) { /* NVML not there (a capture): the device's own LnkCap */
        if (!gd_ok(mg))
            mg = pg->hops[0].gen_max;
        if (!gd_ok(mw))
            mw = pg->hops[0].width_max;
    }
    if (!gd_ok(mg) || !gd_ok(mw))
        return false;
    *gen = (int)mg.v;
    *width = (int)mw.v;
    if (pg && pg->hop_count > 1) {
        const gd_pcie_hop *slot = &pg->hops[1];
        if (gd_ok(slot->gen_max) && slot->gen_max.v < *gen)
            *gen = (int)slot->gen_max.v;
        if (gd_ok(slot->width_max) && slot->width_max.v < *width)
            *width = (int)slot->width_max.v;
    }
    return true;
}
