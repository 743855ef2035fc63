/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nvidia-smi -q -x: the XML dump, every schema from nvsmi_device_v9 (2017)
 * to v13. Parsed with Expat (Debian's small XML parser; the dump needs
 * elements, one attribute and text) into an element tree (xml_tree.h), whose
 * element paths map directly; line numbers are kept for messages. Hostile
 * input: the bytes are parsed as UTF-8 whatever the document declares, so a
 * UTF-7 or other declaration cannot hide markup from the checks below.
 * Before Expat: a linear shape scan (xml_shape.h) refuses documents beyond
 * any dump's size and depth and any DTD internal subset, the only place
 * entities can be declared (nvidia-smi never writes one; no external DTD or
 * entity is ever loaded). An entity declaration that got there anyway stops
 * the parser (xml_tree.c).
 */
#include "capture.h"
#include "import.h"
#include "xml_shape.h"
#include "xml_tree.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R(bit) GD_CF_REASON, (long long)(bit), 0, 0
#define M(metric) GD_CF_METRIC, (metric), 0, 0

/* Paths below <gpu>. "throttle" spellings are rewritten to "event" first. */
static const gd_cap_map gpu_map[] = {
    {"product_name", GD_CF_NAME, 0, 0, 0},
    {"uuid", GD_CF_UUID, 0, 0, 0},
    {"serial", GD_CF_SERIAL, 0, 0, 0},
    {"vbios_version", GD_CF_VBIOS, 0, 0, 0},
    {"pci/pci_bus_id", GD_CF_BUS_ID, 0, 0, 0},
    {"persistence_mode", GD_CF_PERSISTENCE, 0, 0, 0},
    {"mig_mode/current_mig", GD_CF_MIG, 0, 0, 0},
    {"c2c_mode", GD_CF_C2C, 0, 0, 0},
    {"compute_mode", GD_CF_COMPUTE_MODE, 0, 0, 0},
    /* max_link_gen is what card and slot reach together (nvmlDeviceGetMaxPcieLinkGeneration);
     * max_device_link_gen the card's own (nvmlDeviceGetGpuMaxPcieLinkGeneration), max_host_link_gen
     * the slot's: a Gen4 card in a Gen3 slot shows 3, 4, 3. */
    {"pci/pci_gpu_link_info/pcie_gen/max_link_gen", GD_CF_PCIE_GEN_MAX, 0, 0, 0},
    {"pci/pci_gpu_link_info/pcie_gen/max_device_link_gen", GD_CF_PCIE_GEN_MAX_DEVICE, 0, 0, 0},
    {"pci/pci_gpu_link_info/pcie_gen/max_host_link_gen", GD_CF_PCIE_GEN_MAX_HOST, 0, 0, 0},
    {"pci/pci_gpu_link_info/pcie_gen/current_link_gen", M(GD_M_PCIE_GEN)},
    {"pci/pci_gpu_link_info/link_widths/max_link_width", GD_CF_PCIE_WIDTH_MAX, 0, 0, 0},
    {"pci/pci_gpu_link_info/link_widths/current_link_width", M(GD_M_PCIE_WIDTH)},
    {"pci/replay_counter", M(GD_M_PCIE_REPLAYS)},
    {"pci/tx_util", M(GD_M_PCIE_TX_KBPS)},
    {"pci/rx_util", M(GD_M_PCIE_RX_KBPS)},
    {"fan_speed", M(GD_M_FAN_PCT)},
    {"performance_state", M(GD_M_PSTATE)},
    {"clocks_event_reasons/clocks_event_reason_gpu_idle", R(0x1)},
    {"clocks_event_reasons/clocks_event_reason_applications_clocks_setting", R(0x2)},
    {"clocks_event_reasons/clocks_event_reason_sw_power_cap", R(0x4)},
    {"clocks_event_reasons/clocks_event_reason_hw_slowdown", R(0x8)},
    {"clocks_event_reasons/clocks_event_reason_sync_boost", R(0x10)},
    {"clocks_event_reasons/clocks_event_reason_sw_thermal_slowdown", R(0x20)},
    {"clocks_event_reasons/clocks_event_reason_hw_thermal_slowdown", R(0x40)},
    {"clocks_event_reasons/clocks_event_reason_hw_power_brake_slowdown", R(0x80)},
    {"clocks_event_reasons/clocks_event_reason_display_clocks_setting", R(0x100)},
    /* Cumulative microseconds per reason, not the current state. */
    {"clocks_event_reasons_counters/clocks_event_reasons_counters_sw_power_cap", GD_CF_VIOLATION_US, GD_M_VIOL_POWER_NS,
     0, 0},
    {"clocks_event_reasons_counters/clocks_event_reasons_counters_sw_therm_slowdown", GD_CF_VIOLATION_US,
     GD_M_VIOL_THERMAL_NS, 0, 0},
    {"clocks_event_reasons_counters/clocks_event_reasons_counters_hw_therm_slowdown", GD_CF_VIOLATION_US,
     GD_M_VIOL_THERMAL_NS, 0, 0},
    {"clocks_event_reasons_counters/clocks_event_reasons_counters_hw_power_brake", GD_CF_VIOLATION_US,
     GD_M_VIOL_POWER_BRAKE_NS, 0, 0},
    {"fb_memory_usage/total", GD_CF_MEM_TOTAL, 0, 0, 0},
    {"fb_memory_usage/used", M(GD_M_MEM_USED_MIB)},
    {"utilization/gpu_util", M(GD_M_UTIL_GPU_PCT)},
    {"utilization/memory_util", M(GD_M_UTIL_MEM_PCT)},
    {"ecc_mode/current_ecc", GD_CF_ECC, 0, 0, 0},
    {"ecc_errors/volatile/double_bit/total", GD_CF_ECC_VOL_UNC, 0, 0, 0},
    {"ecc_errors/volatile/dram_uncorrectable", GD_CF_ECC_VOL_UNC, 0, 0, 0},
    {"ecc_errors/volatile/sram_uncorrectable", GD_CF_ECC_VOL_UNC, 0, 0, 0},
    {"ecc_errors/volatile/sram_uncorrectable_parity", GD_CF_ECC_VOL_UNC, 0, 0, 0},
    {"ecc_errors/volatile/sram_uncorrectable_secded", GD_CF_ECC_VOL_UNC, 0, 0, 0},
    {"ecc_errors/aggregate/double_bit/total", GD_CF_ECC_AGG_UNC, 0, 0, 0},
    {"ecc_errors/aggregate/dram_uncorrectable", GD_CF_ECC_AGG_UNC, 0, 0, 0},
    {"ecc_errors/aggregate/sram_uncorrectable", GD_CF_ECC_AGG_UNC, 0, 0, 0},
    {"ecc_errors/aggregate/sram_uncorrectable_parity", GD_CF_ECC_AGG_UNC, 0, 0, 0},
    {"ecc_errors/aggregate/sram_uncorrectable_secded", GD_CF_ECC_AGG_UNC, 0, 0, 0},
    {"retired_pages/multiple_single_bit_retirement/retired_count", GD_CF_RETIRED_SBE, 0, 0, 0},
    {"retired_pages/double_bit_retirement/retired_count", GD_CF_RETIRED_DBE, 0, 0, 0},
    {"retired_pages/pending_retirement", GD_CF_RETIRED_PENDING, 0, 1, 0},
    {"retired_pages/pending_blacklist", GD_CF_RETIRED_PENDING, 0, 0, 0},
    {"remapped_rows/remapped_row_corr", GD_CF_REMAP_CORR, 0, 0, 0},
    {"remapped_rows/remapped_row_unc", GD_CF_REMAP_UNC, 0, 0, 0},
    {"remapped_rows/remapped_row_pending", GD_CF_REMAP_PENDING, 0, 0, 0},
    {"remapped_rows/remapped_row_failure", GD_CF_REMAP_FAILURE, 0, 0, 0},
    {"temperature/gpu_temp", M(GD_M_TEMP_C)},
    {"temperature/memory_temp", M(GD_M_MEM_TEMP_C)},
    {"temperature/gpu_temp_max_threshold", GD_CF_TEMP_SHUTDOWN, 0, 0, 0},
    {"temperature/gpu_temp_slow_threshold", GD_CF_TEMP_SLOWDOWN, 0, 0, 0},
    {"temperature/gpu_temp_max_gpu_threshold", GD_CF_TEMP_GPU_MAX, 0, 0, 0},
    {"temperature/gpu_temp_max_mem_threshold", GD_CF_TEMP_MEM_MAX, 0, 0, 0},
    /* Power: "power_readings" up to driver 530, "gpu_power_readings" after. */
    {"power_readings/power_draw", GD_CF_METRIC, GD_M_POWER_W, 3, 0},
    {"power_readings/enforced_power_limit", GD_CF_POWER_LIMIT, 0, 3, 0},
    {"power_readings/power_limit", GD_CF_POWER_REQUESTED, 0, 1, 0},
    {"power_readings/default_power_limit", GD_CF_POWER_DEFAULT, 0, 0, 0},
    {"power_readings/min_power_limit", GD_CF_POWER_MIN, 0, 0, 0},
    {"power_readings/max_power_limit", GD_CF_POWER_MAX, 0, 0, 0},
    {"gpu_power_readings/power_draw", GD_CF_METRIC, GD_M_POWER_W, 3, 0},
    {"gpu_power_readings/average_power_draw", GD_CF_METRIC, GD_M_POWER_W, 2, 0},
    {"gpu_power_readings/instant_power_draw", GD_CF_METRIC, GD_M_POWER_W, 1, 0},
    {"gpu_power_readings/current_power_limit", GD_CF_POWER_LIMIT, 0, 3, 0},
    {"gpu_power_readings/enforced_power_limit", GD_CF_POWER_LIMIT, 0, 3, 0},
    {"gpu_power_readings/requested_power_limit", GD_CF_POWER_REQUESTED, 0, 1, 0},
    {"gpu_power_readings/default_power_limit", GD_CF_POWER_DEFAULT, 0, 0, 0},
    {"gpu_power_readings/min_power_limit", GD_CF_POWER_MIN, 0, 0, 0},
    {"gpu_power_readings/max_power_limit", GD_CF_POWER_MAX, 0, 0, 0},
    {"clocks/sm_clock", M(GD_M_SM_CLOCK_MHZ)},
    {"clocks/mem_clock", M(GD_M_MEM_CLOCK_MHZ)},
    {"max_clocks/sm_clock", GD_CF_CLOCK_MAX_SM, 0, 0, 0},
    {"max_clocks/mem_clock", GD_CF_CLOCK_MAX_MEM, 0, 0, 0},
    {"applications_clocks/graphics_clock", GD_CF_CLOCK_APP_SM, 0, 0, 0},
    {"applications_clocks/mem_clock", GD_CF_CLOCK_APP_MEM, 0, 0, 0},
    {"default_applications_clocks/graphics_clock", GD_CF_CLOCK_DEFAULT_APP_SM, 0, 0, 0},
    {"default_applications_clocks/mem_clock", GD_CF_CLOCK_DEFAULT_APP_MEM, 0, 0, 0},
    {"processes", GD_CF_PROCESSES, 0, 0, 0},
    {"processes/process_info/pid", GD_CF_PROC_PID, 0, 0, 0},
    {"processes/process_info/process_name", GD_CF_PROC_NAME, 0, 0, 0},
    {"processes/process_info/used_memory", GD_CF_PROC_MEM, 0, 0, 0},
};

