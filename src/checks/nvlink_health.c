/* SPDX-License-Identifier: Apache-2.0 */
/* NVLink health: nvlink.errors (error counters that grow during the window),
 * nvlink.fabric (the GPU's registration with the NVLink fabric on NVSwitch
 * systems) and nvlink.sxid (NVSwitch errors in the kernel log).
 * Thresholds: thresholds.h. */
#include "checks_internal.h"
#include "gpudoctor/stack.h"

/* Whether some GPU has an active NVLink: only then are NVLink's fabric,
 * counters and switches worth a "not checked" (nvlink.down's rule: PCIe
 * boards list links that are all inactive). */
static bool nvlink_in_use(const gd_facts *f)
{
    for (size_t g = 0; g < f->gpu_count; g++)
        for (size_t l = 0; l < f->gpus[g].nvlink_count; l++)
            if (gd_ok(f->gpus[g].nvlink[l].active) && f->gpus[g].nvlink[l].active.v != 0)
                return true;
    return false;
}

/* The window's time span: the first and last sample, or (no samples: a
 * replay without series) every event and the requested duration. */
static void window_span(const gd_facts *f, double *t0, double *t1)
{
    if (f->series.n >= 2) {
        *t0 = gd_series_t(&f->series, 0);
        *t1 = gd_series_t(&f->series, f->series.n - 1);
        return;
    }
    *t0 = -INFINITY;
    *t1 = INFINITY;
}

typedef struct link_rise {
    unsigned link;
    long long n[GD_NVLINK_COUNTERS]; /* increase of each counter in the window */
    double first_t, last_t;
} link_rise;

/* The NVLink counter rises of GPU g in [t0, t1], by link (at most 36),
 * from the events' sums: every rise of the window, however many events the
 * ring let go of. */
static size_t gpu_rises(const gd_facts *f, int g, double t0, double t1, link_rise *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < f->events.sum_count; i++) {
        const gd_event_sum *s = &f->events.sums[i];
        gd_event key = {.gpu = s->gpu, .kind = s->kind};
        memcpy(key.what, s->what, sizeof key.what);
        unsigned link;
        int c;
        gd_event_sum e;
        if (s->gpu != g || !gd_nvlink_event_parse(&key, &link, &c) || !gd_event_sum_get(&f->events, i, t0, t1, &e))
            continue;
        size_t k = 0;
        while (k < n && out[k].link != link)
            k++;
        if (k == n) {
            if (n == max)
                continue;
            memset(&out[n], 0, sizeof out[n]);
            out[n].link = link;
            out[n].first_t = e.first_t;
            out[n].last_t = e.last_t;
            n++;
        }
        out[k].n[c] += e.total;
        out[k].first_t = fmin(out[k].first_t, e.first_t);
        out[k].last_t = fmax(out[k].last_t, e.last_t);
    }
    return n;
}

/* Whether some GPU gave its NVLink error counters. */
static bool counters_read(const gd_facts *f)
{
    for (size_t g = 0; g < f->gpu_count; g++)
        for (size_t l = 0; l < f->gpus[g].nvlink_count; l++)
            if (gd_ok(f->gpus[g].nvlink[l].replay_errors) || gd_ok(f->gpus[g].nvlink[l].crc_flit_errors))
                return true;
    return false;
}

/* How bad one link's rises are (docs/checks.md, nvlink.errors). */
static gd_severity link_severity(const link_rise *r, double span_s)
{
    enum { REPLAY, RECOVERY, CRC_FLIT, CRC_DATA };
    double crc_rate = span_s > 0 ? (double)(r->n[CRC_FLIT] + r->n[CRC_DATA]) / span_s : 0;
    if (r->n[RECOVERY] > 0 || crc_rate >= GD_NVLINK_CRC_PER_S_CRITICAL)
        return GD_SEV_CRITICAL;
    if (r->n[CRC_DATA] > 0 || r->n[CRC_FLIT] > 0 || r->n[REPLAY] >= GD_NVLINK_REPLAYS_WARN)
        return GD_SEV_WARNING;
    return GD_SEV_INFO;
}

/* The fix scales with what the link did (link_severity): a few replays the
 * link resent and went on are a note; CRC errors a link to watch and look
 * at when the node is next down; recoveries or a CRC storm drain and RMA.
 * Each names the GPU (-i N) and its serial (<serial>). */
