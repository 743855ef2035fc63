/* SPDX-License-Identifier: Apache-2.0 */
/* health.xid: Xid events in the kernel log and from NVML's event API while
 * a session runs, one finding per GPU (and per address that matches no
 * GPU), with each Xid's meaning and the action it calls for (data/xid.tsv:
 * NVIDIA's Xid catalog). An event is one fault, however many lines the
 * driver printed it in. Severity follows DCGM's health watch: its "fail"
 * Xids are critical, its "warn" ones warnings; others by their action. */
#include "checks_internal.h"
#include "core/data_tables.h"
#include "gpudoctor/stack.h"

#include <stdlib.h>

/* Most serious first: the finding's fix names the first one present.
 * Through "remap" an Xid DCGM does not map is a warning, after it info. */
static const char *const actions[] = {"rma",   "reboot", "reset",   "hw",  "support",
                                      "remap", "update", "restart", "app", "watch"};

static int action_rank(const char *a)
{
    for (int i = 0; i < (int)(sizeof actions / sizeof actions[0]); i++)
        if (strcmp(a, actions[i]) == 0)
            return i;
    return (int)(sizeof actions / sizeof actions[0]) - 1;
}

/* Xid 154 says itself what recovery it needs. */
static void recovery_of(const gd_xid_event *e, gd_xid_info *in)
{
    if (e->xid != 154)
        return;
    if (strstr(e->text, "Reboot"))
        snprintf(in->action, sizeof in->action, "reboot");
    else if (strstr(e->text, "Reset"))
        snprintf(in->action, sizeof in->action, "reset");
    else if (strstr(e->text, "(None)") && !strstr(e->text, "to 0x"))
        snprintf(in->action, sizeof in->action, "watch");
}

static gd_severity severity_of(const gd_xid_info *in)
{
    if (strcmp(in->dcgm, "fail") == 0)
        return GD_SEV_CRITICAL;
    if (strcmp(in->dcgm, "warn") == 0)
        return GD_SEV_WARNING;
    return action_rank(in->action) <= action_rank("remap") ? GD_SEV_WARNING : GD_SEV_INFO;
}

/* Xid 79: "GPU has fallen off the bus" (health.gpu_lost tells the same GPU). */
#define GD_XID_OFF_BUS 79

/* Whether GPU index reports its row remapping with nothing pending: then an
 * Xid's "reset so the pending remap takes effect" has nothing to apply. */
static bool remap_none_pending(const gd_facts *f, int index)
{
    for (size_t g = 0; index >= 0 && g < f->gpu_count; g++)
        if (f->gpus[g].index == index)
            return gd_ok(f->gpus[g].remap_pending) && f->gpus[g].remap_pending.v == 0 &&
                   !(gd_ok(f->gpus[g].remap_failure) && f->gpus[g].remap_failure.v > 0);
    return false;
}

/* What each action of data/xid.tsv asks of the reader (NVIDIA's resolution
 * buckets, in the words of a fix). */
static const char *action_fix(const char *action, bool remap_none_pending)
{
    if (strcmp(action, "rma") == 0)
        return "Hardware fault: drain the GPU, collect 'nvidia-bug-report.sh', and open an RMA if it recurs after a "
               "reset.";
    if (strcmp(action, "reboot") == 0)
        return "Stop the jobs and reboot the node (a GPU reset is not enough). If it recurs: reseat the GPU and "
               "its power cables, check the riser/baseboard and PSU, then RMA.";
    if (strcmp(action, "reset") == 0)
        return "Drain the GPU and reset it ('sudo nvidia-smi -r -i N', or reboot). If it recurs, collect "
               "'nvidia-bug-report.sh' for NVIDIA or the vendor.";
    if (strcmp(action, "hw") == 0)
        return "Check the board's power connectors, PSU and cooling; reset the GPU afterwards.";
    if (strcmp(action, "support") == 0)
        return "Not expected on this GPU in normal work: collect 'nvidia-bug-report.sh' and report it to NVIDIA or "
               "the vendor; drain and reset the GPU ('sudo nvidia-smi -r -i N') if jobs fail on it.";
    if (strcmp(action, "remap") == 0 && remap_none_pending)
        return "A memory error the GPU contained: the application that hit it was stopped (restart it; other work "
               "on the GPU is unaffected). No row remap waits for a reset now (the GPU reports 0 pending), so there "
               "is nothing to drain for it; a remap that fails (Xid 64) or errors that recur call for an RMA.";
    if (strcmp(action, "remap") == 0)
        return "A memory error the GPU contained: the application that hit it was stopped (restart it; other work "
               "on the GPU is unaffected). Drain the GPU and reset it when convenient ('sudo nvidia-smi -r -i N') "
               "so the pending row remap takes effect ('nvidia-smi -q -d ROW_REMAPPER' shows it pending); a remap "
               "that fails (Xid 64) or errors that recur after the reset call for an RMA.";
    if (strcmp(action, "update") == 0)
        return "The driver or firmware is at fault: update the NVIDIA driver (and on vGPU hosts the vGPU manager "
               "and guest driver to one release), then reset the GPU.";
    if (strcmp(action, "restart") == 0)
        return "The job was stopped by a fault outside its own code and the GPU recovered: restart the job. If it "
               "recurs, check the GPU's PCIe link (gpudoctor's pcie findings, 'sudo lspci -vv') and collect "
               "'nvidia-bug-report.sh' for NVIDIA or the vendor.";
    if (strcmp(action, "app") == 0)
        return "An application fault (illegal address, killed context): the GPU recovered. Rerun the job with "
               "compute-sanitizer or CUDA_LAUNCH_BLOCKING=1 to find the kernel; if it comes with ECC or other "
               "hardware Xids, treat it as those.";
    return "Note it and watch for repeats: 'dmesg -T | grep -i xid'.";
}