static const gd_cap_map top_map[] = {
    {"driver_version", GD_CF_DRIVER_VERSION, 0, 0, 0},
    {"cuda_version", GD_CF_CUDA_VERSION, 0, 0, 0},
};

#define NMAP(m) (sizeof(m) / sizeof((m)[0]))

static bool is_element(const gd_xml_node *n)
{
    return gd_xml_is_element(n);
}

static bool has_element_child(const gd_xml_node *n)
{
    for (const gd_xml_node *c = n->first; c; c = c->next)
        if (is_element(c))
            return true;
    return false;
}

/* Stores the node's text under path (text "" for a node with children). */
static int store(gd_cap *c, const gd_cap_map *map, size_t nmap, const char *path, const gd_xml_node *n, bool leaf)
{
    const gd_cap_map *m = gd_cap_lookup(map, nmap, path);
    if (!m)
        return 0;
    c->line = n->line;
    if (!leaf)
        return gd_cap_set(c, m, "", 0);
    char *text = gd_xml_content(n);
    if (!text)
        return gd_cap_fail(c, "out of memory");
    int rc = gd_cap_set(c, m, text, strlen(text));
    free(text);
    return rc;
}

/* Depth is bounded by the shape scan (xml_shape.h); deeper paths than the
 * buffer are not ours and are skipped. */
