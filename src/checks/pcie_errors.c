/* SPDX-License-Identifier: Apache-2.0 */
/* PCIe errors: pcie.replays (NVML replay counter), pcie.aer_errors (AER
 * counters of sysfs or lspci, and the kernel log's AER messages). */
#include "analysis/window_acc.h"
#include "checks_internal.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"
#include "core/pcie_util.h"

/* Line rate in GT/s of a generation (DCGM's table, Gen1-6). */
static double gen_gts(int gen)
{
    static const double r[] = {0, 2.5, 5, 8, 16, 32, 64};
    return gen >= 1 && gen <= 6 ? r[gen] : NAN;
}

/* Median of metric m over GPU g's loaded samples, else over the window; NAN if none. */
static double link_median(const gd_facts *f, size_t g, gd_metric m)
{
    double med = gd_loaded_median(f, g, m);
    gd_stats st;
    return !isnan(med) ? med : gd_stats_of(f, g, m, &st) > 0 ? st.median : NAN;
}

/* The link the replay rate is judged against: the median loaded link (an
 * idle stretch at Gen1 would make the allowance too strict), else the
 * median over the window, else the maximum. */
static bool replay_link(const gd_facts *f, size_t g, int *gen, int *width)
{
    double mg = link_median(f, g, GD_M_PCIE_GEN), mw = link_median(f, g, GD_M_PCIE_WIDTH);
    const gd_gpu *gpu = &f->gpus[g];
    *gen = !isnan(mg) ? (int)mg : gd_ok(gpu->pcie_gen_max) ? (int)gpu->pcie_gen_max.v : 0;
    *width = !isnan(mw) ? (int)mw : gd_ok(gpu->pcie_width_max) ? (int)gpu->pcie_width_max.v : 0;
    return *gen >= 1 && *width >= 1;
}

void gd_check_pcie_replays(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        long first = -1, last = -1;
        gd_window_acc *tmp;
        const gd_window_acc *acc = gd_window_acc_get(f, &tmp);
        uint64_t a, b;
        if (acc && gd_window_acc_valid_span(acc, g, GD_M_PCIE_REPLAYS, &a, &b)) {
            first = (long)(a - f->series.dropped);
            last = (long)(b - f->series.dropped);
        }
        gd_window_acc_free(tmp);
        if (first >= 0 && last == first) { /* one reading (a snapshot, a capture): no growth to see */
            if (!gpu->lost)
                gd_skip_add(out, "pcie.replays", gpu->index,
                            "the PCIe replay counter was read once, so its growth was not judged");
            continue;
        }
        if (first < 0 || last < first) {
            if (!gpu->lost && f->series.n > 1)
                gd_skip_add(out, "pcie.replays", gpu->index, "the PCIe replay counter is not readable over the window");
            continue;
        }
        double c0 = gd_series_at(&f->series, (size_t)first, g, GD_M_PCIE_REPLAYS).v;
        double c1 = gd_series_at(&f->series, (size_t)last, g, GD_M_PCIE_REPLAYS).v;
        double dt = gd_series_t(&f->series, last) - gd_series_t(&f->series, first);
        double delta = c1 - c0;
        int gen, width;
        if (dt <= 0 || delta <= 0 || !replay_link(f, g, &gen, &width))
            continue; /* a counter that went down was reset: nothing to judge */
        double rate = delta / dt * 60.0;
        double allowed = ceil(GD_PCIE_REPLAY_BER * gen_gts(gen) * 1e9 * 60.0 * width);
        /* Over a window shorter than a minute the rise must also exceed one
         * minute's allowance: one replay in a 1 s window is not 60/min. */
        if (!(rate > allowed + 1e-9) || !(delta > allowed + 1e-9)) /* 31 in 60 s is 31/min, not 31.000000000000004 */
            continue;
        json_t *ev = json_object();
        json_object_set_new(ev, "replays", gd_json_number(delta));
        json_object_set_new(ev, "window_s", gd_json_number(round(dt * 10) / 10));
        json_object_set_new(ev, "replays_per_min", gd_json_number(round(rate * 10) / 10));
        json_object_set_new(ev, "allowed_per_min", gd_json_number(allowed));
        json_object_set_new(ev, "pcie_gen", json_integer(gen));
        json_object_set_new(ev, "pcie_width", json_integer(width));
        json_object_set_new(ev, "counter_total", gd_json_number(c1));
        json_object_set_new(ev, "rule", json_string("DCGM health: ceil(1e-12 x line rate x 60 x lanes) per minute"));
        json_object_set_new(
            ev, "source",
            json_string(f->replay_counter[0] ? f->replay_counter : "nvml:nvmlDeviceGetPcieReplayCounter"));
        char fix[768];
        snprintf(fix, sizeof fix,
                 "Replays are packets the link had to resend: bad signal integrity between the GPU and its port. Each "
                 "one costs bandwidth and latency, and rising rates precede link drops (Xid 79). Reseat the card, "
                 "its riser and cables, check the slot for dust and bent pins, and compare with 'sudo lspci -vv -s "
                 "%s' (CESta: RxErr, BadTLP, BadDLLP). If the rate stays above %.0f/min, move the card to another "
                 "slot to tell card from slot, and have the part replaced.",
                 gpu->pci_bus_id, allowed);
        gd_severity sev = rate > 10 * allowed ? GD_SEV_CRITICAL : GD_SEV_WARNING;
        gd_finding *x =
            gd_finding_add(out, "pcie.replays", sev, gpu->index, ev, NAN, fix,
                           "GPU %d PCIe replays at %.0f/min, above the %.0f/min a healthy Gen%d x%d link allows",
                           gpu->index, rate, allowed, gen, width);
        if (x)
            snprintf(x->timeline, sizeof x->timeline, "%.0f replays in %.1f s (counter %.0f -> %.0f)", delta, dt, c0,
                     c1);
    }
}

