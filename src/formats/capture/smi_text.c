/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nvidia-smi -q: the plain-text dump, as pasted into tickets. Structure is
 * indentation only, so each "Label : value" line gets the path of the
 * labels above it ("Clocks Event Reasons/HW Slowdown/HW Thermal Slowdown")
 * and fields are mapped by full path. That keeps apart the labels that
 * repeat: the "Clocks Event Reasons Counters" section names the same
 * reasons with microsecond totals (a name there is not an active reason),
 * MIG devices have their own "ECC Errors" and "FB Memory Usage", and
 * "Power Draw" means different things in different sections.
 */
#include "capture.h"
#include "import.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define R(bit) GD_CF_REASON, (long long)(bit), 0, 0
#define M(metric) GD_CF_METRIC, (metric), 0, 0
#define S(field) (field), 0, 0, 0
#define MAX_DEPTH 12

/* Paths below "GPU xxxx:xx:xx.x"; "Clocks Throttle Reasons" (drivers before
 * 535) is read as "Clocks Event Reasons". Compared case-insensitively. */
static const gd_cap_map gpu_map[] = {
    {"Product Name", S(GD_CF_NAME)},
    {"GPU UUID", S(GD_CF_UUID)},
    {"Serial Number", S(GD_CF_SERIAL)},
    {"VBIOS Version", S(GD_CF_VBIOS)},
    {"PCI/Bus Id", S(GD_CF_BUS_ID)},
    {"Persistence Mode", S(GD_CF_PERSISTENCE)},
    {"MIG Mode/Current", S(GD_CF_MIG)},
    {"GPU C2C Mode", S(GD_CF_C2C)},
    {"Compute Mode", S(GD_CF_COMPUTE_MODE)},
    /* The card's own maximum first, as a live run reads it; "Max" is the lower of card and slot. */
    {"PCI/GPU Link Info/PCIe Generation/Max", S(GD_CF_PCIE_GEN_MAX)}, /* card and slot together */
    {"PCI/GPU Link Info/PCIe Generation/Device Max", S(GD_CF_PCIE_GEN_MAX_DEVICE)},
    {"PCI/GPU Link Info/PCIe Generation/Host Max", S(GD_CF_PCIE_GEN_MAX_HOST)},
    {"PCI/GPU Link Info/PCIe Generation/Current", M(GD_M_PCIE_GEN)},
    {"PCI/GPU Link Info/Link Width/Max", S(GD_CF_PCIE_WIDTH_MAX)},
    {"PCI/GPU Link Info/Link Width/Current", M(GD_M_PCIE_WIDTH)},
    {"PCI/Replays Since Reset", M(GD_M_PCIE_REPLAYS)},
    {"PCI/Tx Throughput", M(GD_M_PCIE_TX_KBPS)},
    {"PCI/Rx Throughput", M(GD_M_PCIE_RX_KBPS)},
    {"Fan Speed", M(GD_M_FAN_PCT)},
    {"Performance State", M(GD_M_PSTATE)},
    {"Clocks Event Reasons/Idle", R(0x1)},
    {"Clocks Event Reasons/Applications Clocks Setting", R(0x2)},
    {"Clocks Event Reasons/SW Power Cap", R(0x4)},
    {"Clocks Event Reasons/HW Slowdown", R(0x8)},
    {"Clocks Event Reasons/Sync Boost", R(0x10)},
    {"Clocks Event Reasons/SW Thermal Slowdown", R(0x20)},
    {"Clocks Event Reasons/HW Slowdown/HW Thermal Slowdown", R(0x40)},
    {"Clocks Event Reasons/HW Thermal Slowdown", R(0x40)},
    {"Clocks Event Reasons/HW Slowdown/HW Power Brake Slowdown", R(0x80)},
    {"Clocks Event Reasons/HW Power Brake Slowdown", R(0x80)},
    {"Clocks Event Reasons/Display Clock Setting", R(0x100)},
    /* Totals since boot in microseconds: history, not the current state. */
    {"Clocks Event Reasons Counters/SW Power Capping", GD_CF_VIOLATION_US, GD_M_VIOL_POWER_NS, 0, 0},
    {"Clocks Event Reasons Counters/SW Thermal Slowdown", GD_CF_VIOLATION_US, GD_M_VIOL_THERMAL_NS, 0, 0},
    {"Clocks Event Reasons Counters/HW Thermal Slowdown", GD_CF_VIOLATION_US, GD_M_VIOL_THERMAL_NS, 0, 0},
    {"Clocks Event Reasons Counters/HW Power Braking", GD_CF_VIOLATION_US, GD_M_VIOL_POWER_BRAKE_NS, 0, 0},
    {"FB Memory Usage/Total", S(GD_CF_MEM_TOTAL)},
    {"FB Memory Usage/Used", M(GD_M_MEM_USED_MIB)},
    {"Utilization/Gpu", M(GD_M_UTIL_GPU_PCT)},
    {"Utilization/Memory", M(GD_M_UTIL_MEM_PCT)},
    {"ECC Mode/Current", S(GD_CF_ECC)},
    {"ECC Errors/Volatile/Double Bit/Total", S(GD_CF_ECC_VOL_UNC)},
    {"ECC Errors/Volatile/DRAM Uncorrectable", S(GD_CF_ECC_VOL_UNC)},
    {"ECC Errors/Volatile/SRAM Uncorrectable", S(GD_CF_ECC_VOL_UNC)},
    {"ECC Errors/Volatile/SRAM Uncorrectable Parity", S(GD_CF_ECC_VOL_UNC)},
    {"ECC Errors/Volatile/SRAM Uncorrectable SEC-DED", S(GD_CF_ECC_VOL_UNC)},
    {"ECC Errors/Aggregate/Double Bit/Total", S(GD_CF_ECC_AGG_UNC)},
    {"ECC Errors/Aggregate/DRAM Uncorrectable", S(GD_CF_ECC_AGG_UNC)},
    {"ECC Errors/Aggregate/SRAM Uncorrectable", S(GD_CF_ECC_AGG_UNC)},
    {"ECC Errors/Aggregate/SRAM Uncorrectable Parity", S(GD_CF_ECC_AGG_UNC)},
    {"ECC Errors/Aggregate/SRAM Uncorrectable SEC-DED", S(GD_CF_ECC_AGG_UNC)},
    {"Retired Pages/Single Bit ECC", S(GD_CF_RETIRED_SBE)},
    {"Retired Pages/Double Bit ECC", S(GD_CF_RETIRED_DBE)},
    {"Retired Pages/Pending Page Blacklist", S(GD_CF_RETIRED_PENDING)},
    {"Retired Pages/Pending", S(GD_CF_RETIRED_PENDING)},
    {"Retired Pages/Pending Page Retirement", S(GD_CF_RETIRED_PENDING)},
    {"Remapped Rows/Correctable Error", S(GD_CF_REMAP_CORR)},
    {"Remapped Rows/Uncorrectable Error", S(GD_CF_REMAP_UNC)},
    {"Remapped Rows/Pending", S(GD_CF_REMAP_PENDING)},
    {"Remapped Rows/Remapping Failure Occurred", S(GD_CF_REMAP_FAILURE)},
    {"Temperature/GPU Current Temp", M(GD_M_TEMP_C)},
    {"Temperature/Memory Current Temp", M(GD_M_MEM_TEMP_C)},
    /* The "T.Limit" variants (driver 550+) are margins, not temperatures: not mapped. */
    {"Temperature/GPU Shutdown Temp", S(GD_CF_TEMP_SHUTDOWN)},
    {"Temperature/GPU Slowdown Temp", S(GD_CF_TEMP_SLOWDOWN)},
    {"Temperature/GPU Max Operating Temp", S(GD_CF_TEMP_GPU_MAX)},
    {"Temperature/Memory Max Operating Temp", S(GD_CF_TEMP_MEM_MAX)},
    {"Power Readings/Power Draw", GD_CF_METRIC, GD_M_POWER_W, 3, 0},
    {"Power Readings/Enforced Power Limit", GD_CF_POWER_LIMIT, 0, 3, 0},
    {"Power Readings/Power Limit", GD_CF_POWER_REQUESTED, 0, 1, 0},
    {"Power Readings/Current Power Limit", GD_CF_POWER_LIMIT, 0, 3, 0},
    {"Power Readings/Default Power Limit", S(GD_CF_POWER_DEFAULT)},
    {"Power Readings/Min Power Limit", S(GD_CF_POWER_MIN)},
    {"Power Readings/Max Power Limit", S(GD_CF_POWER_MAX)},
    {"GPU Power Readings/Power Draw", GD_CF_METRIC, GD_M_POWER_W, 3, 0},
    {"GPU Power Readings/Average Power Draw", GD_CF_METRIC, GD_M_POWER_W, 2, 0},
    {"GPU Power Readings/Instantaneous Power Draw", GD_CF_METRIC, GD_M_POWER_W, 1, 0},
    {"GPU Power Readings/Current Power Limit", GD_CF_POWER_LIMIT, 0, 3, 0},
    {"GPU Power Readings/Enforced Power Limit", GD_CF_POWER_LIMIT, 0, 3, 0},
    {"GPU Power Readings/Requested Power Limit", GD_CF_POWER_REQUESTED, 0, 1, 0},
    {"GPU Power Readings/Default Power Limit", S(GD_CF_POWER_DEFAULT)},
    {"GPU Power Readings/Min Power Limit", S(GD_CF_POWER_MIN)},
    {"GPU Power Readings/Max Power Limit", S(GD_CF_POWER_MAX)},
    /* Driver 610 moved the limits under "GPU Ceiling Power Limit" (beside a
     * "GPU Base Power" that is not a limit: not mapped). */
    {"GPU Power Readings/GPU Ceiling Power Limit/Current Power Limit", GD_CF_POWER_LIMIT, 0, 3, 0},
    {"GPU Power Readings/GPU Ceiling Power Limit/Enforced Power Limit", GD_CF_POWER_LIMIT, 0, 3, 0},
    {"GPU Power Readings/GPU Ceiling Power Limit/Requested Power Limit", GD_CF_POWER_REQUESTED, 0, 1, 0},
    {"GPU Power Readings/GPU Ceiling Power Limit/Default Power Limit", S(GD_CF_POWER_DEFAULT)},
    {"GPU Power Readings/GPU Ceiling Power Limit/Min Power Limit", S(GD_CF_POWER_MIN)},
    {"GPU Power Readings/GPU Ceiling Power Limit/Max Power Limit", S(GD_CF_POWER_MAX)},
    {"Clocks/SM", M(GD_M_SM_CLOCK_MHZ)},
    {"Clocks/Memory", M(GD_M_MEM_CLOCK_MHZ)},
    {"Max Clocks/SM", S(GD_CF_CLOCK_MAX_SM)},
    {"Max Clocks/Memory", S(GD_CF_CLOCK_MAX_MEM)},
    {"Applications Clocks/Graphics", S(GD_CF_CLOCK_APP_SM)},
    {"Applications Clocks/Memory", S(GD_CF_CLOCK_APP_MEM)},
    {"Default Applications Clocks/Graphics", S(GD_CF_CLOCK_DEFAULT_APP_SM)},
    {"Default Applications Clocks/Memory", S(GD_CF_CLOCK_DEFAULT_APP_MEM)},
    {"Processes", S(GD_CF_PROCESSES)},
    {"Processes/Process ID", S(GD_CF_PROC_PID)},
    {"Processes/Process ID/Name", S(GD_CF_PROC_NAME)},
    {"Processes/Name", S(GD_CF_PROC_NAME)},
    {"Processes/Process ID/Used GPU Memory", S(GD_CF_PROC_MEM)},
    {"Processes/Used GPU Memory", S(GD_CF_PROC_MEM)},
};