static int walk(gd_cap *c, const gd_xml_node *parent, char *path, size_t used, size_t cap)
{
    for (const gd_xml_node *n = parent->first; n; n = n->next) {
        if (!is_element(n))
            continue;
        const char *name = n->name;
        const char *rest = name;
        const char *prefix = "";
        if (strncmp(name, "clocks_throttle_reason", 22) == 0) {
            prefix = "clocks_event_reason";
            rest = name + 22;
        }
        int k = snprintf(path + used, cap - used, "%s%s%s", used ? "/" : "", prefix, rest);
        if (k < 0 || (size_t)k >= cap - used)
            continue;
        bool leaf = !has_element_child(n);
        if (store(c, gpu_map, NMAP(gpu_map), path, n, leaf) != 0)
            return -1;
        if (!leaf && walk(c, n, path, used + (size_t)k, cap) != 0)
            return -1;
        path[used] = '\0';
    }
    return 0;
}

/* The element child of n named name, or NULL. */
static const gd_xml_node *child(const gd_xml_node *n, const char *name)
{
    for (const gd_xml_node *k = n ? n->first : NULL; k; k = k->next)
        if (is_element(k) && strcmp(k->name, name) == 0)
            return k;
    return NULL;
}

/* An element's number ("19968 MiB": 19968), not ok when absent or no number. */
static gd_value number_of(const gd_xml_node *n)
{
    char *t = n ? gd_xml_content(n) : NULL;
    char *end = NULL;
    double v = t ? strtod(t, &end) : 0;
    bool ok = t && end != t;
    free(t);
    return ok ? gd_val(v) : gd_missing(GD_ST_NOT_REPORTED);
}

