/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the checks could judge: a group whose checks all could not run, or
 * whose facts the evidence does not hold (an lspci capture has no
 * temperature), is "not checked", never "ok". The verdict says how much was
 * judged, and a report that judged none of the GPUs' state does not pass
 * for a healthy machine (the exit code of `check`, docs/interface.md).
 */
#include "checks_internal.h"
#include "gpudoctor/nccl_log.h"
#include "gpudoctor/nccl_tests.h"
#include "gpudoctor/net.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"

#include <stdlib.h>

/* The groups that judge the GPUs' own state, with what each looks at. */
static const struct {
    const char *group, *phrase;
} gpu_groups[] = {
    {"thermal", "temperatures"}, {"power", "power"},         {"clocks", "clocks"},
    {"pcie", "PCIe links"},      {"vram", "memory use"},     {"utilization", "utilisation"},
    {"config", "settings"},      {"health", "ECC counters"},
};
#define NGROUPS (sizeof gpu_groups / sizeof gpu_groups[0])

static bool any_sample(const gd_facts *f, size_t g, gd_metric m)
{
    return gd_stats_of(f, g, m, NULL) > 0;
}

/* What a group lacks when no GPU's evidence holds what it judges. */
static const char *lack_of(const char *group)
{
    static const struct {
        const char *group, *lack;
    } lacks[] = {
        {"thermal", "no temperature"},  {"power", "no power reading or limit"},
        {"clocks", "no clock reading"}, {"pcie", "no PCIe link state"},
        {"vram", "no memory reading"},  {"utilization", "no utilisation (N/A, as under MIG)"},
        {"config", "no GPU setting"},   {"health", "no ECC or remapping counter and no kernel log"},
        {"nvlink", "no NVLink link"},   {"topology", "no PCIe tree (sysfs or lspci)"},
    };
    if (strcmp(group, "network") == 0)
        return "no RDMA device list";
    for (size_t i = 0; i < sizeof lacks / sizeof lacks[0]; i++)
        if (strcmp(lacks[i].group, group) == 0)
            return lacks[i].lack;
    return "nothing it judges";
}

/* Does a PCIe tree say anything of the GPU's path: a link's state or
 * maximum, or an AER counter? (An 'lspci -v -xxx' capture lists the
 * devices and their hex dump, none of that.) */
static bool link_known(const gd_pcie_gpu *pg)
{
    for (size_t k = 0; pg && k < pg->hop_count; k++) {
        const gd_pcie_hop *h = &pg->hops[k];
        if (gd_ok(h->gen) || gd_ok(h->gen_max) || gd_ok(h->width) || gd_ok(h->width_max) || gd_ok(h->aer_cor) ||
            gd_ok(h->aer_nonfatal) || gd_ok(h->aer_fatal))
            return true;
    }
    return false;
}

/* Does GPU g's evidence hold what the group judges? */
static bool gpu_has(const gd_facts *f, size_t g, const char *group)
{
    const gd_gpu *gpu = &f->gpus[g];
    if (gpu->lost)
        return true; /* what it said before, and that it stopped */
    if (strcmp(group, "thermal") == 0)
        return any_sample(f, g, GD_M_TEMP_C) || any_sample(f, g, GD_M_MEM_TEMP_C);
    if (strcmp(group, "power") == 0)
        return any_sample(f, g, GD_M_POWER_W) || gd_ok(gpu->power_limit_w);
    if (strcmp(group, "clocks") == 0)
        return any_sample(f, g, GD_M_SM_CLOCK_MHZ);
    if (strcmp(group, "pcie") == 0)
        return any_sample(f, g, GD_M_PCIE_GEN) || gd_ok(gpu->pcie_gen_max) || gd_ok(gpu->pcie_gen_max_device) ||
               link_known(gd_pcie_gpu_of(f, gpu->index));
    if (strcmp(group, "vram") == 0)
        return any_sample(f, g, GD_M_MEM_USED_MIB);
    if (strcmp(group, "utilization") == 0)
        return any_sample(f, g, GD_M_UTIL_GPU_PCT);
    if (strcmp(group, "config") == 0)
        return gd_ok(gpu->persistence_mode) || gd_ok(gpu->compute_mode) || gd_ok(gpu->mig_mode) ||
               gd_ok(gpu->ecc_enabled);
    if (strcmp(group, "health") == 0)
        return gd_ok(gpu->ecc_volatile_uncorrected) || gd_ok(gpu->ecc_aggregate_uncorrected) ||
               gd_ok(gpu->remap_pending) || gd_ok(gpu->remap_unc_rows) || gd_ok(gpu->retired_pages_dbe) ||
               gd_ok(gpu->retired_pages_pending);
    if (strcmp(group, "nvlink") == 0)
        return gpu->nvlink_count > 0;
    if (strcmp(group, "topology") == 0)
        return gd_pcie_gpu_of(f, gpu->index) != NULL;
    return true;
}

