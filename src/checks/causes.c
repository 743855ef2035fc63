/* SPDX-License-Identifier: Apache-2.0 */
/* Findings grouped into causes, symptoms under their cause (causes.h). */
#include "checks/causes.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The DataLoader seen by the trace, by the job's threads and by its
 * workers is one loader; run --profile ranks it once (joined.c). */
#define LOADER "the DataLoader: each step waits for its next batch"
#define COPIES "host-to-device copies with no compute beside them"
static const gd_cause_rule rules[] = {
    {"trace.dataloader", "dataloader", GD_CAUSE_JOB, true, LOADER},
    {"input.single_thread", "dataloader", GD_CAUSE_JOB, true, LOADER},
    {"input.starved", "dataloader", GD_CAUSE_JOB, true, LOADER},
    {"input.few_workers", "dataloader", GD_CAUSE_JOB, true, LOADER},
    {"input.workers_respawned", "dataloader", GD_CAUSE_JOB, true, LOADER},
    {"input.io_wait", "io_wait", GD_CAUSE_JOB, true, "the job waits for storage"},
    {"trace.item_sync", "host_reads", GD_CAUSE_TRACE, true,
     "host reads of tensor values (.item(), .cpu()) hold the step"},
    {"trace.sync", "host_sync", GD_CAUSE_TRACE, true, "synchronizations block the host"},
    {"trace.small_kernels", "small_kernels", GD_CAUSE_TRACE, true,
     "kernels shorter than their launch: the GPU waits for the host to launch"},
    {"trace.step_memcpy", "copies", GD_CAUSE_TRACE, false, COPIES},
    {"trace.pageable_memcpy", "copies", GD_CAUSE_TRACE, false, COPIES},
    {"trace.comm_overlap", "communication", GD_CAUSE_TRACE, false, "communication that compute does not hide"},
    {"trace.straggler", "straggler", GD_CAUSE_TRACE, false, "one rank is slower than the others"},
    {"trace.fp32_gemm", "fp32_gemm", GD_CAUSE_TRACE, false, "FP32 matrix multiplies without tensor cores"},
};

const gd_cause_rule *gd_cause_rule_of(const char *id)
{
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        if (strcmp(rules[i].id, id) == 0)
            return &rules[i];
    return NULL;
}

/* What keeps a job's GPUs waiting on the host side (the idle symptoms' causes). */
#define HOST_SIDE                                                                                                      \
    "dataloader", "io_wait", "input.swapping", "input.gil_contention", "input.cpu_starved", "input.affinity_narrow",   \
        "input.cpu_governor", "env.launch_blocking"
/* A PCIe link seen below what card and slot allow. */
#define LINK_STATE "pcie.link_downgraded", "pcie.upstream_downgraded", "pcie.width_reduced", "pcie.slot_limited"
/* What slows a GPU's own work, seen on that GPU. */
#define SLOWDOWN                                                                                                       \
    "thermal.throttling", "power.brake", "power.hw_slowdown", "power.limit_lowered", "clocks.locked", "clocks.low"

/* Symptoms and their causes (docs/checks.md, "Causes and symptoms", holds
 * this table: a unit test compares them). The graph has no cycle (a unit
 * test walks it): a symptom's cause may itself be a symptom, and the whole
 * chain is one cause. */
