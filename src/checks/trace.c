/* SPDX-License-Identifier: Apache-2.0 */
/* Findings from profiler traces: pure functions of the numbers of each rank. */
#include "checks/trace_checks.h"
#include "core/json_util.h"
#include "core/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double r1(double v)
{
    return round(v * 10) / 10;
}

static json_t *evidence(const gd_trace_result *r)
{
    json_t *ev = json_object();
    json_object_set_new(ev, "source", json_string("profiler trace"));
    json_object_set_new(ev, "rank", json_integer(r->rank));
    json_object_set_new(ev, "steps", json_integer((json_int_t)r->nsteps));
    if (!isnan(r->step_median_us))
        json_object_set_new(ev, "step_median_ms", gd_json_number(round(r->step_median_us) / 1000));
    return ev;
}

/* The longest kernel of class c, as evidence. */
static void top_kernel(json_t *ev, const char *key, const gd_trace_result *r, gd_kclass c)
{
    if (r->ntop[c])
        json_object_set_new(ev, key, json_string(r->top[c][0].name));
}

static gd_severity severity(double impact)
{
    return impact >= GD_TRACE_CRITICAL_IMPACT ? GD_SEV_CRITICAL : GD_SEV_WARNING;
}

/* The GPU's idle share that a fix could win back: of the step time where the
 * trace has steps, else of the time from its first GPU operation to its last
 * (HTA's temporal breakdown). NAN without GPU operations. Every gain that
 * comes out of the GPU's idle time is at most this. */
static double idle_share(const gd_trace_result *r)
{
    if (!r->has_gpu)
        return NAN;
    return isnan(r->step_idle_pct) ? r->idle_pct : r->step_idle_pct;
}

/* The steps where x is largest, as "#N (v ms)" for the two worst. */
static void worst_steps(const gd_trace_result *r, double (*x)(const gd_trace_step *), char *buf, size_t len)
{
    long best[2] = {-1, -1};
    double val[2] = {-1, -1};
    for (size_t i = 0; i < r->nsteps; i++) {
        double v = x(&r->steps[i]);
        if (v > val[0]) {
            val[1] = val[0], best[1] = best[0];
            val[0] = v, best[0] = r->steps[i].number;
        } else if (v > val[1]) {
            val[1] = v, best[1] = r->steps[i].number;
        }
    }
    buf[0] = 0;
    for (int i = 0; i < 2 && best[i] >= 0; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s#%ld (%.1f ms)", i ? ", " : "", best[i], val[i] / 1000);
    }
}

static double step_idle(const gd_trace_step *s)
{
    return s->idle_us;
}
static double step_loader(const gd_trace_step *s)
{
    return s->dataloader_us;
}
static double step_syncs(const gd_trace_step *s)
{
    return (double)s->syncs * 1000;
}

