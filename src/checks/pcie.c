/* SPDX-License-Identifier: Apache-2.0 */
/* PCIe links: pcie.link_downgraded, pcie.width_reduced, pcie.slot_limited, pcie.upstream_downgraded. */
#include "analysis/window_acc.h"
#include "checks_internal.h"
#include "core/stats.h"
#include "gpudoctor/pcie.h"
#include "core/pcie_util.h"

#include <stdlib.h>

/* Samples of GPU g (loaded ones, or all when !loaded_only) whose link is
 * below (gen_max, width_max); the medians of gen and width over them. */
typedef struct link_window {
    size_t loaded, judged, low;
    double gen, width; /* medians over the low samples */
    double first_s;
} link_window;

static void link_below(const gd_facts *f, size_t g, double gen_max, double width_max, bool loaded_only, link_window *w)
{
    *w = (link_window){.gen = NAN, .width = NAN, .first_s = NAN};
    gd_window_acc *tmp;
    const gd_window_acc *acc = gd_window_acc_get(f, &tmp);
    if (acc) {
        gd_window_link l;
        gd_window_acc_link(acc, f, g, gen_max, width_max, loaded_only, &l);
        *w = (link_window){.loaded = l.samples,
                           .judged = l.judged,
                           .low = l.low,
                           .gen = l.gen,
                           .width = l.width,
                           .first_s = l.first_s};
    }
    gd_window_acc_free(tmp);
}

/* Where the maxima and the sampled link of GPU g were read. */
static void link_source(const gd_facts *f, const gd_gpu *gpu, char *buf, size_t len)
{
    /* What a live run reads; for captures gd_sources_of_capture names the fields. */
    const char *sampled = "nvml:nvmlDeviceGetCurrPcieLinkGeneration,nvmlDeviceGetCurrPcieLinkWidth";
    snprintf(buf, len, "%s; maxima: %s%s%s", sampled, gpu->pcie_max_source[0] ? gpu->pcie_max_source : "unknown",
             f->pcie ? "; port above: " : "", f->pcie ? f->pcie->source : "");
}

bool gd_pcie_not_host_path(const gd_gpu *gpu, const char *check, gd_findings *out)
{
    if (!gd_ok(gpu->c2c_mode) || gpu->c2c_mode.v != 1)
        return false;
    gd_skip_add(out, check, gpu->index,
                "GPU %d reaches the host over NVLink-C2C (GPU C2C Mode: Enabled, Grace Hopper): its PCIe link "
                "is not the host path (Gen4 x1 on GH200, by design), so it is not judged as one",
                gpu->index);
    return true;
}

/* The port above GPU g's own link (its slot), or NULL when not known. */
static const gd_pcie_hop *slot_of(const gd_facts *f, const gd_gpu *gpu)
{
    const gd_pcie_gpu *pg = gd_pcie_gpu_of(f, gpu->index);
    return pg && pg->hop_count > 1 ? &pg->hops[1] : NULL;
}

static void add_port_above(json_t *ev, const gd_pcie_hop *slot)
{
    if (!slot)
        return;
    json_t *s = json_object();
    json_object_set_new(s, "bdf", json_string(slot->bdf));
    json_object_set_new(s, "gen_max", gd_json_value(slot->gen_max));
    json_object_set_new(s, "width_max", gd_json_value(slot->width_max));
    json_object_set_new(ev, "port_above", s);
}