/* What one GPU's Xids add up to. */
typedef struct xid_sum {
    json_t *list; /* one row per Xid number */
    gd_severity worst;
    int best_rank, best_xid;
    size_t count;
    bool from_log, from_nvml; /* where its Xids were seen: the kernel log (read or followed), NVML's events */
    char best_action[8], best_meaning[160], pci[32];
} xid_sum;

/* The row of Xid `xid`, created with its meaning when new. */
static json_t *row_of(xid_sum *x, int xid, const gd_xid_info *in)
{
    size_t k;
    json_t *r;
    json_array_foreach(x->list, k, r) if (json_integer_value(json_object_get(r, "xid")) == xid) return r;
    r = json_object();
    json_object_set_new(r, "xid", json_integer(xid));
    json_object_set_new(r, "count", json_integer(0));
    json_object_set_new(r, "meaning", json_string(in->meaning));
    /* DCGM's health watch on it: "fail", "warn", or null where DCGM does not watch it. */
    json_object_set_new(r, "dcgm_health", strcmp(in->dcgm, "-") == 0 ? json_null() : json_string(in->dcgm));
    json_array_append_new(x->list, r);
    return r;
}

/* Severity and the most serious action so far, with one more Xid. */
static void rank(xid_sum *x, int xid, const gd_xid_info *in)
{
    gd_severity sev = severity_of(in);
    x->worst = sev > x->worst ? sev : x->worst;
    if (action_rank(in->action) < x->best_rank || (action_rank(in->action) == x->best_rank && sev == x->worst)) {
        x->best_rank = action_rank(in->action);
        x->best_xid = xid;
        snprintf(x->best_action, sizeof x->best_action, "%s", in->action);
        snprintf(x->best_meaning, sizeof x->best_meaning, "%s", in->meaning);
    }
}

/* The kernel log's (Xid, address) groups of one GPU, or (gpu -1) of one
 * address that matches no GPU: every event counted however long the log,
 * with the newest messages. */
static void add_kernel_log(xid_sum *x, const gd_stack_facts *s, int gpu, const char *only_pci)
{
    for (size_t i = 0; s && i < s->xid_group_count; i++) {
        const gd_xid_group *g = &s->xid_groups[i];
        if (g->gpu != gpu || (only_pci && strcasecmp(g->pci, only_pci) != 0) || g->example_count == 0)
            continue;
        const gd_xid_event *last = &g->examples[g->example_count - 1];
        x->count += g->count;
        x->from_log = true;
        snprintf(x->pci, sizeof x->pci, "%s", g->pci);
        gd_xid_info in;
        gd_xid_lookup(g->xid, &in);
        recovery_of(last, &in);
        /* One row per Xid number (a GPU's address is written one way): count, and the newest messages. */
        json_t *row = row_of(x, g->xid, &in);
        json_object_set_new(row, "count",
                            json_integer(json_integer_value(json_object_get(row, "count")) + (json_int_t)g->count));
        json_object_set_new(row, "lines",
                            json_integer(json_integer_value(json_object_get(row, "lines")) + (json_int_t)g->lines));
        json_object_set_new(row, "action", json_string(in.action));
        char when[80];
        if (!json_object_get(row, "first_seen")) {
            gd_log_when(g->first_seen, when, sizeof when);
            json_object_set_new(row, "first_seen", json_string(when));
        }
        gd_log_when(last->when, when, sizeof when);
        json_object_set_new(row, "last_seen", json_string(when));
        json_object_set_new(row, "last_message", json_string(last->text));
        json_t *ex = json_array();
        for (size_t k = g->example_count; k-- > 0;) {
            json_t *e = json_object();
            gd_log_when(g->examples[k].when, when, sizeof when);
            json_object_set_new(e, "when", json_string(when));
            json_object_set_new(e, "message", json_string(g->examples[k].text));
            json_array_append_new(ex, e);
        }
        json_object_set_new(row, "newest", ex);
        rank(x, g->xid, &in);
    }
}

