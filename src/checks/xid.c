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

/* All events of one GPU (or of unmatched bus ids, gpu -1). */
static void report_gpu(const gd_facts *f, gd_findings *out, int gpu)
{
    const gd_stack_facts *s = f->stack;
    json_t *list = json_array();
    gd_severity worst = GD_SEV_INFO;
    int best_rank = 99, best_xid = 0, count = 0;
    char best_action[8] = "watch", best_meaning[160] = "", pci[32] = "";
    for (size_t i = 0; i < s->xid_count; i++) {
        const gd_xid_event *e = &s->xids[i];
        if (e->gpu != gpu)
            continue;
        count++;
        snprintf(pci, sizeof pci, "%s", e->pci);
        /* One row per Xid number: count, and the latest message. */
        json_t *row = NULL;
        size_t k;
        json_t *x;
        json_array_foreach(list, k, x) if (json_integer_value(json_object_get(x, "xid")) == e->xid) row = x;
        gd_xid_info in;
        gd_xid_lookup(e->xid, &in);
        recovery_of(e, &in);
        if (!row) {
            row = json_object();
            json_object_set_new(row, "xid", json_integer(e->xid));
            json_object_set_new(row, "count", json_integer(0));
            json_object_set_new(row, "meaning", json_string(in.meaning));
            json_object_set_new(row, "dcgm", json_string(in.dcgm));
            json_array_append_new(list, row);
        }
        json_object_set_new(row, "count", json_integer(json_integer_value(json_object_get(row, "count")) + 1));
        json_object_set_new(row, "action", json_string(in.action));
        json_object_set_new(row, "last_seen", json_string(e->when));
        json_object_set_new(row, "last_message", json_string(e->text));
        gd_severity sev = severity_of(&in);
        worst = sev > worst ? sev : worst;
        if (action_rank(in.action) < best_rank || (action_rank(in.action) == best_rank && sev == worst)) {
            best_rank = action_rank(in.action);
            best_xid = e->xid;
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
    json_object_set_new(ev, "events", json_integer(count));
    char src[600];
    snprintf(src, sizeof src, "kernel log: %s", s->kernel_log_source);
    json_object_set_new(ev, "source", json_string(src));
    char where[96];
    if (gpu >= 0)
        snprintf(where, sizeof where, "GPU %d", gpu);
    else
        snprintf(where, sizeof where, "PCI %s (no GPU listed there now)", pci);
    size_t kinds = json_array_size(list);
    json_int_t times = 0;
    size_t k;
    json_t *x;
    json_array_foreach(list, k, x) if (json_integer_value(json_object_get(x, "xid")) == best_xid) times =
        json_integer_value(json_object_get(x, "count"));
    /* The fix names this GPU, not a placeholder. */
    char fix[768], dev[16];
    snprintf(dev, sizeof dev, "-i %d", gpu);
    gd_fill_placeholder(fix, sizeof fix, action_fix(best_action), "-i N", gpu >= 0 ? dev : "-i <index>");
    char others[48] = "", repeat[32] = "";
    if (kinds > 1)
        snprintf(others, sizeof others, " and %zu other Xid%s", kinds - 1, kinds > 2 ? "s" : "");
    if (times > 1)
        snprintf(repeat, sizeof repeat, ", %lld times", (long long)times);
    gd_finding_add(out, "health.xid", worst, gpu >= 0 ? gpu : GD_NO_GPU, ev, NAN, fix,
                   "%s: Xid %d (%s)%s%s in the kernel log", where, best_xid, best_meaning, repeat, others);
}

void gd_check_xid(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    for (size_t g = 0; g < f->gpu_count; g++) /* a kernel log was read: the table's needs */
        report_gpu(f, out, f->gpus[g].index);
    report_gpu(f, out, -1);
}
