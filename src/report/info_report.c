/* SPDX-License-Identifier: Apache-2.0 */
/* `info`: each GPU's identity, limits, state, configuration and health. */
#include "core/json_util.h"
#include "gpudoctor/abi/nvml_api.h"
#include "gpu_table.h"
#include "text_util.h"

#include <string.h>

/* A reading as text: its number with unit, or why it is missing. */
static const char *vtext(gd_value v, const char *unit, char *buf, size_t len)
{
    if (gd_ok(v))
        snprintf(buf, len, "%.0f%s%s", v.v, unit[0] ? " " : "", unit);
    else if (v.status == GD_ST_NOT_SUPPORTED)
        snprintf(buf, len, "n/a");
    else if (v.status == GD_ST_NOT_REPORTED)
        snprintf(buf, len, "not reported");
    else if (v.status == GD_ST_DEPRECATED)
        snprintf(buf, len, "n/a (deprecated)");
    else
        snprintf(buf, len, "? (%s)", gd_status_name((gd_status)v.status));
    return buf;
}

static const char *onoff(gd_value v)
{
    return !gd_ok(v) ? "n/a" : v.v != 0 ? "on" : "off";
}

static const char *compute_mode_name(gd_value v)
{
    if (!gd_ok(v))
        return "n/a";
    switch ((int)v.v) {
    case NVML_COMPUTEMODE_DEFAULT: return "default";
    case NVML_COMPUTEMODE_EXCLUSIVE_THREAD: return "exclusive_thread";
    case NVML_COMPUTEMODE_PROHIBITED: return "prohibited";
    case NVML_COMPUTEMODE_EXCLUSIVE_PROCESS: return "exclusive_process";
    }
    return "unknown";
}

static gd_value last(const gd_facts *f, size_t g, gd_metric m)
{
    const gd_series *s = &f->series;
    return s->n ? gd_series_at(s, s->n - 1, g, m) : gd_missing(GD_ST_UNREAD);
}

static void reasons_text(gd_value r, char *buf, size_t len)
{
    if (!gd_ok(r)) {
        snprintf(buf, len, "n/a");
        return;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < gd_reason_names_count; i++)
        if ((unsigned long long)r.v & gd_reason_names[i].bit)
            used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s", used ? ", " : "",
                                     gd_reason_names[i].name);
    if (!used)
        snprintf(buf, len, "none (clocks not held back)");
}

/* "200-700 W", "1980/2619 MHz": both known, else one "n/a". */
static const char *pair_text(gd_value x, gd_value y, const char *sep, const char *unit, char *buf, size_t len)
{
    if (gd_ok(x) && gd_ok(y))
        snprintf(buf, len, "%.0f%s%.0f%s%s", x.v, sep, y.v, unit[0] ? " " : "", unit);
    else
        snprintf(buf, len, "n/a");
    return buf;
}

/* "Gen4 x16", "Gen4, width n/a", "x8, generation n/a", or "n/a". */
static const char *link_text(gd_value gen, gd_value width, char *buf, size_t len)
{
    if (gd_ok(gen) && gd_ok(width))
        snprintf(buf, len, "Gen%.0f x%.0f", gen.v, width.v);
    else if (gd_ok(gen))
        snprintf(buf, len, "Gen%.0f, width n/a", gen.v);
    else if (gd_ok(width))
        snprintf(buf, len, "x%.0f, generation n/a", width.v);
    else
        snprintf(buf, len, "n/a");
    return buf;
}