static const gd_fix_case errors_fixes[] = {
    {GD_AT_ANY, GD_SEVS_INFO,
     "A few replays: the link resent what it got wrong and carried on, which NVLink does by design; nothing to do "
     "now. Watch whether they keep coming ('nvidia-smi nvlink -e -i N' after jobs): replays every window, CRC "
     "errors or a recovery mean a marginal link (GPU serial <serial>)."},
    {GD_AT_ANY, GD_SEVS_WARNING,
     "Errors that grow while the GPU works mean a marginal link: each replay stalls its traffic, and NCCL's "
     "all-reduce runs at the pace of the slowest link. Watch 'nvidia-smi nvlink -e -i N' over the next jobs and "
     "look for Xid 74 in the kernel log; when the node is next down, reseat or check the NVLink bridge (PCIe "
     "boards) or have the HGX baseboard and GPU tray checked. If the counters keep growing, treat it as a failing "
     "link: drain the node and open an RMA for the GPU or baseboard (serial <serial>)."},
    {GD_AT_ANY, 0,
     "Errors that grow while the GPU works mean a marginal link: each replay or recovery stalls its traffic, and "
     "NCCL's all-reduce runs at the pace of the slowest link. Watch 'nvidia-smi nvlink -e -i N' and look for Xid "
     "74 in the kernel log. Drain the node, then reseat or check the NVLink bridge (PCIe boards) or have the HGX "
     "baseboard and GPU tray checked (seating, connectors); collect 'nvidia-bug-report.sh' first. If the counters "
     "still grow after that, open an RMA for the GPU or baseboard (serial <serial>)."},
};

void gd_check_nvlink_errors(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    static const char id[] = "nvlink.errors";
    static const char *const nouns[GD_NVLINK_COUNTERS][2] = {{"replay", "replays"},
                                                             {"recovery", "recoveries"},
                                                             {"CRC flit error", "CRC flit errors"},
                                                             {"CRC data error", "CRC data errors"}};
    double t0, t1;
    window_span(f, &t0, &t1);
    double span = isfinite(t1 - t0) ? t1 - t0 : f->window_s;
    bool any_counter = counters_read(f);
    if (any_counter && f->events.counter_reads == 1) { /* a snapshot: growth needs a second reading */
        if (nvlink_in_use(f))
            gd_skip_add(out, id, GD_NO_GPU,
                        "the NVLink error counters were read once (no window after the snapshot), so their growth "
                        "was not judged");
        return;
    }
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        link_rise rises[36];
        size_t n = gpu_rises(f, gpu->index, t0, t1, rises, 36);
        if (n == 0)
            continue;
        json_t *links = json_array();
        gd_severity worst = GD_SEV_INFO;
        char said[320] = "";
        size_t used = 0;
        for (size_t k = 0; k < n; k++) {
            const link_rise *r = &rises[k];
            gd_severity sev = link_severity(r, span);
            worst = sev > worst ? sev : worst;
            json_t *o = json_object();
            json_object_set_new(o, "link", json_integer(r->link));
            json_object_set_new(o, "severity", json_string(gd_severity_name(sev)));
            char part[160] = "";
            size_t pu = 0;
            for (int c = 0; c < GD_NVLINK_COUNTERS; c++) {
                json_object_set_new(o, gd_nvlink_counter_names[c], json_integer(r->n[c]));
                char key[40];
                snprintf(key, sizeof key, "%s_per_s", gd_nvlink_counter_names[c]);
                json_object_set_new(o, key, span > 0 ? gd_json_number((double)r->n[c] / span) : json_null());
                if (r->n[c] > 0 && pu < sizeof part)
                    pu += (size_t)snprintf(part + pu, sizeof part - pu, "%s%lld %s", pu ? ", " : "", r->n[c],
                                           nouns[c][r->n[c] != 1]);
            }
            char at[32];
            gd_event_clock(&f->events, r->first_t, at, sizeof at);
            json_object_set_new(o, "first_seen", json_string(at));
            json_object_set_new(o, "first_seen_s", gd_json_number(r->first_t));
            json_object_set_new(o, "last_seen_s", gd_json_number(r->last_t));
            json_array_append_new(links, o);
            if (used < sizeof said)
                used +=
                    (size_t)snprintf(said + used, sizeof said - used, "%slink %u: %s", used ? "; " : "", r->link, part);
        }
        json_t *ev = json_object();
        json_object_set_new(ev, "links", links);
        json_object_set_new(ev, "window_s", gd_json_number(span));
        json_object_set_new(ev, "reread_s", gd_json_number(f->events.reread_s));
        json_object_set_new(ev, "source", json_string("nvml:nvmlDeviceGetNvLinkErrorCounter"));
        char fix[900], dev[16], with_dev[900];
        snprintf(dev, sizeof dev, "-i %d", gpu->index);
        gd_fill_placeholder(with_dev, sizeof with_dev, GD_FIX_PICK(errors_fixes, f, out, worst), "-i N", dev);
        gd_fill_placeholder(fix, sizeof fix, with_dev, "<serial>",
                            gpu->serial[0] ? gpu->serial : "from 'nvidia-smi -q'");
        gd_finding_add(out, id, worst, gpu->index, ev, NAN, fix, "GPU %d NVLink errors grew during the %.0f s window (%s)",
                       gpu->index, span, said);
    }
    if (!any_counter && nvlink_in_use(f))
        gd_skip_add(out, id, GD_NO_GPU,
                    "no GPU gives its NVLink error counters (nvmlDeviceGetNvLinkErrorCounter: "
                    "not supported in MIG mode or by this driver)");
}

