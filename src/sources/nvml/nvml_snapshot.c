/* SPDX-License-Identifier: Apache-2.0 */
/* NVML's snapshot: each GPU's static facts (identity, limits, configuration
 * and health, MIG devices, NVLinks, fabric) and every pair's P2P status,
 * read once when a session opens. */
#include "nvml_read.h"
#include "core/pcie_util.h"
#include "sources/proc/proc_lookup.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef gd_nvml_reader reader;
#define take gd_nvml_take

static void read_string(reader *r, nvml_DeviceGetString_fn fn, nvmlDevice_t d, char *out, size_t len)
{
    out[0] = '\0';
    if (fn && fn(d, out, (unsigned int)len) != NVML_SUCCESS)
        out[0] = '\0';
    out[len - 1] = '\0';
    (void)r;
}

/* A driver older than a threshold type answers INVALID_ARGUMENT for it
 * (GPU_MAX and MEM_MAX came later than SHUTDOWN and SLOWDOWN): the board's
 * driver does not report it, which is not an error (the raw code is kept). */
static gd_value read_threshold(reader *r, nvmlDevice_t d, nvmlTemperatureThresholds_t which)
{
    unsigned int v = 0;
    nvmlReturn_t rc = NVCALL(r->s, DeviceGetTemperatureThreshold, d, which, &v);
    if (rc == NVML_ERROR_INVALID_ARGUMENT) {
        gd_value x = gd_missing(GD_ST_NOT_SUPPORTED);
        x.raw = (int32_t)rc;
        return x;
    }
    return take(r, "nvmlDeviceGetTemperatureThreshold", rc, v);
}

/* Current drivers give the temperature limits relative to T.Limit, the
 * GPU's maximum operating temperature: the margin left to it
 * (nvmlDeviceGetMarginTemperature, nvidia-smi's "GPU T.Limit Temp") and each
 * limit's offset from it (field values *_TLIMIT: "GPU Slowdown T.Limit Temp
 * -2 C" slows down 2 C past T.Limit). The absolute query is on its way out
 * (deprecated since CUDA 13.0). Where it does not answer, the limits are
 * T.Limit (the temperature plus the margin, read together) minus each offset.
 * The memory's offset is from a memory limit NVML does not give: left out. */
static void read_tlimit(reader *r, nvmlDevice_t d, gd_gpu *g)
{
    if (gd_ok(g->temp_slowdown_c) || gd_ok(g->temp_gpu_max_c) || gd_ok(g->temp_shutdown_c)) {
        snprintf(g->temp_limits_source, sizeof g->temp_limits_source, "nvml:nvmlDeviceGetTemperatureThreshold");
        return;
    }
    nvmlMarginTemperature_t m;
    memset(&m, 0, sizeof m);
    m.version = nvmlMarginTemperature_v1;
    nvmlReturn_t rc = NVCALL(r->s, DeviceGetMarginTemperature, d, &m);
    gd_value temp = gd_nvml_read_temp(r, d);
    if (rc != NVML_SUCCESS || !gd_ok(temp))
        return;
    double tlimit = temp.v + m.marginTemperature;
    nvmlFieldValue_t fv[3];
    memset(fv, 0, sizeof fv);
    fv[0].fieldId = NVML_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT;
    fv[1].fieldId = NVML_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT;
    fv[2].fieldId = NVML_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT;
    gd_value *dst[3] = {&g->temp_shutdown_c, &g->temp_slowdown_c, &g->temp_gpu_max_c};
    bool offsets = NVCALL(r->s, DeviceGetFieldValues, d, 3, fv) == NVML_SUCCESS;
    for (int k = 0; k < 3; k++)
        if (offsets && fv[k].nvmlReturn == NVML_SUCCESS)
            *dst[k] = gd_val(tlimit - gd_nvml_field_number(&fv[k]));
    if (!gd_ok(g->temp_gpu_max_c)) /* T.Limit 0 is the maximum operating temperature */
        g->temp_gpu_max_c = gd_val(tlimit);
    snprintf(g->temp_limits_source, sizeof g->temp_limits_source,
             "nvml:nvmlDeviceGetMarginTemperature (T.Limit %.0f C)%s", tlimit,
             offsets ? ",nvmlDeviceGetFieldValues(*_TLIMIT)" : "");
}