static void check_gpu_idle(const gd_trace_result *all, size_t n, size_t i, gd_findings *out)
{
    (void)n;
    const gd_trace_result *r = &all[i];
    double idle_pct = idle_share(r);
    if (!r->has_gpu || !(idle_pct >= GD_TRACE_IDLE_PCT))
        return;
    bool of_steps = !isnan(r->step_idle_pct);
    double host = 0, kern = 0, other = 0;
    for (size_t s = 0; s < r->nstreams; s++)
        host += r->streams[s].host_wait_us, kern += r->streams[s].kernel_wait_us, other += r->streams[s].other_us;
    double sum = host + kern + other;
    const char *cause, *fix, *mostly;
    if (of_steps && sum < 0.5 * r->step_idle_us) {
        /* Most of the steps' idle lies before the GPU's first operation or after its last:
         * no gap between its operations explains it. */
        cause = "outside the GPU's work: the steps run on the host before the first GPU operation or after the last";
        fix = "The GPU has work for only part of each step: find what the host does before the first launch and "
              "after the last (data loading, Python work, logging, checkpoints), move input loading to DataLoader "
              "workers (num_workers, pin_memory=True) and keep per-step host work small; a longer trace window "
              "shows whether this repeats.";
        mostly = "before or after the GPU's work";
    } else if (r->gpu_linked == 0 && host == 0 && other > kern) {
        /* No GPU operation is tied to its launch (TensorFlow's traces): host wait and other look alike. */
        cause = "not in the trace: GPU operations are not linked to their host launches, so a host that is "
                "late cannot be told from a GPU held back";
        fix = "Find what the host does in the gaps: the input pipeline (tf.data: .prefetch(tf.data.AUTOTUNE), "
              "num_parallel_calls, cache; PyTorch: DataLoader num_workers, pin_memory=True), host reads of device "
              "values (.numpy(), .item()) and Python work per step; a PyTorch profiler or TensorBoard profile "
              "trace with host events says which.";
        mostly = "gaps whose cause the trace does not say";
    } else if (host >= kern && host >= other) {
        cause = "host wait: the CPU had not launched the next operation yet";
        fix = "The GPU waits for the Python side. Find what the host does between launches (the DataLoader, "
              "logging, Python work per step): move input loading to DataLoader workers (num_workers, "
              "pin_memory=True, persistent_workers=True), keep per-step Python small, and for loops of many "
              "small ops use torch.compile or CUDA graphs.";
        mostly = "waiting for the host";
    } else if (kern >= other) {
        cause = "kernel wait: short gaps between back-to-back kernels (launch overhead)";
        fix = "Launch overhead between many small kernels: capture the step with CUDA graphs "
              "(torch.compile(mode=\"reduce-overhead\") or torch.cuda.graphs), fuse operations with "
              "torch.compile, or raise the batch size.";
        mostly = "between kernels";
    } else {
        cause = "other: launched in time but held back (synchronization, waits on other streams)";
        fix = "The GPU was held back after the launch: look for host synchronizations (.item(), .cpu(), "
              "torch.cuda.synchronize(), blocking copies) and cross-stream waits in the step; see trace.sync.";
        mostly = "held back";
    }
    json_t *ev = evidence(r);
    json_object_set_new(ev, "idle_pct", gd_json_number(round(idle_pct * 100) / 100));
    json_object_set_new(ev, "idle_of", json_string(of_steps ? "the steps" : "the GPU span"));
    json_object_set_new(ev, "idle_ms", gd_json_number(round(of_steps ? r->step_idle_us : r->idle_us) / 1000));
    if (of_steps)
        json_object_set_new(ev, "steps_ms", gd_json_number(round(r->step_total_us) / 1000));
    json_object_set_new(ev, "span_ms", gd_json_number(round(r->span_us) / 1000));
    json_object_set_new(ev, "span_idle_pct", gd_json_number(round(r->idle_pct * 100) / 100));
    json_object_set_new(ev, "host_wait_pct", gd_json_number(sum > 0 ? r1(100 * host / sum) : NAN));
    json_object_set_new(ev, "kernel_wait_pct", gd_json_number(sum > 0 ? r1(100 * kern / sum) : NAN));
    json_object_set_new(ev, "other_pct", gd_json_number(sum > 0 ? r1(100 * other / sum) : NAN));
    char worst[96];
    worst_steps(r, step_idle, worst, sizeof worst);
    json_object_set_new(ev, "worst_steps", json_string(worst));
    json_object_set_new(ev, "cause", json_string(cause));
    double impact = r1(idle_pct);
    gd_finding_add(out, "trace.gpu_idle", severity(impact), GD_NO_GPU, ev, impact, fix,
                   "rank %d: the GPU is idle %.1f%% of the %s (mostly %s)", r->rank, idle_pct,
                   of_steps ? "step time" : "time from its first operation to its last", mostly);
}

static void check_dataloader(const gd_trace_result *all, size_t n, size_t i, gd_findings *out)
{
    (void)n;
    const gd_trace_result *r = &all[i];
    if (!(r->dataloader_pct > GD_TRACE_DATALOADER_PCT))
        return;
    double idle = idle_share(r);
    /* What overlapping the loading with the GPU gives back: the loading, at most the GPU's idle time. */
    double impact = r1(isnan(idle) ? r->dataloader_pct : fmin(r->dataloader_pct, idle));
    json_t *ev = evidence(r);
    json_object_set_new(ev, "dataloader_pct", gd_json_number(r1(r->dataloader_pct)));
    json_object_set_new(ev, "dataloader_ms_per_step",
                        gd_json_number(round(r->dataloader_us / (double)r->nsteps) / 1000));
    json_object_set_new(ev, "workers",
                        json_string(r->dataloader_multiprocess ? "multiprocess" : "none (num_workers=0)"));
    char worst[96];
    worst_steps(r, step_loader, worst, sizeof worst);
    json_object_set_new(ev, "worst_steps", json_string(worst));
    const char *fix = r->dataloader_multiprocess
                          ? "The workers do not keep up: raise DataLoader num_workers and prefetch_factor, set "
                            "persistent_workers=True and pin_memory=True, and make __getitem__ cheaper (decode and "
                            "augment on the GPU, e.g. NVIDIA DALI or torchvision.io.decode_jpeg(device='cuda'))."
                          : "Data is loaded in the training process (num_workers=0): use DataLoader(num_workers=N) "
                            "with N about the CPU cores per GPU, persistent_workers=True, pin_memory=True and "
                            "prefetch_factor=2 or more, so the next batch is ready while the GPU computes.";
    gd_finding_add(out, "trace.dataloader", severity(impact), GD_NO_GPU, ev, impact, fix,
                   "rank %d: %.1f%% of each step is spent in the DataLoader%s", r->rank, r->dataloader_pct,
                   r->dataloader_multiprocess ? "" : " (num_workers=0)");
}

