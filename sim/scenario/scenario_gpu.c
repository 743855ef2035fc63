/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing of one entry of "gpus": static facts, lists, and the timeline. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"

#define U32 ((long long)UINT32_MAX)

static bool parse_clocks(gd_parser *p, json_t *gpu, const char *key, const char *at, gd_scenario_clocks *out)
{
    json_t *obj;
    char path[GD_SCENARIO_PATH_MAX];
    if (!gdp_object(p, gpu, key, at, &obj))
        return false;
    if (!obj)
        return true;
    gdp_key(path, at, key);
    return gdp_int(p, obj, "sm", path, 0, U32, &out->sm) && gdp_int(p, obj, "mem", path, 0, U32, &out->mem);
}

static bool parse_bus_id(gd_parser *p, json_t *obj, const char *key, const char *at, char **out)
{
    char path[GD_SCENARIO_PATH_MAX];
    if (!gdp_string(p, obj, key, at, out))
        return false;
    gdp_key(path, at, key);
    if (*out && !gd_scenario_parse_bus_id(*out, NULL, NULL, NULL, NULL))
        return gdp_fail(p, path, "expected a PCI bus id like \"00000000:1B:00.0\", got \"%s\"", *out);
    return true;
}

static bool parse_compute_capability(gd_parser *p, json_t *gpu, const char *at, gd_scenario_gpu *g)
{
    json_t *cc;
    char path[GD_SCENARIO_PATH_MAX];
    if (!gdp_array(p, gpu, "compute_capability", at, &cc))
        return false;
    if (!cc)
        return true;
    gdp_key(path, at, "compute_capability");
    if (json_array_size(cc) != 2)
        return gdp_fail(p, path, "expected [major, minor], got %zu elements", json_array_size(cc));
    for (int i = 0; i < 2; i++) {
        json_t *v = json_array_get(cc, (size_t)i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 99) {
            char sub[GD_SCENARIO_PATH_MAX];
            gdp_index(sub, path, (size_t)i);
            return gdp_fail(p, sub, "expected an integer between 0 and 99");
        }
        g->compute_capability[i] = (int)json_integer_value(v);
    }
    g->has_compute_capability = true;
    return true;
}

static bool parse_compute_mode(gd_parser *p, json_t *gpu, const char *at, gd_scenario_gpu *g)
{
    static const char *const names[] = {"default", "exclusive_thread", "prohibited", "exclusive_process"};
    char *mode;
    char path[GD_SCENARIO_PATH_MAX];
    if (!gdp_string(p, gpu, "compute_mode", at, &mode))
        return false;
    if (!mode)
        return true;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(mode, names[i]) == 0) {
            g->has_compute_mode = true;
            g->compute_mode = (gd_scenario_compute_mode)i;
            free(mode);
            return true;
        }
    }
    gdp_key(path, at, "compute_mode");
    gdp_fail(p, path, "unknown compute mode \"%s\" (known: default, exclusive_thread, prohibited, exclusive_process)",
             mode);
    free(mode);
    return false;
}

static bool parse_ecc(gd_parser *p, json_t *gpu, const char *at, gd_scenario_gpu *g)
{
    json_t *ecc;
    char path[GD_SCENARIO_PATH_MAX];
    if (!gdp_object(p, gpu, "ecc", at, &ecc))
        return false;
    if (!ecc)
        return true;
    gdp_key(path, at, "ecc");
    return gdp_flag(p, ecc, "enabled", path, &g->ecc.enabled) &&
           gdp_int(p, ecc, "volatile_uncorrected", path, 0, LLONG_MAX, &g->ecc.volatile_uncorrected) &&
           gdp_int(p, ecc, "aggregate_uncorrected", path, 0, LLONG_MAX, &g->ecc.aggregate_uncorrected) &&
           gdp_int(p, ecc, "retired_pages", path, 0, 4096, &g->ecc.retired_pages) &&
           gdp_flag(p, ecc, "retired_pages_pending", path, &g->ecc.retired_pages_pending) &&
           gdp_flag(p, ecc, "remapped_rows_pending", path, &g->ecc.remapped_rows_pending) &&
           gdp_flag(p, ecc, "remap_failure", path, &g->ecc.remap_failure);
}