static void gpu_text(FILE *out, const gd_facts *f, size_t g, const gd_text_style *st)
{
    const gd_gpu *gpu = &f->gpus[g];
    char a[48], b[48], c[48], d[48], e[48], g1[48], g2[48], g3[48];
    fprintf(out, "\n%sGPU %d%s  %s  %s\n", gd_c(st, GD_ANSI_BOLD), gpu->index, gd_c(st, GD_ANSI_RESET),
            gpu->name[0] ? gd_safe(gpu->name) : "(no name)", gd_safe(gpu->pci_bus_id));
    if (gpu->lost) {
        fprintf(out, "  %sLOST%s        stopped answering at %.1f s (%s)\n", gd_c(st, GD_ANSI_RED),
                gd_c(st, GD_ANSI_RESET), gpu->lost_at_s, gd_safe(gpu->lost_call));
    }
    fprintf(out, "  Identity    %s, serial %s, VBIOS %s", gpu->uuid[0] ? gd_safe(gpu->uuid) : "no UUID",
            gpu->serial[0] ? gd_safe(gpu->serial) : "n/a", gpu->vbios[0] ? gd_safe(gpu->vbios) : "n/a");
    if (gd_ok(gpu->cc_major))
        fprintf(out, ", compute %d.%d", (int)gpu->cc_major.v, (int)gpu->cc_minor.v);
    fputc('\n', out);
    /* Each limit with what happens there (docs/checks.md, thermal). */
    fprintf(out,
            "  Temperature GPU %s, memory %s; limits: GPU %s max operating (software slowdown), %s hardware "
            "slowdown, %s shutdown; memory %s max operating (software slowdown)\n",
            vtext(last(f, g, GD_M_TEMP_C), "C", a, sizeof a), vtext(last(f, g, GD_M_MEM_TEMP_C), "C", b, sizeof b),
            vtext(gpu->temp_gpu_max_c, "C", e, sizeof e), vtext(gpu->temp_slowdown_c, "C", c, sizeof c),
            vtext(gpu->temp_shutdown_c, "C", d, sizeof d), vtext(gpu->temp_mem_max_c, "C", g1, sizeof g1));
    /* A requested limit the enforced one does not reach: something beyond the driver caps it. */
    char asked[64] = "";
    if (gd_ok(gpu->power_limit_requested_w) && gd_ok(gpu->power_limit_w) &&
        gpu->power_limit_requested_w.v != gpu->power_limit_w.v)
        snprintf(asked, sizeof asked, "requested %s, ", vtext(gpu->power_limit_requested_w, "W", e, sizeof e));
    fprintf(out, "  Power       %s of %s limit (%sdefault %s, range %s), fan %s\n",
            vtext(last(f, g, GD_M_POWER_W), "W", a, sizeof a), vtext(gpu->power_limit_w, "W", b, sizeof b), asked,
            vtext(gpu->power_limit_default_w, "W", c, sizeof c),
            pair_text(gpu->power_limit_min_w, gpu->power_limit_max_w, "-", "W", d, sizeof d),
            vtext(last(f, g, GD_M_FAN_PCT), "%", g1, sizeof g1));
    fprintf(out, "  Clocks      SM %s of %s max, memory %s of %s",
            vtext(last(f, g, GD_M_SM_CLOCK_MHZ), "MHz", a, sizeof a), vtext(gpu->clock_max_sm_mhz, "MHz", b, sizeof b),
            vtext(last(f, g, GD_M_MEM_CLOCK_MHZ), "MHz", c, sizeof c),
            vtext(gpu->clock_max_mem_mhz, "MHz", d, sizeof d));
    if (gd_ok(gpu->clock_app_sm_mhz) || gd_ok(gpu->clock_default_app_sm_mhz))
        fprintf(out, "; application %s (default %s)",
                pair_text(gpu->clock_app_sm_mhz, gpu->clock_app_mem_mhz, "/", "MHz", e, sizeof e),
                pair_text(gpu->clock_default_app_sm_mhz, gpu->clock_default_app_mem_mhz, "/", "MHz", g2, sizeof g2));
    (void)g1;
    (void)g3;
    fputc('\n', out);
    char reasons[256];
    reasons_text(last(f, g, GD_M_EVENT_REASONS), reasons, sizeof reasons);
    fprintf(out, "  Clock events %s\n", reasons);
    fprintf(out, "  Utilisation GPU %s, memory %s\n", vtext(last(f, g, GD_M_UTIL_GPU_PCT), "%", a, sizeof a),
            vtext(last(f, g, GD_M_UTIL_MEM_PCT), "%", b, sizeof b));
    fprintf(out, "  Memory      %s used of %s\n", vtext(last(f, g, GD_M_MEM_USED_MIB), "MiB", a, sizeof a),
            vtext(gpu->mem_total_mib, "MiB", b, sizeof b));
    gd_value gen = last(f, g, GD_M_PCIE_GEN), width = last(f, g, GD_M_PCIE_WIDTH);
    fprintf(out, "  PCIe        %s (max %s), replays %s\n", link_text(gen, width, a, sizeof a),
            link_text(gpu->pcie_gen_max, gpu->pcie_width_max, c, sizeof c),
            vtext(last(f, g, GD_M_PCIE_REPLAYS), "", e, sizeof e));
    (void)b;
    (void)d;
    fprintf(out, "  Config      persistence %s, compute mode %s, MIG %s, ECC %s\n", onoff(gpu->persistence_mode),
            compute_mode_name(gpu->compute_mode), onoff(gpu->mig_mode), onoff(gpu->ecc_enabled));
    fprintf(out, "  Health      uncorrectable ECC %s volatile / %s aggregate, retired pages %s%s, row remap %s%s\n",
            vtext(gpu->ecc_volatile_uncorrected, "", a, sizeof a),
            vtext(gpu->ecc_aggregate_uncorrected, "", b, sizeof b), vtext(gpu->retired_pages_dbe, "", c, sizeof c),
            gd_ok(gpu->retired_pages_pending) && gpu->retired_pages_pending.v != 0 ? " (retirement PENDING)" : "",
            !gd_ok(gpu->remap_pending)  ? "n/a"
            : gpu->remap_pending.v != 0 ? "PENDING"
                                        : "none pending",
            gd_ok(gpu->remap_failure) && gpu->remap_failure.v != 0 ? ", FAILED" : "");
    if (gd_ok(gpu->mig_mode) && gpu->mig_mode.v != 0 && gpu->nvlink_count) {
        /* NVML reports every NVLink of a MIG GPU as down: a count of them says nothing. */
        fprintf(out,
                "  NVLink      not reported in MIG mode (%zu links; NVML gives every link of a MIG GPU as "
                "down)\n",
                gpu->nvlink_count);
    } else if (gpu->nvlink_count) {
        size_t active = 0;
        for (size_t l = 0; l < gpu->nvlink_count; l++)
            active += gd_ok(gpu->nvlink[l].active) && gpu->nvlink[l].active.v != 0;
        fprintf(out, "  NVLink      %zu of %zu links active\n", active, gpu->nvlink_count);
    }
    if (!gd_ok(gpu->processes_status)) {
        fprintf(out, "  Processes   n/a (%s)\n", gd_status_name((gd_status)gpu->processes_status.status));
    } else if (gpu->process_count == 0) {
        fprintf(out, "  Processes   none\n");
    } else {
        for (size_t p = 0; p < gpu->process_count; p++)
            fprintf(out, "  %s %u %s%s%s, %s\n", p ? "           " : "Processes  ", gpu->processes[p].pid,
                    gpu->processes[p].name[0] ? gd_safe(gpu->processes[p].name) : "(name not visible)",
                    gpu->processes[p].user[0] ? " by " : "", gd_safe(gpu->processes[p].user),
                    vtext(gpu->processes[p].used_mib, "MiB", a, sizeof a));
    }
}