/* One device of a path with AER errors worth reporting. */
static bool aer_bad(const gd_pcie_hop *h, double *unc, double *cor)
{
    *unc = (gd_ok(h->aer_fatal) ? h->aer_fatal.v : 0) + (gd_ok(h->aer_nonfatal) ? h->aer_nonfatal.v : 0);
    *cor = gd_ok(h->aer_cor) ? h->aer_cor.v : 0;
    /* lspci shows which correctable errors were ever flagged, not how
     * many: only counts are judged for correctable errors. */
    return *unc > 0 || (!h->aer_bits && *cor >= GD_PCIE_AER_COR_MAX);
}

/* The kernel log's AER messages about one device, and whether a counter finding took them. */
typedef struct aer_log {
    char dev[16];
    const gd_aer_device *d;
    bool reported;
} aer_log;

static size_t aer_logs(const gd_stack_facts *s, aer_log *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; s && s->kernel_log_read && i < s->aer_device_count && n < max; i++)
        if (gd_pcie_norm_bdf(s->aer_devices[i].dev, out[n].dev, sizeof out[n].dev) == 0) {
            out[n].d = &s->aer_devices[i];
            out[n++].reported = false;
        }
    return n;
}

static aer_log *aer_log_find(aer_log *logs, size_t n, const char *bdf)
{
    for (size_t k = 0; k < n; k++)
        if (strcmp(logs[k].dev, bdf) == 0)
            return &logs[k];
    return NULL;
}

static void aer_log_evidence(json_t *ev, const aer_log *l)
{
    json_t *o = json_object();
    json_object_set_new(o, "corrected", json_integer((json_int_t)l->d->count[GD_AER_CORRECTED]));
    json_object_set_new(o, "nonfatal", json_integer((json_int_t)l->d->count[GD_AER_NONFATAL]));
    json_object_set_new(o, "fatal", json_integer((json_int_t)l->d->count[GD_AER_FATAL]));
    json_object_set_new(o, "reported_by", json_string(l->d->last.port));
    char when[80];
    gd_log_when(l->d->last.when, when, sizeof when);
    json_object_set_new(o, "last_seen", json_string(when));
    json_object_set_new(o, "last_message", json_string(l->d->last.text));
    json_object_set_new(ev, "kernel_log_messages", o);
}