static void check_pageable(const gd_trace_result *all, size_t n, size_t i, gd_findings *out)
{
    (void)n;
    const gd_trace_result *r = &all[i];
    const gd_trace_copies *h = &r->copies[GD_COPY_H2D_PAGEABLE], *d = &r->copies[GD_COPY_D2H_PAGEABLE];
    double bytes = h->bytes + d->bytes, time = h->time_us + d->time_us;
    double share = r->step_total_us > 0 ? 100 * r->pageable_in_step_us / r->step_total_us : NAN;
    if (h->count + d->count == 0 || !(bytes >= GD_TRACE_PAGEABLE_BYTES || share >= GD_TRACE_PAGEABLE_PCT))
        return;
    json_t *ev = evidence(r);
    json_object_set_new(ev, "h2d_pageable_count", json_integer((json_int_t)h->count));
    json_object_set_new(ev, "h2d_pageable_bytes", gd_json_number(h->bytes));
    json_object_set_new(ev, "d2h_pageable_count", json_integer((json_int_t)d->count));
    json_object_set_new(ev, "d2h_pageable_bytes", gd_json_number(d->bytes));
    json_object_set_new(ev, "copy_ms", gd_json_number(round(time) / 1000));
    json_object_set_new(ev, "gbps", gd_json_number(time > 0 ? r1(bytes / (time * 1e3)) : NAN));
    json_object_set_new(ev, "share_of_step_pct", gd_json_number(r1(share)));
    const gd_trace_copies *p = &r->copies[GD_COPY_H2D_PINNED];
    if (p->count && !isnan(p->gbps))
        json_object_set_new(ev, "h2d_pinned_gbps", gd_json_number(r1(p->gbps)));
    double impact = isnan(share) ? NAN : r1(share);
    gd_finding_add(out, "trace.pageable_memcpy", isnan(impact) || impact < 2 ? GD_SEV_INFO : severity(impact),
                   GD_NO_GPU, ev, impact,
                   "Copies from pageable memory are staged by the driver and block the host. Set "
                   "DataLoader(pin_memory=True) (or tensor.pin_memory()) and copy with "
                   ".to(device, non_blocking=True), so the copy overlaps compute and runs at the link's speed.",
                   "rank %d: %zu host-device copies from pageable memory, %.1f MB at %.1f GB/s", r->rank,
                   h->count + d->count, bytes / 1e6, time > 0 ? bytes / (time * 1e3) : 0.0);
}

static void check_sync(const gd_trace_result *all, size_t n, size_t i, gd_findings *out)
{
    (void)n;
    const gd_trace_result *r = &all[i];
    /* The syncs that finish a host read are trace.item_sync's: counted once, there. */
    double us = fmax(0, r->sync_us - r->read_sync_us);
    double share = r->step_total_us > 0 ? 100 * us / r->step_total_us : NAN;
    if (!r->syncs || !(share >= GD_TRACE_SYNC_PCT))
        return;
    double idle = idle_share(r);
    double impact = r1(isnan(idle) ? share : fmin(share, idle));
    json_t *ev = evidence(r);
    json_object_set_new(ev, "syncs", json_integer((json_int_t)r->syncs));
    json_object_set_new(ev, "syncs_per_step", gd_json_number(r1(r->sync_per_step)));
    json_object_set_new(ev, "blocked_ms", gd_json_number(round(us) / 1000));
    json_object_set_new(ev, "blocked_pct", gd_json_number(r1(share)));
    json_object_set_new(ev, "call", json_string(r->sync_top));
    char worst[96];
    worst_steps(r, step_syncs, worst, sizeof worst);
    json_object_set_new(ev, "steps_with_most", json_string(worst));
    gd_finding_add(out, "trace.sync", severity(impact), GD_NO_GPU, ev, impact,
                   "Remove host-device synchronizations from the step: .item(), .cpu(), .numpy(), print(tensor), "
                   "if tensor: ..., torch.cuda.synchronize() and blocking copies all wait for the GPU to drain. "
                   "Keep metrics on the GPU and read them every N steps; copy with non_blocking=True from pinned "
                   "memory.",
                   "rank %d: the host blocks in %s and other syncs %.1f%% of the step (%.1f per step)", r->rank,
                   r->sync_top[0] ? r->sync_top : "synchronizations", share, r->sync_per_step);
}