/* The MIG devices of the GPUs in MIG mode, as nvidia-smi's "MIG devices"
 * table: GPU, GPU instance, profile, memory used/total (MiB), UUID. */
static void mig_table(FILE *out, const gd_facts *f, const gd_text_style *st)
{
    bool any = false;
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (!gd_ok(gpu->mig_mode) || gpu->mig_mode.v == 0)
            continue;
        if (!any)
            fprintf(out, "\nMIG devices\n%sGPU  GI  Profile    Memory MiB    UUID%s\n", gd_c(st, GD_ANSI_DIM),
                    gd_c(st, GD_ANSI_RESET));
        any = true;
        if (gpu->mig_device_count == 0)
            fprintf(out, "%3d  none listed: no GPU instance created, or the driver did not list them\n", gpu->index);
        for (size_t m = 0; m < gpu->mig_device_count && m < GD_MAX_MIG_DEVICES; m++) {
            const gd_mig_device *d = &gpu->mig_devices[m];
            char used[24] = "-", total[24] = "-", mem[48];
            if (gd_ok(d->mem_used_mib))
                snprintf(used, sizeof used, "%.0f", d->mem_used_mib.v);
            if (gd_ok(d->mem_total_mib))
                snprintf(total, sizeof total, "%.0f", d->mem_total_mib.v);
            snprintf(mem, sizeof mem, "%s/%s", used, total);
            fprintf(out, "%3d %3u  %-10s %-13s %s\n", gpu->index, d->gpu_instance_id,
                    d->profile[0] ? gd_safe(d->profile) : "-", mem, d->uuid[0] ? gd_safe(d->uuid) : "-");
        }
    }
}

