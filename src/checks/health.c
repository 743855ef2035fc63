/* SPDX-License-Identifier: Apache-2.0 */
/* health.gpu_lost: a GPU that stopped answering during the window, or that
 * the kernel log says fell off the bus or failed to initialise. */
#include "analysis/window_acc.h"
#include "checks_internal.h"
#include "gpudoctor/stack.h"

/* One instruction for a GPU that fell off the bus, whichever finding tells
 * it (health.gpu_lost from NVML or the kernel log, health.xid's Xid 79):
 * NVIDIA's Xid catalog files Xid 79 under a reboot, since a GPU reset does
 * not reach a GPU the bus lost (data/xid.tsv). */
void gd_off_bus_fix(const gd_gpu *gpu, const char *lead, char *fix, size_t len)
{
    snprintf(fix, len,
             "%sIt stays unusable until the node reboots: a GPU reset ('nvidia-smi -r') does not reach a GPU the "
             "bus lost. Stop the jobs on the node, collect 'nvidia-bug-report.sh', and reboot it, with a cold power "
             "cycle ('ipmitool chassis power cycle') if the GPU is still missing after. If it falls off again: "
             "reseat the card and its power cables, check the riser or baseboard, PSU capacity and temperatures, "
             "then open an RMA with the serial %s.",
             lead, gpu && gpu->serial[0] ? gpu->serial : "from 'nvidia-smi -q'");
}

/* The instruction for a GPU that fell off the bus before the window and
 * answered all of it: it came back (a re-scan of the bus, a reset, a
 * reboot); what is left to do is what a second time would call for. */
void gd_off_bus_back_fix(const gd_gpu *gpu, const char *lead, char *fix, size_t len)
{
    snprintf(fix, len,
             "%sIt answers now, so it came back since (a re-scan of the bus, a reset or a reboot): nothing to reboot "
             "for it today. Keep the kernel log's lines with the node's records and watch for a repeat ('dmesg -T | "
             "grep -i xid'); if it falls off again: reseat the card and its power cables, check the riser or "
             "baseboard, PSU capacity and temperatures, then open an RMA with the serial %s.",
             lead, gpu && gpu->serial[0] ? gpu->serial : "from 'nvidia-smi -q'");
}

/* The span of the window in which GPU g answered NVML (any of its readings). */
static bool answered_span(const gd_facts *f, size_t g, double *first, double *last, gd_value *util_last)
{
    static const gd_metric ms[] = {GD_M_UTIL_GPU_PCT, GD_M_TEMP_C, GD_M_POWER_W, GD_M_SM_CLOCK_MHZ};
    *first = *last = NAN;
    *util_last = (gd_value){.status = GD_ST_NOT_SUPPORTED};
    gd_window_acc *tmp;
    const gd_window_acc *acc = gd_window_acc_get(f, &tmp);
    gd_window_picks p = {.first_s = NAN};
    if (acc)
        gd_window_acc_stream(acc, f, g, GD_WS_ANSWERED, &p);
    *first = p.first_s;
    for (size_t k = 0; acc && k < sizeof ms / sizeof ms[0]; k++) {
        uint64_t a, b;
        if (!gd_window_acc_valid_span(acc, g, ms[k], &a, &b))
            continue;
        double t = gd_series_t(&f->series, (size_t)(b - f->series.dropped));
        *last = isnan(*last) || t > *last ? t : *last;
    }
    gd_stats u;
    if (acc && gd_window_acc_stats(acc, f, g, GD_M_UTIL_GPU_PCT, &u) > 0)
        *util_last = gd_val(u.last);
    gd_window_acc_free(tmp);
    return !isnan(*first);
}