static const char *fabric_state_name(double state)
{
    switch ((int)state) {
    case NVML_GPU_FABRIC_STATE_NOT_STARTED: return "not started";
    case NVML_GPU_FABRIC_STATE_IN_PROGRESS: return "in progress";
    case NVML_GPU_FABRIC_STATE_COMPLETED: return "completed";
    default: return "unknown";
    }
}

/* Whether GPU gpu's fabric registration is a problem, and how bad. */
static bool fabric_bad(const gd_gpu *gpu, gd_severity *sev)
{
    if (!gd_ok(gpu->fabric_state))
        return false;
    int st = (int)gpu->fabric_state.v;
    if (st == NVML_GPU_FABRIC_STATE_NOT_STARTED ||
        (st == NVML_GPU_FABRIC_STATE_COMPLETED && gd_ok(gpu->fabric_status) && gpu->fabric_status.v != 0)) {
        *sev = GD_SEV_CRITICAL;
        return true;
    }
    if (st == NVML_GPU_FABRIC_STATE_IN_PROGRESS) {
        *sev = GD_SEV_WARNING;
        return true;
    }
    return false;
}

void gd_check_nvlink_fabric(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    static const char id[] = "nvlink.fabric";
    size_t reported = 0, bad = 0;
    gd_severity worst = GD_SEV_INFO;
    json_t *gpus = json_array();
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        reported += gd_ok(gpu->fabric_state);
        gd_severity sev;
        if (!fabric_bad(gpu, &sev))
            continue;
        bad++;
        worst = sev > worst ? sev : worst;
        json_t *o = json_object();
        json_object_set_new(o, "gpu", json_integer(gpu->index));
        json_object_set_new(o, "state", json_string(fabric_state_name(gpu->fabric_state.v)));
        json_object_set_new(o, "status", gd_json_value(gpu->fabric_status));
        json_array_append_new(gpus, o);
    }
    if (reported == 0) {
        json_decref(gpus);
        if (nvlink_in_use(f))
            gd_skip_add(out, id, GD_NO_GPU,
                        "no GPU reports an NVLink fabric (nvmlDeviceGetGpuFabricInfo not supported): NVLink "
                        "bridges and systems without NVSwitches have none; on an NVSwitch system (HGX) a driver "
                        "without the call cannot tell");
        return;
    }
    if (bad == 0) {
        json_decref(gpus);
        return;
    }
    /* The title names the first GPU of the worst severity: a failed
     * registration before one still in progress. */
    int gpu0 = -1;
    const char *state0 = "";
    for (size_t g = 0; g < f->gpu_count && gpu0 < 0; g++) {
        gd_severity sev;
        if (fabric_bad(&f->gpus[g], &sev) && sev == worst) {
            gpu0 = f->gpus[g].index;
            state0 = fabric_state_name(f->gpus[g].fabric_state.v);
        }
    }
    bool failed = strcmp(state0, "completed") == 0;
    json_t *ev = json_object();
    json_object_set_new(ev, "gpus", gpus);
    json_object_set_new(ev, "gpus_reporting", json_integer((json_int_t)reported));
    json_object_set_new(ev, "source", json_string("nvml:nvmlDeviceGetGpuFabricInfo"));
    const char *fix =
        "On an NVSwitch system (HGX) NVLink carries no traffic until NVIDIA Fabric Manager has registered every GPU "
        "with the fabric: CUDA peer access fails or falls back to PCIe and NCCL jobs hang or crawl. Check that it "
        "runs ('systemctl status nvidia-fabricmanager'), that its version is exactly the driver's ('nvidia-smi' vs "
        "'nv-fabricmanager --version'; install the nvidia-fabricmanager package of that version), and its log "
        "('journalctl -u nvidia-fabricmanager', /var/log/fabricmanager.log) for why registration failed; then "
        "'systemctl enable --now nvidia-fabricmanager'. A registration still in progress minutes after boot is "
        "stuck the same way.";
    char what[96];
    snprintf(what, sizeof what, "state %s", state0);
    for (size_t g = 0; failed && g < f->gpu_count; g++)
        if (f->gpus[g].index == gpu0)
            snprintf(what, sizeof what, "registration failed, status %.0f", f->gpus[g].fabric_status.v);
    if (bad == reported && bad > 1)
        gd_finding_add(
            out, id, worst, GD_NO_GPU, ev, NAN, fix, "NVLink fabric not ready on all %zu GPUs (%s): %s", bad, what,
            worst == GD_SEV_CRITICAL ? "Fabric Manager is not running or failed" : "registration still in progress");
    else
        gd_finding_add(out, id, worst, bad == 1 ? gpu0 : GD_NO_GPU, ev, NAN, fix,
                       "NVLink fabric not ready on %zu of %zu GPUs (GPU %d: %s)", bad, reported, gpu0, what);
}