const gd_symptom_rule gd_symptom_rules[] = {
    {"gpu.underutilized",
     GD_SYMPTOM_ANYWHERE,
     true,
     {HOST_SIDE, "host_reads", "host_sync", "small_kernels"},
     "a GPU that holds the job's memory and idles waits for what the job's host side does"},
    {"trace.gpu_idle",
     GD_SYMPTOM_ANYWHERE,
     true,
     {HOST_SIDE, "host_reads", "host_sync", "small_kernels"},
     "the trace's GPU idle time is the time the host-side causes hold the step"},
    {"thermal.outlier",
     GD_SYMPTOM_SAME_GPU,
     false,
     {"thermal.throttling"},
     "a GPU hotter than its peers that throttles: one cooling problem"},
    {"health.gpu_lost",
     GD_SYMPTOM_SAME_GPU,
     false,
     {"health.xid"},
     "the kernel's Xid on a GPU that stopped answering records the same event"},
    {"health.row_remap",
     GD_SYMPTOM_SAME_GPU,
     false,
     {"health.ecc_uncorrectable"},
     "uncorrectable ECC errors are what remaps rows and retires pages"},
    {"vram.near_full",
     GD_SYMPTOM_SAME_GPU,
     false,
     {"vram.growing", "vram.foreign_process"},
     "memory that keeps growing, or another process's, is what fills it"},
    {"pcie.bandwidth_low",
     GD_SYMPTOM_SAME_GPU,
     false,
     {LINK_STATE, "p2p.slow_pair"},
     "a link below its rate, or a slow hop on the GPU's path, carries less"},
    {"p2p.slow_pair",
     GD_SYMPTOM_SAME_GPU,
     false,
     {LINK_STATE, "nvlink.down", "nvlink.errors", "net.acs_enabled"},
     "a pair's copies are as fast as the slowest link on their path"},
    {"bench.nccl_low",
     GD_SYMPTOM_ANYWHERE,
     false,
     {"p2p.slow_pair", LINK_STATE, "pcie.bandwidth_low", "nvlink.down", "nvlink.errors", "nvlink.fabric",
      "topology.iommu_p2p", "env.nccl_p2p_disabled", "env.nccl_shm_disabled", "net.acs_enabled"},
     "NCCL's ring runs at the pace of its slowest edge"},
    {"bench.gemm_low", GD_SYMPTOM_SAME_GPU, false, {SLOWDOWN}, "a GPU held below its clocks multiplies slower"},
    {"bench.membw_low", GD_SYMPTOM_SAME_GPU, false, {SLOWDOWN}, "a GPU held below its clocks copies slower"},
    {"clocks.outlier",
     GD_SYMPTOM_SAME_GPU,
     false,
     {SLOWDOWN},
     "a GPU slower than its peers for a reason another finding names"},
    {"net.gpu_nic_far",
     GD_SYMPTOM_ANYWHERE,
     false,
     {"net.port_down"},
     "a GPU whose own NIC is down reaches the network through a far one"},
    {"nccl_log.gdr_off",
     GD_SYMPTOM_ANYWHERE,
     false,
     {"net.gdr_module", "env.nccl_gdr_level"},
     "NCCL stages through host memory what GPUDirect RDMA would carry: its module is missing or a variable "
     "turns it off"},
    {"nccl_log.socket_fallback",
     GD_SYMPTOM_ANYWHERE,
     false,
     {"env.nccl_ib_disabled", "env.nccl_ib_hca"},
     "NCCL uses sockets because the environment keeps it off the RDMA NICs"},
    {"nccl_log.bad_iface",
     GD_SYMPTOM_ANYWHERE,
     false,
     {"env.nccl_socket_ifname"},
     "NCCL bootstraps on the interface NCCL_SOCKET_IFNAME names"},
    {"nccl_log.transport_disabled",
     GD_SYMPTOM_ANYWHERE,
     false,
     {"env.nccl_p2p_disabled", "env.nccl_shm_disabled"},
     "NCCL's log repeats what the environment turned off"},
    {"nccl_tests.below_nics",
     GD_SYMPTOM_ANYWHERE,
     false,
     {"net.port_down", "net.port_rate_low", "net.port_errors", "net.gdr_module", "net.acs_enabled",
      "nccl_log.socket_fallback", "nccl_log.gdr_off"},
     "the collective runs at the pace of the slowest NIC port, or of host memory where GPUDirect is off"},
};
const size_t gd_symptom_rules_count = sizeof gd_symptom_rules / sizeof *gd_symptom_rules;

const gd_symptom_rule *gd_symptom_rule_of(const char *id)
{
    for (size_t i = 0; i < gd_symptom_rules_count; i++)
        if (strcmp(gd_symptom_rules[i].id, id) == 0)
            return &gd_symptom_rules[i];
    return NULL;
}

void gd_cause_generic_text(const char *text, int gpu, char *buf, size_t len)
{
    char own[2][24];
    snprintf(own[0], sizeof own[0], "GPU %d", gpu);
    snprintf(own[1], sizeof own[1], "-i %d", gpu);
    size_t used = 0;
    if (len == 0)
        return;
    while (*text && used + 1 < len) {
        size_t k = 0;
        for (; gpu != GD_NO_GPU && k < 2; k++) {
            size_t n = strlen(own[k]);
            if (strncmp(text, own[k], n) == 0 && !isdigit((unsigned char)text[n]))
                break;
        }
        if (gpu != GD_NO_GPU && k < 2) {
            const char *rep = k == 0 ? "GPU #" : "-i #";
            size_t r = strlen(rep);
            if (used + r >= len)
                break;
            memcpy(buf + used, rep, r);
            used += r;
            text += strlen(own[k]);
        } else {
            buf[used++] = *text++;
        }
    }
    buf[used] = '\0';
}

/* The GPUs a finding is on: its own, and those of its evidence's pairs
 * (p2p.slow_pair names each pair's "from" and "to"). */
