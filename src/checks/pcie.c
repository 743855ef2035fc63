/* PCIe links: pcie.link_downgraded, pcie.upstream_downgraded, pcie.replays, pcie.aer_errors. */
#include "checks_internal.h"
#include "core/stats.h"
#include "gpudoctor/pcie.h"

#include <stdlib.h>

/* Loaded samples of GPU g whose link is below (gen_max, width_max); the
 * medians of gen and width over them. */
typedef struct link_window {
    size_t loaded, judged, low;
    double gen, width; /* medians over the low samples */
    double first_s;
} link_window;

static void link_under_load(const gd_facts *f, size_t g, double gen_max, double width_max, link_window *w)
{
    *w = (link_window){.gen = NAN, .width = NAN, .first_s = NAN};
    size_t n = f->series.n;
    double *gens = malloc((n + 1) * sizeof *gens), *widths = malloc((n + 1) * sizeof *widths);
    if (!gens || !widths) {
        free(gens);
        free(widths);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (!gd_loaded_at(f, i, g))
            continue;
        w->loaded++;
        gd_value ge = gd_series_at(&f->series, i, g, GD_M_PCIE_GEN);
        gd_value wi = gd_series_at(&f->series, i, g, GD_M_PCIE_WIDTH);
        if (!gd_ok(ge) && !gd_ok(wi))
            continue;
        w->judged++;
        bool low = (gd_ok(ge) && ge.v < gen_max) || (gd_ok(wi) && wi.v < width_max);
        if (!low)
            continue;
        gens[w->low] = gd_ok(ge) ? ge.v : gen_max;
        widths[w->low] = gd_ok(wi) ? wi.v : width_max;
        if (w->low++ == 0)
            w->first_s = f->series.t_s[i];
    }
    w->gen = gd_median(gens, w->low);
    w->width = gd_median(widths, w->low);
    free(gens);
    free(widths);
}

static void downgraded_finding(const gd_facts *f, size_t g, const link_window *w, int gen_max, int width_max,
                               gd_findings *out)
{
    const gd_gpu *gpu = &f->gpus[g];
    const gd_pcie_gpu *pg = gd_pcie_gpu_of(f, gpu->index);
    const gd_pcie_hop *slot = pg && pg->hop_count > 1 ? &pg->hops[1] : NULL;
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
    bool slot_gen = slot && gd_ok(slot->gen_max) && slot->gen_max.v < gen_max;
    bool slot_width = slot && gd_ok(slot->width_max) && slot->width_max.v < width_max;
    if (slot) {
        json_t *s = json_object();
        json_object_set_new(s, "bdf", json_string(slot->bdf));
        json_object_set_new(s, "gen_max", gd_json_value(slot->gen_max));
        json_object_set_new(s, "width_max", gd_json_value(slot->width_max));
        json_object_set_new(ev, "port_above", s);
    }
    json_object_set_new(ev, "source", json_string(slot ? "nvml:nvmlDeviceGetCurrPcieLinkGeneration,nvmlDeviceGetCurrPcieLinkWidth,"
                                                         "nvmlDeviceGetGpuMaxPcieLinkGeneration;sysfs:max_link_speed,max_link_width"
                                                       : "nvml:nvmlDeviceGetCurrPcieLinkGeneration,nvmlDeviceGetCurrPcieLinkWidth,"
                                                         "nvmlDeviceGetGpuMaxPcieLinkGeneration"));
    char fix[768];
    if (slot_gen || slot_width)
        snprintf(fix, sizeof fix,
                 "The port above the GPU (%s) supports only Gen%.0f x%.0f, so the card cannot train faster in this "
                 "slot: move it to a slot wired for Gen%d x%d (the board manual's slot table), or check the BIOS "
                 "for a PCIe speed or bifurcation setting forced on that slot. Confirm with 'sudo lspci -vv -s %s' "
                 "(LnkCap of the port).",
                 slot->bdf, gd_ok(slot->gen_max) ? slot->gen_max.v : 0, gd_ok(slot->width_max) ? slot->width_max.v : 0,
                 gen_max, width_max, slot->bdf);
    else if (w->width < width_max)
        snprintf(fix, sizeof fix,
                 "The link trained with %.0f of %d lanes: power down and reseat the card and its riser or cable, "
                 "check the slot's bifurcation setting in the BIOS (x16, not x8x8), and clean the contacts. If a "
                 "reseat does not bring x%d back, swap the riser, then the slot. 'sudo lspci -vv -s %s' shows LnkSta "
                 "'(downgraded)'.",
                 w->width, width_max, width_max, pg ? pg->bdf : gpu->pci_bus_id);
    else
        snprintf(fix, sizeof fix,
                 "The link runs at Gen%.0f under load although the card supports Gen%d. If the slot itself "
                 "is older ('nvidia-smi -q' shows Host Max, 'lspci -vv' the port's LnkCap), move the card to a "
                 "Gen%d slot. Otherwise check the BIOS PCIe speed setting of the slot (Auto or Gen%d), reseat "
                 "the card and riser (signal integrity makes links train lower), update the BIOS and the GPU "
                 "firmware. 'nvidia-smi -q -d PCIE' shows it while loaded.",
                 w->gen, gen_max, gen_max, gen_max);
    gd_severity sev = fraction <= GD_PCIE_DOWNGRADED_CRITICAL_FRACTION ? GD_SEV_CRITICAL : GD_SEV_WARNING;
    gd_finding *x = gd_finding_add(out, "pcie.link_downgraded", sev, gpu->index, ev, NAN, fix,
                                   "GPU %d PCIe link at Gen%.0f x%.0f under load, below its Gen%d x%d (%.0f of %.0f GB/s)",
                                   gpu->index, w->gen, w->width, gen_max, width_max, have, want);
    if (x)
        snprintf(x->timeline, sizeof x->timeline, "from %.1f s: Gen%.0f x%.0f in %zu of %zu loaded samples", w->first_s,
                 w->gen, w->width, w->low, w->judged);
}

