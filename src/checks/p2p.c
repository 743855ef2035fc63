/* SPDX-License-Identifier: Apache-2.0 */
/*
 * GPU-to-GPU paths:
 *   p2p.unsupported: the driver does not let two GPUs reach each other's
 *     memory (nvmlDeviceGetP2PStatus), so NCCL moves their traffic through
 *     host memory; with `bench p2p` figures, what that costs;
 *   p2p.slow_pair (bench p2p): pairs whose copies fall short of what their
 *     path allows (analysis/p2p_path.h: across the sockets, the link between
 *     the CPUs too) or of their peers on the same kind of path, grouped by
 *     the link to blame;
 *   p2p.sys_route (bench p2p): pairs that cross the CPUs' interconnect at a
 *     fraction of what pairs within one CPU reach.
 */
#include "analysis/p2p_path.h"
#include "checks_internal.h"
#include "gpudoctor/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A copy below this share of what its path's healthy node measures is slow. */
#define P2P_SLOW_RATIO 0.75
/* ... or, where the link between the CPUs sets that (analysis/cpu_link.h),
 * below this share: its rate is a platform's class figure (NCCL's planning
 * rate), not a link's trained rate, and measured copies across the sockets
 * spread wider between CPU generations than over PCIe. */
#define P2P_CPU_SLOW_RATIO 0.5
/* ... or below this share of the median of its peers on the same kind of path. */
#define P2P_PEER_RATIO 0.7
/* Cross-CPU pairs below this share of the in-CPU pairs are worth placing around. */
#define P2P_SYS_RATIO 0.8

static const char *status_name(int st)
{
    static const char *const names[] = {"ok",
                                        "chipset not supported",
                                        "GPU not supported",
                                        "I/O hub topology not supported",
                                        "disabled by a driver registry key",
                                        "not supported",
                                        "unknown"};
    return st >= 0 && st <= 6 ? names[st] : "unknown";
}

/* The f->gpus index of a bench row, or -1. */
static long row_gpu(const gd_facts *f, const gd_bench_facts *b, size_t row)
{
    return row < b->gpu_count ? gd_bench_facts_gpu(f, &b->gpus[row]) : -1;
}

static int gpu_index(const gd_facts *f, long g)
{
    return g >= 0 && (size_t)g < f->gpu_count ? f->gpus[g].index : GD_NO_GPU;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, size_t n)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The measured copy of GPUs a -> b (f->gpus indexes), or NULL. */
static const gd_p2p_pair *measured(const gd_facts *f, const gd_bench_facts *b, size_t a, size_t c)
{
    for (size_t i = 0; b && b->p2p && i < b->p2p_pair_count; i++) {
        const gd_p2p_pair *p = &b->p2p_pairs[i];
        if (row_gpu(f, b, p->src) == (long)a && row_gpu(f, b, p->dst) == (long)c)
            return p;
    }
    return NULL;
}

/* The least and the most a pair measured, and which pair: what a title can
 * say of figures that differ (never their mean, which no pair measured). */
typedef struct span {
    double lo, hi;
    int lo_a, lo_b, hi_a, hi_b;
} span;

static void span_add(span *s, double v, int a, int b)
{
    if (isnan(s->lo) || v < s->lo) {
        s->lo = v;
        s->lo_a = a;
        s->lo_b = b;
    }
    if (isnan(s->hi) || v > s->hi) {
        s->hi = v;
        s->hi_a = a;
        s->hi_b = b;
    }
}

/* "7.5 GB/s (GPU 0 and 4) to 12.8 GB/s (GPU 0 and 1)", or one figure when they agree. */
static void span_words(const span *s, char *buf, size_t len)
{
    if (s->hi - s->lo < 0.05)
        snprintf(buf, len, "%.1f GB/s", s->lo);
    else
        snprintf(buf, len, "%.1f GB/s (GPU %d and %d) to %.1f GB/s (GPU %d and %d)", s->lo, s->lo_a, s->lo_b, s->hi,
                 s->hi_a, s->hi_b);
}

/* What nvmlDeviceGetP2PStatus answered: nothing is not "P2P works". With
 * no pair answered the check is not checked; a GPU none of whose pairs
 * answered (MIG mode, a refused call) is named, unless it was lost (said
 * elsewhere). Returns whether any pair answered. */