/* Is check c not judged at all: skipped as a whole, or for every GPU? */
static bool check_skipped(const gd_check *c, const gd_facts *f, const gd_findings *fs)
{
    size_t per_gpu = 0;
    for (size_t i = 0; i < fs->nskips; i++) {
        if (strcmp(fs->skips[i].check, c->id) != 0)
            continue;
        if (fs->skips[i].gpu == GD_NO_GPU)
            return true;
        per_gpu++;
    }
    return f->gpu_count > 0 && per_gpu >= f->gpu_count;
}

static const char *first_skip(const gd_facts *f, const gd_findings *fs, const char *group)
{
    (void)f;
    for (size_t i = 0; i < fs->nskips; i++) {
        const gd_check *c = gd_check_find(fs->skips[i].check);
        if (c && strcmp(c->group, group) == 0)
            return fs->skips[i].reason;
    }
    return NULL;
}

/* What each check reads, so that a quiet check counts as judged only
 * where the evidence held it. Checks not listed read what their needs
 * name (the job, the stack, the environment, the kernel log) and say
 * "not checked" themselves where it is missing. */
typedef enum reads {
    R_HOST = 0,
    R_CAPTURE, /* the capture's notes: not a judgment */
    R_DRIVER, /* the driver, or this machine's PCI bus where it did not load */
    R_ANSWERS, /* that the GPUs answer: a GPU read, or the kernel log's word */
    R_SAMPLES, /* sampled GPU readings */
    R_TEMP,
    R_REASONS, /* clock event reasons, or the slowdown counters */
    R_POWER,
    R_CLOCK,
    R_LINK, /* a PCIe link's state or maximum */
    R_TREE, /* the PCIe tree above the GPU */
    R_AER, /* AER counters, or the kernel log's AER messages */
    R_REPLAYS,
    R_MEM,
    R_UTIL,
    R_SETTINGS,
    R_ECC,
    R_NVLINK,
    R_FABRIC, /* the NVLink fabric's state, or the driver's word that the board has none */
    R_KLOG, /* the kernel log */
    R_P2P, /* the driver's peer-to-peer status of the GPU pairs */
    R_BENCH, /* a benchmark's measurements: only under bench */
    R_NCCL_LOG, /* NCCL's own INFO log (--from nccl.log, run --nccl-log): only where one was read */
    R_NCCL_TESTS, /* nccl-tests tables: only where --from read one */
} reads;

static const struct {
    const char *id;
    reads r;
} reads_of[] = {
    {"driver.missing", R_DRIVER},
    {"gpu.none", R_DRIVER},
    {"capture", R_CAPTURE},
    {"health.gpu_lost", R_ANSWERS},
    {"health.driver_unresponsive", R_SAMPLES},
    {"health.sensors_failing", R_SAMPLES},
    {"thermal.throttling", R_REASONS},
    {"thermal.hot", R_TEMP},
    {"thermal.outlier", R_TEMP},
    {"power.limit_lowered", R_POWER},
    {"power.brake", R_REASONS},
    {"power.hw_slowdown", R_REASONS},
    {"power.capped", R_REASONS},
    {"clocks.locked", R_CLOCK},
    {"clocks.low", R_CLOCK},
    {"clocks.outlier", R_CLOCK},
    {"pcie.link_downgraded", R_LINK},
    {"pcie.width_reduced", R_LINK},
    {"pcie.slot_limited", R_LINK},
    {"pcie.upstream_downgraded", R_TREE},
    {"pcie.replays", R_REPLAYS},
    {"pcie.aer_errors", R_AER},
    {"pcie.bandwidth_low", R_BENCH},
    {"p2p.unsupported", R_P2P},
    {"topology.iommu_p2p", R_TREE},
    {"nvlink.down", R_NVLINK},
    {"nvlink.errors", R_NVLINK},
    {"nvlink.fabric", R_FABRIC},
    {"nvlink.sxid", R_KLOG},
    {"vram.near_full", R_MEM},
    {"vram.growing", R_MEM},
    {"gpu.underutilized", R_UTIL},
    {"config.persistence_off", R_SETTINGS},
    {"config.compute_mode", R_SETTINGS},
    {"config.mig_enabled", R_SETTINGS},
    {"config.ecc_disabled", R_SETTINGS},
    {"health.ecc_uncorrectable", R_ECC},
    {"health.row_remap", R_ECC},
};