static const gd_cap_map top_map[] = {
    {"Driver Version", S(GD_CF_DRIVER_VERSION)},
    {"CUDA Version", S(GD_CF_CUDA_VERSION)},
    /* Driver 610 deprecates the two above for these (same values). */
    {"KMD Version", S(GD_CF_DRIVER_VERSION)},
    {"CUDA UMD Version", S(GD_CF_CUDA_VERSION)},
};

#define NMAP(m) (sizeof(m) / sizeof((m)[0]))

typedef struct level {
    size_t indent;
    char label[64];
} level;

typedef struct text_state {
    gd_cap *c;
    level stack[MAX_DEPTH];
    size_t depth;
    bool in_gpu;
    /* A full dump (-q without -d) names the product first and lists the
     * processes last: a section with the one and not the other was cut. */
    bool saw_name, saw_processes;
    char gpu_id[32];
    /* A paste trimmed by hand: its "[...]" lines, and "Attached GPUs" against the sections shown. */
    size_t cut_lines;
    long first_cut;
    long attached;
    long last_line; /* the last line that said something */
} text_state;

/* "GPU 00000000:07:00.0" at column 0 opens a GPU's section. */
static bool gpu_header(const char *l, size_t n, char *id, size_t idlen)
{
    if (n < 8 || strncmp(l, "GPU ", 4) != 0 || strspn(l + 4, "0123456789abcdefABCDEF:.") + 4 < n)
        return false;
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.*s", (int)(n - 4 < 63 ? n - 4 : 63), l + 4);
    gd_pci_bus_id_norm(tmp, id, idlen);
    return id[0] != '\0';
}