static bool info_text(FILE *out, const gd_facts *f, const gd_text_style *st);
static void info_text_details(FILE *out, const gd_facts *f, const gd_text_style *st);

/* Each GPU's processes on one line: "GPU 0: 41000 python 60500 MiB". */
static void process_lines(FILE *out, const gd_facts *f, const gd_text_style *st)
{
    bool any = false;
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (!gd_ok(gpu->processes_status) || gpu->process_count == 0)
            continue;
        char line[1024];
        size_t used = (size_t)snprintf(line, sizeof line, "GPU %d:", gpu->index);
        for (size_t p = 0; p < gpu->process_count && used < sizeof line; p++) {
            char mib[48];
            used +=
                (size_t)snprintf(line + used, sizeof line - used, "%s %u %s %s", p ? "," : "", gpu->processes[p].pid,
                                 gpu->processes[p].name[0] ? gd_safe(gpu->processes[p].name) : "(name not visible)",
                                 vtext(gpu->processes[p].used_mib, "MiB", mib, sizeof mib));
        }
        fprintf(out, "%s", any ? "            " : "\nProcesses   ");
        gd_wrap(out, st, 16, 12, line);
        any = true;
    }
}

void gd_info_text(FILE *out, const gd_facts *f, const gd_text_style *st, bool details)
{
    gd_wrapped w; /* every line wrapped to the width, hanging under its value */
    bool gpus = info_text(gd_wrapped_open(&w, out), f, st);
    gd_wrapped_close(&w, st);
    if (!gpus)
        return;
    fputc('\n', out);
    gd_gpu_table(out, f, 0, st);
    mig_table(out, f, st);
    process_lines(out, f, st);
    if (!details) {
        fprintf(out, "\n%s'gpudoctor info --details' adds each GPU's limits, configuration and health%s\n",
                gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET));
        return;
    }
    info_text_details(gd_wrapped_open(&w, out), f, st);
    gd_wrapped_close(&w, st);
}