static bool p2p_answered(const gd_facts *f, gd_findings *out)
{
    size_t n = f->gpu_count, answered = 0;
    for (size_t a = 0; a < n; a++)
        for (size_t c = 0; c < n; c++)
            answered += a != c && f->p2p_status[a * n + c] >= 0;
    if (answered == 0) {
        gd_skip_add(out, "p2p.unsupported", GD_NO_GPU,
                    "the driver answered nvmlDeviceGetP2PStatus for no GPU pair (not supported in MIG mode, or "
                    "refused)");
        return false;
    }
    for (size_t a = 0; a < n; a++) {
        bool any = false;
        for (size_t c = 0; c < n && !any; c++)
            any = a != c && (f->p2p_status[a * n + c] >= 0 || f->p2p_status[c * n + a] >= 0);
        if (!any && !f->gpus[a].lost)
            gd_skip_add(out, "p2p.unsupported", f->gpus[a].index,
                        "the driver answered nvmlDeviceGetP2PStatus for none of the GPU's pairs");
    }
    return true;
}

void gd_check_p2p_unsupported(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    size_t n = f->gpu_count;
    if (n < 2)
        return;
    if (!f->p2p_status) {
        gd_skip_add(out, "p2p.unsupported", GD_NO_GPU, "the driver's P2P status (nvmlDeviceGetP2PStatus) was not read");
        return;
    }
    if (!p2p_answered(f, out))
        return;
    /* One finding per status: the pairs it holds for, and what they cost where bench p2p measured them. */
    for (int st = 1; st <= 6; st++) {
        json_t *pairs = json_array();
        size_t count = 0, costed = 0;
        double cost_sum = 0;
        span staged = {NAN, NAN, 0, 0, 0, 0}, would = {NAN, NAN, 0, 0, 0, 0};
        int first_a = -1, first_b = -1;
        for (size_t a = 0; a < n; a++)
            for (size_t c = a + 1; c < n; c++) {
                int s = f->p2p_status[a * n + c];
                if (s != st)
                    continue;
                count++;
                if (first_a < 0) {
                    first_a = f->gpus[a].index;
                    first_b = f->gpus[c].index;
                }
                json_t *e = json_object();
                json_object_set_new(e, "gpus", json_pack("[ii]", f->gpus[a].index, f->gpus[c].index));
                gd_p2p_path path;
                const gd_p2p_pair *m = measured(f, f->bench, a, c);
                if (gd_p2p_path_of(f, a, c, &path) == 0 && !isnan(path.gbps)) {
                    /* The path's rate: its slowest hop (across the CPUs, their link). */
                    json_object_set_new(e, "path_gbps", gd_json_number(round(gd_p2p_path_rate(&path, true) * 10) / 10));
                    json_object_set_new(e, "path", json_string(path.limit));
                    if (m && !isnan(m->uni_gbps)) {
                        double expected = gd_p2p_path_expected(&path, false);
                        json_object_set_new(e, "copy_gbps", gd_json_number(round(m->uni_gbps * 10) / 10));
                        if (m->uni_gbps < expected) {
                            cost_sum += 1 - m->uni_gbps / expected;
                            span_add(&staged, m->uni_gbps, f->gpus[a].index, f->gpus[c].index);
                            span_add(&would, expected, f->gpus[a].index, f->gpus[c].index);
                            costed++;
                        }
                    }
                }
                json_array_append_new(pairs, e);
            }
        if (!count) {
            json_decref(pairs);
            continue;
        }
        json_t *ev = json_object();
        json_object_set_new(ev, "status", json_string(status_name(st)));
        json_object_set_new(ev, "pairs", pairs);
        json_object_set_new(ev, "source", json_string("nvml:nvmlDeviceGetP2PStatus(NVML_P2P_CAPS_INDEX_READ)"));
        double loss = costed ? 100 * cost_sum / (double)costed : NAN;
        /* Switched off (a registry key) or an I/O hub that could be placed around: a fault to fix; a
         * board or chipset that has no P2P (GeForce cards, some platforms): how the machine is built. */
        gd_severity sev = st == 4 || st == 3 ? GD_SEV_WARNING : GD_SEV_INFO;
        char fix[900];
        snprintf(fix, sizeof fix,
                 "Without P2P, NCCL moves GPU-to-GPU traffic through host memory (its SHM transport), at a "
                 "fraction of the PCIe path's rate and with CPU memory bandwidth in the loop. %s Check with "
                 "'nvidia-smi topo -p2p r' and %s; NCCL_P2P_DISABLE=1 in the environment forces the same fallback "
                 "for NCCL alone.",
                 st == 4   ? "A driver registry key switched it off: remove the NVreg_RegistryDwords entry that "
                             "disables peer-to-peer (modprobe.d, kernel command line) and reload the driver."
                 : st == 3 ? "The I/O hub between these GPUs does not forward peer traffic: put GPUs that work "
                             "together under one PCIe switch or one CPU, and check that ACS is off on the "
                             "switches ('sudo lspci -vvv | grep ACSCtl') and the IOMMU in passthrough."
                           : "This board or platform has no P2P (GeForce cards, and platforms whose chipset "
                             "does not route it): multi-GPU training here is bound by host memory; NVLink-bridged "
                             "or data-center GPUs, or fewer GPUs per job, avoid it.",
                 /* Inside `bench p2p` (or `bench all`) the copies are this report's own. */
                 f->bench && f->bench->p2p ? "compare the copies this report measured"
                                           : "measure the copies with 'gpudoctor bench p2p'");
        char cost[320] = "";
        if (costed) {
            /* Each pair's own figure: the least and the most, with the pairs that measured them. */
            json_object_set_new(ev, "staged_copy_min_gbps", gd_json_number(round(staged.lo * 10) / 10));
            json_object_set_new(ev, "staged_copy_min_pair", json_pack("[ii]", staged.lo_a, staged.lo_b));
            json_object_set_new(ev, "staged_copy_max_gbps", gd_json_number(round(staged.hi * 10) / 10));
            json_object_set_new(ev, "staged_copy_max_pair", json_pack("[ii]", staged.hi_a, staged.hi_b));
            json_object_set_new(ev, "p2p_expected_min_gbps", gd_json_number(round(would.lo * 10) / 10));
            json_object_set_new(ev, "p2p_expected_max_gbps", gd_json_number(round(would.hi * 10) / 10));
            char a[120], b[120];
            span_words(&staged, a, sizeof a);
            if (would.hi - would.lo < 0.05)
                snprintf(b, sizeof b, "%.1f GB/s", would.lo);
            else
                snprintf(b, sizeof b, "%.1f to %.1f GB/s", would.lo, would.hi);
            snprintf(cost, sizeof cost, ": copies go through host memory at %s, where P2P would carry %s", a, b);
        }
        gd_finding_add(out, "p2p.unsupported", sev, GD_NO_GPU, ev, loss, fix,
                       "No P2P between %zu GPU pair%s (GPU %d and %d%s), %s%s", count, count == 1 ? "" : "s", first_a,
                       first_b, count > 1 ? ", ..." : "", status_name(st), cost);
    }
}