static void check_small_kernels(const gd_trace_result *all, size_t n, size_t i, gd_findings *out)
{
    (void)n;
    const gd_trace_result *r = &all[i];
    if (!r->has_gpu || r->launches < GD_TRACE_SMALL_MIN)
        return;
    double share = (double)r->short_kernels / (double)r->launches;
    double kern = 0, host = 0;
    for (size_t s = 0; s < r->nstreams; s++)
        kern += r->streams[s].kernel_wait_us, host += r->streams[s].host_wait_us;
    double wait_pct = r->span_us > 0 ? 100 * (kern + host) / r->span_us : 0;
    /* A long launch delay means the CPU runs ahead: launches are not the bottleneck. */
    if (share < GD_TRACE_SMALL_SHARE || wait_pct < GD_TRACE_SMALL_IDLE_PCT || !(r->launch_delay_median_us < 100))
        return;
    /* Launch waits summed over streams can exceed the time the GPU as a whole idles: at most that. */
    double impact = r1(fmin(wait_pct * share, idle_share(r)));
    json_t *ev = evidence(r);
    json_object_set_new(ev, "launches", json_integer((json_int_t)r->launches));
    json_object_set_new(ev, "short_kernels", json_integer((json_int_t)r->short_kernels));
    json_object_set_new(ev, "short_pct", gd_json_number(r1(100 * share)));
    json_object_set_new(ev, "launch_cpu_median_us", gd_json_number(r->launch_cpu_median_us));
    json_object_set_new(ev, "kernel_median_us", gd_json_number(r->kernel_median_us));
    json_object_set_new(ev, "launch_delay_median_us", gd_json_number(r->launch_delay_median_us));
    json_object_set_new(ev, "launch_wait_pct", gd_json_number(r1(wait_pct)));
    top_kernel(ev, "top_kernel", r, GD_K_COMPUTE);
    gd_finding_add(out, "trace.small_kernels", severity(impact), GD_NO_GPU, ev, impact,
                   "Most kernels run shorter than their launch takes on the CPU, so the GPU waits on launches: "
                   "capture the step in a CUDA graph (torch.compile(mode=\"reduce-overhead\"), "
                   "torch.cuda.make_graphed_callables), fuse elementwise ops with torch.compile, or raise the "
                   "batch size so each kernel does more.",
                   "rank %d: %.0f%% of %zu kernels are shorter than their launch (median %.0f us on the GPU)", r->rank,
                   100 * share, r->launches, r->kernel_median_us);
}

static void check_comm_overlap(const gd_trace_result *all, size_t n, size_t i, gd_findings *out)
{
    (void)n;
    const gd_trace_result *r = &all[i];
    double comm_share = r->span_us > 0 ? 100 * r->class_us[GD_K_COMM] / r->span_us : 0;
    if (isnan(r->comm_overlap_pct) || r->comm_overlap_pct >= GD_TRACE_COMM_OVERLAP_PCT ||
        comm_share < GD_TRACE_COMM_SHARE_PCT)
        return;
    double impact = r1(comm_share * (1 - r->comm_overlap_pct / 100));
    json_t *ev = evidence(r);
    json_object_set_new(ev, "comm_overlap_pct", gd_json_number(r1(r->comm_overlap_pct)));
    json_object_set_new(ev, "comm_share_pct", gd_json_number(r1(comm_share)));
    top_kernel(ev, "top_comm_kernel", r, GD_K_COMM);
    gd_finding_add(out, "trace.comm_overlap", severity(impact), GD_NO_GPU, ev, impact,
                   "Communication runs while nothing computes: with DDP keep gradient bucketing on "
                   "(bucket_cap_mb) and avoid find_unused_parameters; with FSDP enable forward/backward "
                   "prefetch; use gradient accumulation (no_sync) to communicate less often.",
                   "rank %d: only %.0f%% of communication overlaps computation (%.0f%% of the time in NCCL kernels)",
                   r->rank, r->comm_overlap_pct, comm_share);
}