/* The GPU (index) a device is, or sits above; GD_NO_GPU when none known. */
static int aer_gpu_of(const gd_facts *f, const char *bdf)
{
    char b[16];
    for (size_t g = 0; g < f->gpu_count; g++)
        if (gd_pcie_norm_bdf(f->gpus[g].pci_bus_id, b, sizeof b) == 0 && strcmp(b, bdf) == 0)
            return f->gpus[g].index;
    for (size_t i = 0; f->pcie && i < f->pcie->gpu_count; i++) {
        const gd_pcie_gpu *pg = &f->pcie->gpus[i];
        for (size_t k = 0; pg->matched && k < pg->hop_count; k++)
            if (strcmp(pg->hops[k].bdf, bdf) == 0)
                return pg->gpu;
    }
    return GD_NO_GPU;
}

static const char aer_fix_fmt[] =
    "AER counts link errors since boot. Uncorrectable ones corrupt or drop transactions (the driver "
    "may report Xid 79 or reset the GPU); many correctable ones mean a marginal link. Check the "
    "kernel log ('journalctl -k | grep -i aer'), reseat the card and riser, update BIOS and GPU "
    "firmware, and watch whether the counters keep rising: 'cat /sys/bus/pci/devices/%s/aer_dev_*'.";
/* The info finding's: a few corrected errors, or a device on no GPU's path. */
static const char aer_note_fmt[] =
    "AER counts link errors since boot; a few correctable ones are the link repairing itself and cost nothing "
    "that matters. Nothing to do unless they keep rising: compare 'cat /sys/bus/pci/devices/%s/aer_dev_*' "
    "after jobs, and look for uncorrectable ones in 'journalctl -k | grep -i aer'.";

/* A device that only the kernel log's messages tell about. Uncorrectable
 * messages are judged like the counters; correctable ones warn at the same
 * count (the kernel rate-limits them, so the log shows fewer than happened)
 * and are context below it; devices on no known GPU's path are context. */
static void aer_log_report(const gd_facts *f, gd_findings *out, const aer_log *l)
{
    int gpu = aer_gpu_of(f, l->dev);
    unsigned long fatal = l->d->count[GD_AER_FATAL], unc = l->d->count[GD_AER_NONFATAL] + fatal,
                  cor = l->d->count[GD_AER_CORRECTED];
    gd_severity sev = fatal                        ? GD_SEV_CRITICAL
                      : unc                        ? GD_SEV_WARNING
                      : cor >= GD_PCIE_AER_COR_MAX ? GD_SEV_WARNING
                                                   : GD_SEV_INFO;
    if (gpu == GD_NO_GPU && f->gpu_count > 0)
        sev = GD_SEV_INFO;
    json_t *ev = json_object();
    json_object_set_new(ev, "device", json_string(l->dev));
    aer_log_evidence(ev, l);
    char src[600];
    snprintf(src, sizeof src, "kernel log: %s", f->stack->kernel_log_source);
    json_object_set_new(ev, "source", json_string(src));
    char fix[768], where[64];
    if (sev == GD_SEV_INFO)
        snprintf(fix, sizeof fix, aer_note_fmt, l->dev);
    else
        snprintf(fix, sizeof fix, aer_fix_fmt, l->dev);
    if (gpu != GD_NO_GPU)
        snprintf(where, sizeof where, "GPU %d", gpu);
    else
        snprintf(where, sizeof where, "PCI %s (on no known GPU's path)", l->dev);
    if (unc)
        gd_finding_add(out, "pcie.aer_errors", sev, gpu, ev, NAN, fix,
                       "%s: the kernel log holds %lu uncorrectable%s PCIe AER error%s from %s", where, unc,
                       fatal ? " (fatal)" : " (non-fatal)", unc > 1 ? "s" : "", l->dev);
    else
        gd_finding_add(out, "pcie.aer_errors", sev, gpu, ev, NAN, fix,
                       "%s: the kernel log holds %lu correctable PCIe AER error%s from %s", where, cor,
                       cor > 1 ? "s" : "", l->dev);
}