gd_gone_answer gd_gone_but_answering(const gd_facts *f, int index, int xid, json_t *ev, char *said, size_t len)
{
    said[0] = '\0';
    size_t g = 0;
    while (g < f->gpu_count && f->gpus[g].index != index)
        g++;
    double first, last;
    gd_value util;
    if (g == f->gpu_count || f->gpus[g].lost || !answered_span(f, g, &first, &last, &util))
        return GD_GONE_CONSISTENT;
    /* The fault's own time, where the session saw it: from the session's
     * sums, which keep it however many events came after (the ring of the
     * newest would let it go). */
    double fault_t = NAN;
    for (size_t i = 0; xid && i < f->events.sum_count; i++) {
        gd_event_sum e;
        if (f->events.sums[i].kind == GD_EV_XID && f->events.sums[i].gpu == (int)g && f->events.sums[i].code == xid &&
            gd_event_sum_get(&f->events, i, -INFINITY, INFINITY, &e) && (isnan(fault_t) || e.first_t < fault_t))
            fault_t = e.first_t;
    }
    /* Short: it ends a title (the evidence has the times). */
    char busy[48] = "";
    if (gd_ok(util))
        snprintf(busy, sizeof busy, " (%.0f%% busy at %.1f s)", util.v, last);
    else
        snprintf(busy, sizeof busy, " (to %.1f s)", last);
    gd_gone_answer a;
    if (f->captured) {
        a = GD_GONE_ORDER_UNKNOWN;
        snprintf(said, len, "the capture still reads it%s: taken before the fault, or after it came back",
                 gd_ok(util) ? busy : "");
    } else if (!isnan(fault_t) && last <= fault_t) {
        a = GD_GONE_READ_BEFORE;
        snprintf(said, len, "its readings (to %.1f s) came before the fault (at %.1f s)", last, fault_t);
    } else if (!isnan(fault_t)) {
        a = GD_GONE_ANSWERED_AFTER;
        snprintf(said, len, "it answered after it%s: stale readings, or it came back", busy);
    } else if (isnan(fault_t) && (f->events.xid_watched || f->events.kernel_log_followed) &&
               last - first >= GD_HEALTH_REREAD_S) {
        /* A window long enough to have seen the fault, had it come in it. */
        a = GD_GONE_BEFORE;
        snprintf(said, len, "before this window: it answered all of it%s, so it came back", busy);
    } else if (last - first < GD_HEALTH_REREAD_S) {
        a = GD_GONE_ORDER_UNKNOWN; /* a snapshot: too short to say it came back */
        snprintf(said, len, "it still answers%s: the fault came before", busy);
    } else {
        a = GD_GONE_ORDER_UNKNOWN;
        snprintf(said, len, "it answered all of this window%s: the fault came before", busy);
    }
    json_t *o = json_object();
    json_object_set_new(o, "first_s", gd_json_number(first));
    json_object_set_new(o, "last_s", gd_json_number(last));
    json_object_set_new(o, "util_pct_last", gd_json_value(util));
    json_object_set_new(o, "fault_s", isnan(fault_t) ? json_null() : gd_json_number(fault_t));
    json_object_set_new(o, "readings",
                        json_string(a == GD_GONE_BEFORE           ? "after the fault: the GPU came back"
                                    : a == GD_GONE_ANSWERED_AFTER ? "after the fault: stale, or the GPU came back"
                                    : a == GD_GONE_READ_BEFORE    ? "before the fault"
                                                                  : "order not known"));
    json_object_set_new(ev, "gpu_answered", o);
    return a;
}

static bool nvml_lost(const gd_facts *f, int index)
{
    for (size_t g = 0; g < f->gpu_count; g++)
        if (f->gpus[g].index == index && f->gpus[g].lost)
            return true;
    return false;
}

/* An Xid 79 ("GPU has fallen off the bus") of that address: health.xid tells. */
static bool xid79_at(const gd_stack_facts *s, const char *pci)
{
    for (size_t i = 0; pci[0] && i < s->xid_group_count; i++)
        if (s->xid_groups[i].xid == 79 && gd_pci_same(s->xid_groups[i].pci, pci))
            return true;
    return false;
}

/* The kernel log's word of one address (or of none: "" for "the probe
 * routine failed for N device(s)"), every kind it said. */