static void straggler(const gd_trace_result *r, double med, const char *against, gd_findings *out);

static void check_straggler(const gd_trace_result *all, size_t n, size_t i, gd_findings *out)
{
    if (n < 2 || isnan(all[i].step_median_us))
        return;
    double v[64];
    size_t m = 0;
    for (size_t j = 0; j < n && m < 64; j++)
        if (!isnan(all[j].step_median_us))
            v[m++] = all[j].step_median_us;
    if (m < 2)
        return;
    const gd_trace_result *r = &all[i];
    if (m == 2) {
        /* Two ranks have no spread to judge by (their median is their mean, so the rule
         * below can never fire): the slower is a straggler when its step takes
         * GD_TRACE_STRAGGLER_PAIR_RATIO times the other's or more. */
        double other = v[0] == r->step_median_us ? v[1] : v[0];
        if (!(r->step_median_us >= other * GD_TRACE_STRAGGLER_PAIR_RATIO))
            return;
        straggler(r, other, "the other rank", out);
        return;
    }
    double med = gd_median(v, m);
    for (size_t j = 0; j < m; j++)
        v[j] = fabs(v[j] - med);
    double mad = gd_median(v, m);
    /* Robust: far from the median by the ranks' own spread, and 10% slower at least. */
    if (!(r->step_median_us > med * GD_TRACE_STRAGGLER_RATIO && r->step_median_us - med > 3 * 1.4826 * mad))
        return;
    straggler(r, med, "the median rank", out);
}

/* Rank r's step against ref (the median rank's, or the other of two). */
static void straggler(const gd_trace_result *r, double med, const char *against, gd_findings *out)
{
    double impact = r1(100 * (r->step_median_us - med) / r->step_median_us);
    json_t *ev = evidence(r);
    json_object_set_new(ev, "ranks_median_step_ms", gd_json_number(round(med) / 1000));
    json_object_set_new(ev, "compared_with", json_string(against));
    json_object_set_new(ev, "slower_pct", gd_json_number(r1(100 * (r->step_median_us / med - 1))));
    json_object_set_new(ev, "idle_pct", gd_json_number(r1(r->idle_pct)));
    gd_finding_add(out, "trace.straggler", severity(impact), GD_NO_GPU, ev, impact,
                   "Every rank waits for the slowest at each collective: compare this rank's trace with a "
                   "peer's (input pipeline, host load, a throttled or slower GPU: run gpudoctor check on its node).",
                   "rank %d is a straggler: its step takes %.1f ms against %.1f ms for %s", r->rank,
                   r->step_median_us / 1000, med / 1000, against);
}

static double step_reads(const gd_trace_step *s)
{
    return s->read_blocked_us;
}
static double step_exposed(const gd_trace_step *s)
{
    return s->copy_exposed_us;
}

static const char item_sync_fix[] =
    "Each read of a GPU value on the host (loss.item(), .cpu(), .tolist(), .numpy(), print(tensor), "
    "if tensor: ...) waits until the GPU has finished all the work queued before it, and then the GPU "
    "waits for the host to launch again. Keep running metrics on the GPU (total += loss.detach()) and "
    "read them every N steps (e.g. with the logging interval); move data-dependent Python control "
    "flow off the step; for results the host needs later, copy them with .to('cpu', "
    "non_blocking=True) into pinned memory and read them after a torch.cuda.Event.";

/* A trace without GPU operations (a CPU run, or torch without Kineto): no
 * read waits for a GPU there, but the host's own time in .item() calls is
 * step time, and on a GPU every one of them would wait for it too. */
static void item_calls_on_cpu(const gd_trace_result *r, gd_findings *out)
{
    double impact = r1(r->item_pct);
    double per_step = (double)r->item_calls / (double)r->nsteps;
    json_t *ev = evidence(r);
    json_object_set_new(ev, "item_calls", json_integer((json_int_t)r->item_calls));
    json_object_set_new(ev, "item_calls_per_step", gd_json_number(r1(per_step)));
    json_object_set_new(ev, "item_ms", gd_json_number(round(r->item_us) / 1000));
    json_object_set_new(ev, "item_pct", gd_json_number(impact));
    json_object_set_new(ev, "share_of_step_pct", gd_json_number(impact));
    json_object_set_new(ev, "gpu_in_trace", json_false());
    gd_finding_add(out, "trace.item_sync", impact < 1 ? GD_SEV_INFO : severity(impact), GD_NO_GPU, ev, impact,
                   item_sync_fix,
                   "rank %d: the host calls .item() %.1f times per step, %.1f%% of the step (no GPU in the trace: "
                   "on a GPU each call would also wait for it)",
                   r->rank, per_step, r->item_pct);
}

