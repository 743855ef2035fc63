/* SPDX-License-Identifier: Apache-2.0 */
/* health.xid: Xid events in the kernel log, one finding per GPU, with each
 * Xid's meaning and the action it calls for (data/xid.tsv). Severity
 * follows DCGM's health watch: its "fail" Xids are critical, its "warn"
 * ones warnings; others by their action. */
#include "checks_internal.h"
#include "core/data_tables.h"
#include "gpudoctor/stack.h"

/* Most serious first: the finding's fix names the first one present. */
static const char *const actions[] = {"rma", "reboot", "reset", "hw", "app", "watch"};

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
    int r = action_rank(in->action);
    return r <= action_rank("reset") ? GD_SEV_WARNING : GD_SEV_INFO;
}

static const char *action_fix(const char *action)
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
    if (strcmp(action, "app") == 0)
        return "An application fault (illegal address, killed context): the GPU recovered. Rerun the job with "
               "compute-sanitizer or CUDA_LAUNCH_BLOCKING=1 to find the kernel; if it comes with ECC or other "
               "hardware Xids, treat it as those.";
    return "Note it and watch for repeats: 'dmesg -T | grep -i xid'.";
}

/* All events of one GPU, or (gpu -1) of one PCI address that matches no GPU. */
static void report_gpu(const gd_facts *f, gd_findings *out, int gpu, const char *only_pci)
{
    const gd_stack_facts *s = f->stack;
    json_t *list = json_array();
    gd_severity worst = GD_SEV_INFO;
    int best_rank = 99, best_xid = 0;
    size_t count = 0, times = 0;
    char best_action[8] = "watch", best_meaning[160] = "", pci[32] = "";
    for (size_t i = 0; i < s->xid_group_count; i++) {
        const gd_xid_group *x = &s->xid_groups[i];
        if (x->gpu != gpu || (only_pci && strcasecmp(x->pci, only_pci) != 0) || x->example_count == 0)
            continue;
        const gd_xid_event *last = &x->examples[x->example_count - 1];
        count += x->count;
        snprintf(pci, sizeof pci, "%s", x->pci);
        gd_xid_info in;
        gd_xid_lookup(x->xid, &in);
        recovery_of(last, &in);
        /* One row per Xid number (a GPU's address is written one way): count, and the newest messages. */
        json_t *row = json_object();
        json_object_set_new(row, "xid", json_integer(x->xid));
        json_object_set_new(row, "count", json_integer((json_int_t)x->count));
        json_object_set_new(row, "meaning", json_string(in.meaning));
        json_object_set_new(row, "dcgm", json_string(in.dcgm));
        json_object_set_new(row, "action", json_string(in.action));
        json_object_set_new(row, "first_seen", json_string(x->first_seen));
        json_object_set_new(row, "last_seen", json_string(last->when));
        json_object_set_new(row, "last_message", json_string(last->text));
        json_t *ex = json_array();
        for (size_t k = x->example_count; k-- > 0;) {
            json_t *e = json_object();
            json_object_set_new(e, "when", json_string(x->examples[k].when));
            json_object_set_new(e, "message", json_string(x->examples[k].text));
            json_array_append_new(ex, e);
        }
        json_object_set_new(row, "newest", ex);
        json_array_append_new(list, row);
        gd_severity sev = severity_of(&in);
        worst = sev > worst ? sev : worst;
        if (action_rank(in.action) < best_rank || (action_rank(in.action) == best_rank && sev == worst)) {
            best_rank = action_rank(in.action);
            best_xid = x->xid;
            times = x->count;
            snprintf(best_action, sizeof best_action, "%s", in.action);
            snprintf(best_meaning, sizeof best_meaning, "%s", in.meaning);
        }
    }
    if (count == 0) {
        json_decref(list);
        return;
    }
    json_t *ev = json_object();
    json_object_set_new(ev, "xids", list);
    json_object_set_new(ev, "pci", json_string(pci));
    json_object_set_new(ev, "events", json_integer((json_int_t)count));
    char src[600];
    snprintf(src, sizeof src, "kernel log: %s", s->kernel_log_source);
    json_object_set_new(ev, "source", json_string(src));
    char where[160];
    if (gpu >= 0)
        snprintf(where, sizeof where, "GPU %d", gpu);
    else if (f->gpu_count == 0)
        snprintf(where, sizeof where, "PCI %s (the capture has no GPU list to name it)", pci);
    else
        snprintf(where, sizeof where, "PCI %s (no GPU of this report has that address)", pci);
    size_t kinds = json_array_size(list);
    /* The fix names this GPU, not a placeholder. */
    char fix[768], dev[16];
    snprintf(dev, sizeof dev, "-i %d", gpu);
    gd_fill_placeholder(fix, sizeof fix, action_fix(best_action), "-i N", gpu >= 0 ? dev : "-i <index>");
    char others[48] = "", repeat[32] = "";
    if (kinds > 1)
        snprintf(others, sizeof others, " and %zu other Xid%s", kinds - 1, kinds > 2 ? "s" : "");
    if (times > 1)
        snprintf(repeat, sizeof repeat, ", %zu times", times);
    gd_finding_add(out, "health.xid", worst, gpu >= 0 ? gpu : GD_NO_GPU, ev, NAN, fix,
                   "%s: Xid %d (%s)%s%s in the kernel log", where, best_xid, best_meaning, repeat, others);
}

void gd_check_xid(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_stack_facts *s = f->stack;
    for (size_t g = 0; g < f->gpu_count; g++) /* a kernel log was read: the table's needs */
        report_gpu(f, out, f->gpus[g].index, NULL);
    /* Addresses that match no GPU: one finding each, never merged. */
    for (size_t i = 0; i < s->xid_group_count; i++) {
        const gd_xid_group *x = &s->xid_groups[i];
        bool seen = x->gpu >= 0;
        for (size_t k = 0; !seen && k < i; k++)
            seen = s->xid_groups[k].gpu < 0 && strcasecmp(s->xid_groups[k].pci, x->pci) == 0;
        if (!seen)
            report_gpu(f, out, -1, x->pci);
    }
    if (s->xid_dropped)
        gd_skip_add(out, "health.xid", GD_NO_GPU,
                    "%zu Xid events of more than %d distinct Xid and address pairs are counted in the total only",
                    s->xid_dropped, GD_STACK_MAX_XID_GROUPS);
}