size_t gd_finding_gpus(const gd_finding *x, int *g, size_t cap)
{
    size_t n = 0;
    if (x->gpu != GD_NO_GPU && n < cap)
        g[n++] = x->gpu;
    /* A pair's GPUs: "pairs" (p2p.unsupported, sys_route), or each copy of
     * one, a pair's one direction (p2p.slow_pair's "copies"). */
    static const char *const lists[] = {"pairs", "copies"};
    for (size_t l = 0; l < 2; l++) {
        json_t *pairs = json_object_get(x->evidence, lists[l]), *p;
        size_t i;
        json_array_foreach(pairs, i, p)
        {
            static const char *const ends[] = {"from", "to"};
            for (size_t e = 0; e < 2; e++) {
                json_t *v = json_object_get(p, ends[e]);
                if (!json_is_integer(v) || n >= cap)
                    continue;
                int gpu = (int)json_integer_value(v);
                bool seen = false;
                for (size_t k = 0; k < n && !seen; k++)
                    seen = g[k] == gpu;
                if (!seen)
                    g[n++] = gpu;
            }
        }
    }
    return n;
}

#define MAX_TOUCH 64

static bool share_gpu(const gd_finding *a, const gd_finding *b)
{
    int ga[MAX_TOUCH], gb[MAX_TOUCH];
    size_t na = gd_finding_gpus(a, ga, MAX_TOUCH), nb = gd_finding_gpus(b, gb, MAX_TOUCH);
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if (ga[i] == gb[j])
                return true;
    return false;
}

/* Is finding x what `name` (an id or a rule key) names? */
static bool names(const gd_finding *x, const char *name)
{
    if (strcmp(x->id, name) == 0)
        return true;
    const gd_cause_rule *r = gd_cause_rule_of(x->id);
    return r && strcmp(r->key, name) == 0;
}

/* The finding that explains symptom s, or SIZE_MAX. */
static size_t explained_by(const gd_findings *fs, size_t s)
{
    const gd_finding *x = &fs->v[s];
    const gd_symptom_rule *r = gd_symptom_rule_of(x->id);
    for (size_t c = 0; r && c < GD_SYMPTOM_MAX_CAUSES && r->causes[c]; c++)
        for (size_t j = 0; j < fs->n; j++) {
            const gd_finding *y = &fs->v[j];
            if (j == s || y->ignored || !names(y, r->causes[c]))
                continue;
            if (r->scope == GD_SYMPTOM_SAME_GPU && !share_gpu(x, y))
                continue;
            return j;
        }
    return SIZE_MAX;
}

/* Two findings that are one cause: one rule key, or one id and severity
 * with the same fix once each GPU's own number is taken out. */
static bool same_cause(const gd_finding *a, const gd_finding *b)
{
    const gd_cause_rule *ra = gd_cause_rule_of(a->id), *rb = gd_cause_rule_of(b->id);
    if (ra && rb)
        return strcmp(ra->key, rb->key) == 0;
    if (strcmp(a->id, b->id) != 0 || a->severity != b->severity)
        return false;
    char fa[sizeof a->fix], fb[sizeof b->fix];
    gd_cause_generic_text(a->fix, a->gpu, fa, sizeof fa);
    gd_cause_generic_text(b->fix, b->gpu, fb, sizeof fb);
    return strcmp(fa, fb) == 0;
}

static int worse(const gd_grouped_cause *x, const gd_grouped_cause *y)
{
    if (x->severity != y->severity)
        return x->severity > y->severity ? -1 : 1;
    if (isnan(x->impact_pct) != isnan(y->impact_pct))
        return isnan(x->impact_pct) ? 1 : -1;
    if (!isnan(x->impact_pct) && x->impact_pct != y->impact_pct)
        return x->impact_pct > y->impact_pct ? -1 : 1;
    return x->members[0] < y->members[0] ? -1 : x->members[0] > y->members[0];
}

static int cmp_cause(const void *a, const void *b)
{
    return worse(a, b);
}

static void take(gd_grouped_cause *c, const gd_finding *x)
{
    if (x->severity > c->severity)
        c->severity = x->severity;
    if (!isnan(x->impact_pct) && (isnan(c->impact_pct) || x->impact_pct > c->impact_pct))
        c->impact_pct = x->impact_pct;
}