/* The group key of pairs that the link between the CPUs slows. */
#define CPU_KEY "cpu link"

typedef struct slow_group {
    char key[24]; /* the blamed device's bdf, "gpuN" (its NVLinks) or CPU_KEY */
    char limit[200];
    double path_gbps, path_full_gbps, expected;
    int route;
    size_t count;
    double worst_ratio, worst_gbps, peer_median;
    int wa, wb;
    bool by_peers;
    int gpu; /* the GPU whose own link is to blame, else GD_NO_GPU (a bridge, or NVLinks: the source) */
    json_t *pairs;
} slow_group;

/* The pairs (two GPUs either way) among a list of copies {from, to}. */
static size_t pair_count(const json_t *copies)
{
    size_t n = 0, i, k;
    json_t *c, *d;
    json_array_foreach((json_t *)copies, i, c)
    {
        json_int_t a = json_integer_value(json_object_get(c, "from")), b = json_integer_value(json_object_get(c, "to"));
        bool seen = false;
        json_array_foreach((json_t *)copies, k, d)
        {
            if (k >= i)
                break;
            seen |= json_integer_value(json_object_get(d, "from")) == b &&
                    json_integer_value(json_object_get(d, "to")) == a;
        }
        n += !seen;
    }
    return n;
}

/* Each measured pair's path, worked out once (known[i]: the pair is matched and its path known). */
static gd_p2p_path *pair_paths(const gd_facts *f, const gd_bench_facts *b, bool **known)
{
    size_t n = b->p2p_pair_count ? b->p2p_pair_count : 1;
    gd_p2p_path *paths = malloc(n * sizeof *paths);
    *known = calloc(n, sizeof **known);
    for (size_t i = 0; paths && *known && i < b->p2p_pair_count; i++) {
        long a = row_gpu(f, b, b->p2p_pairs[i].src), c = row_gpu(f, b, b->p2p_pairs[i].dst);
        (*known)[i] = a >= 0 && c >= 0 && gd_p2p_path_of(f, (size_t)a, (size_t)c, &paths[i]) == 0;
    }
    if (!paths || !*known) {
        free(paths);
        free(*known);
        *known = NULL;
        return NULL;
    }
    return paths;
}