/*
 * Starts an optional list of objects under `key`: *arr is NULL when the key
 * is missing; otherwise every element is checked to be an object, room for
 * them is allocated in *items, and `path` names the list.
 */
static bool list_start(gd_parser *p, json_t *gpu, const char *key, const char *at, size_t size, json_t **arr,
                       void **items, char *path)
{
    if (!gdp_array(p, gpu, key, at, arr))
        return false;
    if (!*arr)
        return true;
    gdp_key(path, at, key);
    size_t n = json_array_size(*arr);
    for (size_t i = 0; i < n; i++) {
        if (!json_is_object(json_array_get(*arr, i))) {
            char sub[GD_SCENARIO_PATH_MAX];
            gdp_index(sub, path, i);
            return gdp_fail(p, sub, "expected an object");
        }
    }
    *items = n ? calloc(n, size) : NULL;
    if (n && !*items)
        return gdp_fail(p, path, "out of memory");
    return true;
}

static bool parse_nvlink(gd_parser *p, json_t *gpu, const char *at, gd_scenario_gpu *g)
{
    json_t *arr;
    char path[GD_SCENARIO_PATH_MAX];
    if (!list_start(p, gpu, "nvlink", at, sizeof *g->nvlink, &arr, (void **)&g->nvlink, path))
        return false;
    g->has_nvlink = arr != NULL;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *obj = json_array_get(arr, i);
        gd_scenario_nvlink *l = &g->nvlink[i];
        char sub[GD_SCENARIO_PATH_MAX];
        gd_scenario_int link;
        gdp_index(sub, path, i);
        g->nvlink_count = i + 1;
        json_t *counters;
        char counters_at[GD_SCENARIO_PATH_MAX];
        gdp_key(counters_at, sub, "error_counters");
        if (!gdp_int(p, obj, "link", sub, 0, 35, &link) || !gdp_flag(p, obj, "active", sub, &l->active) ||
            !parse_bus_id(p, obj, "remote_pci_bus_id", sub, &l->remote_pci_bus_id) ||
            !gdp_num(p, obj, "data_tx_kibps", sub, 0, 1e12, &l->data_tx_kibps) ||
            !gdp_num(p, obj, "data_rx_kibps", sub, 0, 1e12, &l->data_rx_kibps) ||
            !gdp_int(p, obj, "version", sub, 1, 99, &l->version) ||
            !gdp_object(p, obj, "error_counters", sub, &counters))
            return false;
        for (int c = 0; counters && c < GD_SCENARIO_NVLINK_COUNTERS; c++)
            if (!gdp_int(p, counters, gd_scenario_nvlink_counter_names[c], counters_at, 0, 1LL << 50, &l->errors[c]))
                return false;
        if (!link.present)
            return gdp_fail(p, sub, "missing \"link\" (the link index)");
        l->link = (unsigned)link.value;
        for (size_t j = 0; j < i; j++)
            if (g->nvlink[j].link == l->link)
                return gdp_fail(p, sub, "link %u is listed twice", l->link);
    }
    return true;
}