static void kernel_lost(const gd_facts *f, const char *pci, gd_findings *out)
{
    const gd_stack_facts *s = f->stack;
    json_t *msgs = json_array();
    int gpu = -1;
    size_t events = 0;
    char kinds[160] = "";
    for (size_t i = 0; i < s->gpu_fatal_count; i++) {
        const gd_gpu_fatal *e = &s->gpu_fatal[i];
        if (strcasecmp(e->pci, pci) != 0)
            continue;
        gpu = e->gpu;
        events += e->count;
        json_t *m = json_object();
        json_object_set_new(m, "kind", json_string(e->kind));
        json_object_set_new(m, "count", json_integer((json_int_t)e->count));
        char when[80];
        gd_log_when(e->when, when, sizeof when);
        json_object_set_new(m, "last_seen", json_string(when));
        json_object_set_new(m, "last_message", json_string(e->text));
        json_array_append_new(msgs, m);
        size_t used = strlen(kinds);
        snprintf(kinds + used, sizeof kinds - used, "%s%s", used ? ", " : "", e->kind);
    }
    if ((gpu >= 0 && nvml_lost(f, gpu)) || xid79_at(s, pci)) {
        json_decref(msgs); /* the sampler's finding, or health.xid's Xid 79, says it */
        return;
    }
    json_t *ev = json_object();
    json_object_set_new(ev, "pci", pci[0] ? json_string(pci) : json_null());
    json_object_set_new(ev, "messages", msgs);
    json_object_set_new(ev, "events", json_integer((json_int_t)events));
    char src[600];
    snprintf(src, sizeof src, "kernel log: %s", s->kernel_log_source);
    json_object_set_new(ev, "source", json_string(src));
    char lead[448], fix[1024], answered[320] = "", also[330] = "";
    snprintf(lead, sizeof lead, "The NVIDIA driver says the GPU%s%s is gone (%s). ", pci[0] ? " at " : "", pci, kinds);
    const gd_gpu *own = NULL;
    for (size_t g = 0; gpu >= 0 && g < f->gpu_count; g++)
        if (f->gpus[g].index == gpu)
            own = &f->gpus[g];
    gd_gone_answer a = gpu >= 0 ? gd_gone_but_answering(f, gpu, 0, ev, answered, sizeof answered) : GD_GONE_CONSISTENT;
    if (a == GD_GONE_BEFORE)
        gd_off_bus_back_fix(own, lead, fix, sizeof fix);
    else
        gd_off_bus_fix(own, lead, fix, sizeof fix);
    if (answered[0])
        snprintf(also, sizeof also, "; %s", answered);
    /* Back and answering: a warning with no loss now; gone: the GPU's whole share. */
    gd_severity sev = a == GD_GONE_BEFORE ? GD_SEV_WARNING : GD_SEV_CRITICAL;
    double impact = a == GD_GONE_BEFORE ? NAN : 100.0;
    if (gpu >= 0)
        gd_finding_add(out, "health.gpu_lost", sev, gpu, ev, impact, fix,
                       "GPU %d (PCI %s) %s, says the driver in the kernel log%s", gpu, pci, kinds, also);
    else if (!pci[0])
        gd_finding_add(out, "health.gpu_lost", sev, GD_NO_GPU, ev, impact, fix,
                       "An NVIDIA GPU %s, says the driver in the kernel log (no address given)", kinds);
    else
        gd_finding_add(out, "health.gpu_lost", sev, GD_NO_GPU, ev, impact, fix,
                       "The NVIDIA GPU at PCI %s %s, says the driver in the kernel log (%s)", pci, kinds,
                       f->gpu_count ? "no GPU of this report has that address" : "the capture has no GPU list");
}

