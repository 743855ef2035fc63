/* SPDX-License-Identifier: Apache-2.0 */
/* Evidence sources: what a live run reads, or where a capture held it (source.h). */
#include "source.h"

#include "gpudoctor/pcie.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define READING(member) (int)((offsetof(gd_gpu, member) - offsetof(gd_gpu, cc_major)) / sizeof(gd_value))
#define METRIC(m) (-1 - (int)(m))
#define END 0x7fff

/* NVML call -> the readings it gives (static ones by their place from
 * cc_major, metrics as METRIC(m)), END-terminated. A call named with an
 * argument ("nvmlDeviceGetClockInfo(SM)") is looked up whole, then by name. */
static const struct {
    const char *call;
    int readings[6];
} calls[] = {
    {"nvmlDeviceGetTemperature", {METRIC(GD_M_TEMP_C), END}},
    {"nvmlDeviceGetFieldValues(MEMORY_TEMP)", {METRIC(GD_M_MEM_TEMP_C), END}},
    {"nvmlDeviceGetTemperatureThreshold",
     {READING(temp_slowdown_c), READING(temp_gpu_max_c), READING(temp_shutdown_c), READING(temp_mem_max_c), END}},
    {"nvmlDeviceGetClockInfo(SM)", {METRIC(GD_M_SM_CLOCK_MHZ), END}},
    {"nvmlDeviceGetClockInfo", {METRIC(GD_M_SM_CLOCK_MHZ), METRIC(GD_M_MEM_CLOCK_MHZ), END}},
    {"nvmlDeviceGetMaxClockInfo", {READING(clock_max_sm_mhz), READING(clock_max_mem_mhz), END}},
    {"nvmlDeviceGetApplicationsClock", {READING(clock_app_sm_mhz), READING(clock_app_mem_mhz), END}},
    {"nvmlDeviceGetDefaultApplicationsClock",
     {READING(clock_default_app_sm_mhz), READING(clock_default_app_mem_mhz), END}},
    {"nvmlDeviceGetCurrentClocksEventReasons", {METRIC(GD_M_EVENT_REASONS), END}},
    {"nvmlDeviceGetViolationStatus(POWER)", {METRIC(GD_M_VIOL_POWER_NS), END}},
    {"nvmlDeviceGetViolationStatus(THERMAL)", {METRIC(GD_M_VIOL_THERMAL_NS), END}},
    {"nvmlDeviceGetFieldValues(CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN)", {METRIC(GD_M_VIOL_POWER_BRAKE_NS), END}},
    {"nvmlDeviceGetPowerUsage", {METRIC(GD_M_POWER_W), END}},
    {"nvmlDeviceGetEnforcedPowerLimit", {READING(power_limit_w), END}},
    {"nvmlDeviceGetPowerManagementLimit", {READING(power_limit_requested_w), END}},
    {"nvmlDeviceGetPowerManagementDefaultLimit", {READING(power_limit_default_w), END}},
    {"nvmlDeviceGetPowerManagementLimitConstraints", {READING(power_limit_min_w), READING(power_limit_max_w), END}},
    {"nvmlDeviceGetMemoryInfo", {METRIC(GD_M_MEM_USED_MIB), READING(mem_total_mib), END}},
    {"nvmlDeviceGetUtilizationRates", {METRIC(GD_M_UTIL_GPU_PCT), METRIC(GD_M_UTIL_MEM_PCT), END}},
    {"nvmlDeviceGetTotalEccErrors", {READING(ecc_volatile_uncorrected), READING(ecc_aggregate_uncorrected), END}},
    {"nvmlDeviceGetEccMode", {READING(ecc_enabled), END}},
    {"nvmlDeviceGetRemappedRows",
     {READING(remap_pending), READING(remap_failure), READING(remap_unc_rows), READING(remap_corr_rows), END}},
    {"nvmlDeviceGetRetiredPages", {READING(retired_pages_dbe), READING(retired_pages_sbe), END}},
    {"nvmlDeviceGetRetiredPagesPendingStatus", {READING(retired_pages_pending), END}},
    {"nvmlDeviceGetPcieReplayCounter", {METRIC(GD_M_PCIE_REPLAYS), END}},
    {"nvmlDeviceGetCurrPcieLinkGeneration", {METRIC(GD_M_PCIE_GEN), END}},
    {"nvmlDeviceGetCurrPcieLinkWidth", {METRIC(GD_M_PCIE_WIDTH), END}},
    {"nvmlDeviceGetMaxPcieLinkGeneration", {READING(pcie_gen_max), END}},
    {"nvmlDeviceGetGpuMaxPcieLinkGeneration", {READING(pcie_gen_max), END}},
    {"nvmlDeviceGetMaxPcieLinkWidth", {READING(pcie_width_max), END}},
    {"nvmlDeviceGetPcieThroughput", {METRIC(GD_M_PCIE_TX_KBPS), METRIC(GD_M_PCIE_RX_KBPS), END}},
    {"nvmlDeviceGetFanSpeed", {METRIC(GD_M_FAN_PCT), END}},
    {"nvmlDeviceGetPerformanceState", {METRIC(GD_M_PSTATE), END}},
    {"nvmlDeviceGetPersistenceMode", {READING(persistence_mode), END}},
    {"nvmlDeviceGetComputeMode", {READING(compute_mode), END}},
    {"nvmlDeviceGetMigMode", {READING(mig_mode), END}},
};