static int by_last_seq(const void *a, const void *b)
{
    const gd_event_sum *x = a, *y = b;
    return (x->last_seq > y->last_seq) - (x->last_seq < y->last_seq);
}

/* The session's Xid events of gpu (NVML's event API, kernel log lines that
 * appeared while it ran), judged from their sums: every one of the session,
 * however many others followed. The same Xid reaches both the kernel log and
 * NVML: an Xid's count is the larger of the two, never their sum. */
static void add_session_events(xid_sum *x, const gd_facts *f, int gpu)
{
    const gd_events *ev = &f->events;
    size_t n = 0;
    gd_event_sum *sums = calloc(ev->sum_count + 1, sizeof *sums);
    for (size_t i = 0; sums && i < ev->sum_count; i++)
        if (ev->sums[i].kind == GD_EV_XID && ev->sums[i].gpu == gpu &&
            gd_event_sum_get(ev, i, -INFINITY, INFINITY, &sums[n]))
            n++;
    /* In the order each was last seen: the newest decides between equals. */
    if (n > 1)
        qsort(sums, n, sizeof *sums, by_last_seq);
    for (size_t i = 0; i < n; i++) {
        const gd_event_sum *e = &sums[i];
        gd_xid_info in;
        gd_xid_lookup((int)e->code, &in);
        json_t *row = row_of(x, (int)e->code, &in);
        /* Per source: NVML's events and the followed log see the same Xid.
         * Keys in the reader's words: what this window saw, and by what. */
        bool log_line = strcmp(e->what, "kernel log") == 0;
        const char *key = log_line ? "log_lines_in_window" : "nvml_events_in_window";
        x->from_log |= log_line;
        x->from_nvml |= !log_line;
        json_object_set_new(row, key,
                            json_integer(json_integer_value(json_object_get(row, key)) + (json_int_t)e->count));
        json_int_t nv = json_integer_value(json_object_get(row, "nvml_events_in_window"));
        json_int_t lg = json_integer_value(json_object_get(row, "log_lines_in_window"));
        json_int_t seen = nv > lg ? nv : lg;
        json_object_set_new(row, "in_window", json_integer(seen));
        char at[32];
        gd_event_clock(ev, e->last_t, at, sizeof at);
        json_object_set_new(row, "last_in_window", json_string(at));
        json_object_set_new(row, "last_in_window_s", json_real(e->last_t));
        json_object_set_new(row, "seen_by", json_string(log_line ? "the kernel log, followed" : "NVML's Xid events"));
        json_int_t count = json_integer_value(json_object_get(row, "count"));
        if (seen > count) {
            json_object_set_new(row, "count", json_integer(seen));
            x->count += (size_t)(seen - count);
        }
        if (!json_object_get(row, "action"))
            json_object_set_new(row, "action", json_string(in.action));
        rank(x, (int)e->code, &in);
    }
    free(sums);
}

/* All Xids of one GPU; with gpu -1, those of one PCI address that matches
 * no GPU (only_pci), or (only_pci NULL) the session's Xid events on
 * addresses that match none (a followed kernel log line). */