static gd_value read_enable(reader *r, const char *call, nvml_DeviceGetEnableState_fn fn, nvmlDevice_t d)
{
    nvmlEnableState_t st = NVML_FEATURE_DISABLED;
    nvmlReturn_t rc = fn ? fn(d, &st) : NVML_ERROR_FUNCTION_NOT_FOUND;
    return take(r, call, rc, st == NVML_FEATURE_ENABLED);
}

static gd_value read_ecc(reader *r, nvmlDevice_t d, nvmlEccCounterType_t type)
{
    unsigned long long n = 0;
    nvmlReturn_t rc = NVCALL(r->s, DeviceGetTotalEccErrors, d, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, type, &n);
    return take(r, "nvmlDeviceGetTotalEccErrors", rc, (double)n);
}

static gd_value read_retired(reader *r, nvmlDevice_t d, nvmlPageRetirementCause_t cause)
{
    unsigned int n = 0;
    nvmlReturn_t rc = NVCALL(r->s, DeviceGetRetiredPages, d, cause, &n, NULL);
    /* Asking with no buffer returns the count (INSUFFICIENT_SIZE when there are pages). */
    if (rc == NVML_ERROR_INSUFFICIENT_SIZE)
        rc = NVML_SUCCESS;
    return take(r, "nvmlDeviceGetRetiredPages", rc, n);
}

/* The bus id in v3's form ("00000000:1B:00.0"). The v1 function of old
 * drivers fills only busIdLegacy ("0000:1B:00.0"). */
static void read_bus_id(nvmlPciInfo_t *pci, bool v1, char *out, size_t len)
{
    char *raw = v1 ? pci->busIdLegacy : pci->busId;
    raw[(v1 ? sizeof pci->busIdLegacy : sizeof pci->busId) - 1] = '\0';
    gd_pci_bus_id_norm(raw, out, len);
    if (!out[0]) /* not a bus id as expected: as NVML said it */
        snprintf(out, len, "%s", raw);
}

static void read_identity(reader *r, nvmlDevice_t d, gd_gpu *g)
{
    gd_nvml_session *s = r->s;
    read_string(r, s->api.DeviceGetName, d, g->name, sizeof g->name);
    read_string(r, s->api.DeviceGetUUID, d, g->uuid, sizeof g->uuid);
    read_string(r, s->api.DeviceGetSerial, d, g->serial, sizeof g->serial);
    read_string(r, s->api.DeviceGetVbiosVersion, d, g->vbios, sizeof g->vbios);
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof pci);
    if (NVCALL(s, DeviceGetPciInfo, d, &pci) == NVML_SUCCESS)
        read_bus_id(&pci, s->api.pci_info_v1, g->pci_bus_id, sizeof g->pci_bus_id);
    int major = 0, minor = 0;
    nvmlReturn_t rc = NVCALL(s, DeviceGetCudaComputeCapability, d, &major, &minor);
    g->cc_major = take(r, "nvmlDeviceGetCudaComputeCapability", rc, major);
    g->cc_minor = take(r, "nvmlDeviceGetCudaComputeCapability", rc, minor);
}