/* A section with its name and without its processes was cut (a trimmed
 * paste): what it shows is read, what it lost is not reported. */
static void end_gpu(text_state *st)
{
    if (st->in_gpu && st->saw_name && !st->saw_processes)
        gd_import_note(st->c->f,
                       "%s:%ld: GPU %s ends here, before its Processes section: the capture was cut, and what it "
                       "lost is not judged",
                       gd_import_base(st->c->name), st->last_line, st->gpu_id);
}

/* "[...]", "...": a paste's mark of lines left out. */
static bool cut_mark(const char *l, size_t n)
{
    static const char *const marks[] = {"[...]", "...",   "[..]",   "[\u2026]", "\u2026",
                                        "(...)", "<...>", "<snip>", "[snip]",   "[truncated]"};
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (strlen(marks[i]) == n && strncasecmp(l, marks[i], n) == 0)
            return true;
    return false;
}

static int open_gpu(text_state *st, const char *id)
{
    end_gpu(st);
    long g = gd_cap_add_gpu(st->c);
    if (g < 0 || gd_cap_row_for(st->c, (size_t)g) != 0)
        return -1;
    snprintf(st->c->f->gpus[g].pci_bus_id, sizeof st->c->f->gpus[g].pci_bus_id, "%s", id);
    snprintf(st->gpu_id, sizeof st->gpu_id, "%s", id);
    st->in_gpu = true;
    st->saw_name = st->saw_processes = false;
    st->depth = 0;
    return 0;
}