void gd_check_pcie_link_downgraded(const gd_facts *f, gd_findings *out)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (gpu->lost)
            continue;
        const gd_pcie_gpu *pg = gd_pcie_gpu_of(f, gpu->index);
        gd_value mg = gpu->pcie_gen_max, mw = gpu->pcie_width_max;
        if (pg && pg->hop_count > 0) {
            if (!gd_ok(mg))
                mg = pg->hops[0].gen_max;
            if (!gd_ok(mw))
                mw = pg->hops[0].width_max;
        }
        if (!gd_ok(mg) || !gd_ok(mw)) {
            gd_skip_add(out, "pcie.link_downgraded", gpu->index, "the maximum PCIe generation and width are not readable");
            continue;
        }
        link_window w;
        link_under_load(f, g, mg.v, mw.v, &w);
        if (w.judged == 0 && w.loaded > 0) {
            gd_skip_add(out, "pcie.link_downgraded", gpu->index,
                        "the current PCIe generation and width are not readable while GPU %d was under load",
                        gpu->index);
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
        downgraded_finding(f, g, &w, (int)mg.v, (int)mw.v, out);
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
 * two ends' maxima; a link reported for one GPU is not reported again. */
void gd_check_pcie_upstream_downgraded(const gd_facts *f, gd_findings *out)
{
    if (!f->pcie) {
        gd_skip_add(out, "pcie.upstream_downgraded", GD_NO_GPU, "no sysfs tree or lspci capture to read bridges from");
        return;
    }
    char seen[64][16];
    size_t nseen = 0;
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
            bool dup = false;
            for (size_t s = 0; s < nseen; s++)
                dup |= strcmp(seen[s], lo->bdf) == 0;
            if (dup || (gen >= gen_max && width >= width_max))
                continue;
            if (width >= width_max && !loaded) {
                gd_skip_add(out, "pcie.upstream_downgraded", pg->gpu,
                            "the link %s-%s runs at Gen%.0f of Gen%.0f while GPU %d is idle; run under load or "
                            "'gpudoctor bench pcie' to judge it",
                            lo->bdf, up->bdf, gen, gen_max, pg->gpu);
                continue;
            }
            if (nseen < 64)
                gd_pcie_copy(seen[nseen++], sizeof seen[0], lo->bdf);
            json_t *ev = json_object();
            json_object_set_new(ev, "bridge", json_string(lo->bdf));
            json_object_set_new(ev, "port_above", json_string(up->bdf));
            json_object_set_new(ev, "pcie_gen", gd_json_number(gen));
            json_object_set_new(ev, "pcie_width", gd_json_number(width));
            json_object_set_new(ev, "pcie_gen_max", gd_json_number(gen_max));
            json_object_set_new(ev, "pcie_width_max", gd_json_number(width_max));
            json_object_set_new(ev, "link_gbps", gd_json_number(round(gd_pcie_link_gbps((int)gen, (int)width) * 100) / 100));
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