static reads reads_for(const gd_check *c)
{
    for (size_t i = 0; i < sizeof reads_of / sizeof *reads_of; i++)
        if (strcmp(reads_of[i].id, c->id) == 0)
            return reads_of[i].r;
    if (strncmp(c->id, "nccl_log.", 9) == 0)
        return R_NCCL_LOG;
    if (strncmp(c->id, "nccl_tests.", 11) == 0)
        return R_NCCL_TESTS;
    return strcmp(c->group, "bench") == 0 ? R_BENCH : R_HOST;
}

/* A few words for what the evidence lacked. */
static const char *brief_lack(reads r)
{
    static const char *const words[] = {
        [R_DRIVER] = "no nvidia-smi output", [R_ANSWERS] = "no GPU, no kernel log",  [R_SAMPLES] = "no sample",
        [R_TEMP] = "no temperature",         [R_REASONS] = "no clock event reasons", [R_POWER] = "no power reading",
        [R_CLOCK] = "no clock reading",      [R_LINK] = "no PCIe link state",        [R_TREE] = "no PCIe tree",
        [R_AER] = "no AER counter",          [R_REPLAYS] = "no replay counter",      [R_MEM] = "no memory reading",
        [R_UTIL] = "no utilisation",         [R_SETTINGS] = "no GPU setting",        [R_ECC] = "no ECC counter",
        [R_NVLINK] = "no NVLink link",       [R_FABRIC] = "no fabric state",         [R_KLOG] = "no kernel log",
        [R_P2P] = "no peer status",
    };
    return (size_t)r < sizeof words / sizeof *words && words[r] ? words[r] : "nothing it judges";
}

static bool is_gpu_kind(reads r)
{
    return r >= R_SAMPLES && r <= R_FABRIC;
}

static bool has_reasons(const gd_facts *f, size_t g)
{
    return any_sample(f, g, GD_M_EVENT_REASONS) || any_sample(f, g, GD_M_VIOL_THERMAL_NS) ||
           any_sample(f, g, GD_M_VIOL_POWER_BRAKE_NS);
}

/* Does GPU g's evidence hold what a check of kind r reads? */
static bool gpu_reads(const gd_facts *f, size_t g, reads r)
{
    const gd_gpu *gpu = &f->gpus[g];
    if (gpu->lost)
        return true;
    switch (r) {
    case R_SAMPLES: return f->series.n > 0;
    case R_TEMP: return gpu_has(f, g, "thermal");
    case R_REASONS: return has_reasons(f, g);
    case R_POWER: return gpu_has(f, g, "power");
    case R_CLOCK: return gpu_has(f, g, "clocks");
    case R_LINK: return gpu_has(f, g, "pcie");
    case R_TREE: return link_known(gd_pcie_gpu_of(f, gpu->index));
    case R_AER: return link_known(gd_pcie_gpu_of(f, gpu->index)) || (f->stack && f->stack->kernel_log_read);
    case R_REPLAYS: return any_sample(f, g, GD_M_PCIE_REPLAYS);
    case R_MEM: return gpu_has(f, g, "vram");
    case R_UTIL: return gpu_has(f, g, "utilization");
    case R_SETTINGS: return gpu_has(f, g, "config");
    case R_ECC: return gpu_has(f, g, "health");
    case R_NVLINK: return gpu->nvlink_count > 0;
    case R_FABRIC: return gd_ok(gpu->fabric_state) || gd_not_reported(gpu->fabric_state);
    default: return true;
    }
}

static bool bench_ran(const gd_facts *f)
{
    return f->bench || (f->pcie && f->pcie->bench);
}