static void downgraded_finding(const gd_facts *f, size_t g, const link_window *w, int gen_max, int width_max,
                               gd_findings *out)
{
    const gd_gpu *gpu = &f->gpus[g];
    const gd_pcie_gpu *pg = gd_pcie_gpu_of(f, gpu->index);
    double have = gd_pcie_link_gbps((int)w->gen, (int)w->width), want = gd_pcie_link_gbps(gen_max, width_max);
    double fraction = have / want;
    json_t *ev = json_object();
    json_object_set_new(ev, "pcie_gen", gd_json_number(w->gen));
    json_object_set_new(ev, "pcie_width", gd_json_number(w->width));
    json_object_set_new(ev, "pcie_gen_max", json_integer(gen_max));
    json_object_set_new(ev, "pcie_width_max", json_integer(width_max));
    json_object_set_new(ev, "link_gbps", gd_json_number(round(have * 100) / 100));
    json_object_set_new(ev, "link_max_gbps", gd_json_number(round(want * 100) / 100));
    json_object_set_new(ev, "downgraded_pct", gd_json_number(round(1000.0 * (double)w->low / (double)w->judged) / 10));
    json_object_set_new(ev, "loaded_samples", json_integer((json_int_t)w->loaded));
    add_port_above(ev, slot_of(f, gpu));
    char src[1400];
    link_source(f, gpu, src, sizeof src);
    json_object_set_new(ev, "source", json_string(src));
    char fix[768];
    if (w->width < width_max)
        snprintf(fix, sizeof fix,
                 "The link trained with %.0f of %d lanes: power down and reseat the card and its riser or cable, "
                 "check the slot's bifurcation setting in the BIOS (x16, not x8x8), and clean the contacts. If a "
                 "reseat does not bring x%d back, swap the riser, then the slot. 'sudo lspci -vv -s %s' shows LnkSta "
                 "'(downgraded)'.",
                 w->width, width_max, width_max, pg ? pg->bdf : gpu->pci_bus_id);
    else
        snprintf(fix, sizeof fix,
                 "The link runs at Gen%.0f under load although card and slot support Gen%d together. Check the "
                 "BIOS PCIe speed setting of the slot (Auto or Gen%d), reseat the card and riser (signal "
                 "integrity makes links train lower), update the BIOS and the GPU firmware. 'nvidia-smi -q -d "
                 "PCIE' shows it while loaded.",
                 w->gen, gen_max, gen_max);
    gd_severity sev = fraction <= GD_PCIE_DOWNGRADED_CRITICAL_FRACTION ? GD_SEV_CRITICAL : GD_SEV_WARNING;
    gd_finding *x =
        gd_finding_add(out, "pcie.link_downgraded", sev, gpu->index, ev, NAN, fix,
                       "GPU %d PCIe link at Gen%.0f x%.0f under load, below its Gen%d x%d (%.*f of %.0f GB/s)",
                       gpu->index, w->gen, w->width, gen_max, width_max, have < 10 ? 1 : 0, have, want);
    if (x)
        snprintf(x->timeline, sizeof x->timeline, "from %.1f s: Gen%.0f x%.0f in %zu of %zu loaded samples", w->first_s,
                 w->gen, w->width, w->low, w->judged);
}

/* No sample says whether GPU g was loaded (an lspci capture): a link at its
 * maximum is fine at any load; a lower one may be idle power saving. */
static void link_load_unknown(const gd_facts *f, size_t g, int gen_max, int width_max, gd_findings *out)
{
    link_window w;
    link_below(f, g, gen_max, width_max, false, &w);
    if (w.low == 0)
        return;
    gd_skip_add(out, "pcie.link_downgraded", f->gpus[g].index,
                "GPU %d's link reads Gen%.0f x%.0f of Gen%d x%d, but its load is unknown (idle GPUs lower "
                "their PCIe speed on purpose): capture 'nvidia-smi -q' with 'lspci -vv' while the job runs",
                f->gpus[g].index, w.gen, w.width, gen_max, width_max);
}

void gd_check_pcie_link_downgraded(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (gpu->lost || gd_pcie_not_host_path(gpu, self->id, out))
            continue;
        int mg, mw;
        if (!gd_pcie_expected_link(f, g, &mg, &mw)) {
            gd_skip_add(out, "pcie.link_downgraded", gpu->index,
                        "the maximum PCIe generation and width are not readable");
            continue;
        }
        link_window w;
        link_below(f, g, mg, mw, true, &w);
        if (w.judged == 0 && w.loaded > 0) {
            gd_skip_add(out, "pcie.link_downgraded", gpu->index,
                        "the current PCIe generation and width are not readable while GPU %d was under load",
                        gpu->index);
            continue;
        }
        gd_stats util;
        if (w.judged == 0 && gd_stats_of(f, g, GD_M_UTIL_GPU_PCT, &util) == 0) {
            link_load_unknown(f, g, mg, mw, out);
            continue;
        }
        if (w.judged == 0) {
            gd_skip_add(out, "pcie.link_downgraded", gpu->index,
                        "GPU %d was not under load in the window (idle GPUs lower their PCIe speed on purpose), so "
                        "its link could not be judged: run 'gpudoctor check' while the job runs, or 'gpudoctor "
                        "bench pcie', which loads the link itself",
                        gpu->index);
            continue;
        }
        if ((double)w.low < GD_PCIE_DOWNGRADED_MIN_SHARE * (double)w.judged)
            continue;
        downgraded_finding(f, g, &w, mg, mw, out);
    }
}