static bool parse_mig(gd_parser *p, json_t *gpu, const char *at, gd_scenario_gpu *g)
{
    json_t *arr;
    char path[GD_SCENARIO_PATH_MAX];
    if (!list_start(p, gpu, "mig_devices", at, sizeof *g->mig, &arr, (void **)&g->mig, path))
        return false;
    if (json_array_size(arr) > GD_SCENARIO_MAX_MIG)
        return gdp_fail(p, path, "at most %d MIG devices per GPU", GD_SCENARIO_MAX_MIG);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *obj = json_array_get(arr, i);
        gd_scenario_mig *m = &g->mig[i];
        char sub[GD_SCENARIO_PATH_MAX];
        gd_scenario_int gi, ci;
        gdp_index(sub, path, i);
        g->mig_count = i + 1;
        if (!gdp_int(p, obj, "gpu_instance_id", sub, 0, 64, &gi) ||
            !gdp_int(p, obj, "compute_instance_id", sub, 0, 64, &ci) ||
            !gdp_string(p, obj, "profile", sub, &m->profile) || !gdp_string(p, obj, "uuid", sub, &m->uuid) ||
            !gdp_int(p, obj, "memory_total_mib", sub, 0, U32, &m->memory_total_mib) ||
            !gdp_int(p, obj, "memory_used_mib", sub, 0, U32, &m->memory_used_mib))
            return false;
        if (!gi.present)
            return gdp_fail(p, sub, "missing \"gpu_instance_id\"");
        m->gpu_instance_id = (unsigned)gi.value;
        m->compute_instance_id = ci.present ? (unsigned)ci.value : 0;
        for (size_t j = 0; j < i; j++)
            if (g->mig[j].gpu_instance_id == m->gpu_instance_id && g->mig[j].compute_instance_id == m->compute_instance_id)
                return gdp_fail(p, sub, "GPU instance %u, compute instance %u is listed twice", m->gpu_instance_id,
                                m->compute_instance_id);
    }
    return true;
}

static bool parse_processes(gd_parser *p, json_t *gpu, const char *at, gd_scenario_gpu *g)
{
    json_t *arr;
    char path[GD_SCENARIO_PATH_MAX];
    if (!list_start(p, gpu, "processes", at, sizeof *g->processes, &arr, (void **)&g->processes, path))
        return false;
    g->has_processes = arr != NULL;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *obj = json_array_get(arr, i);
        gd_scenario_process *pr = &g->processes[i];
        char sub[GD_SCENARIO_PATH_MAX];
        gd_scenario_int pid;
        gdp_index(sub, path, i);
        g->process_count = i + 1;
        if (!gdp_int(p, obj, "pid", sub, 0, U32, &pid) || !gdp_string(p, obj, "name", sub, &pr->name) ||
            !gdp_int(p, obj, "used_mib", sub, 0, U32, &pr->used_mib))
            return false;
        if (!pid.present)
            return gdp_fail(p, sub, "missing \"pid\"");
        pr->pid = (unsigned)pid.value;
    }
    return true;
}

static bool parse_reasons(gd_parser *p, json_t *pt, const char *at, gd_scenario_point *out)
{
    char path[GD_SCENARIO_PATH_MAX];
    json_t *arr = json_object_get(pt, "event_reasons");
    gdp_key(path, at, "event_reasons");
    if (!arr)
        return true;
    out->written |= 1u << GD_SCENARIO_FIELD_COUNT;
    if (json_is_null(arr)) {
        out->reasons_status = GD_SCENARIO_NULL;
        return true;
    }
    if (!json_is_array(arr))
        return gdp_fail(p, path, "expected an array of reason names");
    out->reasons_status = GD_SCENARIO_SET;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *v = json_array_get(arr, i);
        char sub[GD_SCENARIO_PATH_MAX];
        gdp_index(sub, path, i);
        unsigned long long bit = json_is_string(v) ? gd_scenario_reason_bit(json_string_value(v)) : 0;
        if (!json_is_string(v))
            return gdp_fail(p, sub, "expected a reason name (a string)");
        if (!bit) {
            char known[512];
            gd_scenario_reason_names(known, sizeof known);
            return gdp_fail(p, sub, "unknown reason \"%s\" (known: %s)", json_string_value(v), known);
        }
        out->event_reasons |= bit;
    }
    return true;
}