static void check_item_sync(const gd_trace_result *all, size_t n, size_t i, gd_findings *out)
{
    (void)n;
    const gd_trace_result *r = &all[i];
    if (!r->has_gpu && r->item_calls && r->item_pct >= GD_TRACE_ITEM_SYNC_PCT) {
        item_calls_on_cpu(r, out);
        return;
    }
    if (!r->reads || !(r->read_blocked_pct >= GD_TRACE_ITEM_SYNC_PCT))
        return;
    /* The host waits for the GPU to drain; what removing the read gives back is the idle
     * that follows while the host launches again: the blocked share, at most the idle share. */
    double idle = idle_share(r);
    double impact = r1(isnan(idle) ? r->read_blocked_pct : fmin(r->read_blocked_pct, idle));
    double per_step = (double)r->reads / (double)r->nsteps;
    json_t *ev = evidence(r);
    json_object_set_new(ev, "reads", json_integer((json_int_t)r->reads));
    json_object_set_new(ev, "reads_per_step", gd_json_number(r1(per_step)));
    json_object_set_new(ev, "via_item", json_integer((json_int_t)r->reads_item));
    json_object_set_new(ev, "via_copy", json_integer((json_int_t)(r->reads - r->reads_item)));
    json_object_set_new(ev, "item_calls_per_step", gd_json_number(r1((double)r->item_calls / (double)r->nsteps)));
    json_object_set_new(ev, "median_bytes", gd_json_number(r->read_bytes_median));
    json_object_set_new(ev, "blocked_ms", gd_json_number(round(r->read_blocked_us) / 1000));
    json_object_set_new(ev, "blocked_ms_per_step",
                        gd_json_number(round(r->read_blocked_us / (double)r->nsteps) / 1000));
    json_object_set_new(ev, "blocked_pct", gd_json_number(r1(r->read_blocked_pct)));
    json_object_set_new(ev, "share_of_step_pct", gd_json_number(impact));
    char worst[96];
    worst_steps(r, step_reads, worst, sizeof worst);
    json_object_set_new(ev, "worst_steps", json_string(worst));
    bool item = r->reads_item * 2 >= r->reads;
    /* A GPU that stays busy anyway (the host far ahead) loses next to nothing: info. */
    gd_finding_add(out, "trace.item_sync", impact < 1 ? GD_SEV_INFO : severity(impact), GD_NO_GPU, ev, impact,
                   item_sync_fix,
                   "rank %d: the host reads GPU values %.1f times per step (%s) and waits %.1f%% of the step for "
                   "the GPU",
                   r->rank, per_step, item ? "mostly .item()" : "mostly .cpu() / .to('cpu')", r->read_blocked_pct);
}