/* Copies the first words of a reason ("no --pid: give ..." -> "no --pid"),
 * cut at a word with "..." when long. */
static void brief_of(const char *reason, char *buf, size_t len)
{
    size_t n = strcspn(reason, ":;(");
    while (n > 0 && reason[n - 1] == ' ')
        n--;
    if (n <= 40) {
        snprintf(buf, len, "%.*s", (int)n, reason);
        return;
    }
    size_t cut = 36;
    while (cut > 0 && reason[cut] != ' ')
        cut--;
    snprintf(buf, len, "%.*s ...", (int)cut, reason);
}

static bool needs_a_machine(const gd_check *c, const gd_facts *f)
{
    return (c->needs & (GD_NEED_JOB | GD_NEED_STACK | GD_NEED_ENV)) && f->captured;
}

bool gd_skip_applies(const gd_facts *f, const gd_skip *k)
{
    const gd_check *c = gd_check_find(k->check);
    if (c && strcmp(c->group, "network") == 0 && f->captured && !f->net)
        return false;
    return !c || !needs_a_machine(c, f);
}

gd_check_state gd_check_coverage(const gd_check *c, const gd_facts *f, const gd_findings *fs, char *why, size_t len)
{
    if (len)
        why[0] = '\0';
    reads r = reads_for(c);
    bool tables = f->net && f->net->tables && f->net->tables->count;
    if (r == R_CAPTURE || (r == R_BENCH && !bench_ran(f)) || (r == R_NCCL_LOG && !(f->net && f->net->nccl)) ||
        (r == R_NCCL_TESTS && !tables) || needs_a_machine(c, f))
        return GD_CHECK_NOT_APPLICABLE;
    /* A capture without the network's files says nothing of it, as a capture says nothing of a job. */
    if (strcmp(c->group, "network") == 0 && f->captured && !f->net)
        return GD_CHECK_NOT_APPLICABLE;
    size_t found = 0, gpu_skips = 0;
    const char *whole = NULL, *some = NULL;
    for (size_t i = 0; i < fs->n; i++)
        found += strcmp(fs->v[i].id, c->id) == 0;
    for (size_t i = 0; i < fs->nskips; i++) {
        if (strcmp(fs->skips[i].check, c->id) != 0)
            continue;
        if (fs->skips[i].gpu == GD_NO_GPU)
            whole = whole ? whole : fs->skips[i].reason;
        else {
            gpu_skips++;
            some = some ? some : fs->skips[i].reason;
        }
    }
    const char *absent = f->captured ? "not in this capture" : NULL;
    if (whole || (f->gpu_count && gpu_skips >= f->gpu_count)) {
        snprintf(why, len, "%s", whole ? whole : some);
        return found ? GD_CHECK_PART : GD_CHECK_NOT_JUDGED;
    }
    size_t with = 0;
    if (is_gpu_kind(r))
        for (size_t g = 0; g < f->gpu_count; g++)
            with += gpu_reads(f, g, r);
    bool lacks = is_gpu_kind(r)   ? with == 0
                 : r == R_DRIVER  ? !f->driver_loaded && f->gpu_count == 0 && f->captured
                 : r == R_ANSWERS ? f->gpu_count == 0 && !(f->stack && f->stack->kernel_log_read)
                 : r == R_P2P     ? !f->p2p_status
                 : r == R_KLOG    ? !(f->stack && f->stack->kernel_log_read)
                                  : false;
    if (lacks && !found) {
        snprintf(why, len, "%s",
                 f->gpu_count == 0 && r != R_KLOG && r != R_ANSWERS && !absent ? "no GPU was read"
                 : absent                                                      ? absent
                                                                               : brief_lack(r));
        return GD_CHECK_NOT_JUDGED;
    }
    if (gpu_skips || (is_gpu_kind(r) && with < f->gpu_count)) {
        snprintf(why, len, "%s", gpu_skips ? some : absent ? absent : brief_lack(r));
        return GD_CHECK_PART;
    }
    return GD_CHECK_JUDGED;
}

/* The brief of a check not judged: the needs it lacked; on a capture, that
 * the files did not hold it; else its reason's first words. */