static bool info_text(FILE *out, const gd_facts *f, const gd_text_style *st)
{
    fprintf(out, "%sgpudoctor %s%s", gd_c(st, GD_ANSI_BOLD), GD_VERSION, gd_c(st, GD_ANSI_RESET));
    if (f->simulated)
        fprintf(out, "  %sSIMULATION%s of %s", gd_c(st, GD_ANSI_YELLOW), gd_c(st, GD_ANSI_RESET),
                gd_safe(f->source + 4));
    fputc('\n', out);
    if (f->captured) { /* another machine, seen through files */
        fprintf(out, "Capture     %s (%s), host %s\n", gd_safe(f->source + 8), gd_safe(f->capture_formats),
                f->host.hostname[0] ? gd_safe(f->host.hostname) : "unknown");
    } else {
        fprintf(out, "Host        %s, kernel %s, ", f->host.hostname[0] ? gd_safe(f->host.hostname) : "unknown",
                f->host.kernel[0] ? gd_safe(f->host.kernel) : "unknown");
        if (f->host.cpus > 0)
            fprintf(out, "%d CPUs", f->host.cpus);
        else
            fputs("CPUs unknown", out);
        if (f->host.numa_nodes > 0)
            fprintf(out, ", %d NUMA node%s", f->host.numa_nodes, f->host.numa_nodes == 1 ? "" : "s");
        fputc('\n', out);
    }
    if (gd_facts_no_nvidia_gpu(f)) {
        fputs("Driver      none needed: no NVIDIA GPU on this machine (no NVIDIA display or 3D controller on its PCI "
              "bus)\n",
              out);
        return false;
    }
    if (!f->driver_loaded) {
        fprintf(out, "Driver      none: %s\n", gd_safe(f->driver_error));
        return false;
    }
    fprintf(out, "Driver      %s", f->driver_version[0] ? gd_safe(f->driver_version) : "unknown");
    if (gd_ok(f->cuda_driver_version))
        fprintf(out, ", supports CUDA up to %d.%d", (int)f->cuda_driver_version.v / 1000,
                ((int)f->cuda_driver_version.v % 1000) / 10);
    if (f->nvml_version[0])
        fprintf(out, ", NVML %s", gd_safe(f->nvml_version));
    fprintf(out, "\nGPUs        %zu\n", f->gpu_count);
    return f->gpu_count > 0;
}

static void info_text_details(FILE *out, const gd_facts *f, const gd_text_style *st)
{
    for (size_t g = 0; g < f->gpu_count; g++)
        gpu_text(out, f, g, st);
}

/* Static facts of a GPU as JSON: every field, null where not readable. */
static json_t *gpu_static_json(const gd_gpu *gpu)
{
    json_t *o = json_object();
    json_object_set_new(o, "index", json_integer(gpu->index));
    json_object_set_new(o, "name", gd_json_text(gpu->name));
    json_object_set_new(o, "uuid", gd_json_text(gpu->uuid));
    json_object_set_new(o, "pci_bus_id", gd_json_text(gpu->pci_bus_id));
    json_object_set_new(o, "serial", gpu->serial[0] ? json_string(gpu->serial) : json_null());
    json_object_set_new(o, "vbios", gpu->vbios[0] ? json_string(gpu->vbios) : json_null());
    json_t *cc = json_null();
    if (gd_ok(gpu->cc_major))
        cc = json_pack("[ii]", (int)gpu->cc_major.v, (int)gpu->cc_minor.v);
    json_object_set_new(o, "compute_capability", cc);
    static const struct {
        const char *key;
        size_t off;
    } fields[] = {
#define F(name) {#name, offsetof(gd_gpu, name)}
        F(mem_total_mib),
        F(power_limit_w),
        F(power_limit_requested_w),
        F(power_limit_default_w),
        F(power_limit_min_w),
        F(power_limit_max_w),
        F(clock_max_sm_mhz),
        F(clock_max_mem_mhz),
        F(clock_default_app_sm_mhz),
        F(clock_default_app_mem_mhz),
        F(clock_app_sm_mhz),
        F(clock_app_mem_mhz),
        F(temp_shutdown_c),
        F(temp_slowdown_c),
        F(temp_gpu_max_c),
        F(temp_mem_max_c),
        F(pcie_gen_max),
        F(pcie_width_max),
        F(pcie_gen_max_device),
        F(pcie_width_max_device),
        F(pcie_gen_max_host),
        F(persistence_mode),
        F(compute_mode),
        F(mig_mode),
        F(c2c_mode),
        F(ecc_enabled),
        F(ecc_volatile_uncorrected),
        F(ecc_aggregate_uncorrected),
        F(retired_pages_sbe),
        F(retired_pages_dbe),
        F(retired_pages_pending),
        F(remap_corr_rows),
        F(remap_unc_rows),
        F(remap_pending),
        F(remap_failure),
#undef F
    };
    json_t *deprecated = json_array(); /* the driver retired the call (NVML_ERROR_DEPRECATED) */
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        gd_value v;
        memcpy(&v, (const char *)gpu + fields[k].off, sizeof v);
        json_object_set_new(o, fields[k].key, gd_json_value(v));
        if (v.status == GD_ST_DEPRECATED)
            json_array_append_new(deprecated, json_string(fields[k].key));
    }
    if (json_array_size(deprecated))
        json_object_set_new(o, "deprecated", deprecated);
    else
        json_decref(deprecated);
    json_t *links = json_array();
    for (size_t l = 0; l < gpu->nvlink_count; l++)
        json_array_append_new(
            links, json_pack("{s:i,s:o,s:s}", "link", (int)gpu->nvlink[l].link, "active",
                             gd_ok(gpu->nvlink[l].active) ? json_boolean(gpu->nvlink[l].active.v != 0) : json_null(),
                             "remote_pci_bus_id", gpu->nvlink[l].remote_pci_bus_id));
    json_object_set_new(o, "nvlink", links);
    json_t *mig = json_array();
    for (size_t m = 0; m < gpu->mig_device_count && m < GD_MAX_MIG_DEVICES; m++) {
        const gd_mig_device *d = &gpu->mig_devices[m];
        json_array_append_new(mig, json_pack("{s:i,s:o,s:o,s:o,s:o}", "gpu_instance_id", (int)d->gpu_instance_id,
                                             "profile", gd_json_text(d->profile), "uuid", gd_json_text(d->uuid),
                                             "memory_total_mib", gd_json_value(d->mem_total_mib), "memory_used_mib",
                                             gd_json_value(d->mem_used_mib)));
    }
    json_object_set_new(o, "mig_devices", mig);
    json_t *procs = gd_ok(gpu->processes_status) ? json_array() : json_null();
    for (size_t p = 0; procs && p < gpu->process_count; p++)
        json_array_append_new(
            procs, json_pack("{s:i,s:s,s:o,s:o}", "pid", (int)gpu->processes[p].pid, "name", gpu->processes[p].name,
                             "user", gpu->processes[p].user[0] ? json_string(gpu->processes[p].user) : json_null(),
                             "used_mib", gd_json_value(gpu->processes[p].used_mib)));
    json_object_set_new(o, "processes", procs);
    json_object_set_new(o, "lost", json_boolean(gpu->lost));
    return o;
}