static void check_step_memcpy(const gd_trace_result *all, size_t n, size_t i, gd_findings *out)
{
    (void)n;
    const gd_trace_result *r = &all[i];
    if (!r->step_copies || !(r->step_copy_exposed_pct >= GD_TRACE_STEP_MEMCPY_PCT))
        return;
    double impact = r1(r->step_copy_exposed_pct);
    json_t *ev = evidence(r);
    json_object_set_new(ev, "h2d_copies", json_integer((json_int_t)r->step_copies));
    json_object_set_new(ev, "h2d_copies_per_step", gd_json_number(r1((double)r->step_copies / (double)r->nsteps)));
    json_object_set_new(ev, "bytes", gd_json_number(r->step_copy_bytes));
    json_object_set_new(ev, "copy_ms", gd_json_number(round(r->step_copy_us) / 1000));
    json_object_set_new(ev, "exposed_ms", gd_json_number(round(r->step_copy_exposed_us) / 1000));
    json_object_set_new(
        ev, "exposed_pct_of_copies",
        gd_json_number(r->step_copy_us > 0 ? r1(100 * r->step_copy_exposed_us / r->step_copy_us) : NAN));
    json_object_set_new(ev, "host_waited", json_integer((json_int_t)r->step_copies_waited));
    json_object_set_new(ev, "share_of_step_pct", gd_json_number(impact));
    char worst[96];
    worst_steps(r, step_exposed, worst, sizeof worst);
    json_object_set_new(ev, "worst_steps", json_string(worst));
    bool blocking = r->step_copies_waited * 2 >= r->step_copies;
    gd_finding_add(out, "trace.step_memcpy", severity(impact), GD_NO_GPU, ev, impact,
                   blocking ? "The host waits for each copy and no compute runs beside it: copy with "
                              ".to(device, non_blocking=True) from pinned memory (DataLoader(pin_memory=True)), "
                              "and prefetch the next batch on a side stream (torch.cuda.Stream, "
                              "tensor.record_stream) or with a prefetching loader, so the copy overlaps the "
                              "previous step's compute."
                            : "The copies run while no compute kernel does: prefetch the next batch on a side "
                              "stream (a torch.cuda.Stream with .to(device, non_blocking=True) from pinned memory "
                              "and tensor.record_stream, or a prefetching loader such as DALI's) so it overlaps "
                              "the previous step's compute; keep tensors that do not change on the GPU.",
                   "rank %d: host-to-device copies inside the step take %.1f%% of it with no compute beside them "
                   "(%.1f per step)",
                   r->rank, r->step_copy_exposed_pct, (double)r->step_copies / (double)r->nsteps);
}

/* An FP32 SIMT GEMM (no tensor cores): cuBLAS and CUTLASS "sgemm" kernels,
 * not the TF32 tensor-core ones (s1688/s16816 tiles, "tf32" in the name). */
static bool fp32_gemm(const char *name)
{
    return strstr(name, "sgemm") && !strstr(name, "tf32") && !strstr(name, "s1688") && !strstr(name, "s16816");
}

static void check_fp32_gemm(const gd_trace_result *all, size_t n, size_t i, gd_findings *out)
{
    (void)n;
    const gd_trace_result *r = &all[i];
    if (r->compute_major < 8 || !r->has_gpu || !(r->class_us[GD_K_COMPUTE] > 0) || !(r->span_us > 0))
        return; /* tensor cores with TF32 and bf16: Ampere (sm_80) and newer */
    double us = 0;
    const char *top = NULL;
    for (size_t k = 0; k < r->ntop[GD_K_COMPUTE]; k++)
        if (fp32_gemm(r->top[GD_K_COMPUTE][k].name)) {
            us += r->top[GD_K_COMPUTE][k].total_us;
            top = top ? top : r->top[GD_K_COMPUTE][k].name;
        }
    double share = 100 * us / r->class_us[GD_K_COMPUTE];
    if (!top || share < GD_TRACE_FP32_GEMM_PCT)
        return;
    double impact = r1(100 * us / r->span_us * (1 - 1 / GD_TRACE_TF32_SPEEDUP));
    json_t *ev = evidence(r);
    json_object_set_new(ev, "compute_major", json_integer(r->compute_major));
    json_object_set_new(ev, "fp32_gemm_ms", gd_json_number(round(us) / 1000));
    json_object_set_new(ev, "fp32_gemm_pct_of_compute", gd_json_number(r1(share)));
    json_object_set_new(ev, "kernel", json_string(top));
    /* GEMMs that are a sliver of a sparse trace's span: worth knowing, no loss to speak of. */
    gd_finding_add(out, "trace.fp32_gemm", impact < 1 ? GD_SEV_INFO : severity(impact), GD_NO_GPU, ev, impact,
                   "Use the tensor cores: train with torch.autocast(device_type='cuda', dtype=torch.bfloat16) "
                   "(automatic mixed precision; no loss scaling needed with bf16), or at least allow TF32 for "
                   "FP32 matmuls: torch.backends.cuda.matmul.allow_tf32 = True / "
                   "torch.set_float32_matmul_precision('high'), torch.backends.cudnn.allow_tf32 = True.",
                   "rank %d: FP32 GEMMs without tensor cores take %.0f%% of the compute time on an sm_%d0 GPU (%s)",
                   r->rank, share, r->compute_major, top);
}

