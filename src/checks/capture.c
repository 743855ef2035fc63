/* SPDX-License-Identifier: Apache-2.0 */
/*
 * capture: what captured evidence (--from) could not show. A -q dump is one
 * instant, a dmon log has no limits, an idle GPU hides what only load
 * reveals: said here once, so no check passes silently on a capture.
 */
#include "analysis/window_acc.h"
#include "checks_internal.h"
#include "gpudoctor/pcie.h"

/* Appends ", 3" (or "3" first) to a list of GPU indexes. */
static void add_index(char *list, size_t len, int index)
{
    size_t used = strlen(list);
    snprintf(list + used, len - used, "%s%d", used ? ", " : "", index);
}

/* Without a utilisation (MIG, some boards): which signal judged the load. */
static void load_signals(const gd_facts *f, gd_findings *out)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        gd_window_acc *tmp;
        const gd_window_acc *acc = gd_window_acc_get(f, &tmp);
        size_t by[4] = {0}, loaded = acc ? gd_window_acc_loaded(acc, g) : 0;
        for (int s = 0; acc && s < 4; s++)
            by[s] = gd_window_acc_by_signal(acc, g, (gd_load_signal)s);
        gd_window_acc_free(tmp);
        gd_load_signal s = by[GD_LOAD_POWER] ? GD_LOAD_POWER : by[GD_LOAD_CLOCKS] ? GD_LOAD_CLOCKS : GD_LOAD_NONE;
        if (s == GD_LOAD_NONE)
            continue;
        const gd_gpu *gpu = &f->gpus[g];
        gd_stats st;
        char figures[128] = "";
        if (s == GD_LOAD_POWER && gd_stats_of(f, g, GD_M_POWER_W, &st))
            snprintf(figures, sizeof figures, "up to %.0f W of its %.0f W limit; under load from %.0f W", st.max,
                     gpu->power_limit_w.v, GD_LOADED_POWER_SHARE * gpu->power_limit_w.v);
        else if (gd_stats_of(f, g, GD_M_SM_CLOCK_MHZ, &st))
            snprintf(figures, sizeof figures, "up to %.0f of %.0f MHz", st.max, gpu->clock_max_sm_mhz.v);
        gd_skip_add(out, "capture", gpu->index,
                    "GPU %d's utilisation is not readable (N/A, as under MIG): its load was judged by its %s (%s): "
                    "%s in %zu of %zu samples",
                    gpu->index, gd_load_signal_name(s), figures, loaded ? "under load" : "idle",
                    loaded ? loaded : by[s], f->series.n);
    }
}

/* One note for all idle GPUs: an idle capture is common (a ticket's paste). */
static void idle_gpus(const gd_facts *f, gd_findings *out)
{
    char idle[256] = "", unknown[256] = "";
    double max_util = 0;
    for (size_t g = 0; g < f->gpu_count; g++) {
        if (gd_loaded_samples(f, g) > 0)
            continue;
        gd_stats util;
        if (gd_stats_of(f, g, GD_M_UTIL_GPU_PCT, &util) == 0) {
            add_index(unknown, sizeof unknown, f->gpus[g].index);
        } else {
            add_index(idle, sizeof idle, f->gpus[g].index);
            max_util = util.max > max_util ? util.max : max_util;
        }
    }
    if (idle[0])
        gd_skip_add(out, "capture", GD_NO_GPU,
                    "GPU %s idle when captured (at most %.0f%% utilisation): what only shows under load (PCIe "
                    "link speed, clocks, throttling) could not be judged; capture again while the job runs",
                    idle, max_util);
    if (unknown[0] && !f->driver_loaded)
        gd_skip_add(out, "capture", GD_NO_GPU,
                    "GPU %s load unknown: the capture holds PCIe facts only (lspci), no utilisation, so a link "
                    "below its maximum may be an idle GPU saving power and was not judged; capture 'nvidia-smi "
                    "-q' and 'lspci -vv' while the job runs",
                    unknown);
    else if (unknown[0])
        gd_skip_add(out, "capture", GD_NO_GPU,
                    "GPU %s utilisation not in the capture (N/A, as under MIG): counted as idle, so what only "
                    "shows under load could not be judged",
                    unknown);
}