void gd_check_pcie_aer_errors(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    aer_log logs[GD_STACK_MAX_AER_DEVICES];
    size_t nlogs = aer_logs(f->stack, logs, sizeof logs / sizeof logs[0]);
    bool log_read = f->stack && f->stack->kernel_log_read;
    if (!f->pcie) {
        gd_skip_add(out, "pcie.aer_errors", GD_NO_GPU, "no sysfs tree or lspci capture to read AER counters from%s",
                    log_read ? " (the kernel log's AER messages were judged)" : "");
        for (size_t k = 0; k < nlogs; k++)
            aer_log_report(f, out, &logs[k]);
        return;
    }
    char seen[64][16];
    size_t nseen = 0;
    for (size_t i = 0; i < f->pcie->gpu_count; i++) {
        const gd_pcie_gpu *pg = &f->pcie->gpus[i];
        if (!pg->matched && f->gpu_count > 0)
            continue; /* another machine's GPU: the capture check says so */
        for (size_t k = 0; k < pg->hop_count; k++) {
            const gd_pcie_hop *h = &pg->hops[k];
            double unc, cor;
            bool dup = false;
            for (size_t s = 0; s < nseen; s++)
                dup |= strcmp(seen[s], h->bdf) == 0;
            aer_log *l = aer_log_find(logs, nlogs, h->bdf);
            if (dup || !aer_bad(h, &unc, &cor))
                continue;
            if (l)
                l->reported = true;
            if (nseen < 64)
                gd_pcie_copy(seen[nseen++], sizeof seen[0], h->bdf);
            json_t *ev = json_object();
            json_object_set_new(ev, "device", json_string(h->bdf));
            json_object_set_new(ev, "role", json_string(h->role));
            json_object_set_new(ev, h->aer_bits ? "correctable_bits" : "correctable", gd_json_value(h->aer_cor));
            json_object_set_new(ev, h->aer_bits ? "nonfatal_bits" : "nonfatal", gd_json_value(h->aer_nonfatal));
            json_object_set_new(ev, h->aer_bits ? "fatal_bits" : "fatal", gd_json_value(h->aer_fatal));
            json_object_set_new(ev, "source",
                                json_string(h->aer_bits ? "lspci:UESta,CESta"
                                                        : "sysfs:aer_dev_correctable,aer_dev_nonfatal,aer_dev_fatal"));
            if (l)
                aer_log_evidence(ev, l);
            char fix[768];
            snprintf(fix, sizeof fix, aer_fix_fmt, h->bdf);
            gd_severity sev = gd_ok(h->aer_fatal) && h->aer_fatal.v > 0 ? GD_SEV_CRITICAL : GD_SEV_WARNING;
            if (unc > 0)
                gd_finding_add(out, "pcie.aer_errors", sev, pg->matched ? pg->gpu : GD_NO_GPU, ev, NAN, fix,
                               "%s %s on the path of GPU %d reports %.0f uncorrectable PCIe error%s", h->role, h->bdf,
                               pg->gpu, unc, h->aer_bits ? " type(s)" : "s");
            else
                gd_finding_add(out, "pcie.aer_errors", GD_SEV_WARNING, pg->matched ? pg->gpu : GD_NO_GPU, ev, NAN, fix,
                               "%s %s on the path of GPU %d reports %.0f correctable PCIe errors", h->role, h->bdf,
                               pg->gpu, cor);
        }
    }
    for (size_t k = 0; k < nlogs; k++)
        if (!logs[k].reported)
            aer_log_report(f, out, &logs[k]);
}