const gd_trace_check gd_trace_checks[] = {
    {"trace.gpu_idle", "the GPU is busy most of the time (HTA temporal breakdown)", check_gpu_idle},
    {"trace.dataloader", "little of each step is spent waiting for the DataLoader", check_dataloader},
    {"trace.pageable_memcpy", "host-device copies come from pinned memory", check_pageable},
    {"trace.sync", "the host rarely blocks on the GPU inside the step", check_sync},
    {"trace.small_kernels", "kernels are long enough to pay for their launch", check_small_kernels},
    {"trace.comm_overlap", "communication overlaps computation", check_comm_overlap},
    {"trace.straggler", "no rank's step is much slower than the others'", check_straggler},
    {"trace.fp32_gemm", "matrix multiplications use the tensor cores on sm_80+", check_fp32_gemm},
    {"trace.item_sync", "the host does not read GPU values (.item(), .cpu()) inside the step", check_item_sync},
    {"trace.step_memcpy", "host-to-device copies inside the step overlap compute", check_step_memcpy},
};
const size_t gd_trace_checks_count = sizeof gd_trace_checks / sizeof gd_trace_checks[0];

/* Which time a finding's gain comes out of: 1 the GPU's idle time (each of
 * these is at most the idle share), 2 the time the GPU only communicates or
 * copies; 0 its own (compute, or the gap to the other ranks). */
static int gain_pool(const char *id)
{
    static const char *const idle[] = {"trace.gpu_idle", "trace.dataloader", "trace.sync", "trace.item_sync",
                                       "trace.small_kernels"};
    static const char *const non_compute[] = {"trace.comm_overlap", "trace.step_memcpy", "trace.pageable_memcpy"};
    for (size_t i = 0; i < sizeof idle / sizeof *idle; i++)
        if (strcmp(id, idle[i]) == 0)
            return 1;
    for (size_t i = 0; i < sizeof non_compute / sizeof *non_compute; i++)
        if (strcmp(id, non_compute[i]) == 0)
            return 2;
    return 0;
}

static int finding_rank(const gd_finding *f)
{
    json_t *r = json_object_get(f->evidence, "rank");
    return json_is_integer(r) ? (int)json_integer_value(r) : -1;
}

void gd_trace_mark_shared_gains(gd_findings *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        gd_finding *f = &fs->v[i];
        int pool = gain_pool(f->id), rank = finding_rank(f);
        if (!pool || isnan(f->impact_pct))
            continue;
        char with[256] = "";
        for (size_t j = 0; j < fs->n; j++) {
            const gd_finding *g = &fs->v[j];
            if (j == i || gain_pool(g->id) != pool || finding_rank(g) != rank || isnan(g->impact_pct))
                continue;
            size_t used = strlen(with);
            snprintf(with + used, sizeof with - used, "%s%s", used ? ", " : "", g->id);
        }
        if (with[0])
            json_object_set_new(f->evidence, GD_TRACE_GAIN_SHARED, json_string(with));
    }
}

bool gd_trace_too_short(const gd_trace_result *r, char *why, size_t len)
{
    if (r->step_first_in_trace < 0 || r->nsteps >= GD_TRACE_MIN_STEPS)
        return false; /* no step markers: judged over the GPU's span, as HTA does */
    snprintf(why, len, "%zu step%s: too short to judge the job (warm-up, compilation or a pause may fill it)",
             r->nsteps, r->nsteps == 1 ? "" : "s");
    return true;
}

/* The findings of a rank too short to judge say so, in their title and
 * evidence, and are warnings at most: what one step shows may be its
 * warm-up, not the job. */
static void mark_too_short(const gd_trace_result *ranks, size_t n, gd_findings *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        gd_finding *f = &fs->v[i];
        int rank = finding_rank(f);
        const gd_trace_result *r = NULL;
        for (size_t k = 0; k < n && !r; k++)
            if (ranks[k].rank == rank)
                r = &ranks[k];
        char why[160];
        if (!r || !gd_trace_too_short(r, why, sizeof why))
            continue;
        json_object_set_new(f->evidence, GD_TRACE_TOO_SHORT, json_string(why));
        if (f->severity == GD_SEV_CRITICAL)
            f->severity = GD_SEV_WARNING;
        size_t used = strlen(f->title);
        snprintf(f->title + used, sizeof f->title - used, "; from %zu step%s, too short to judge", r->nsteps,
                 r->nsteps == 1 ? "" : "s");
    }
}

void gd_trace_checks_run(const gd_trace_result *ranks, size_t n, gd_findings *out)
{
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < gd_trace_checks_count; c++)
            gd_trace_checks[c].run(ranks, n, i, out);
    gd_trace_mark_shared_gains(out);
    mark_too_short(ranks, n, out);
    gd_findings_sort(out);
}
