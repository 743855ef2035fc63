/* PCIe errors: pcie.replays (NVML replay counter), pcie.aer_errors (AER counters). */
#include "checks_internal.h"
#include "gpudoctor/pcie.h"

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

void gd_check_pcie_replays(const gd_facts *f, gd_findings *out)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        long first = -1, last = gd_last_valid(f, g, GD_M_PCIE_REPLAYS);
        for (size_t i = 0; i < f->series.n && first < 0; i++)
            if (gd_ok(gd_series_at(&f->series, i, g, GD_M_PCIE_REPLAYS)))
                first = (long)i;
        if (first < 0 || last <= first) {
            if (!gpu->lost && f->series.n > 1)
                gd_skip_add(out, "pcie.replays", gpu->index, "the PCIe replay counter is not readable over the window");
            continue;
        }
        double c0 = gd_series_at(&f->series, (size_t)first, g, GD_M_PCIE_REPLAYS).v;
        double c1 = gd_series_at(&f->series, (size_t)last, g, GD_M_PCIE_REPLAYS).v;
        double dt = f->series.t_s[last] - f->series.t_s[first];
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
        json_object_set_new(ev, "source", json_string("nvml:nvmlDeviceGetPcieReplayCounter"));
        char fix[768];
        snprintf(fix, sizeof fix,
                 "Replays are packets the link had to resend: bad signal integrity between the GPU and its port. Each "
                 "one costs bandwidth and latency, and rising rates precede link drops (Xid 79). Reseat the card, "
                 "its riser and cables, check the slot for dust and bent pins, and compare with 'sudo lspci -vv -s "
                 "%s' (CESta: RxErr, BadTLP, BadDLLP). If the rate stays above %.0f/min, move the card to another "
                 "slot to tell card from slot, and have the part replaced.",
                 gpu->pci_bus_id, allowed);
        gd_severity sev = rate > 10 * allowed ? GD_SEV_CRITICAL : GD_SEV_WARNING;
        gd_finding *x = gd_finding_add(out, "pcie.replays", sev, gpu->index, ev, NAN, fix,
                                       "GPU %d PCIe replays at %.0f/min, above the %.0f/min a healthy Gen%d x%d link allows",
                                       gpu->index, rate, allowed, gen, width);
        if (x)
            snprintf(x->timeline, sizeof x->timeline, "%.0f replays in %.1f s (counter %.0f -> %.0f)", delta, dt, c0, c1);
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

void gd_check_pcie_aer_errors(const gd_facts *f, gd_findings *out)
{
    if (!f->pcie) {
        gd_skip_add(out, "pcie.aer_errors", GD_NO_GPU, "no sysfs tree or lspci capture to read AER counters from");
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
            if (dup || !aer_bad(h, &unc, &cor))
                continue;
            if (nseen < 64)
                gd_pcie_copy(seen[nseen++], sizeof seen[0], h->bdf);
            json_t *ev = json_object();
            json_object_set_new(ev, "device", json_string(h->bdf));
            json_object_set_new(ev, "role", json_string(h->role));
            json_object_set_new(ev, h->aer_bits ? "correctable_bits" : "correctable", gd_json_value(h->aer_cor));
            json_object_set_new(ev, h->aer_bits ? "nonfatal_bits" : "nonfatal", gd_json_value(h->aer_nonfatal));
            json_object_set_new(ev, h->aer_bits ? "fatal_bits" : "fatal", gd_json_value(h->aer_fatal));
            json_object_set_new(ev, "source", json_string(h->aer_bits ? "lspci:UESta,CESta" : "sysfs:aer_dev_correctable,aer_dev_nonfatal,aer_dev_fatal"));
            char fix[768];
            snprintf(fix, sizeof fix,
                     "AER counts link errors since boot. Uncorrectable ones corrupt or drop transactions (the driver "
                     "may report Xid 79 or reset the GPU); many correctable ones mean a marginal link. Check the "
                     "kernel log ('journalctl -k | grep -i aer'), reseat the card and riser, update BIOS and GPU "
                     "firmware, and watch whether the counters keep rising: 'cat /sys/bus/pci/devices/%s/aer_dev_*'.",
                     h->bdf);
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
}