/* <mig_devices>: one MIG device per GPU instance (as NVML's are read: the
 * first compute instance of each), with its memory. The dump names no
 * profile. */
static void read_mig(const gd_xml_node *gpu, gd_gpu *g)
{
    for (const gd_xml_node *m = child(child(gpu, "mig_devices"), "mig_device"); m; m = m->next) {
        if (!is_element(m) || strcmp(m->name, "mig_device") != 0)
            continue;
        gd_value gi = number_of(child(m, "gpu_instance_id"));
        if (!gd_ok(gi) || gi.v < 0 || g->mig_device_count >= GD_MAX_MIG_DEVICES)
            continue;
        bool seen = false;
        for (size_t k = 0; k < g->mig_device_count; k++)
            seen |= g->mig_devices[k].gpu_instance_id == (unsigned int)gi.v;
        if (seen)
            continue;
        gd_mig_device *d = &g->mig_devices[g->mig_device_count++];
        memset(d, 0, sizeof *d);
        d->gpu_instance_id = (unsigned int)gi.v;
        const gd_xml_node *fb = child(m, "fb_memory_usage");
        d->mem_total_mib = number_of(child(fb, "total"));
        d->mem_used_mib = number_of(child(fb, "used"));
    }
}

static int read_gpu(gd_cap *c, const gd_xml_node *n)
{
    long g = gd_cap_add_gpu(c);
    if (g < 0 || gd_cap_row_for(c, (size_t)g) != 0)
        return -1;
    const char *id = gd_xml_attr(n, "id");
    if (id)
        gd_pci_bus_id_norm(id, c->f->gpus[g].pci_bus_id, sizeof c->f->gpus[g].pci_bus_id);
    char path[256] = "";
    if (walk(c, n, path, 0, sizeof path) != 0)
        return -1;
    read_mig(n, &c->f->gpus[g]);
    return 0;
}

static int read_log(gd_cap *c, const gd_xml_node *root)
{
    long attached = -1;
    for (const gd_xml_node *n = root->first; n; n = n->next) {
        if (!is_element(n))
            continue;
        const char *name = n->name;
        if (strcmp(name, "gpu") == 0) {
            if (read_gpu(c, n) != 0)
                return -1;
        } else if (strcmp(name, "attached_gpus") == 0) {
            char *t = gd_xml_content(n);
            attached = t ? strtol(t, NULL, 10) : -1;
            free(t);
        } else if (store(c, top_map, NMAP(top_map), name, n, true) != 0) {
            return -1;
        }
    }
    c->line = 0;
    if (c->f->gpu_count == 0 && attached > 0)
        return gd_cap_fail(c, "says %ld GPUs are attached but holds no <gpu> element", attached);
    return 0;
}

int gd_import_smi_xml(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    gd_cap c;
    gd_cap_begin(&c, f, name, err, errlen);
    c.key_leaf = true; /* sources cite <element> */
    c.key_map = gpu_map;
    c.key_map_len = NMAP(gpu_map);
    if (len > INT_MAX)
        return gd_cap_fail(&c, "too large for an nvidia-smi XML dump");
    char why[640];
    if (gd_xml_shape_refusal(text, len, why, sizeof why))
        return gd_cap_fail(&c, "refused before parsing: %s", why);
    gd_xml_node *root = NULL;
    long line = 0;
    int rc = -1;
    switch (gd_xml_parse(text, len, &root, why, sizeof why, &line)) {
    case GD_XML_OK:
        if (strcmp(root->name, "nvidia_smi_log") != 0)
            gd_cap_fail(&c, "XML, but not an nvidia-smi log (root element <%s>)", root->name);
        else if (read_log(&c, root) == 0 && gd_cap_finish(&c, true) == 0) {
            gd_cap_note_pcie_source(&c, "<max_link_gen>,<max_device_link_gen>,<max_host_link_gen>,<max_link_width>");
            rc = 0;
        }
        break;
    case GD_XML_NO_LIBRARY: gd_cap_fail(&c, "cannot read nvidia-smi XML: %s", why); break;
    case GD_XML_NO_MEMORY: gd_cap_fail(&c, "out of memory"); break;
    case GD_XML_ENTITY:
        gd_cap_fail(&c, "the XML declares entities, which nvidia-smi never writes: refused (entity expansion is a "
                        "known attack on XML parsers)");
        break;
    case GD_XML_MALFORMED:
        c.line = line;
        gd_cap_fail(&c, "malformed or truncated XML: %s", why);
        break;
    }
    gd_xml_free(root);
    gd_cap_free(&c);
    return rc;
}