/* The widths of GPU g's samples: how many were read, how many sat below
 * width_max, and the widest of those (what the link reached at best). */
static void width_samples(const gd_facts *f, size_t g, double width_max, size_t *read, size_t *low, double *widest)
{
    gd_window_acc *tmp;
    const gd_window_acc *acc = gd_window_acc_get(f, &tmp);
    gd_window_link l = {0};
    if (acc)
        gd_window_acc_link(acc, f, g, INFINITY, width_max, false, &l);
    *read = gd_stats_of(f, g, GD_M_PCIE_WIDTH, NULL);
    *low = l.width_low;
    *widest = l.widest_low;
    gd_window_acc_free(tmp);
}

/* Whether pcie.link_downgraded judged GPU g: a loaded sample with its link read. */
static bool link_judged_under_load(const gd_facts *f, size_t g)
{
    link_window w;
    link_below(f, g, INFINITY, INFINITY, true, &w);
    return w.judged > 0;
}

/* Whether any sample of GPU g tells its load (an lspci capture's does not). */
static bool load_known(const gd_facts *f, size_t g)
{
    gd_window_acc *tmp;
    const gd_window_acc *acc = gd_window_acc_get(f, &tmp);
    bool known = acc && gd_window_acc_by_signal(acc, g, GD_LOAD_NONE) < f->series.n;
    gd_window_acc_free(tmp);
    return known;
}

/* A link narrower than its maximum where pcie.link_downgraded could not
 * judge it (idle, or load unknown). GPUs lower the link's speed to save
 * power when idle, rarely its width: a narrow idle link is most often a card
 * not fully seated, a riser, or a slot wired narrower than the card. Info
 * only, since it cannot be told from a power-saving link at rest; every
 * sample must be narrow (one at full width shows the width moves). */
void gd_check_pcie_width_reduced(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        int mg, mw;
        if (gpu->lost || !gd_pcie_expected_link(f, g, &mg, &mw) || link_judged_under_load(f, g))
            continue;
        if (gd_pcie_not_host_path(gpu, self->id, out))
            continue;
        size_t read, low;
        double widest;
        width_samples(f, g, mw, &read, &low, &widest);
        if (read == 0 || low < read)
            continue;
        const gd_pcie_gpu *pg = gd_pcie_gpu_of(f, gpu->index);
        gd_value gen = gd_series_at(&f->series, f->series.n - 1, g, GD_M_PCIE_GEN);
        double have = gd_pcie_link_gbps(mg, (int)widest), want = gd_pcie_link_gbps(mg, mw);
        json_t *ev = json_object();
        json_object_set_new(ev, "pcie_width", gd_json_number(widest));
        json_object_set_new(ev, "pcie_width_max", json_integer(mw));
        json_object_set_new(ev, "pcie_gen", gd_json_value(gen));
        json_object_set_new(ev, "pcie_gen_max", json_integer(mg));
        json_object_set_new(ev, "link_max_gbps_at_this_width", gd_json_number(round(have * 100) / 100));
        json_object_set_new(ev, "link_max_gbps", gd_json_number(round(want * 100) / 100));
        json_object_set_new(ev, "samples", json_integer((json_int_t)read));
        json_object_set_new(ev, "load", json_string(load_known(f, g) ? "idle" : "unknown"));
        add_port_above(ev, slot_of(f, gpu));
        char src[1400];
        link_source(f, gpu, src, sizeof src);
        json_object_set_new(ev, "source", json_string(src));
        char fix[768];
        snprintf(fix, sizeof fix,
                 "NVIDIA allows an unused GPU to lower its link's generation and width, but in practice idle "
                 "links slow down and keep their lanes: x%.0f of x%d more often means a card not fully seated, a "
                 "riser or cable with fewer lanes, a slot wired x%.0f (the board manual's slot table) or a BIOS "
                 "bifurcation setting; a cloud VM may be given fewer lanes by design. See whether it stays there "
                 "under load ('gpudoctor check' while the job runs, or 'gpudoctor bench pcie'); if it does, power "
                 "down and reseat the card, or move it to a slot wired x%d. 'sudo lspci -vv -s %s' shows LnkSta "
                 "against LnkCap.",
                 widest, mw, widest, mw, pg ? pg->bdf : gpu->pci_bus_id);
        gd_finding *x = gd_finding_add(
            out, "pcie.width_reduced", GD_SEV_INFO, gpu->index, ev, NAN, fix,
            "GPU %d's PCIe link trained at x%.0f of x%d lanes (%.0f of %.0f GB/s at Gen%d); if it stays there under "
            "load, reseat or move the card",
            gpu->index, widest, mw, have, want, mg);
        if (x)
            snprintf(x->timeline, sizeof x->timeline, "x%.0f in all %zu samples, none at load", widest, read);
    }
}