/* One "Label : value" or "Label" line inside a GPU section. */
static int gpu_line(text_state *st, size_t indent, const char *label, const char *value, size_t vlen, bool has_value)
{
    while (st->depth && st->stack[st->depth - 1].indent >= indent)
        st->depth--;
    char path[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < st->depth; i++)
        used += (size_t)snprintf(path + used, sizeof path - used, "%s/", st->stack[i].label);
    snprintf(path + used, sizeof path - used, "%s", label);
    if (st->depth < MAX_DEPTH) {
        level *lv = &st->stack[st->depth++];
        lv->indent = indent;
        snprintf(lv->label, sizeof lv->label, "%s", label);
    }
    if (st->depth == 1 && strcasecmp(label, "Processes") == 0)
        st->saw_processes = true;
    if (st->depth == 1 && strcasecmp(label, "Product Name") == 0)
        st->saw_name = true;
    const gd_cap_map *m = gd_cap_lookup(gpu_map, NMAP(gpu_map), path);
    if (!m)
        return 0;
    return gd_cap_set(st->c, m, has_value ? value : "", has_value ? vlen : 0);
}

static int text_line(void *ctx, const char *l, size_t n)
{
    text_state *st = ctx;
    size_t indent = 0;
    while (indent < n && (l[indent] == ' ' || l[indent] == '\t'))
        indent++;
    while (n > indent && isspace((unsigned char)l[n - 1]))
        n--;
    if (n == indent || l[indent] == '=')
        return 0; /* blank, or the "=====NVSMI LOG=====" banner */
    long this_line = st->last_line;
    st->last_line = st->c->line;
    if (cut_mark(l + indent, n - indent)) {
        st->last_line = this_line; /* a cut mark does not end what it cuts */
        if (st->cut_lines++ == 0)
            st->first_cut = st->c->line;
        return 0;
    }
    char id[32];
    if (indent == 0 && gpu_header(l, n, id, sizeof id))
        return open_gpu(st, id);
    /* The separator is the first ':' followed by a blank: bus ids and
     * times in values have colons too, labels never do. */
    const char *sep = NULL;
    for (const char *p = l + indent; p < l + n; p++)
        if (*p == ':' && (p + 1 == l + n || p[1] == ' ')) {
            sep = p;
            break;
        }
    const char *lend = sep ? sep : l + n;
    while (lend > l + indent && lend[-1] == ' ')
        lend--;
    char label[64];
    snprintf(label, sizeof label, "%.*s", (int)(lend - (l + indent)), l + indent);
    if (strncasecmp(label, "Clocks Throttle Reasons", 23) == 0) {
        char canon[64];
        snprintf(canon, sizeof canon, "Clocks Event Reasons%s", label + 23);
        memcpy(label, canon, sizeof label);
    }
    const char *value = sep ? sep + 1 : "";
    size_t vlen = sep ? (size_t)(l + n - value) : 0;
    if (indent == 0) {
        end_gpu(st);
        st->in_gpu = false;
        if (sep && strcasecmp(label, "Attached GPUs") == 0) {
            char *end;
            long n_att = strtol(value, &end, 10);
            st->attached = end > value && n_att > 0 && n_att <= GD_CAP_MAX_GPUS ? n_att : 0;
        }
        const gd_cap_map *m = sep ? gd_cap_lookup(top_map, NMAP(top_map), label) : NULL;
        return m ? gd_cap_set(st->c, m, value, vlen) : 0;
    }
    if (!st->in_gpu)
        return 0;
    return gpu_line(st, indent, label, value, vlen, sep != NULL);
}