static void check_brief(const gd_check *c, const gd_facts *f, const char *why, char *buf, size_t len)
{
    if ((c->needs & GD_NEED_JOB) && f->pid < 0)
        snprintf(buf, len, "no --pid");
    else if ((c->needs & GD_NEED_STACK) && !f->stack)
        snprintf(buf, len, "not collected");
    else {
        brief_of(why, buf, len);
        /* A capture's "not readable" is what the files did not hold. */
        char *nr = strstr(buf, " not readable");
        if (f->captured && (strstr(buf, "...") || !nr))
            snprintf(buf, len, "not in this capture");
        else if (f->captured && len > (size_t)(nr - buf) + 21)
            snprintf(nr, len - (size_t)(nr - buf), " not in this capture");
    }
}

static const struct {
    const char *group, *label;
} labels[] = {
    {"stack", "software stack"}, {"config", "configuration"}, {"bench", "benchmarks"},        {"pcie", "PCIe"},
    {"nvlink", "NVLink"},        {"vram", "memory"},          {"utilization", "utilisation"}, {"input", "job"},
};

static const char *label_of(const char *g)
{
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        if (strcmp(labels[i].group, g) == 0)
            return labels[i].label;
    return g;
}

/* The per-check states of a group into out's new fields. */
static void group_states(const gd_facts *f, const gd_findings *fs, const char *group, gd_coverage *out)
{
    size_t not_judged = 0, part = 0;
    char first_brief[64] = "", job_brief[64] = "";
    snprintf(out->label, sizeof out->label, "%s", label_of(group));
    for (size_t i = 0; i < gd_checks_count; i++) {
        const gd_check *c = &gd_checks[i];
        if (strcmp(c->group, group) != 0)
            continue;
        out->checks++;
        char why[256];
        gd_check_state st = gd_check_coverage(c, f, fs, why, sizeof why);
        /* A job's check elsewhere than the job's group: "job (no --pid)" says it once. */
        bool job_only =
            st == GD_CHECK_NOT_JUDGED && (c->needs & GD_NEED_JOB) && f->pid < 0 && strcmp(group, "input") != 0;
        if (st == GD_CHECK_NOT_APPLICABLE || job_only)
            continue;
        out->applicable++;
        out->judged_checks += st >= GD_CHECK_PART;
        part += st == GD_CHECK_PART;
        if (st != GD_CHECK_NOT_JUDGED)
            continue;
        not_judged++;
        char b[64];
        check_brief(c, f, why, b, sizeof b);
        /* "no --pid" names the group's cause only when nothing else does */
        if (strcmp(b, "no --pid") == 0)
            snprintf(job_brief, sizeof job_brief, "%s", b);
        else if (!first_brief[0])
            snprintf(first_brief, sizeof first_brief, "%s", b);
    }
    out->state = out->applicable == 0           ? GD_CHECK_NOT_APPLICABLE
                 : out->judged_checks == 0      ? GD_CHECK_NOT_JUDGED
                 : not_judged == 0 && part == 0 ? GD_CHECK_JUDGED
                                                : GD_CHECK_PART;
    snprintf(out->brief, sizeof out->brief, "%s", first_brief[0] ? first_brief : job_brief);
    /* A topology matrix is read, and judges none of it: say so, not "not in this capture". */
    if (strcmp(group, "topology") == 0 && out->state == GD_CHECK_NOT_JUDGED && f->pcie && f->pcie->matrix)
        snprintf(out->brief, sizeof out->brief, "a matrix alone: 'gpudoctor topo' shows it");
}