void gd_check_gpu_lost(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_stack_facts *s = f->stack;
    bool named = false;
    for (size_t i = 0; s && s->kernel_log_read && i < s->gpu_fatal_count; i++)
        named |= s->gpu_fatal[i].pci[0] != '\0';
    for (size_t i = 0; s && s->kernel_log_read && i < s->gpu_fatal_count; i++) {
        bool seen = !s->gpu_fatal[i].pci[0] && named; /* "failed for 1 device(s)" of an address already named */
        for (size_t k = 0; !seen && k < i; k++)
            seen = strcasecmp(s->gpu_fatal[k].pci, s->gpu_fatal[i].pci) == 0;
        if (!seen)
            kernel_lost(f, s->gpu_fatal[i].pci, out);
    }
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (!gpu->lost)
            continue;
        json_t *ev = json_object();
        json_object_set_new(ev, "lost_at_s", gd_json_number(gpu->lost_at_s));
        json_object_set_new(ev, "call", json_string(gpu->lost_call));
        json_object_set_new(ev, "nvml_return", json_integer(gpu->lost_code));
        json_object_set_new(ev, "nvml_error", json_string(gd_nvml_return_name(gpu->lost_code)));
        json_object_set_new(ev, "pci_bus_id", json_string(gpu->pci_bus_id));
        char src[96];
        snprintf(src, sizeof src, "nvml:%s", gpu->lost_call);
        json_object_set_new(ev, "source", json_string(src));
        char fix[768];
        gd_off_bus_fix(gpu,
                       "NVML lost the GPU: it has fallen off the bus ('dmesg -T | grep -i xid' shows the Xid, 79 for "
                       "off the bus). ",
                       fix, sizeof fix);
        gd_finding_add(out, "health.gpu_lost", GD_SEV_CRITICAL, gpu->index, ev, 100.0, fix,
                       "GPU %d (%s) stopped answering at %.1f s of the window", gpu->index,
                       gpu->pci_bus_id[0] ? gpu->pci_bus_id : "unknown bus id", gpu->lost_at_s);
    }
    gd_check_gpu_came_back(f, out);
}

/* The NVML call behind each sampled metric, to name what stopped answering. */
static const char *const metric_calls[GD_M_COUNT] = {
    [GD_M_TEMP_C] = "nvmlDeviceGetTemperature",
    [GD_M_MEM_TEMP_C] = "nvmlDeviceGetFieldValues(MEMORY_TEMP)",
    [GD_M_SM_CLOCK_MHZ] = "nvmlDeviceGetClockInfo(SM)",
    [GD_M_MEM_CLOCK_MHZ] = "nvmlDeviceGetClockInfo(MEM)",
    [GD_M_POWER_W] = "nvmlDeviceGetPowerUsage",
    [GD_M_UTIL_GPU_PCT] = "nvmlDeviceGetUtilizationRates",
    [GD_M_UTIL_MEM_PCT] = "nvmlDeviceGetUtilizationRates",
    [GD_M_MEM_USED_MIB] = "nvmlDeviceGetMemoryInfo",
    [GD_M_PCIE_GEN] = "nvmlDeviceGetCurrPcieLinkGeneration",
    [GD_M_PCIE_WIDTH] = "nvmlDeviceGetCurrPcieLinkWidth",
    [GD_M_PCIE_TX_KBPS] = "nvmlDeviceGetPcieThroughput",
    [GD_M_PCIE_RX_KBPS] = "nvmlDeviceGetPcieThroughput",
    [GD_M_PCIE_REPLAYS] = "nvmlDeviceGetPcieReplayCounter",
    [GD_M_FAN_PCT] = "nvmlDeviceGetFanSpeed",
    [GD_M_EVENT_REASONS] = "nvmlDeviceGetCurrentClocksEventReasons",
    [GD_M_ENERGY_MJ] = "nvmlDeviceGetTotalEnergyConsumption",
    [GD_M_VIOL_POWER_NS] = "nvmlDeviceGetViolationStatus",
    [GD_M_VIOL_THERMAL_NS] = "nvmlDeviceGetViolationStatus", /* the last of its calls tried */
    [GD_M_VIOL_SYNC_BOOST_NS] = "nvmlDeviceGetViolationStatus",
    [GD_M_VIOL_BOARD_LIMIT_NS] = "nvmlDeviceGetViolationStatus",
    [GD_M_VIOL_LOW_UTIL_NS] = "nvmlDeviceGetViolationStatus",
    [GD_M_VIOL_RELIABILITY_NS] = "nvmlDeviceGetViolationStatus",
    [GD_M_PSTATE] = "nvmlDeviceGetPerformanceState",
    [GD_M_MEM_RESERVED_MIB] = "nvmlDeviceGetMemoryInfo_v2",
    [GD_M_GR_ENGINE_ACTIVE_PCT] = "nvmlGpmMetricsGet",
    [GD_M_TENSOR_ACTIVE_PCT] = "nvmlGpmMetricsGet",
    [GD_M_DRAM_ACTIVE_PCT] = "nvmlGpmMetricsGet",
    [GD_M_VIOL_POWER_BRAKE_NS] = "nvmlDeviceGetFieldValues(CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN)",
};