static void read_limits(reader *r, nvmlDevice_t d, gd_gpu *g)
{
    gd_nvml_session *s = r->s;
    g->power_limit_w =
        gd_nvml_read_uint(r, "nvmlDeviceGetEnforcedPowerLimit", s->api.DeviceGetEnforcedPowerLimit, d, 1e-3);
    g->power_limit_requested_w =
        gd_nvml_read_uint(r, "nvmlDeviceGetPowerManagementLimit", s->api.DeviceGetPowerManagementLimit, d, 1e-3);
    g->power_limit_default_w = gd_nvml_read_uint(r, "nvmlDeviceGetPowerManagementDefaultLimit",
                                                 s->api.DeviceGetPowerManagementDefaultLimit, d, 1e-3);
    unsigned int lo = 0, hi = 0;
    nvmlReturn_t rc = NVCALL(s, DeviceGetPowerManagementLimitConstraints, d, &lo, &hi);
    g->power_limit_min_w = take(r, "nvmlDeviceGetPowerManagementLimitConstraints", rc, lo * 1e-3);
    g->power_limit_max_w = take(r, "nvmlDeviceGetPowerManagementLimitConstraints", rc, hi * 1e-3);

    g->clock_max_sm_mhz =
        gd_nvml_read_clock(r, "nvmlDeviceGetMaxClockInfo", s->api.DeviceGetMaxClockInfo, d, NVML_CLOCK_SM);
    g->clock_max_mem_mhz =
        gd_nvml_read_clock(r, "nvmlDeviceGetMaxClockInfo", s->api.DeviceGetMaxClockInfo, d, NVML_CLOCK_MEM);
    g->clock_app_sm_mhz =
        gd_nvml_read_clock(r, "nvmlDeviceGetApplicationsClock", s->api.DeviceGetApplicationsClock, d, NVML_CLOCK_SM);
    g->clock_app_mem_mhz =
        gd_nvml_read_clock(r, "nvmlDeviceGetApplicationsClock", s->api.DeviceGetApplicationsClock, d, NVML_CLOCK_MEM);
    g->clock_default_app_sm_mhz = gd_nvml_read_clock(r, "nvmlDeviceGetDefaultApplicationsClock",
                                                     s->api.DeviceGetDefaultApplicationsClock, d, NVML_CLOCK_SM);
    g->clock_default_app_mem_mhz = gd_nvml_read_clock(r, "nvmlDeviceGetDefaultApplicationsClock",
                                                      s->api.DeviceGetDefaultApplicationsClock, d, NVML_CLOCK_MEM);

    g->temp_shutdown_c = read_threshold(r, d, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN);
    g->temp_slowdown_c = read_threshold(r, d, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN);
    g->temp_gpu_max_c = read_threshold(r, d, NVML_TEMPERATURE_THRESHOLD_GPU_MAX);
    g->temp_mem_max_c = read_threshold(r, d, NVML_TEMPERATURE_THRESHOLD_MEM_MAX);
    read_tlimit(r, d, g);

    /* "Max" is what card and slot reach together; GpuMax the card's own. NVML
     * has no card-only width: the GPU's max_link_width in sysfs gives it. */
    g->pcie_gen_max =
        gd_nvml_read_uint(r, "nvmlDeviceGetMaxPcieLinkGeneration", s->api.DeviceGetMaxPcieLinkGeneration, d, 1);
    g->pcie_gen_max_device =
        gd_nvml_read_uint(r, "nvmlDeviceGetGpuMaxPcieLinkGeneration", s->api.DeviceGetGpuMaxPcieLinkGeneration, d, 1);
    g->pcie_width_max = gd_nvml_read_uint(r, "nvmlDeviceGetMaxPcieLinkWidth", s->api.DeviceGetMaxPcieLinkWidth, d, 1);
    g->pcie_width_max_device = gd_missing(GD_ST_NOT_SUPPORTED);
    g->pcie_gen_max_host = gd_missing(GD_ST_NOT_SUPPORTED);
    snprintf(
        g->pcie_max_source, sizeof g->pcie_max_source,
        "nvml:nvmlDeviceGetMaxPcieLinkGeneration,nvmlDeviceGetGpuMaxPcieLinkGeneration,nvmlDeviceGetMaxPcieLinkWidth");

    nvmlMemory_v2_t m2;
    memset(&m2, 0, sizeof m2);
    m2.version = nvmlMemory_v2;
    nvmlReturn_t mrc = NVCALL(s, DeviceGetMemoryInfo_v2, d, &m2);
    if (mrc == NVML_SUCCESS) {
        g->mem_total_mib = gd_val((double)m2.total / (1024.0 * 1024.0));
    } else {
        nvmlMemory_t m1;
        memset(&m1, 0, sizeof m1);
        mrc = NVCALL(s, DeviceGetMemoryInfo, d, &m1);
        g->mem_total_mib = take(r, "nvmlDeviceGetMemoryInfo", mrc, (double)m1.total / (1024.0 * 1024.0));
    }
}