int gd_group_causes(const gd_findings *fs, gd_grouped_causes *out)
{
    *out = (gd_grouped_causes){0};
    size_t n = fs->n;
    if (n == 0)
        return 0;
    size_t *root = malloc(n * sizeof *root), *cause = malloc(n * sizeof *cause);
    out->v = calloc(n, sizeof *out->v);
    out->slots = malloc(n * sizeof *out->slots);
    if (!root || !cause || !out->v || !out->slots) {
        free(root);
        free(cause);
        gd_grouped_causes_free(out);
        return -1;
    }
    /* Each symptom's root: its cause's cause, and so on (n steps at most). */
    for (size_t i = 0; i < n; i++) {
        cause[i] = SIZE_MAX;
        root[i] = fs->v[i].ignored ? SIZE_MAX : i;
        size_t at = i, steps = 0;
        for (size_t up; root[i] != SIZE_MAX && (up = explained_by(fs, at)) != SIZE_MAX && steps <= n; steps++)
            at = up;
        if (root[i] != SIZE_MAX)
            root[i] = steps > n ? i : at; /* a loop (a table error): the finding stands alone */
    }
    /* The roots, grouped; then every symptom into its root's cause. */
    size_t nc = 0;
    for (size_t i = 0; i < n; i++) {
        if (root[i] != i || cause[i] != SIZE_MAX)
            continue;
        cause[i] = nc;
        for (size_t j = i + 1; j < n; j++)
            if (root[j] == j && cause[j] == SIZE_MAX && same_cause(&fs->v[i], &fs->v[j]))
                cause[j] = nc;
        nc++;
    }
    for (size_t i = 0; i < n; i++)
        if (root[i] != SIZE_MAX && root[i] != i)
            cause[i] = cause[root[i]];
    size_t used = 0;
    for (size_t k = 0; k < nc; k++) {
        gd_grouped_cause *c = &out->v[k];
        *c = (gd_grouped_cause){.severity = GD_SEV_INFO, .impact_pct = NAN};
        c->members = out->slots + used;
        for (size_t i = 0; i < n; i++)
            if (cause[i] == k && root[i] == i) {
                out->slots[used++] = i;
                c->nmembers++;
                take(c, &fs->v[i]);
            }
        c->symptoms = out->slots + used;
        for (size_t i = 0; i < n; i++)
            if (cause[i] == k && root[i] != i) {
                out->slots[used++] = i;
                c->nsymptoms++;
                take(c, &fs->v[i]);
            }
    }
    out->n = nc;
    qsort(out->v, nc, sizeof *out->v, cmp_cause);
    free(root);
    free(cause);
    return 0;
}

void gd_grouped_causes_free(gd_grouped_causes *c)
{
    free(c->v);
    free(c->slots);
    *c = (gd_grouped_causes){0};
}

size_t gd_grouped_causes_count(const gd_grouped_causes *c, gd_severity s)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++)
        n += c->v[i].severity == s;
    return n;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Adds the GPUs of finding x to the set g (n of them, cap room). */
static void add_gpus(const gd_finding *x, int *g, size_t *n, size_t cap, size_t *total, bool *host)
{
    int mine[MAX_TOUCH];
    size_t k = gd_finding_gpus(x, mine, MAX_TOUCH);
    if (k == 0 && host)
        *host = true;
    for (size_t i = 0; i < k; i++) {
        bool seen = false;
        for (size_t j = 0; j < *n && !seen; j++)
            seen = g[j] == mine[i];
        if (seen)
            continue;
        if (*n < cap)
            g[(*n)++] = mine[i];
        (*total)++;
    }
}

static size_t cause_gpus(const gd_findings *fs, const gd_grouped_cause *c, int *g, size_t *n, size_t cap, size_t *total,
                         bool *host)
{
    for (size_t i = 0; i < c->nmembers; i++)
        add_gpus(&fs->v[c->members[i]], g, n, cap, total, host);
    for (size_t i = 0; i < c->nsymptoms; i++)
        add_gpus(&fs->v[c->symptoms[i]], g, n, cap, total, host);
    return *total;
}

size_t gd_grouped_cause_gpus(const gd_findings *fs, const gd_grouped_cause *c, int *gpus, size_t cap, bool *host)
{
    size_t n = 0, total = 0;
    if (host)
        *host = false;
    cause_gpus(fs, c, gpus, &n, cap, &total, host);
    qsort(gpus, n, sizeof *gpus, cmp_int);
    return total;
}

size_t gd_grouped_causes_gpus(const gd_findings *fs, const gd_grouped_causes *c, gd_severity min, int *gpus, size_t cap,
                              bool *host)
{
    size_t n = 0, total = 0;
    if (host)
        *host = false;
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].severity >= min)
            cause_gpus(fs, &c->v[i], gpus, &n, cap, &total, host);
    qsort(gpus, n, sizeof *gpus, cmp_int);
    return total;
}
