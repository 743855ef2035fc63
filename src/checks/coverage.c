/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the checks could judge: a group whose checks all could not run, or
 * whose facts the evidence does not hold (an lspci capture has no
 * temperature), is "not checked", never "ok". The verdict says how much was
 * judged, and a report that judged none of the GPUs' state does not pass
 * for a healthy machine (the exit code of `check`, docs/interface.md).
 */
#include "checks_internal.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"

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
    for (size_t i = 0; i < f->series.n; i++)
        if (gd_ok(gd_series_at(&f->series, i, g, m)))
            return true;
    return false;
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

void gd_group_coverage(const gd_facts *f, const gd_findings *fs, const char *group, gd_coverage *out)
{
    memset(out, 0, sizeof *out);
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
    size_t ny = 0, nn = 0, gpus = 0;
    for (size_t i = 0; i < NGROUPS; i++) {
        gd_coverage c;
        gd_group_coverage(f, fs, gpu_groups[i].group, &c);
        if (c.gpu_state) {
            yes[ny++] = gpu_groups[i].phrase;
            gpus = c.gpus > gpus ? c.gpus : gpus;
        } else {
            no[nn++] = gpu_groups[i].phrase;
        }
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
    if (ny)
        snprintf(judged, jlen, "%s of %zu GPU%s%s%s", list, gpus, gpus == 1 ? "" : "s", log[0] ? " and " : "", log);
    else if (log[0])
        snprintf(judged, jlen, "%s", log);
    else
        snprintf(judged, jlen, "nothing of the GPUs' own state");
    join(missing, mlen, no, nn);
    return ny + (log[0] != '\0');
}