static bool parse_point(gd_parser *p, json_t *pt, const char *at, gd_scenario_point *out)
{
    char path[GD_SCENARIO_PATH_MAX];
    json_t *t = json_object_get(pt, "t");
    gdp_key(path, at, "t");
    if (!t)
        return gdp_fail(p, at, "missing \"t\" (scenario seconds)");
    if (!json_is_number(t))
        return gdp_fail(p, path, "expected a number");
    out->t = json_number_value(t);
    if (!(out->t >= 0))
        return gdp_fail(p, path, "must be >= 0 (got %g)", out->t);
    for (int f = 0; f < GD_SCENARIO_FIELD_COUNT; f++) {
        const char *name = gd_scenario_field_name((gd_scenario_field)f);
        json_t *v = json_object_get(pt, name);
        if (!v)
            continue;
        gdp_key(path, at, name);
        out->written |= 1u << f;
        if (json_is_null(v)) {
            out->field[f].status = GD_SCENARIO_NULL;
            continue;
        }
        if (!json_is_number(v))
            return gdp_fail(p, path, "expected a number or null");
        double x = json_number_value(v), max = gd_scenario_field_max((gd_scenario_field)f);
        if (!(x >= 0 && x <= max))
            return gdp_fail(p, path, "must be between 0 and %g (got %g)", max, x);
        out->field[f] = (gd_scenario_value){GD_SCENARIO_SET, x};
    }
    return parse_reasons(p, pt, at, out);
}

/* Step-holds every field: forward from each written point, backward before its first one. */
static void resolve_timeline(gd_scenario_gpu *g)
{
    size_t n = g->point_count;
    for (int f = 0; f <= GD_SCENARIO_FIELD_COUNT; f++) {
        size_t first = 0;
        while (first < n && !(g->points[first].written & (1u << f)))
            first++;
        if (first == n)
            continue; /* absent from the whole GPU */
        for (size_t i = 0; i < n; i++) {
            gd_scenario_point *pt = &g->points[i];
            const gd_scenario_point *from = i <= first ? &g->points[first] : &g->points[i - 1];
            if (i != first && (i < first || !(pt->written & (1u << f)))) {
                if (f == GD_SCENARIO_FIELD_COUNT) {
                    pt->reasons_status = from->reasons_status;
                    pt->event_reasons = from->event_reasons;
                } else {
                    pt->field[f] = from->field[f];
                }
            }
        }
    }
}

static bool parse_timeline(gd_parser *p, json_t *gpu, const char *at, gd_scenario_gpu *g)
{
    json_t *arr = json_object_get(gpu, "timeline");
    char path[GD_SCENARIO_PATH_MAX];
    gdp_key(path, at, "timeline");
    if (json_is_array(arr) && json_array_size(arr) > GD_SCENARIO_MAX_POINTS)
        return gdp_fail(p, path, "%zu points, more than the limit of %d", json_array_size(arr), GD_SCENARIO_MAX_POINTS);
    if (!list_start(p, gpu, "timeline", at, sizeof *g->points, &arr, (void **)&g->points, path))
        return false;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *obj = json_array_get(arr, i);
        char sub[GD_SCENARIO_PATH_MAX];
        gdp_index(sub, path, i);
        g->point_count = i + 1;
        if (!parse_point(p, obj, sub, &g->points[i]))
            return false;
        if (i > 0 && !(g->points[i].t > g->points[i - 1].t))
            return gdp_fail(p, path, "t values must increase (%g after %g)", g->points[i].t, g->points[i - 1].t);
        if (!gdp_errors(p, obj, sub, false, g->points[i].t, &g->errors))
            return false;
    }
    resolve_timeline(g);
    return true;
}

static bool parse_group(gd_parser *p, json_t *gpu, const char *key, const char *at, size_t count,
                        const char *const *names, gd_scenario_num *const *nums)
{
    json_t *obj;
    char path[GD_SCENARIO_PATH_MAX];
    if (!gdp_object(p, gpu, key, at, &obj))
        return false;
    if (!obj)
        return true;
    gdp_key(path, at, key);
    for (size_t i = 0; i < count; i++)
        if (!gdp_num(p, obj, names[i], path, 0, 1e9, nums[i]))
            return false;
    return true;
}