int gd_import_smi_text(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    gd_cap c;
    gd_cap_begin(&c, f, name, err, errlen);
    text_state st = {.c = &c};
    int rc = -1;
    if (gd_cap_each_line(&c, text, len, "an nvidia-smi -q text dump", text_line, &st) != 0)
        goto out;
    end_gpu(&st);
    if (st.cut_lines)
        gd_import_note(f,
                       "%s:%ld: %zu '[...]' line%s: whoever pasted the capture left lines out there, and what "
                       "they held is not judged",
                       gd_import_base(name), st.first_cut, st.cut_lines, st.cut_lines == 1 ? "" : "s");
    if (st.attached > 0 && (size_t)st.attached > f->gpu_count)
        gd_import_note(f,
                       "%s: %ld GPUs attached, %zu shown ('nvidia-smi -q -i', or a paste cut short): the others are "
                       "not judged",
                       gd_import_base(name), st.attached, f->gpu_count);
    if (f->gpu_count == 0 && !f->driver_version[0]) {
        gd_cap_fail(&c, "no GPU section and no driver version: not an nvidia-smi -q dump");
        goto out;
    }
    rc = gd_cap_finish(&c, true);
    if (rc == 0)
        gd_cap_note_pcie_source(&c, "PCIe Generation Max,Device Max,Host Max;Link Width Max");
out:
    gd_cap_free(&c);
    return rc;
}