/* The counters that can rise while a session runs: uncorrectable ECC
 * errors, retired pages (and whether one is pending), remapped rows (read at the snapshot, and again
 * every GD_HEALTH_REREAD_S by gd_nvml_reread_memory_health). */
static void read_memory_health(reader *r, nvmlDevice_t d, gd_gpu *g)
{
    gd_nvml_session *s = r->s;
    g->ecc_volatile_uncorrected = read_ecc(r, d, NVML_VOLATILE_ECC);
    g->ecc_aggregate_uncorrected = read_ecc(r, d, NVML_AGGREGATE_ECC);
    g->retired_pages_sbe = read_retired(r, d, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS);
    g->retired_pages_dbe = read_retired(r, d, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
    /* A page retired for a double-bit error is only retired at the next reset. */
    g->retired_pages_pending =
        read_enable(r, "nvmlDeviceGetRetiredPagesPendingStatus", s->api.DeviceGetRetiredPagesPendingStatus, d);
    unsigned int corr = 0, unc = 0, pending = 0, failure = 0;
    nvmlReturn_t rc = NVCALL(s, DeviceGetRemappedRows, d, &corr, &unc, &pending, &failure);
    g->remap_corr_rows = take(r, "nvmlDeviceGetRemappedRows", rc, corr);
    g->remap_unc_rows = take(r, "nvmlDeviceGetRemappedRows", rc, unc);
    g->remap_pending = take(r, "nvmlDeviceGetRemappedRows", rc, pending != 0);
    g->remap_failure = take(r, "nvmlDeviceGetRemappedRows", rc, failure != 0);
}

/* A MIG device's memory: NVML answers per GPU instance on its handle. */
static void read_mig_memory(gd_nvml_session *s, nvmlDevice_t m, gd_mig_device *md)
{
    nvmlMemory_t mem;
    memset(&mem, 0, sizeof mem);
    nvmlReturn_t rc = NVCALL(s, DeviceGetMemoryInfo, m, &mem);
    md->mem_total_mib =
        rc == NVML_SUCCESS ? gd_val((double)mem.total / (1024.0 * 1024.0)) : gd_missing(gd_nvml_status(rc));
    md->mem_used_mib =
        rc == NVML_SUCCESS ? gd_val((double)mem.used / (1024.0 * 1024.0)) : gd_missing(gd_nvml_status(rc));
}

/* The MIG devices of a GPU in MIG mode, one per GPU instance (a GPU
 * instance split into compute instances lists its first). Nothing is read
 * when MIG is off: NVML's count is then 0. */
static void read_mig_devices(gd_nvml_session *s, nvmlDevice_t d, gd_gpu *g)
{
    g->mig_device_count = 0;
    unsigned int max = 0;
    if (!s->api.DeviceGetMaxMigDeviceCount || !s->api.DeviceGetMigDeviceHandleByIndex ||
        s->api.DeviceGetMaxMigDeviceCount(d, &max) != NVML_SUCCESS)
        return;
    for (unsigned int i = 0; i < max && i < 64 && g->mig_device_count < GD_MAX_MIG_DEVICES; i++) {
        nvmlDevice_t m = NULL;
        unsigned int gi = 0;
        if (s->api.DeviceGetMigDeviceHandleByIndex(d, i, &m) != NVML_SUCCESS || !m ||
            NVCALL(s, DeviceGetGpuInstanceId, m, &gi) != NVML_SUCCESS)
            continue; /* NOT_FOUND: no MIG device at this index */
        bool seen = false;
        for (size_t k = 0; k < g->mig_device_count; k++)
            seen |= g->mig_devices[k].gpu_instance_id == gi;
        if (seen)
            continue;
        gd_mig_device *md = &g->mig_devices[g->mig_device_count++];
        memset(md, 0, sizeof *md);
        md->gpu_instance_id = gi;
        char name[128] = "";
        if (NVCALL(s, DeviceGetName, m, name, sizeof name) == NVML_SUCCESS) {
            name[sizeof name - 1] = '\0';
            const char *p = strstr(name, "MIG ");
            if (p)
                snprintf(md->profile, sizeof md->profile, "%s", p + 4);
        }
        if (NVCALL(s, DeviceGetUUID, m, md->uuid, sizeof md->uuid) != NVML_SUCCESS)
            md->uuid[0] = '\0';
        md->uuid[sizeof md->uuid - 1] = '\0';
        read_mig_memory(s, m, md);
    }
}

/* Each listed NVLink's error counters (nvmlDeviceGetNvLinkErrorCounter),
 * which only rise: not asked of a GPU in MIG mode (its links are down, and
 * DCGM reports no NVLink counters for it) nor of a link NVML does not know. */
static void read_nvlink_errors(reader *r, nvmlDevice_t d, gd_gpu *g)
{
    static const struct {
        nvmlNvLinkErrorCounter_t counter;
        size_t off;
    } counters[] = {
        {NVML_NVLINK_ERROR_DL_REPLAY, offsetof(gd_nvlink, replay_errors)},
        {NVML_NVLINK_ERROR_DL_RECOVERY, offsetof(gd_nvlink, recovery_errors)},
        {NVML_NVLINK_ERROR_DL_CRC_FLIT, offsetof(gd_nvlink, crc_flit_errors)},
        {NVML_NVLINK_ERROR_DL_CRC_DATA, offsetof(gd_nvlink, crc_data_errors)},
    };
    bool mig = gd_ok(g->mig_mode) && g->mig_mode.v != 0;
    for (size_t l = 0; l < g->nvlink_count && !g->lost; l++) {
        gd_nvlink *link = &g->nvlink[l];
        for (size_t k = 0; k < sizeof counters / sizeof counters[0]; k++) {
            gd_value *v = (gd_value *)((char *)link + counters[k].off);
            unsigned long long n = 0;
            nvmlReturn_t rc = mig ? NVML_ERROR_NOT_SUPPORTED
                                  : NVCALL(r->s, DeviceGetNvLinkErrorCounter, d, link->link, counters[k].counter, &n);
            *v = take(r, "nvmlDeviceGetNvLinkErrorCounter", rc, (double)n);
        }
    }
}

void gd_nvml_reread_memory_health(gd_nvml_session *s, size_t g, gd_gpu *out, double t_s)
{
    reader r = {.s = s, .gpu = out, .t_s = t_s};
    if (g < s->count && s->devices[g]) {
        read_memory_health(&r, s->devices[g], out);
        if (out->mig_device_count)
            read_mig_devices(s, s->devices[g], out);
        read_nvlink_errors(&r, s->devices[g], out);
    }
}

/* The GPU's NVLink fabric registration (nvmlDeviceGetGpuFabricInfo, NVML
 * 12.x): NOT_SUPPORTED on PCIe boards and NVLink systems without NVSwitches,
 * FUNCTION_NOT_FOUND (not supported) from older drivers. */
static void read_fabric(reader *r, nvmlDevice_t d, gd_gpu *g)
{
    nvmlGpuFabricInfo_t fi;
    memset(&fi, 0, sizeof fi);
    nvmlReturn_t rc = NVCALL(r->s, DeviceGetGpuFabricInfo, d, &fi);
    if (rc == NVML_SUCCESS && fi.state == NVML_GPU_FABRIC_STATE_NOT_SUPPORTED)
        rc = NVML_ERROR_NOT_SUPPORTED;
    g->fabric_state = take(r, "nvmlDeviceGetGpuFabricInfo", rc, fi.state);
    g->fabric_status = rc == NVML_SUCCESS && fi.state == NVML_GPU_FABRIC_STATE_COMPLETED
                           ? gd_val((double)fi.status)
                           : gd_missing(rc == NVML_SUCCESS ? GD_ST_UNREAD : g->fabric_state.status);
}

static void read_config_health(reader *r, nvmlDevice_t d, gd_gpu *g)
{
    gd_nvml_session *s = r->s;
    g->persistence_mode = read_enable(r, "nvmlDeviceGetPersistenceMode", s->api.DeviceGetPersistenceMode, d);
    nvmlComputeMode_t cm = NVML_COMPUTEMODE_DEFAULT;
    /* Each call happens before its output is read: argument order is unspecified. */
    nvmlReturn_t rc = NVCALL(s, DeviceGetComputeMode, d, &cm);
    g->compute_mode = take(r, "nvmlDeviceGetComputeMode", rc, cm);
    unsigned int mig = 0, mig_pending = 0;
    rc = NVCALL(s, DeviceGetMigMode, d, &mig, &mig_pending);
    g->mig_mode = take(r, "nvmlDeviceGetMigMode", rc, mig);
    if (rc == NVML_SUCCESS && mig)
        read_mig_devices(s, d, g);
    nvmlEnableState_t ecc = NVML_FEATURE_DISABLED, ecc_pending = NVML_FEATURE_DISABLED;
    rc = NVCALL(s, DeviceGetEccMode, d, &ecc, &ecc_pending);
    g->ecc_enabled = take(r, "nvmlDeviceGetEccMode", rc, ecc == NVML_FEATURE_ENABLED);
    read_memory_health(r, d, g);

    g->nvlink_count = 0;
    for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
        nvmlEnableState_t active = NVML_FEATURE_DISABLED;
        nvmlReturn_t lrc = NVCALL(s, DeviceGetNvLinkState, d, link, &active);
        if (lrc == NVML_ERROR_NOT_SUPPORTED || lrc == NVML_ERROR_INVALID_ARGUMENT ||
            lrc == NVML_ERROR_FUNCTION_NOT_FOUND)
            continue;
        gd_nvlink *l = &g->nvlink[g->nvlink_count++];
        l->link = link;
        l->active = take(r, "nvmlDeviceGetNvLinkState", lrc, active == NVML_FEATURE_ENABLED);
        unsigned int version = 0;
        nvmlReturn_t vrc = NVCALL(s, DeviceGetNvLinkVersion, d, link, &version);
        l->version = take(r, "nvmlDeviceGetNvLinkVersion", vrc, version);
        nvmlPciInfo_t pci;
        memset(&pci, 0, sizeof pci);
        if (NVCALL(s, DeviceGetNvLinkRemotePciInfo, d, link, &pci) == NVML_SUCCESS) {
            pci.busId[sizeof pci.busId - 1] = '\0';
            snprintf(l->remote_pci_bus_id, sizeof l->remote_pci_bus_id, "%s", pci.busId);
        }
    }
    read_nvlink_errors(r, d, g);
    read_fabric(r, d, g);
    g->nvlink_speed_mbps = gd_missing(GD_ST_NOT_SUPPORTED);
    if (g->nvlink_count && s->api.DeviceGetFieldValues) {
        nvmlFieldValue_t fv;
        memset(&fv, 0, sizeof fv);
        fv.fieldId = NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON;
        nvmlReturn_t frc = NVCALL(s, DeviceGetFieldValues, d, 1, &fv);
        if (frc == NVML_SUCCESS)
            frc = fv.nvmlReturn;
        g->nvlink_speed_mbps = take(r, "nvmlDeviceGetFieldValues(NVLINK_SPEED_MBPS_COMMON)", frc, fv.value.uiVal);
        if (gd_ok(g->nvlink_speed_mbps) && g->nvlink_speed_mbps.v <= 0)
            g->nvlink_speed_mbps = gd_missing(GD_ST_NOT_SUPPORTED); /* no active link */
    }
}