/* The pairs' measured one-way rates with the same route and path rate (within 5 %). */
static double peer_median(const gd_bench_facts *b, const gd_p2p_path *paths, const bool *known, const gd_p2p_path *ref)
{
    double *v = malloc(b->p2p_pair_count * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; v && i < b->p2p_pair_count; i++) {
        const gd_p2p_pair *p = &b->p2p_pairs[i];
        if (!known[i] || isnan(p->uni_gbps) || !p->peer_enabled || paths[i].route != ref->route ||
            fabs(paths[i].gbps - ref->gbps) > 0.05 * ref->gbps)
            continue;
        v[k++] = p->uni_gbps;
    }
    double m = k >= 3 ? median(v, k) : NAN;
    free(v);
    return m;
}

void gd_check_p2p_slow_pair(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_bench_facts *b = f->bench;
    if (!b)
        return;
    if (!b->p2p) {
        gd_skip_add(out, "p2p.slow_pair", GD_NO_GPU, "measured by 'gpudoctor bench p2p', which did not run");
        return;
    }
    slow_group g[16];
    size_t ng = 0;
    bool *known;
    gd_p2p_path *paths = pair_paths(f, b, &known);
    for (size_t i = 0; paths && i < b->p2p_pair_count; i++) {
        const gd_p2p_pair *p = &b->p2p_pairs[i];
        long a = row_gpu(f, b, p->src), c = row_gpu(f, b, p->dst);
        const gd_p2p_path path = paths[i];
        /* Pairs without P2P are p2p.unsupported's; unknown paths have nothing to be held to. */
        if (!known[i] || isnan(p->uni_gbps) || !p->peer_enabled || isnan(path.gbps))
            continue;
        double expected = gd_p2p_path_expected(&path, false);
        /* Across the sockets, the CPUs' link is to blame unless a PCIe link on the way trained down. */
        bool cpu = gd_p2p_path_cpu_limited(&path) && !path.downtrained;
        double peers = peer_median(b, paths, known, &path);
        bool slow = p->uni_gbps < (cpu ? P2P_CPU_SLOW_RATIO : P2P_SLOW_RATIO) * expected;
        bool behind = !slow && !isnan(peers) && p->uni_gbps < P2P_PEER_RATIO * peers;
        if (!slow && !behind)
            continue;
        char key[24];
        if (cpu && slow)
            snprintf(key, sizeof key, "%s", CPU_KEY);
        else if (path.route != GD_P2P_ROUTE_NVLINK && path.slowest_bdf[0])
            snprintf(key, sizeof key, "%s", path.slowest_bdf);
        else
            snprintf(key, sizeof key, "gpu%d", gpu_index(f, a));
        size_t k = 0;
        while (k < ng && strcmp(g[k].key, key) != 0)
            k++;
        if (k == ng) {
            if (ng == sizeof g / sizeof g[0])
                continue;
            memset(&g[ng], 0, sizeof g[ng]);
            snprintf(g[ng].key, sizeof g[ng].key, "%s", key);
            g[ng].worst_ratio = 2; /* the first pair is the worst so far: it fills the rest */
            g[ng].gpu = path.route == GD_P2P_ROUTE_NVLINK ? gpu_index(f, a)
                        : strcmp(key, CPU_KEY) == 0       ? GD_NO_GPU
                        : path.blame_gpu >= 0             ? gpu_index(f, path.blame_gpu)
                                                          : GD_NO_GPU;
            g[ng].pairs = json_array();
            ng++;
        }
        slow_group *x = &g[k];
        double ratio = behind ? p->uni_gbps / peers : p->uni_gbps / expected;
        x->count++;
        if (ratio < x->worst_ratio) {
            x->worst_ratio = ratio;
            x->worst_gbps = p->uni_gbps;
            x->peer_median = peers;
            x->by_peers = behind;
            x->wa = gpu_index(f, a);
            x->wb = gpu_index(f, c);
            /* The evidence describes the worst pair's path (a hop may slow paths of several kinds). */
            snprintf(x->limit, sizeof x->limit, "%s", path.limit);
            x->path_gbps = gd_p2p_path_rate(&path, true);
            x->path_full_gbps = gd_p2p_path_rate(&path, false);
            x->expected = expected;
            x->route = path.route;
        }
        json_t *e = json_object();
        json_object_set_new(e, "from", json_integer(gpu_index(f, a)));
        json_object_set_new(e, "to", json_integer(gpu_index(f, c)));
        json_object_set_new(e, "copy_gbps", gd_json_number(round(p->uni_gbps * 10) / 10));
        json_array_append_new(x->pairs, e);
    }
    free(paths);
    free(known);
    for (size_t k = 0; k < ng; k++) {
        slow_group *x = &g[k];
        json_t *ev = json_object();
        json_object_set_new(ev, "route", json_string(gd_p2p_route_name((gd_p2p_route)x->route)));
        json_object_set_new(ev, "path", json_string(x->limit));
        /* The path's rate is its slowest hop as it runs (a link trained down: its rate); trained fully beside it. */
        json_object_set_new(ev, "path_gbps", gd_json_number(round(x->path_gbps * 10) / 10));
        if (fabs(x->path_full_gbps - x->path_gbps) > 0.05)
            json_object_set_new(ev, "path_full_gbps", gd_json_number(round(x->path_full_gbps * 10) / 10));
        json_object_set_new(ev, "expected_gbps", gd_json_number(round(x->expected * 10) / 10));
        json_object_set_new(ev, "peer_median_gbps",
                            isnan(x->peer_median) ? json_null() : gd_json_number(round(x->peer_median * 10) / 10));
        /* A pair is two GPUs; each copy one direction of one. */
        size_t npairs = pair_count(x->pairs);
        json_object_set_new(ev, "pair_count", json_integer((json_int_t)npairs));
        json_object_set_new(ev, "copies", x->pairs);
        json_object_set_new(ev, "source",
                            json_string("cuda:cuMemcpyPeerAsync timed by CUDA events (bench p2p); "
                                        "the path from the PCIe tree and NVML's NVLinks"));
        double loss = 100 * (1 - x->worst_ratio);
        bool cpu = strcmp(x->key, CPU_KEY) == 0;
        gd_severity sev = loss >= GD_IMPACT_CRITICAL_PCT && !cpu ? GD_SEV_CRITICAL : GD_SEV_WARNING;
        char fix[1200];
        if (cpu)
            /* A setting of the platform, not a part to replace: never critical. */
            snprintf(fix, sizeof fix,
                     "Copies across the CPUs run far below what their link carries (%.200s), while the GPUs' own "
                     "PCIe links trained fully. Check the BIOS settings of the link between the sockets: on AMD "
                     "EPYC the xGMI link width and speed (a fixed full width rather than dynamic link width "
                     "management), on Intel the UPI link speed and the number of links; on any, that the IOMMU is "
                     "off or in passthrough ('iommu=pt') so peer traffic is not remapped. Jobs that exchange the "
                     "most data belong on GPUs of one CPU ('gpudoctor topo').",
                     x->limit);
        else if (x->route == GD_P2P_ROUTE_NVLINK)
            snprintf(fix, sizeof fix,
                     "Look at GPU %d's NVLinks: 'nvidia-smi nvlink -s -i %d' (links down or slow), 'nvidia-smi "
                     "nvlink -e -i %d' (CRC and replay counters; gpudoctor's nvlink.errors and nvlink.down say the "
                     "same), and on NVSwitch systems the fabric ('systemctl status nvidia-fabricmanager'). A link "
                     "that stays down after a reset needs the board serviced.",
                     x->wa, x->wa, x->wa);
        else
            snprintf(
                fix, sizeof fix,
                "The pairs share one slow hop, %.200s: reseat the card or the switch's cable/riser, check the slot "
                "and the BIOS's PCIe speed settings, and 'sudo lspci -vv -s %.24s' (LnkSta against LnkCap). A "
                "switch with a narrow or older uplink belongs to the board's design: keep GPUs that exchange "
                "the most data (tensor-parallel groups) behind one switch.",
                x->limit, x->key);
        if (x->by_peers)
            gd_finding_add(out, "p2p.slow_pair", sev, x->gpu, ev, loss, fix,
                           "GPU %d to %d copies %.1f GB/s, %.0f%% below its peers on the same path (%.1f GB/s)%s",
                           x->wa, x->wb, x->worst_gbps, loss, x->peer_median,
                           x->count > 1 ? "; more pairs through the same hop" : "");
        else {
            char which[64];
            if (x->count == 2 * npairs)
                snprintf(which, sizeof which, "%zu pair%s, both ways,", npairs, npairs == 1 ? "" : "s");
            else if (x->count == npairs)
                snprintf(which, sizeof which, "%zu pair%s, one way,", npairs, npairs == 1 ? "" : "s");
            else
                snprintf(which, sizeof which, "%zu pairs, %zu of their %zu copies,", npairs, x->count, 2 * npairs);
            gd_finding_add(out, "p2p.slow_pair", sev, x->gpu, ev, loss, fix,
                           "GPU %d to %d copies %.1f GB/s, %.0f%% of the %.1f GB/s a healthy node copies on its path "
                           "(%s slow through %s)",
                           x->wa, x->wb, x->worst_gbps, 100 * x->worst_ratio, x->expected, which,
                           cpu                ? "the link between the CPUs"
                           : x->key[0] == 'g' ? "its NVLinks"
                                              : x->key);
        }
    }
}