static bool parse_static(gd_parser *p, json_t *gpu, const char *at, gd_scenario_gpu *g)
{
    const double max_w = UINT32_MAX / 1000.0;
    json_t *obj;
    char path[GD_SCENARIO_PATH_MAX];
    if (!gdp_string(p, gpu, "name", at, &g->name) || !gdp_string(p, gpu, "uuid", at, &g->uuid) ||
        !parse_bus_id(p, gpu, "pci_bus_id", at, &g->pci_bus_id) || !gdp_string(p, gpu, "serial", at, &g->serial) ||
        !gdp_string(p, gpu, "vbios_version", at, &g->vbios_version) || !parse_compute_capability(p, gpu, at, g) ||
        !gdp_int(p, gpu, "memory_total_mib", at, 0, U32, &g->memory_total_mib) ||
        !gdp_num(p, gpu, "power_limit_w", at, 0, max_w, &g->power_limit_w) ||
        !gdp_num(p, gpu, "power_limit_requested_w", at, 0, max_w, &g->power_limit_requested_w) ||
        !gdp_num(p, gpu, "power_limit_default_w", at, 0, max_w, &g->power_limit_default_w) ||
        !gdp_num(p, gpu, "power_limit_min_w", at, 0, max_w, &g->power_limit_min_w) ||
        !gdp_num(p, gpu, "power_limit_max_w", at, 0, max_w, &g->power_limit_max_w) ||
        !parse_clocks(p, gpu, "clocks_max_mhz", at, &g->clocks_max_mhz) ||
        !parse_clocks(p, gpu, "clocks_default_app_mhz", at, &g->clocks_default_app_mhz) ||
        !parse_clocks(p, gpu, "clocks_app_mhz", at, &g->clocks_app_mhz))
        return false;

    if (!gdp_object(p, gpu, "temperature_thresholds_c", at, &obj))
        return false;
    gdp_key(path, at, "temperature_thresholds_c");
    if (obj && !(gdp_int(p, obj, "shutdown", path, 0, 1000, &g->temperature_thresholds_c.shutdown) &&
                 gdp_int(p, obj, "slowdown", path, 0, 1000, &g->temperature_thresholds_c.slowdown) &&
                 gdp_int(p, obj, "gpu_max", path, 0, 1000, &g->temperature_thresholds_c.gpu_max) &&
                 gdp_int(p, obj, "mem_max", path, 0, 1000, &g->temperature_thresholds_c.mem_max)))
        return false;
    if (!gdp_int(p, gpu, "temperature_limit_c", at, 0, 1000, &g->temperature_limit_c) ||
        !gdp_object(p, gpu, "temperature_tlimit_c", at, &obj))
        return false;
    gdp_key(path, at, "temperature_tlimit_c");
    if (obj && !(gdp_int(p, obj, "shutdown", path, -200, 200, &g->temperature_tlimit_c.shutdown) &&
                 gdp_int(p, obj, "slowdown", path, -200, 200, &g->temperature_tlimit_c.slowdown) &&
                 gdp_int(p, obj, "gpu_max", path, -200, 200, &g->temperature_tlimit_c.gpu_max) &&
                 gdp_int(p, obj, "mem_max", path, -200, 200, &g->temperature_tlimit_c.mem_max)))
        return false;
    if (!gdp_object(p, gpu, "pcie_max", at, &obj))
        return false;
    gdp_key(path, at, "pcie_max");
    if (obj && !(gdp_int(p, obj, "gen", path, 0, 64, &g->pcie_max.gen) &&
                 gdp_int(p, obj, "width", path, 0, 64, &g->pcie_max.width) &&
                 gdp_int(p, obj, "host_gen", path, 0, 64, &g->pcie_max.host_gen) &&
                 gdp_int(p, obj, "host_width", path, 0, 64, &g->pcie_max.host_width)))
        return false;

    static const char *const bw[] = {"h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable", "d2d"};
    static const char *const tf[] = {"bf16", "fp16", "fp32", "tf32", "fp8"};
    gd_scenario_num *const bwv[] = {&g->bandwidth_gbps.h2d_pinned, &g->bandwidth_gbps.d2h_pinned,
                                    &g->bandwidth_gbps.h2d_pageable, &g->bandwidth_gbps.d2h_pageable,
                                    &g->bandwidth_gbps.d2d};
    gd_scenario_num *const tfv[] = {&g->gemm_tflops.bf16, &g->gemm_tflops.fp16, &g->gemm_tflops.fp32,
                                    &g->gemm_tflops.tf32, &g->gemm_tflops.fp8};
    json_t *faults;
    char fpath[GD_SCENARIO_PATH_MAX];
    if (!gdp_object(p, gpu, "faults", at, &faults))
        return false;
    gdp_key(fpath, at, "faults");
    if (faults && !(gdp_flag(p, faults, "kernel_load", fpath, &g->faults.kernel_load) &&
                    gdp_flag(p, faults, "gemm_wrong_results", fpath, &g->faults.gemm_wrong_results) &&
                    gdp_flag(p, faults, "nccl_wrong_results", fpath, &g->faults.nccl_wrong_results) &&
                    gdp_flag(p, faults, "nccl_process_exit", fpath, &g->faults.nccl_process_exit)))
        return false;
    return gdp_flag(p, gpu, "persistence_mode", at, &g->persistence_mode) && parse_compute_mode(p, gpu, at, g) &&
           gdp_flag(p, gpu, "mig_mode", at, &g->mig_mode) && parse_ecc(p, gpu, at, g) &&
           parse_group(p, gpu, "bandwidth_gbps", at, 5, bw, bwv) && parse_group(p, gpu, "gemm_tflops", at, 5, tf, tfv);
}