void gd_group_coverage(const gd_facts *f, const gd_findings *fs, const char *group, gd_coverage *out)
{
    memset(out, 0, sizeof *out);
    group_states(f, fs, group, out);
    size_t checks = 0, skipped = 0, findings = 0;
    for (size_t i = 0; i < gd_checks_count; i++) {
        if (strcmp(gd_checks[i].group, group) != 0)
            continue;
        checks++;
        skipped += check_skipped(&gd_checks[i], f, fs);
    }
    for (size_t i = 0; i < fs->n; i++) {
        const gd_check *c = gd_check_find(fs->v[i].id);
        findings += c && strcmp(c->group, group) == 0;
    }
    for (size_t g = 0; g < f->gpu_count; g++)
        out->gpus += gpu_has(f, g, group);
    bool kernel_log = strcmp(group, "health") == 0 && f->stack && f->stack->kernel_log_read;
    bool gpu_state = false;
    for (size_t i = 0; i < NGROUPS; i++)
        gpu_state |= strcmp(gpu_groups[i].group, group) == 0;
    bool needs_data = gpu_state || strcmp(group, "nvlink") == 0 || strcmp(group, "topology") == 0;
    out->judged = findings > 0 || (checks > skipped && (!needs_data || out->gpus > 0 || kernel_log));
    out->gpu_state = gpu_state && out->gpus > 0;
    if (out->judged)
        return;
    const char *skip = checks == skipped ? first_skip(f, fs, group) : NULL;
    if (skip)
        snprintf(out->why, sizeof out->why, "%s", skip);
    else if (f->gpu_count == 0)
        snprintf(out->why, sizeof out->why, "no GPU was read");
    else
        snprintf(out->why, sizeof out->why, "%s %s", lack_of(group), f->captured ? "in this capture" : "was readable");
}

/* Joins phrases: "a", "a and b", "a, b and c". */
static void join(char *buf, size_t len, const char *const *items, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", items[i]);
}

size_t gd_judged_summary(const gd_facts *f, const gd_findings *fs, char *judged, size_t jlen, char *missing,
                         size_t mlen)
{
    const char *yes[NGROUPS], *no[NGROUPS];
    size_t ny = 0, nn = 0, gpus = 0, counted = 0;
    for (size_t i = 0; i < NGROUPS; i++) {
        gd_coverage c;
        gd_group_coverage(f, fs, gpu_groups[i].group, &c);
        /* Counted by what the evidence holds (the exit code's rule); named
         * only where a check of the group judged it. */
        if (c.gpu_state)
            gpus = c.gpus > gpus ? c.gpus : gpus;
        if (c.gpu_state && c.state >= GD_CHECK_PART)
            yes[ny++] = gpu_groups[i].phrase;
        else
            no[nn++] = gpu_groups[i].phrase;
        counted += c.gpu_state;
    }
    char list[256], log[96] = "";
    join(list, sizeof list, yes, ny);
    /* The kernel log is the GPUs' own word on their state (Xids, a GPU
     * lost): read whole, it is judged, clean or not. */
    const gd_stack_facts *s = f->stack;
    if (s && s->kernel_log_read && s->kernel_log_lines > 0)
        snprintf(log, sizeof log, "the kernel log (%zu line%s%s)", s->kernel_log_lines,
                 s->kernel_log_lines == 1 ? "" : "s",
                 s->xid_group_count == 0 && s->gpu_fatal_count == 0 ? ", no Xid, no lost GPU" : "");
    /* NCCL's own log, read whole, judges what the job's network chose. */
    const struct gd_nccl_log *nccl = f->net ? f->net->nccl : NULL;
    if (!log[0] && nccl && nccl->nccl_lines > 0)
        snprintf(log, sizeof log, "NCCL's log (%lu line%s of %zu process%s)", nccl->nccl_lines,
                 nccl->nccl_lines == 1 ? "" : "s", nccl->proc_count, nccl->proc_count == 1 ? "" : "es");
    /* An nccl-tests table is judged on its own (the collective across the nodes that ran it). */
    size_t tables = f->net && f->net->tables ? f->net->tables->count : 0;
    /* The node's RDMA ports, GPUDirect's module or the bridges' ACS, read
     * from a paste of ibstat, lsmod or lspci: judged on their own, so a
     * healthy one is OK on what could be judged, not "nothing judged". */
    size_t nic_ports = 0;
    const char *net_other = NULL;
    if (f->net) {
        for (size_t i = 0; i < f->net->dev_count; i++)
            nic_ports += f->net->devs[i].port_count;
        if (f->net->peermem != GD_PEERMEM_UNKNOWN)
            net_other = "the loaded kernel modules";
        else if (f->net->acs_read && f->net->acs_count > 0)
            net_other = "the PCIe bridges' ACS";
    }
    if (ny)
        snprintf(judged, jlen, "%s of %zu GPU%s%s%s", list, gpus, gpus == 1 ? "" : "s", log[0] ? " and " : "", log);
    else if (log[0])
        snprintf(judged, jlen, "%s", log);
    else if (counted)
        snprintf(judged, jlen, "the readings of %zu GPU%s", gpus, gpus == 1 ? "" : "s");
    else if (tables)
        snprintf(judged, jlen, "%zu nccl-tests table%s", tables, tables == 1 ? "" : "s");
    else if (nic_ports)
        snprintf(judged, jlen, "the RDMA NICs (%zu port%s)", nic_ports, nic_ports == 1 ? "" : "s");
    else if (net_other)
        snprintf(judged, jlen, "%s", net_other);
    else
        snprintf(judged, jlen, "nothing of the GPUs' own state");
    join(missing, mlen, no, nn);
    return counted + (log[0] != '\0') + tables + nic_ports + (net_other != NULL);
}