void gd_check_sensors_failing(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    gd_window_acc *tmp;
    const gd_window_acc *acc = gd_window_acc_get(f, &tmp);
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (gpu->lost)
            continue; /* health.gpu_lost tells */
        json_t *calls = json_array();
        double first = NAN, least = 1;
        for (int m = 0; acc && m < GD_M_COUNT; m++) {
            double from, answered;
            if (!gd_window_acc_stopped(acc, f, g, (gd_metric)m, &from, &answered))
                continue;
            bool listed = false;
            size_t k;
            json_t *c;
            /* A metric without its call in the table is named by its key, never a crash. */
            const char *call = metric_calls[m] ? metric_calls[m] : gd_metric_describe((gd_metric)m)->key;
            json_array_foreach(calls, k, c) listed |= strcmp(json_string_value(c), call) == 0;
            if (!listed)
                json_array_append_new(calls, json_string(call));
            first = isnan(first) || from < first ? from : first;
            least = answered < least ? answered : least;
        }
        size_t n = json_array_size(calls);
        if (n == 0) {
            json_decref(calls);
            continue;
        }
        char *names = json_dumps(calls, JSON_COMPACT);
        if (least >= GD_SENSORS_MIN_ANSWERED_SHARE) {
            gd_skip_add(out, "health.sensors_failing", gpu->index,
                        "GPU %d: %zu sensor call%s stopped answering at %.1f s (%s); the rest of the window was "
                        "judged without them",
                        gpu->index, n, n == 1 ? "" : "s", first, names ? names : "");
            free(names);
            json_decref(calls);
            continue;
        }
        free(names);
        json_t *ev = json_object();
        json_object_set_new(ev, "calls", calls);
        json_object_set_new(ev, "failing_from_s", gd_json_number(round(first * 10) / 10));
        json_object_set_new(ev, "answered_pct_min", gd_json_number(round(least * 1000) / 10));
        json_object_set_new(ev, "source", json_string("nvml:sampled calls' return codes"));
        char fix[768];
        snprintf(fix, sizeof fix,
                 "The driver stopped answering for this GPU partway through: what followed could not be judged, "
                 "so a slowdown or fault then is invisible. Look at 'dmesg -T' for Xid or NVRM errors at that "
                 "time and at 'nvidia-smi -q -i %d'; a driver that times out or loses permissions mid-run (a "
                 "container runtime, a cgroup change, a hung GPU) needs the same attention as a lost GPU. Run "
                 "the check again to confirm.",
                 gpu->index);
        gd_finding_add(out, "health.sensors_failing", GD_SEV_WARNING, gpu->index, ev, NAN, fix,
                       "GPU %d: %zu sensor call%s stopped answering at %.1f s (answered %.0f%% of the window); "
                       "what followed was not judged",
                       gpu->index, n, n == 1 ? "" : "s", first, 100 * least);
    }
    gd_window_acc_free(tmp);
}