/* "fabric": {"state": "not_started" | "in_progress" | "completed", "status": N}. */
static bool parse_fabric(gd_parser *p, json_t *gpu, const char *at, gd_scenario_gpu *g)
{
    static const char *const states[] = {"not_started", "in_progress", "completed"};
    json_t *fabric;
    char path[GD_SCENARIO_PATH_MAX];
    if (!gdp_object(p, gpu, "fabric", at, &fabric))
        return false;
    if (!fabric)
        return true;
    gdp_key(path, at, "fabric");
    char *state = NULL;
    if (!gdp_string(p, fabric, "state", path, &state) ||
        !gdp_int(p, fabric, "status", path, 0, 999, &g->fabric_status))
        return free(state), false;
    if (!state)
        return gdp_fail(p, path, "missing \"state\" (\"not_started\", \"in_progress\" or \"completed\")");
    for (unsigned i = 0; i < sizeof states / sizeof states[0]; i++)
        if (strcmp(state, states[i]) == 0)
            g->fabric_state = i + 1; /* NVML_GPU_FABRIC_STATE_NOT_STARTED is 1 */
    if (!g->fabric_state)
        gdp_fail(p, path, "\"state\": \"%s\" is none of \"not_started\", \"in_progress\", \"completed\"", state);
    free(state);
    g->has_fabric = g->fabric_state != 0;
    return g->has_fabric;
}

const char *const gd_scenario_p2p_status_names[GD_SCENARIO_P2P_STATUSES] = {
    "ok", "chipset_not_supported", "gpu_not_supported", "ioh_topology_not_supported", "disabled_by_regkey",
    "not_supported", "unknown"};