void gd_check_nvlink_sxid(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    static const char id[] = "nvlink.sxid";
    const gd_stack_facts *s = f->stack;
    if (!s || !s->kernel_log_read) {
        if (nvlink_in_use(f)) /* NVSwitches come with NVLink */
            gd_skip_add(out, id, GD_NO_GPU, "%s",
                        s && s->kernel_log_error[0] ? s->kernel_log_error : "the kernel log was not read");
        return;
    }
    if (s->sxid_group_count == 0)
        return;
    json_t *list = json_array();
    bool fatal = false;
    size_t events = 0;
    char switches[200] = "";
    size_t used = 0;
    for (size_t k = 0; k < s->sxid_group_count; k++) {
        const gd_sxid_group *g = &s->sxid_groups[k];
        fatal |= g->fatal == 1;
        events += g->count;
        json_t *o = json_object();
        json_object_set_new(o, "sxid", json_integer(g->sxid));
        json_object_set_new(o, "nvswitch", json_string(g->nvswitch));
        json_object_set_new(o, "pci", json_string(g->pci));
        json_object_set_new(o, "fatal", g->fatal < 0 ? json_null() : json_boolean(g->fatal == 1));
        json_object_set_new(o, "count", json_integer((json_int_t)g->count));
        char when[80];
        gd_log_when(g->first_seen, when, sizeof when);
        json_object_set_new(o, "first_seen", json_string(when));
        gd_log_when(g->last.when, when, sizeof when);
        json_object_set_new(o, "last_seen", json_string(when));
        json_object_set_new(o, "text", json_string(g->last.text));
        json_array_append_new(list, o);
        if (!strstr(switches, g->nvswitch) && used < sizeof switches)
            used += (size_t)snprintf(switches + used, sizeof switches - used, "%s%s", used ? ", " : "", g->nvswitch);
    }
    const gd_sxid_group *g0 = &s->sxid_groups[0];
    json_t *ev = json_object();
    json_object_set_new(ev, "sxids", list);
    json_object_set_new(ev, "events", json_integer((json_int_t)s->sxid_total));
    char src[600];
    snprintf(src, sizeof src, "kernel log: %s", s->kernel_log_source);
    json_object_set_new(ev, "source", json_string(src));
    const char *fix =
        fatal ? "A fatal NVSwitch error stops NVLink traffic through that switch: the GPUs' jobs fail or hang until "
                "the switch is reset. Drain the node, collect 'nvidia-bug-report.sh' and the Fabric Manager log "
                "('journalctl -u nvidia-fabricmanager'), and reboot (or reset the GPUs and switches with "
                "'nvidia-smi -r'). Look each SXid up in NVIDIA's NVSwitch SXid documentation (the Xid catalog's "
                "SXid section, and the Fabric Manager user guide); a fatal SXid that recurs on the same link needs "
                "the baseboard serviced or an RMA."
              : "Non-fatal NVSwitch errors are corrected by the switch, but ones that keep coming on the same link "
                "point at a marginal NVLink: watch whether they recur (and the GPUs' NVLink error counters), look "
                "each SXid up in NVIDIA's NVSwitch SXid documentation (the Xid catalog's SXid section, and the "
                "Fabric Manager user guide), and collect 'nvidia-bug-report.sh' if they do.";
    gd_finding_add(out, id, fatal ? GD_SEV_CRITICAL : GD_SEV_WARNING, GD_NO_GPU, ev, NAN, fix,
                   "%zu NVSwitch error%s (SXid) in the kernel log on %s: SXid %d%s, \"%s\"", events,
                   events == 1 ? "" : "s", switches, g0->sxid, g0->fatal == 1 ? " (fatal)" : "", g0->last.text);
}