static void report_gpu(const gd_facts *f, gd_findings *out, int gpu, const char *only_pci)
{
    const gd_stack_facts *s = f->stack;
    xid_sum x = {.list = json_array(), .worst = GD_SEV_INFO, .best_rank = 99, .best_action = "watch"};
    if (gpu >= 0 || only_pci)
        add_kernel_log(&x, s, gpu, only_pci);
    if (gpu >= 0 || !only_pci)
        add_session_events(&x, f, gpu);
    if (x.count == 0) {
        json_decref(x.list);
        return;
    }
    json_t *ev = json_object();
    json_object_set_new(ev, "xids", x.list);
    if (x.pci[0])
        json_object_set_new(ev, "pci", json_string(x.pci));
    else if (gpu >= 0)
        json_object_set_new(ev, "pci", json_string(f->gpus[gpu].pci_bus_id));
    json_object_set_new(ev, "events", json_integer((json_int_t)x.count));
    bool log_read = s && s->kernel_log_read;
    char src[700];
    snprintf(src, sizeof src, "%s%s%s", log_read ? "kernel log: " : "", log_read ? s->kernel_log_source : "",
             f->events.xid_watched ? (log_read ? "; nvml: Xid events" : "nvml: Xid events") : "");
    json_object_set_new(ev, "source", json_string(src));
    char where[160];
    if (gpu >= 0)
        snprintf(where, sizeof where, "GPU %d", gpu);
    else if (!x.pci[0])
        snprintf(where, sizeof where, "an address that no GPU of this report has");
    else if (f->gpu_count == 0)
        snprintf(where, sizeof where, "PCI %s (the capture has no GPU list to name it)", x.pci);
    else
        snprintf(where, sizeof where, "PCI %s (no GPU of this report has that address)", x.pci);
    size_t kinds = json_array_size(x.list);
    json_int_t times = 0;
    size_t k;
    json_t *r;
    json_array_foreach(x.list, k, r) if (json_integer_value(json_object_get(r, "xid")) == x.best_xid) times =
        json_integer_value(json_object_get(r, "count"));
    /* The fix names this GPU, not a placeholder. */
    char fix[768], dev[16];
    snprintf(dev, sizeof dev, "-i %d", gpu);
    gd_fill_placeholder(fix, sizeof fix, action_fix(x.best_action, remap_none_pending(f, gpu)), "-i N",
                        gpu >= 0 ? dev : "-i <index>");
    /* Fallen off the bus: health.gpu_lost's instruction, word for word, and
     * whether the GPU's readings agree that it is gone. */
    char answered[320] = "";
    gd_gone_answer gone = GD_GONE_CONSISTENT;
    if (x.best_xid == GD_XID_OFF_BUS) {
        const gd_gpu *own = NULL;
        for (size_t g = 0; gpu >= 0 && g < f->gpu_count; g++)
            if (f->gpus[g].index == gpu)
                own = &f->gpus[g];
        if (gpu >= 0)
            gone = gd_gone_but_answering(f, gpu, GD_XID_OFF_BUS, ev, answered, sizeof answered);
        if (gone == GD_GONE_BEFORE) {
            gd_off_bus_back_fix(own, "", fix, sizeof fix);
            if (x.worst == GD_SEV_CRITICAL && kinds == 1)
                x.worst = GD_SEV_WARNING; /* back and answering: no loss now */
        } else {
            gd_off_bus_fix(own, "", fix, sizeof fix);
        }
    }
    char others[48] = "", repeat[32] = "";
    if (kinds > 1)
        snprintf(others, sizeof others, " and %zu other Xid%s", kinds - 1, kinds > 2 ? "s" : "");
    if (times > 1)
        snprintf(repeat, sizeof repeat, ", %lld times", (long long)times);
    /* Where they were seen: an Xid only NVML's events gave is not "in the kernel log", read or not. */
    const char *seen = x.from_log && x.from_nvml ? " in the kernel log and NVML's events"
                       : x.from_log              ? " in the kernel log"
                                                 : " (NVML event)";
    gd_finding_add(out, "health.xid", x.worst, gpu >= 0 ? gpu : GD_NO_GPU, ev, NAN, fix, "%s: Xid %d (%s)%s%s%s%s%s",
                   where, x.best_xid, x.best_meaning, repeat, others, seen, answered[0] ? "; " : "", answered);
}

void gd_check_xid(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_stack_facts *s = f->stack;
    /* Judged from NVML's events alone: the log that could not be read is
     * still said (a log that cannot be read is not a clean log). */
    if (s && !s->kernel_log_read && s->kernel_log_error[0])
        gd_skip_add(out, "health.xid", GD_NO_GPU, "%s; Xids from NVML's events only", s->kernel_log_error);
    for (size_t g = 0; g < f->gpu_count; g++) /* a kernel log was read or Xid events watched: the table's needs */
        report_gpu(f, out, f->gpus[g].index, NULL);
    /* Addresses that match no GPU: one finding each, never merged. */
    for (size_t i = 0; s && i < s->xid_group_count; i++) {
        const gd_xid_group *x = &s->xid_groups[i];
        bool seen = x->gpu >= 0;
        for (size_t k = 0; !seen && k < i; k++)
            seen = s->xid_groups[k].gpu < 0 && strcasecmp(s->xid_groups[k].pci, x->pci) == 0;
        if (!seen)
            report_gpu(f, out, -1, x->pci);
    }
    report_gpu(f, out, -1, NULL); /* the session's Xids on no GPU's address */
    if (s && s->xid_dropped)
        gd_skip_add(out, "health.xid", GD_NO_GPU,
                    "%zu Xid lines of more than %d distinct Xid and address pairs are counted in the total only",
                    s->xid_dropped, GD_STACK_MAX_XID_GROUPS);
}