/* The card's own maximum above what card and slot reach together: the slot
 * (or the host) caps the link whatever the load. */
void gd_check_pcie_slot_limited(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (gpu->lost || gd_pcie_not_host_path(gpu, self->id, out))
            continue;
        int dg, dw, tg, tw;
        if (!gd_pcie_device_link(f, g, &dg, &dw) || !gd_pcie_expected_link(f, g, &tg, &tw)) {
            gd_skip_add(out, "pcie.slot_limited", gpu->index,
                        "the card's own maximum PCIe generation is not readable (nvidia-smi shows Device Max "
                        "since driver 510 or so, 'lspci -vv' the GPU's LnkCap)");
            continue;
        }
        /* A part of the card's maximum that is not known is not judged. */
        dg = dg ? dg : tg;
        dw = dw ? dw : tw;
        tg = tg < dg ? tg : dg;
        tw = tw < dw ? tw : dw;
        if (tg == dg && tw == dw)
            continue;
        double card = gd_pcie_link_gbps(dg, dw), both = gd_pcie_link_gbps(tg, tw);
        const gd_pcie_hop *slot = slot_of(f, gpu);
        json_t *ev = json_object();
        json_object_set_new(ev, "pcie_gen_max_device", json_integer(dg));
        json_object_set_new(ev, "pcie_width_max_device", json_integer(dw));
        json_object_set_new(ev, "pcie_gen_max", json_integer(tg));
        json_object_set_new(ev, "pcie_width_max", json_integer(tw));
        json_object_set_new(ev, "pcie_gen_max_host", gd_json_value(gpu->pcie_gen_max_host));
        json_object_set_new(ev, "link_max_device_gbps", gd_json_number(round(card * 100) / 100));
        json_object_set_new(ev, "link_max_gbps", gd_json_number(round(both * 100) / 100));
        json_object_set_new(ev, "lost_gbps", gd_json_number(round((card - both) * 100) / 100));
        json_object_set_new(ev, "lost_pct", gd_json_number(round(1000.0 * (1 - both / card)) / 10));
        add_port_above(ev, slot);
        char src[1400];
        snprintf(src, sizeof src, "%s%s%s", gpu->pcie_max_source[0] ? gpu->pcie_max_source : "unknown",
                 slot ? "; port above: " : "", slot ? f->pcie->source : "");
        json_object_set_new(ev, "source", json_string(src));
        char confirm[96];
        if (slot)
            snprintf(confirm, sizeof confirm, "'sudo lspci -vv -s %s' (LnkCap of the port above)", slot->bdf);
        else
            snprintf(confirm, sizeof confirm,
                     "'nvidia-smi -q -d PCIE' (Device Max, Host Max) and 'sudo lspci -vv' "
                     "(LnkCap of the GPU's port)");
        char fix[768];
        snprintf(fix, sizeof fix,
                 "The card supports Gen%d x%d but its slot allows only Gen%d x%d, at any load: move it to a slot "
                 "wired for Gen%d x%d (the board manual's slot table gives each slot's generation and electrical "
                 "lanes; x16-long slots are often wired x8, chipset slots are slower than CPU ones), and check "
                 "the BIOS PCIe speed setting of the slot (Auto or Gen%d, not forced lower). Confirm with %s.",
                 dg, dw, tg, tw, dg, dw, dg, confirm);
        gd_finding_add(out, "pcie.slot_limited", GD_SEV_WARNING, gpu->index, ev, NAN, fix,
                       "GPU %d is a Gen%d x%d card in a slot that allows Gen%d x%d (%.1f of %.1f GB/s)", gpu->index, dg,
                       dw, tg, tw, both, card);
    }
}