/* lspci GPUs that no nvidia-smi capture names: files of two machines, or
 * a capture cut short. Their links are not tied to any GPU's findings. */
static void unmatched_links(const gd_facts *f, gd_findings *out)
{
    if (!f->pcie || f->gpu_count == 0)
        return;
    char list[256] = "";
    for (size_t i = 0; i < f->pcie->gpu_count; i++) {
        const gd_pcie_gpu *pg = &f->pcie->gpus[i];
        size_t used = strlen(list);
        if (!pg->matched && pg->bdf[0])
            snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", pg->bdf);
    }
    if (list[0])
        gd_skip_add(out, "capture", GD_NO_GPU,
                    "the PCIe capture lists GPU(s) %s that the nvidia-smi capture does not: not the same "
                    "machine? Their links were not judged; capture lspci -vv and nvidia-smi on one machine",
                    list);
}

/* Files refused whole, and what the readers passed over in the others:
 * evidence that is not in the report is said, never dropped silently. */
static void passed_over(const gd_facts *f, gd_findings *out)
{
    size_t shown = f->capture_refused_count < GD_CAPTURE_REFUSED ? f->capture_refused_count : GD_CAPTURE_REFUSED;
    for (size_t i = 0; i < shown; i++)
        gd_skip_add(out, "capture", GD_NO_GPU, "not read: %s; what that file holds is not judged",
                    f->capture_refused[i]);
    if (f->capture_refused_count > shown)
        gd_skip_add(out, "capture", GD_NO_GPU, "%zu more files not read", f->capture_refused_count - shown);
    for (size_t i = 0; i < f->capture_note_count; i++)
        gd_skip_add(out, "capture", GD_NO_GPU, "%s", f->capture_notes[i]);
    if (f->capture_notes_more)
        gd_skip_add(out, "capture", GD_NO_GPU, "%zu more notes of what the readers passed over", f->capture_notes_more);
}

void gd_check_capture_limits(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_series *s = &f->series;
    /* A window longer than the series keeps: said, never passed over. */
    if (s->dropped && s->n)
        gd_skip_add(out, "capture", GD_NO_GPU,
                    "the window was longer than the %zu samples kept: the checks judged its last %.0f s "
                    "(from %.1f s on; %zu older samples were dropped), health events (a lost GPU, Xids) "
                    "over all of it",
                    s->n, gd_series_t(s, s->n - 1) - gd_series_t(s, 0), gd_series_t(s, 0), s->dropped);
    load_signals(f, out); /* live under MIG too */
    if (!f->captured)
        return;
    passed_over(f, out);
    if (s->n == 1)
        gd_skip_add(out, "capture", GD_NO_GPU,
                    "one snapshot (%s): no time series, so clock events are what was active at capture "
                    "time, not a share of a window; a 'nvidia-smi dmon' or '--query-gpu -l' log gives one",
                    f->capture_formats);
    else if (s->n > 1 && f->capture_untimed)
        gd_skip_add(out, "capture", GD_NO_GPU,
                    "the log has no timestamps: its %zu samples are taken as 1 s apart (dmon's default; "
                    "'dmon -o T' adds the time)",
                    s->n);
    idle_gpus(f, out);
    unmatched_links(f, out);
    bool unnamed = false;
    for (size_t g = 0; g < f->gpu_count; g++)
        unnamed |= f->gpus[g].name[0] == '\0';
    if (unnamed)
        gd_skip_add(out, "capture", GD_NO_GPU,
                    "the capture does not name the GPUs nor give their limits and thresholds (a dmon or "
                    "partial CSV log): add 'nvidia-smi -q -x' output with a second --from");
}