static const int *readings_of(const char *call, size_t n)
{
    const char *paren = memchr(call, '(', n);
    size_t name = paren ? (size_t)(paren - call) : n;
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        if (strlen(calls[i].call) == n && strncmp(calls[i].call, call, n) == 0)
            return calls[i].readings;
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        if (strlen(calls[i].call) == name && strncmp(calls[i].call, call, name) == 0)
            return calls[i].readings;
    return NULL;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The cited keys, grouped by file in the order first cited. */
typedef struct cites {
    const char *file[8];
    char keys[8][512];
    size_t n;
} cites;

static void cite(cites *c, const char *file, const char *key)
{
    size_t k = 0;
    while (k < c->n && strcmp(c->file[k], file) != 0)
        k++;
    if (k == c->n) {
        if (c->n == sizeof c->file / sizeof c->file[0])
            return;
        c->file[c->n] = file;
        c->keys[c->n++][0] = '\0';
    }
    char want[160];
    snprintf(want, sizeof want, "<%s>", key);
    if (strstr(c->keys[k], want))
        return;
    size_t used = strlen(c->keys[k]);
    snprintf(c->keys[k] + used, sizeof c->keys[k] - used, "%s%s", used ? "," : "", want);
}

static void cite_origin(cites *c, const gd_facts *f, gd_origin o)
{
    if (o.key && o.file < f->capture_file_count)
        cite(c, base_name(f->capture_files[o.file]), o.key);
}

static void cite_calls(cites *c, const gd_facts *f, size_t g, const char *list, size_t len)
{
    const gd_gpu *gpu = g < f->gpu_count ? &f->gpus[g] : NULL;
    for (size_t i = 0; gpu && i < len;) {
        size_t n = 0;
        while (i + n < len && list[i + n] != ',')
            n++;
        const int *r = readings_of(list + i, n);
        for (size_t k = 0; r && r[k] != END; k++) {
            if (r[k] < 0)
                cite_origin(c, f, gpu->metric_origin[-1 - r[k]]);
            else if (r[k] < GD_GPU_READINGS)
                cite_origin(c, f, gpu->origin[r[k]]);
        }
        i += n + 1;
    }
}

/* The lspci file of f->pcie->source ("lspci:PATH, topo:PATH"), or NULL. */
static const char *lspci_file(const gd_facts *f, char *buf, size_t len)
{
    const char *p = f->pcie ? strstr(f->pcie->source, "lspci:") : NULL;
    if (!p)
        return NULL;
    p += 6;
    size_t n = strcspn(p, ",");
    snprintf(buf, len, "%.*s", (int)n, p);
    return base_name(buf);
}

/* Appends n bytes of part to buf, after sep when buf holds something. */
static void append(char *buf, size_t len, const char *sep, const char *part, size_t n)
{
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%.*s", used ? sep : "", (int)n, part);
}

/* "lspci:PATH, topo:PATH" (f->pcie->source) -> "capture:BASE,BASE". */
static void pcie_capture_files(const char *src, char *buf, size_t len)
{
    snprintf(buf, len, "capture:");
    for (const char *p = src; *p;) {
        size_t n = strcspn(p, ",");
        const char *colon = memchr(p, ':', n);
        const char *name = colon ? colon + 1 : p;
        size_t k = (size_t)(p + n - name);
        char path[512];
        snprintf(path, sizeof path, "%.*s", (int)k, name);
        append(buf, len, strlen(buf) > 8 ? "," : "", base_name(path), strlen(base_name(path)));
        p += n + (p[n] == ',');
        while (*p == ' ')
            p++;
    }
}

void gd_source_text(const gd_facts *f, size_t g, const char *live, char *buf, size_t len)
{
    if (!f->captured) {
        snprintf(buf, len, "%s", live);
        return;
    }
    if (f->pcie && f->pcie->source[0] && strcmp(live, f->pcie->source) == 0) {
        pcie_capture_files(live, buf, len);
        return;
    }
    cites c;
    memset(&c, 0, sizeof c);
    char other[512] = "", path[512];
    const char *lspci = lspci_file(f, path, sizeof path);
    bool read = false; /* a part names readings of the machine */
    for (const char *p = live; *p;) {
        size_t n = strcspn(p, ";");
        if (strncmp(p, "nvml:", 5) == 0) {
            read = true;
            cite_calls(&c, f, g, p + 5, n - 5);
        } else if (strncmp(p, "sysfs:", 6) == 0 || strncmp(p, "lspci:", 6) == 0) {
            read = true;
            /* A capture's links and AER come from its lspci file (no sysfs was read). */
            for (size_t i = 6; lspci && i < n;) {
                size_t k = 0;
                while (i + k < n && p[i + k] != ',')
                    k++;
                char key[64];
                snprintf(key, sizeof key, "%.*s", (int)(k < 63 ? k : 63), p + i);
                cite(&c, lspci, key);
                i += k + 1;
            }
        } else {
            append(other, sizeof other, "; ", p, n);
        }
        p += n + (p[n] == ';');
        while (*p == ' ')
            p++;
    }
    buf[0] = '\0';
    for (size_t k = 0; k < c.n; k++) {
        char one[700];
        snprintf(one, sizeof one, "capture:%s:%s", c.file[k], c.keys[k]);
        append(buf, len, "; ", one, strlen(one));
    }
    if (!buf[0] && read)
        snprintf(buf, len, "%s", f->source[0] ? f->source : "capture");
    if (other[0])
        append(buf, len, "; ", other, strlen(other));
}

json_t *gd_source(const gd_facts *f, size_t g, const char *live)
{
    char buf[1024];
    gd_source_text(f, g, live, buf, sizeof buf);
    return json_string(buf);
}

void gd_sources_of_capture(const gd_facts *f, gd_findings *fs)
{
    if (!f->captured)
        return;
    for (size_t i = 0; i < fs->n; i++) {
        gd_finding *x = &fs->v[i];
        json_t *src = json_object_get(x->evidence, "source");
        if (!json_is_string(src))
            continue;
        /* A finding of several GPUs ("gpus": [...]) cites the first one's. */
        json_t *list = json_object_get(x->evidence, "gpus");
        int gpu = x->gpu == GD_NO_GPU && json_is_integer(json_array_get(list, 0))
                      ? (int)json_integer_value(json_array_get(list, 0))
                      : x->gpu;
        size_t g = 0;
        while (g < f->gpu_count && (gpu == GD_NO_GPU || f->gpus[g].index != gpu))
            g++;
        json_object_set_new(x->evidence, "source", gd_source(f, g, json_string_value(src)));
    }
}