static bool min_ok(gd_value a, gd_value b, double *out)
{
    if (!gd_ok(a) && !gd_ok(b))
        return false;
    *out = !gd_ok(a) ? b.v : !gd_ok(b) ? a.v : fmin(a.v, b.v);
    return true;
}

/* Each link above a GPU's own: pairs (upstream port of a switch, the port
 * above it), hops[2]/[3], [4]/[5]... Its expected rate is the lower of the
 * two ends' maxima. A slow link shared by several GPUs is reported for each
 * of them (scripts and exporters match findings per GPU), with one fix. */
void gd_check_pcie_upstream_downgraded(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    for (size_t i = 0; i < f->pcie->gpu_count; i++) {
        const gd_pcie_gpu *pg = &f->pcie->gpus[i];
        if (!pg->matched && f->gpu_count > 0)
            continue; /* another machine's GPU: the capture check says so */
        if (pg->hop_count == 0) {
            gd_skip_add(out, "pcie.upstream_downgraded", pg->gpu, "%s is not in the sysfs tree", pg->bdf);
            continue;
        }
        size_t g = 0;
        bool loaded = false;
        for (; pg->matched && g < f->gpu_count; g++)
            if (f->gpus[g].index == pg->gpu) {
                loaded = gd_loaded_samples(f, g) > 0;
                break;
            }
        for (size_t k = 2; k + 1 < pg->hop_count; k += 2) {
            const gd_pcie_hop *lo = &pg->hops[k], *up = &pg->hops[k + 1];
            double gen_max, width_max, gen, width;
            if (!min_ok(lo->gen_max, up->gen_max, &gen_max) || !min_ok(lo->width_max, up->width_max, &width_max) ||
                !min_ok(lo->gen, up->gen, &gen) || !min_ok(lo->width, up->width, &width))
                continue;
            if (gen >= gen_max && width >= width_max)
                continue;
            if (width >= width_max && !loaded) {
                gd_skip_add(out, "pcie.upstream_downgraded", pg->gpu,
                            "the link %s-%s runs at Gen%.0f of Gen%.0f while GPU %d is idle; run under load or "
                            "'gpudoctor bench pcie' to judge it",
                            lo->bdf, up->bdf, gen, gen_max, pg->gpu);
                continue;
            }
            json_t *ev = json_object();
            json_object_set_new(ev, "bridge", json_string(lo->bdf));
            json_object_set_new(ev, "port_above", json_string(up->bdf));
            json_object_set_new(ev, "pcie_gen", gd_json_number(gen));
            json_object_set_new(ev, "pcie_width", gd_json_number(width));
            json_object_set_new(ev, "pcie_gen_max", gd_json_number(gen_max));
            json_object_set_new(ev, "pcie_width_max", gd_json_number(width_max));
            json_object_set_new(ev, "link_gbps",
                                gd_json_number(round(gd_pcie_link_gbps((int)gen, (int)width) * 100) / 100));
            json_object_set_new(ev, "link_max_gbps",
                                gd_json_number(round(gd_pcie_link_gbps((int)gen_max, (int)width_max) * 100) / 100));
            json_object_set_new(ev, "source", json_string(f->pcie->source));
            char fix[768];
            snprintf(fix, sizeof fix,
                     "Every GPU behind %s shares this link, so it caps their host traffic however healthy their own "
                     "links are. It is the switch's uplink (or a retimer or cable between switch and CPU): reseat "
                     "the switch board or riser and its cables, check the BIOS speed and bifurcation setting of root "
                     "port %s, and update the BIOS and switch firmware. 'sudo lspci -vv -s %s' shows LnkSta.",
                     lo->bdf, up->bdf, lo->bdf);
            double fraction = gd_pcie_link_gbps((int)gen, (int)width) / gd_pcie_link_gbps((int)gen_max, (int)width_max);
            gd_finding_add(out, "pcie.upstream_downgraded",
                           fraction <= GD_PCIE_DOWNGRADED_CRITICAL_FRACTION ? GD_SEV_CRITICAL : GD_SEV_WARNING,
                           pg->matched ? pg->gpu : GD_NO_GPU, ev, NAN, fix,
                           "PCIe link above GPU %d (bridge %s) at Gen%.0f x%.0f, below its Gen%.0f x%.0f", pg->gpu,
                           lo->bdf, gen, width, gen_max, width_max);
        }
    }
}