void gd_coverage_each_group(void (*fn)(void *ud, const char *group), void *ud)
{
    for (size_t i = 0; i < gd_checks_count; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(gd_checks[j].group, gd_checks[i].group) == 0;
        if (!seen)
            fn(ud, gd_checks[i].group);
    }
}

#define LINE_GROUPS 24

typedef struct line_ctx {
    const gd_facts *f;
    const gd_findings *fs;
    size_t applicable, judged, part;
    gd_coverage missing[LINE_GROUPS], in_part[LINE_GROUPS];
    size_t nmissing;
} line_ctx;

static void line_group(void *ud, const char *g)
{
    line_ctx *c = ud;
    gd_coverage cov;
    gd_group_coverage(c->f, c->fs, g, &cov);
    if (cov.state == GD_CHECK_NOT_APPLICABLE)
        return;
    c->applicable++;
    if (cov.state == GD_CHECK_NOT_JUDGED) {
        /* In a line, what a capture lacked is said once ("power limits ..." in --details). */
        size_t n = strlen(cov.brief), tail = strlen(" not in this capture");
        if (n > tail && strcmp(cov.brief + n - tail, " not in this capture") == 0)
            snprintf(cov.brief, sizeof cov.brief, "not in this capture");
        if (c->nmissing < LINE_GROUPS)
            c->missing[c->nmissing++] = cov;
        return;
    }
    c->judged++;
    if (cov.state == GD_CHECK_PART && c->part < LINE_GROUPS)
        c->in_part[c->part++] = cov;
    else if (cov.state == GD_CHECK_PART)
        c->part++;
}

size_t gd_coverage_line(const gd_facts *f, const gd_findings *fs, char *buf, size_t len)
{
    line_ctx *c = calloc(1, sizeof *c);
    if (!c || len == 0) {
        free(c);
        return 0;
    }
    c->f = f;
    c->fs = fs;
    gd_coverage_each_group(line_group, c);
    size_t used = (size_t)snprintf(buf, len, "Judged %zu of %zu groups", c->judged, c->applicable);
    if (c->part && c->part <= 5) {
        for (size_t i = 0; i < c->part && used < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : " (in part: ", c->in_part[i].label);
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, ")");
    } else if (c->part && used < len) {
        used += (size_t)snprintf(buf + used, len - used, " (%zu in part)", c->part);
    }
    /* Not judged, the groups of one reason together: "health, PCIe (not in this capture); job (no --pid)". */
    bool done[LINE_GROUPS] = {false};
    for (size_t i = 0; i < c->nmissing && used < len; i++) {
        if (done[i])
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%s", i ? "; " : "; not judged: ");
        for (size_t j = i, k = 0; j < c->nmissing && used < len; j++) {
            if (done[j] || strcmp(c->missing[j].brief, c->missing[i].brief) != 0)
                continue;
            done[j] = true;
            used += (size_t)snprintf(buf + used, len - used, "%s%s", k++ ? ", " : "", c->missing[j].label);
        }
        if (used < len && c->missing[i].brief[0])
            used += (size_t)snprintf(buf + used, len - used, " (%s)", c->missing[i].brief);
    }
    size_t judged = c->judged;
    free(c);
    return judged;
}

bool gd_coverage_all_idle(const gd_facts *f)
{
    if (f->gpu_count == 0 || f->series.n == 0)
        return false;
    for (size_t g = 0; g < f->gpu_count; g++) {
        if (f->gpus[g].lost || !gpu_has(f, g, "utilization"))
            return false; /* an unread utilisation is not idle */
        if (gd_loaded_samples(f, g) > 0)
            return false;
    }
    return true;
}