/* Every pair's P2P status (nvmlDeviceGetP2PStatus, read capability): whether
 * the driver lets the GPUs reach each other's memory, and if not why. */
static void read_p2p(gd_nvml_session *s, gd_facts *f)
{
    size_t n = f->gpu_count;
    if (n < 2 || !s->api.DeviceGetP2PStatus || !(f->p2p_status = malloc(n * n * sizeof *f->p2p_status)))
        return;
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++) {
            nvmlGpuP2PStatus_t st = NVML_P2P_STATUS_UNKNOWN;
            bool read =
                a != b && s->devices[a] && s->devices[b] &&
                s->api.DeviceGetP2PStatus(s->devices[a], s->devices[b], NVML_P2P_CAPS_INDEX_READ, &st) == NVML_SUCCESS;
            f->p2p_status[a * n + b] = read ? (int)st : -1;
        }
}

int gd_nvml_snapshot(gd_nvml_session *s, gd_facts *f, const char *proc_root)
{
    f->driver_loaded = true;
    f->driver_version[0] = f->nvml_version[0] = '\0';
    if (s->api.SystemGetDriverVersion &&
        s->api.SystemGetDriverVersion(f->driver_version, sizeof f->driver_version) != NVML_SUCCESS)
        f->driver_version[0] = '\0';
    /* Driver 610 deprecates the query (removed with CUDA 14.0, which answers
     * NVML_ERROR_DEPRECATED): its successor is the kernel module's version. */
    if (!f->driver_version[0])
        gd_proc_kmd_version(proc_root, f->driver_version, sizeof f->driver_version);
    if (s->api.SystemGetNVMLVersion &&
        s->api.SystemGetNVMLVersion(f->nvml_version, sizeof f->nvml_version) != NVML_SUCCESS)
        f->nvml_version[0] = '\0';
    int cuda = 0;
    reader r0 = {.s = s};
    nvmlReturn_t crc = NVCALL(s, SystemGetCudaDriverVersion, &cuda); /* before reading cuda */
    f->cuda_driver_version = take(&r0, "nvmlSystemGetCudaDriverVersion", crc, cuda);

    f->gpus = calloc(s->count ? s->count : 1, sizeof *f->gpus);
    if (!f->gpus)
        return -1;
    f->gpu_count = 0;
    f->denied_count = 0;
    /* gpus[] and devices[] keep the GPUs we can read, in NVML order. */
    size_t n = s->count;
    for (size_t i = 0; i < n; i++) {
        gd_gpu *g = &f->gpus[f->gpu_count];
        nvmlDevice_t d = NULL;
        nvmlReturn_t rc = s->api.DeviceGetHandleByIndex((unsigned int)i, &d);
        if (rc != NVML_SUCCESS && rc != NVML_ERROR_GPU_IS_LOST) {
            /* Not loss: NVML documents GPU_IS_LOST for a GPU off the bus. A
             * GPU we are not given (NO_PERMISSION), or one that timed out,
             * is not accessible, and judged by nothing. */
            if (f->denied_count < GD_MAX_DENIED_GPUS) {
                gd_gpu_denied *x = &f->denied[f->denied_count++];
                x->index = (int)i;
                x->code = rc;
                snprintf(x->call, sizeof x->call, "nvmlDeviceGetHandleByIndex");
                char buf[32];
                snprintf(x->error, sizeof x->error, "%s", gd_nvml_error_text(s, rc, buf, sizeof buf));
            }
            continue;
        }
        g->index = (int)i;
        s->devices[f->gpu_count++] = rc == NVML_SUCCESS ? d : NULL;
        if (rc != NVML_SUCCESS) {
            /* Keep the slot: a GPU lost before its handle is lost from the start. */
            g->lost = true;
            g->lost_at_s = 0;
            g->lost_code = rc;
            snprintf(g->lost_call, sizeof g->lost_call, "nvmlDeviceGetHandleByIndex");
            continue;
        }
        reader r = {.s = s, .gpu = g, .t_s = 0, .proc_root = proc_root};
        read_identity(&r, d, g);
        read_limits(&r, d, g);
        read_config_health(&r, d, g);
        gd_nvml_read_processes(&r, d, g);
    }
    read_p2p(s, f);
    return 0;
}