/* "p2p": {"supported": bool, "status": NAME, "gbps": N, "peers": {"BUS ID": N}}. */
static bool parse_p2p(gd_parser *p, json_t *gpu, const char *at, gd_scenario_gpu *g)
{
    json_t *obj, *peers;
    char path[GD_SCENARIO_PATH_MAX], ppath[GD_SCENARIO_PATH_MAX];
    g->p2p.status = -1;
    if (!gdp_int(p, gpu, "nvlink_speed_mbps", at, 1, 10000000, &g->nvlink_speed_mbps) ||
        !gdp_object(p, gpu, "p2p", at, &obj))
        return false;
    if (!obj)
        return true;
    gdp_key(path, at, "p2p");
    char *status = NULL;
    if (!gdp_flag(p, obj, "supported", path, &g->p2p.supported) ||
        !gdp_num(p, obj, "gbps", path, 0.001, 100000, &g->p2p.gbps) || !gdp_string(p, obj, "status", path, &status) ||
        !gdp_object(p, obj, "peers", path, &peers))
        return free(status), false;
    if (status) {
        for (int i = 0; i < GD_SCENARIO_P2P_STATUSES; i++)
            if (strcmp(status, gd_scenario_p2p_status_names[i]) == 0)
                g->p2p.status = i;
        if (g->p2p.status < 0) {
            gdp_fail(p, path, "\"status\": \"%s\" is no P2P status (\"ok\", \"chipset_not_supported\", "
                     "\"gpu_not_supported\", \"ioh_topology_not_supported\", \"disabled_by_regkey\", "
                     "\"not_supported\", \"unknown\")", status);
            return free(status), false;
        }
        free(status);
    }
    if (!peers)
        return true;
    gdp_key(ppath, path, "peers");
    size_t n = json_object_size(peers);
    g->p2p.peers = calloc(n ? n : 1, sizeof *g->p2p.peers);
    if (!g->p2p.peers)
        return gdp_fail(p, ppath, "out of memory");
    const char *key;
    json_t *v;
    json_object_foreach(peers, key, v)
    {
        unsigned d, b, dev, fn;
        if (!gd_scenario_parse_bus_id(key, &d, &b, &dev, &fn))
            return gdp_fail(p, ppath, "\"%s\" is no PCI bus id (\"00000000:41:00.0\")", key);
        if (!json_is_number(v) || !(json_number_value(v) > 0) || json_number_value(v) > 100000)
            return gdp_fail(p, ppath, "\"%s\": expected a rate in GB/s, over 0", key);
        struct gd_scenario_p2p_peer *x = &g->p2p.peers[g->p2p.peer_count];
        if (!(x->bus_id = strdup(key)))
            return gdp_fail(p, ppath, "out of memory");
        x->gbps = json_number_value(v);
        g->p2p.peer_count++;
    }
    return true;
}

bool gdp_gpu(gd_parser *p, json_t *obj, const char *at, gd_scenario_gpu *g)
{
    return parse_static(p, obj, at, g) && parse_nvlink(p, obj, at, g) && parse_fabric(p, obj, at, g) &&
           parse_p2p(p, obj, at, g) &&
           parse_mig(p, obj, at, g) && parse_processes(p, obj, at, g) &&
           gdp_errors(p, obj, at, true, 0, &g->errors) && parse_timeline(p, obj, at, g) && gdp_events(p, obj, at, g);
}

void gdp_gpu_free(gd_scenario_gpu *g)
{
    free(g->name);
    free(g->uuid);
    free(g->pci_bus_id);
    free(g->serial);
    free(g->vbios_version);
    for (size_t i = 0; i < g->nvlink_count; i++)
        free(g->nvlink[i].remote_pci_bus_id);
    free(g->nvlink);
    for (size_t i = 0; i < g->p2p.peer_count; i++)
        free(g->p2p.peers[i].bus_id);
    free(g->p2p.peers);
    for (size_t i = 0; i < g->mig_count; i++) {
        free(g->mig[i].profile);
        free(g->mig[i].uuid);
    }
    free(g->mig);
    for (size_t i = 0; i < g->process_count; i++)
        free(g->processes[i].name);
    free(g->processes);
    gdp_errors_free(&g->errors);
    free(g->points);
    free(g->events);
}