void gd_check_p2p_sys_route(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_bench_facts *b = f->bench;
    if (!b)
        return;
    if (!b->p2p) {
        gd_skip_add(out, "p2p.sys_route", GD_NO_GPU, "measured by 'gpudoctor bench p2p', which did not run");
        return;
    }
    size_t n = b->p2p_pair_count;
    double *sys = malloc((n ? n : 1) * sizeof *sys), *near = malloc((n ? n : 1) * sizeof *near);
    size_t ns = 0, nn = 0;
    json_t *pairs = json_array();
    for (size_t i = 0; sys && near && i < n; i++) {
        const gd_p2p_pair *p = &b->p2p_pairs[i];
        long a = row_gpu(f, b, p->src), c = row_gpu(f, b, p->dst);
        gd_p2p_path path;
        if (a < 0 || c < 0 || isnan(p->uni_gbps) || gd_p2p_path_of(f, (size_t)a, (size_t)c, &path) != 0)
            continue;
        if (path.route == GD_P2P_ROUTE_SYS) {
            sys[ns++] = p->uni_gbps;
            if (p->src < p->dst)
                json_array_append_new(pairs, json_pack("[ii]", gpu_index(f, a), gpu_index(f, c)));
        } else if (path.route == GD_P2P_ROUTE_SWITCH || path.route == GD_P2P_ROUTE_HOST) {
            near[nn++] = p->uni_gbps;
        }
    }
    double ms = median(sys, ns), mn = median(near, nn);
    free(sys);
    free(near);
    if (!ns || !nn || !(ms < P2P_SYS_RATIO * mn)) {
        json_decref(pairs);
        return;
    }
    json_t *ev = json_object();
    json_object_set_new(ev, "cross_cpu_gbps", gd_json_number(round(ms * 10) / 10));
    json_object_set_new(ev, "within_cpu_gbps", gd_json_number(round(mn * 10) / 10));
    json_object_set_new(ev, "pairs", pairs);
    json_object_set_new(ev, "source",
                        json_string("cuda:cuMemcpyPeerAsync timed by CUDA events (bench p2p); the "
                                    "topology level from the PCIe tree and NUMA nodes"));
    double loss = 100 * (1 - ms / mn);
    gd_finding_add(out, "p2p.sys_route", GD_SEV_INFO, GD_NO_GPU, ev, loss,
                   "Give a job GPUs of one CPU: set CUDA_VISIBLE_DEVICES (or Slurm's --gres-flags=enforce-binding, "
                   "the Kubernetes topology manager's single-numa-node policy) to GPUs that 'gpudoctor topo' shows "
                   "as PIX, PXB, PHB or NODE to each other. Jobs that need every GPU cross the link anyway: a "
                   "hierarchical all-reduce (NCCL does it by itself) keeps most traffic within a CPU.",
                   "Copies between GPUs of different CPUs run at %.1f GB/s, %.0f%% below the %.1f GB/s within one "
                   "CPU (%zu pair%s cross)",
                   ms, loss, mn, json_array_size(pairs), json_array_size(pairs) == 1 ? "" : "s");
}