json_t *gd_info_json(const gd_facts *f)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema_version", json_integer(GD_JSON_SCHEMA_VERSION));
    json_object_set_new(root, "tool", json_pack("{s:s,s:s}", "name", "gpudoctor", "version", GD_VERSION));
    json_object_set_new(root, "source", json_string(f->source));
    json_object_set_new(root, "simulated", json_boolean(f->simulated));
    json_object_set_new(root, "captured", json_boolean(f->captured));
    json_object_set_new(root, "host", gd_report_host_json(f));
    json_t *drv = gd_report_driver_json(f);
    json_object_set_new(drv, "nvml_version", f->nvml_version[0] ? json_string(f->nvml_version) : json_null());
    json_object_set_new(root, "driver", drv);
    json_t *gpus = json_array();
    for (size_t g = 0; g < f->gpu_count; g++) {
        json_t *o = gpu_static_json(&f->gpus[g]);
        json_t *state = gd_report_gpu_state_json(f, g);
        const gd_series *s = &f->series;
        /* info shows every sampled metric, not just the report's subset. */
        for (int m = 0; m < GD_M_COUNT; m++) {
            if (m == GD_M_EVENT_REASONS)
                continue;
            gd_value v = s->n ? gd_series_at(s, s->n - 1, g, (gd_metric)m) : gd_missing(GD_ST_UNREAD);
            json_object_set_new(state, gd_metric_describe((gd_metric)m)->key, gd_json_value(v));
        }
        json_object_set_new(o, "state", state);
        json_array_append_new(gpus, o);
    }
    json_object_set_new(root, "gpus", gpus);
    return root;
}
