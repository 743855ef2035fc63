/* SPDX-License-Identifier: Apache-2.0 */
/* The Prometheus exposition of a session (prom_report.h). */
#include "prom_report.h"

#include "gpudoctor/net.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dcgm-exporter's names, types and help texts (etc/default-counters.csv and
 * the DCGM field names), for what NVML gives gpudoctor every sample. The
 * violation counters are nanoseconds, as NVML and DCGM give them (the help
 * text of dcgm-exporter's csv says "us"; the values are DCGM's ns). The
 * profiling ratios come from NVML's GPM (Hopper and newer) in percent. */
typedef struct dcgm_metric {
    const char *name, *type, *help;
    gd_metric m;
    double scale;
} dcgm_metric;

static const dcgm_metric dcgm_metrics[] = {
    {"DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", GD_M_SM_CLOCK_MHZ, 1},
    {"DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", GD_M_MEM_CLOCK_MHZ, 1},
    {"DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", GD_M_MEM_TEMP_C, 1},
    {"DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", GD_M_TEMP_C, 1},
    {"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", GD_M_POWER_W, 1},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).", GD_M_ENERGY_MJ,
     1},
    {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries.", GD_M_PCIE_REPLAYS, 1},
    {"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", GD_M_UTIL_GPU_PCT, 1},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", GD_M_UTIL_MEM_PCT, 1},
    {"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", GD_M_MEM_USED_MIB, 1},
    {"DCGM_FI_DEV_FAN_SPEED", "gauge", "Fan speed (in %).", GD_M_FAN_PCT, 1},
    {"DCGM_FI_DEV_FB_RESERVED", "gauge", "Framebuffer memory reserved (in MiB).", GD_M_MEM_RESERVED_MIB, 1},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "Ratio of time the graphics engine is active.",
     GD_M_GR_ENGINE_ACTIVE_PCT, 0.01},
    {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge", "Ratio of cycles the tensor (HMMA) pipe is active.",
     GD_M_TENSOR_ACTIVE_PCT, 0.01},
    {"DCGM_FI_PROF_DRAM_ACTIVE", "gauge",
     "Ratio of cycles the device memory interface is active sending or receiving data.", GD_M_DRAM_ACTIVE_PCT, 0.01},
    {"DCGM_FI_PROF_PCIE_TX_BYTES", "gauge", "The rate of data transmitted over the PCIe bus (in bytes per second).",
     GD_M_PCIE_TX_KBPS, 1024},
    {"DCGM_FI_PROF_PCIE_RX_BYTES", "gauge", "The rate of data received over the PCIe bus (in bytes per second).",
     GD_M_PCIE_RX_KBPS, 1024},
    {"DCGM_FI_DEV_PSTATE", "gauge", "Performance state (P-State) 0-15, 0 is the highest.", GD_M_PSTATE, 1},
    {"DCGM_FI_DEV_PCIE_LINK_GEN", "gauge", "PCIe link generation.", GD_M_PCIE_GEN, 1},
    {"DCGM_FI_DEV_PCIE_LINK_WIDTH", "gauge", "PCIe link width.", GD_M_PCIE_WIDTH, 1},
    {"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "gauge", "Current clock event reasons (bitmask of nvmlClocksEventReason*).",
     GD_M_EVENT_REASONS, 1},
    {"DCGM_FI_DEV_POWER_VIOLATION", "counter", "Throttling duration due to power constraints (in ns).",
     GD_M_VIOL_POWER_NS, 1},
    {"DCGM_FI_DEV_THERMAL_VIOLATION", "counter", "Throttling duration due to thermal constraints (in ns).",
     GD_M_VIOL_THERMAL_NS, 1},
    {"DCGM_FI_DEV_SYNC_BOOST_VIOLATION", "counter", "Throttling duration due to sync-boost constraints (in ns).",
     GD_M_VIOL_SYNC_BOOST_NS, 1},
    {"DCGM_FI_DEV_BOARD_LIMIT_VIOLATION", "counter", "Throttling duration due to board limit constraints (in ns).",
     GD_M_VIOL_BOARD_LIMIT_NS, 1},
    {"DCGM_FI_DEV_LOW_UTIL_VIOLATION", "counter", "Throttling duration due to low utilization (in ns).",
     GD_M_VIOL_LOW_UTIL_NS, 1},
    {"DCGM_FI_DEV_RELIABILITY_VIOLATION", "counter", "Throttling duration due to reliability constraints (in ns).",
     GD_M_VIOL_RELIABILITY_NS, 1},
};

int gd_prom_counters_init(gd_prom_counters *c, size_t gpus)
{
    *c = (gd_prom_counters){.gpus = gpus, .last_t = NAN};
    c->event_s = calloc(gpus * gd_reason_names_count + 1, sizeof *c->event_s);
    c->pcie_kb = calloc(gpus * 2 + 1, sizeof *c->pcie_kb);
    if (c->event_s && c->pcie_kb)
        return 0;
    gd_prom_counters_free(c);
    return -1;
}

void gd_prom_counters_add(gd_prom_counters *c, const gd_facts *f, size_t i)
{
    double t = gd_series_t(&f->series, i);
    double dt = isnan(c->last_t) ? 0 : t - c->last_t;
    c->last_t = t;
    if (dt <= 0)
        return;
    for (size_t g = 0; g < c->gpus && g < f->series.gpus; g++) {
        gd_value tx = gd_series_at(&f->series, i, g, GD_M_PCIE_TX_KBPS);
        gd_value rx = gd_series_at(&f->series, i, g, GD_M_PCIE_RX_KBPS);
        c->pcie_kb[g * 2] += gd_ok(tx) ? tx.v * dt : 0;
        c->pcie_kb[g * 2 + 1] += gd_ok(rx) ? rx.v * dt : 0;
        gd_value r = gd_series_at(&f->series, i, g, GD_M_EVENT_REASONS);
        if (!gd_ok(r))
            continue;
        unsigned long long bits = (unsigned long long)r.v;
        for (size_t k = 0; k < gd_reason_names_count; k++)
            if (bits & gd_reason_names[k].bit)
                c->event_s[g * gd_reason_names_count + k] += dt;
    }
}

void gd_prom_counters_free(gd_prom_counters *c)
{
    free(c->event_s);
    free(c->pcie_kb);
    c->event_s = NULL;
    c->pcie_kb = NULL;
}

void gd_prom_label_value(char *buf, size_t len, const char *s)
{
    size_t o = 0;
    for (; s && *s && o + 1 < len; s++) {
        const char *esc = *s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : *s == '\n' ? "\\n" : NULL;
        size_t n = esc ? 2 : 1;
        if (o + n >= len)
            break;
        if (esc)
            memcpy(buf + o, esc, 2);
        else
            buf[o] = *s;
        o += n;
    }
    if (len)
        buf[o] = '\0';
}

static void pod_labels(char *buf, size_t len, const gd_prom_pod *p);

/* One set of labels a GPU's series are given under: the GPU, or one of its
 * MIG devices, and one of its Slurm jobs. */
typedef struct entity {
    size_t g;
    int mig; /* index in gpus[g].mig_devices; -1 for the whole GPU */
    char labels[4096]; /* pod names may take 3 x 253 escaped characters */
} entity;

typedef struct entities {
    size_t n, cap;
    entity *v;
} entities;

/* The job ids of GPU index (GPU instance gi, or -1), or NULL. */
static const gd_gpu_jobs *jobs_of(const gd_prom_counters *c, int index, int gi)
{
    for (size_t k = 0; c && c->jobs && k < c->job_count; k++)
        if (c->jobs[k].gpu == index && c->jobs[k].gpu_instance == gi && c->jobs[k].n)
            return &c->jobs[k];
    return NULL;
}

/* Appends the labels of GPU g (MIG device mig, or -1) as dcgm-exporter
 * writes them, once per job id; false when out of memory. */
static bool add_entity(entities *es, const gd_facts *f, size_t g, int mig, const gd_prom_counters *c)
{
    const gd_gpu *gpu = &f->gpus[g];
    char uuid[200], bus[80], model[200], host[520], driver[170], mig_labels[120] = "";
    const char *hostname = c ? c->hostname : NULL;
    gd_prom_label_value(uuid, sizeof uuid, gpu->uuid);
    gd_prom_label_value(bus, sizeof bus, gpu->pci_bus_id);
    gd_prom_label_value(model, sizeof model, gpu->name);
    gd_prom_label_value(host, sizeof host, hostname && *hostname ? hostname : f->host.hostname);
    gd_prom_label_value(driver, sizeof driver, f->driver_version);
    const gd_gpu_jobs *jobs = NULL;
    if (mig >= 0) {
        const gd_mig_device *md = &gpu->mig_devices[mig];
        char profile[80];
        gd_prom_label_value(profile, sizeof profile, md->profile);
        snprintf(mig_labels, sizeof mig_labels, "GPU_I_PROFILE=\"%s\",GPU_I_ID=\"%u\",", profile, md->gpu_instance_id);
        jobs = jobs_of(c, gpu->index, (int)md->gpu_instance_id);
    }
    if (!jobs)
        jobs = jobs_of(c, gpu->index, -1);
    size_t copies = jobs ? jobs->n : 1;
    for (size_t j = 0; j < copies; j++) {
        if (es->n == es->cap) {
            size_t cap = es->cap ? es->cap * 2 : 16;
            entity *v = realloc(es->v, cap * sizeof *v);
            if (!v)
                return false;
            es->v = v;
            es->cap = cap;
        }
        entity *e = &es->v[es->n++];
        e->g = g;
        e->mig = mig;
        char job[100] = "";
        if (jobs) {
            char id[80];
            gd_prom_label_value(id, sizeof id, jobs->id[j]);
            snprintf(job, sizeof job, ",hpc_job=\"%s\"", id);
        }
        snprintf(e->labels, sizeof e->labels,
                 "gpu=\"%d\",UUID=\"%s\",pci_bus_id=\"%s\",device=\"nvidia%d\",modelName=\"%s\",%sHostname=\"%s\","
                 "DCGM_FI_DRIVER_VERSION=\"%s\"%s",
                 gpu->index, uuid, bus, gpu->index, model, mig_labels, host, driver, job);
        size_t slot = (size_t)(mig >= 0 ? 1 + mig : 0);
        pod_labels(e->labels, sizeof e->labels,
                   c && c->pods && g < c->gpus ? &c->pods[g * GD_PROM_POD_SLOTS + slot] : NULL);
    }
    return true;
}

/* Every GPU's label sets: its MIG devices where it has them. */
static bool build_entities(entities *es, const gd_facts *f, const gd_prom_counters *c)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (gpu->mig_device_count == 0 && !add_entity(es, f, g, -1, c))
            return false;
        for (size_t m = 0; m < gpu->mig_device_count && m < GD_MAX_MIG_DEVICES; m++)
            if (!add_entity(es, f, g, (int)m, c))
                return false;
    }
    return true;
}

/* Appends a GPU's pod, namespace and container labels when a pod holds it
 * and they fit whole (a cut value would be made up). */
static void pod_labels(char *buf, size_t len, const gd_prom_pod *p)
{
    if (!p || !p->pod[0])
        return;
    char pod[2 * sizeof p->pod], ns[2 * sizeof p->namespace_], ctr[2 * sizeof p->container], add[sizeof pod * 3 + 64];
    gd_prom_label_value(pod, sizeof pod, p->pod);
    gd_prom_label_value(ns, sizeof ns, p->namespace_);
    gd_prom_label_value(ctr, sizeof ctr, p->container);
    int n = snprintf(add, sizeof add, ",pod=\"%s\",namespace=\"%s\",container=\"%s\"", pod, ns, ctr);
    size_t used = strlen(buf);
    if (n > 0 && used + (size_t)n < len)
        memcpy(buf + used, add, (size_t)n + 1);
}

static void header(FILE *o, const char *name, const char *type, const char *help)
{
    fprintf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Memory used, and free (total less used and what the driver reserves, as
 * DCGM reports it): a MIG device's own where the series belongs to one. */
static bool memory_of(const gd_facts *f, size_t last, const entity *e, gd_value *used, gd_value *free_mib)
{
    const gd_gpu *gpu = &f->gpus[e->g];
    gd_value total = gpu->mem_total_mib, reserved = gd_missing(GD_ST_UNREAD);
    if (e->mig >= 0) { /* the instance's memory; the reserve is the GPU's */
        *used = gpu->mig_devices[e->mig].mem_used_mib;
        total = gpu->mig_devices[e->mig].mem_total_mib;
    } else {
        *used = gd_series_at(&f->series, last, e->g, GD_M_MEM_USED_MIB);
        reserved = gd_series_at(&f->series, last, e->g, GD_M_MEM_RESERVED_MIB);
    }
    double v = total.v - used->v - (gd_ok(reserved) ? reserved.v : 0);
    *free_mib = gd_ok(*used) && gd_ok(total) ? gd_val(v > 0 ? v : 0) : gd_missing(GD_ST_NOT_SUPPORTED);
    return gd_ok(*used);
}

static void dcgm_section(FILE *o, const gd_facts *f, size_t last, const entities *es)
{
    for (size_t k = 0; k < sizeof dcgm_metrics / sizeof dcgm_metrics[0]; k++) {
        const dcgm_metric *d = &dcgm_metrics[k];
        header(o, d->name, d->type, d->help);
        for (size_t i = 0; f->series.n && i < es->n; i++) {
            const entity *e = &es->v[i];
            gd_value v = gd_series_at(&f->series, last, e->g, d->m), unused;
            if (e->mig >= 0 && d->m == GD_M_MEM_RESERVED_MIB)
                continue; /* the driver's reserve is the GPU's, not an instance's */
            if (e->mig >= 0 && d->m == GD_M_MEM_USED_MIB)
                memory_of(f, last, e, &v, &unused);
            if (gd_ok(v) && !f->gpus[e->g].lost)
                fprintf(o, "%s{%s} %.10g\n", d->name, e->labels, v.v * d->scale);
        }
    }
    header(o, "DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).");
    for (size_t i = 0; f->series.n && i < es->n; i++) {
        gd_value used, free_mib;
        if (memory_of(f, last, &es->v[i], &used, &free_mib) && gd_ok(free_mib) && !f->gpus[es->v[i].g].lost)
            fprintf(o, "DCGM_FI_DEV_FB_FREE{%s} %.10g\n", es->v[i].labels, free_mib.v);
    }
}

/* The counters read once and re-read every GD_HEALTH_REREAD_S (gd_gpu). */
static const struct {
    const char *name, *type, *help;
    size_t off;
} health_metrics[] = {
    {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", "Total number of double-bit volatile ECC errors.",
     offsetof(gd_gpu, ecc_volatile_uncorrected)},
    {"DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "counter", "Total number of double-bit persistent ECC errors.",
     offsetof(gd_gpu, ecc_aggregate_uncorrected)},
    {"DCGM_FI_DEV_RETIRED_SBE", "counter", "Total number of retired pages due to single-bit errors.",
     offsetof(gd_gpu, retired_pages_sbe)},
    {"DCGM_FI_DEV_RETIRED_DBE", "counter", "Total number of retired pages due to double-bit errors.",
     offsetof(gd_gpu, retired_pages_dbe)},
    {"DCGM_FI_DEV_RETIRED_PENDING", "counter", "Total number of pages pending retirement.",
     offsetof(gd_gpu, retired_pages_pending)},
    {"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for uncorrectable errors",
     offsetof(gd_gpu, remap_unc_rows)},
    {"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for correctable errors",
     offsetof(gd_gpu, remap_corr_rows)},
    {"DCGM_FI_DEV_ROW_REMAP_FAILURE", "gauge", "Whether remapping of rows has failed", offsetof(gd_gpu, remap_failure)},
    {"DCGM_FI_DEV_ROW_REMAP_PENDING", "gauge", "Whether remapping of rows is pending (a reset applies it)",
     offsetof(gd_gpu, remap_pending)},
};

/* NVLink, summed over the links as DCGM's _TOTAL fields are: the error
 * counters (re-read every GD_HEALTH_REREAD_S), and the bandwidth as DCGM
 * computes it (the data KiB of all links per second between the last two
 * samples, / 1000: DCGM's "MiB/s"), typed counter as dcgm-exporter's csv
 * types it. Absent for a GPU without NVLink, in MIG mode, or where NVML does
 * not give the counter. */
static void nvlink_section(FILE *o, const gd_facts *f, const entities *es)
{
    static const struct {
        const char *name, *help;
        size_t off;
    } errs[] = {
        {"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "Total number of NVLink flow-control CRC errors.",
         offsetof(gd_nvlink, crc_flit_errors)},
        {"DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", "Total number of NVLink data CRC errors.",
         offsetof(gd_nvlink, crc_data_errors)},
        {"DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", "Total number of NVLink retries.",
         offsetof(gd_nvlink, replay_errors)},
        {"DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", "Total number of NVLink recovery errors.",
         offsetof(gd_nvlink, recovery_errors)},
    };
    for (size_t k = 0; k < sizeof errs / sizeof errs[0]; k++) {
        header(o, errs[k].name, "counter", errs[k].help);
        for (size_t x = 0; x < es->n; x++) {
            const gd_gpu *gpu = &f->gpus[es->v[x].g];
            double sum = 0;
            bool any = false;
            for (size_t l = 0; l < gpu->nvlink_count; l++) {
                gd_value v = *(const gd_value *)((const char *)&gpu->nvlink[l] + errs[k].off);
                sum += gd_ok(v) ? v.v : 0;
                any |= gd_ok(v);
            }
            if (any && !gpu->lost)
                fprintf(o, "%s{%s} %.10g\n", errs[k].name, es->v[x].labels, sum);
        }
    }
    header(o, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "counter",
           "Total number of NVLink bandwidth counters for all lanes.");
    for (size_t x = 0; x < es->n; x++) {
        const gd_gpu *gpu = &f->gpus[es->v[x].g];
        if (gd_ok(gpu->nvlink_data_kibps) && !gpu->lost)
            fprintf(o, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL{%s} %.10g\n", es->v[x].labels,
                    gpu->nvlink_data_kibps.v / 1000.0);
    }
}

/* Xids (the last one of each GPU, 0 before any, as DCGM keeps it), the
 * memory-health counters, and PCIe bytes accumulated since the start. */
static void dcgm_health_section(FILE *o, const gd_facts *f, const gd_prom_counters *c, const entities *es)
{
    header(o, "DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.");
    for (size_t x = 0; x < es->n; x++) {
        size_t g = es->v[x].g;
        long long last = 0; /* of the Xid seen last, however many events came since */
        size_t last_seq = 0;
        for (size_t i = 0; i < f->events.sum_count; i++) {
            const gd_event_sum *s = &f->events.sums[i];
            if (s->kind == GD_EV_XID && s->gpu == (int)g && s->last_seq > last_seq) {
                last_seq = s->last_seq;
                last = s->code;
            }
        }
        fprintf(o, "DCGM_FI_DEV_XID_ERRORS{%s} %lld\n", es->v[x].labels, last);
    }
    for (size_t k = 0; k < sizeof health_metrics / sizeof health_metrics[0]; k++) {
        header(o, health_metrics[k].name, health_metrics[k].type, health_metrics[k].help);
        for (size_t x = 0; x < es->n; x++) {
            size_t g = es->v[x].g;
            gd_value v = *(const gd_value *)((const char *)&f->gpus[g] + health_metrics[k].off);
            if (gd_ok(v) && !f->gpus[g].lost)
                fprintf(o, "%s{%s} %.10g\n", health_metrics[k].name, es->v[x].labels, v.v);
        }
    }
    static const char *const pcie[2][2] = {
        {"DCGM_FI_DEV_PCIE_TX_THROUGHPUT", "Total number of bytes transmitted through PCIe TX (in KB) via NVML."},
        {"DCGM_FI_DEV_PCIE_RX_THROUGHPUT", "Total number of bytes received through PCIe RX (in KB) via NVML."},
    };
    for (size_t d = 0; c && c->pcie_kb && d < 2; d++) {
        header(o, pcie[d][0], "counter", pcie[d][1]);
        for (size_t x = 0; f->series.n && x < es->n; x++) {
            size_t g = es->v[x].g;
            if (g >= c->gpus)
                continue;
            gd_value now = gd_series_at(&f->series, f->series.n - 1, g, d ? GD_M_PCIE_RX_KBPS : GD_M_PCIE_TX_KBPS);
            if (gd_ok(now) && !f->gpus[g].lost)
                fprintf(o, "%s{%s} %.10g\n", pcie[d][0], es->v[x].labels, c->pcie_kb[g * 2 + d]);
        }
    }
    nvlink_section(o, f, es);
}

/* Two findings with one label set (a GPU lost twice, a driver that stopped
 * twice: two episodes) are one series: duplicate samples are refused by
 * Prometheus and forbidden by OpenMetrics. With severity: its label too. */
static bool same_series(const gd_finding *a, const gd_finding *b, bool severity)
{
    return a->gpu == b->gpu && strcmp(a->id, b->id) == 0 && (!severity || a->severity == b->severity);
}

/* Whether finding i's series was written by an earlier one (with an impact,
 * where severity is not a label: findings without one write no series). */
static bool seen_before(const gd_findings *fs, size_t i, bool severity)
{
    for (size_t j = 0; j < i; j++)
        if (same_series(&fs->v[i], &fs->v[j], severity) && (severity || !isnan(fs->v[j].impact_pct)))
            return true;
    return false;
}

/* gpudoctor's own metrics take lint-clean snake_case labels (gpu, uuid):
 * within one target they join dcgm-exporter's series on gpu. */
static void own_section(FILE *o, const gd_facts *f, const gd_findings *fs, const gd_prom_counters *c)
{
    header(o, "gpudoctor_finding", "gauge",
           "1 while a finding holds over the judged window (docs/checks.md); the series ends when it clears.");
    for (size_t i = 0; i < fs->n; i++) {
        const gd_finding *x = &fs->v[i];
        if (seen_before(fs, i, true))
            continue;
        char gpu[16] = "";
        if (x->gpu >= 0)
            snprintf(gpu, sizeof gpu, "%d", x->gpu);
        fprintf(o, "gpudoctor_finding{id=\"%s\",severity=\"%s\",gpu=\"%s\"} 1\n", x->id, gd_severity_name(x->severity),
                gpu);
    }
    header(o, "gpudoctor_impact_ratio", "gauge", "Share of the job's speed a finding costs now (0..1), where known.");
    for (size_t i = 0; i < fs->n; i++) {
        const gd_finding *x = &fs->v[i];
        if (isnan(x->impact_pct) || seen_before(fs, i, false))
            continue;
        /* Episodes of one id on one GPU: the largest cost among them. */
        double impact = x->impact_pct;
        for (size_t j = i + 1; j < fs->n; j++)
            if (same_series(x, &fs->v[j], false) && !isnan(fs->v[j].impact_pct) && fs->v[j].impact_pct > impact)
                impact = fs->v[j].impact_pct;
        char gpu[16] = "";
        if (x->gpu >= 0)
            snprintf(gpu, sizeof gpu, "%d", x->gpu);
        fprintf(o, "gpudoctor_impact_ratio{id=\"%s\",gpu=\"%s\"} %.4g\n", x->id, gpu, impact / 100);
    }
    char(*ids)[220] = calloc(f->gpu_count + 1, sizeof *ids);
    for (size_t g = 0; ids && g < f->gpu_count; g++) {
        char uuid[200];
        gd_prom_label_value(uuid, sizeof uuid, f->gpus[g].uuid);
        snprintf(ids[g], sizeof ids[g], "gpu=\"%d\",uuid=\"%s\"", f->gpus[g].index, uuid);
    }
    header(o, "gpudoctor_clock_event_seconds_total", "counter",
           "Seconds each GPU ran with a clock event reason set, by reason, since the exporter started.");
    for (size_t g = 0; ids && c && g < c->gpus && g < f->gpu_count; g++)
        for (size_t k = 0; k < gd_reason_names_count; k++)
            fprintf(o, "gpudoctor_clock_event_seconds_total{%s,reason=\"%s\"} %.6g\n", ids[g], gd_reason_names[k].name,
                    c->event_s[g * gd_reason_names_count + k]);
    header(o, "gpudoctor_gpu_lost", "gauge", "1 once a GPU stopped answering (NVML_ERROR_GPU_IS_LOST and kin).");
    for (size_t g = 0; ids && g < f->gpu_count; g++)
        fprintf(o, "gpudoctor_gpu_lost{%s} %d\n", ids[g], f->gpus[g].lost ? 1 : 0);
    free(ids);
    header(o, "gpudoctor_build_info", "gauge", "The gpudoctor that exports these metrics.");
    fprintf(o, "gpudoctor_build_info{version=\"%s\"} 1\n", GD_VERSION);
}

/* The port (device, port) was exported already: one series per label set,
 * where two sources named the same device. */
static bool port_seen(const gd_net_facts *n, size_t d, size_t k)
{
    const gd_net_dev *x = &n->devs[d];
    for (size_t i = 0; i <= d; i++)
        for (size_t j = 0; j < n->devs[i].port_count && (i < d || j < k); j++)
            if (strcmp(n->devs[i].name, x->name) == 0 && n->devs[i].ports[j].port == x->ports[k].port)
                return true;
    return false;
}

static const char *link_layer_name(gd_link_layer l)
{
    return l == GD_LINK_INFINIBAND ? "InfiniBand" : l == GD_LINK_ETHERNET ? "Ethernet" : "";
}

/* The RDMA NICs' ports beside the GPUs (docs/exporter.md): state, rate and
 * the error counters as last read. Nothing on a node without RDMA NICs. */
static void net_section(FILE *o, const gd_net_facts *n)
{
    if (!n || !n->dev_count)
        return;
    enum { STATE, PHYS, RATE, ERRORS, SERIES };
    static const char *const names[SERIES] = {"gpudoctor_nic_port_state", "gpudoctor_nic_port_phys_state",
                                              "gpudoctor_nic_port_rate_gbps", "gpudoctor_nic_port_errors_total"};
    static const char *const helps[SERIES] = {
        "An RDMA port's logical state (IBTA PortState): 1 Down, 2 Init, 3 Armed, 4 Active, 5 ActiveDefer.",
        "An RDMA port's physical state (IBTA PortPhysicalState): 2 Polling, 3 Disabled, 5 LinkUp, 6 LinkErrorRecovery.",
        "An RDMA port's rate in Gb/s, as sysfs 'rate' says it (400 for 4X NDR).",
        "An RDMA port's error counter as last read (sysfs counters/ and hw_counters/), by counter."};
    for (int m = 0; m < SERIES; m++) {
        header(o, names[m], m == ERRORS ? "counter" : "gauge", helps[m]);
        for (size_t d = 0; d < n->dev_count; d++)
            for (size_t k = 0; k < n->devs[d].port_count; k++) {
                const gd_net_port *p = &n->devs[d].ports[k];
                if (port_seen(n, d, k))
                    continue;
                char dev[80], labels[160];
                gd_prom_label_value(dev, sizeof dev, n->devs[d].name);
                snprintf(labels, sizeof labels, "device=\"%s\",port=\"%d\",link_layer=\"%s\"", dev, p->port,
                         link_layer_name(p->link_layer));
                if (m == STATE && p->state != GD_PORT_STATE_UNKNOWN)
                    fprintf(o, "%s{%s} %d\n", names[m], labels, (int)p->state);
                else if (m == PHYS && p->phys != GD_PORT_PHYS_UNKNOWN)
                    fprintf(o, "%s{%s} %d\n", names[m], labels, (int)p->phys);
                else if (m == RATE && gd_ok(p->rate_gbps))
                    fprintf(o, "%s{%s} %.6g\n", names[m], labels, p->rate_gbps.v);
                for (int c = 0; m == ERRORS && c < GD_PC_COUNT; c++)
                    if (gd_ok(p->counters_last[c]))
                        fprintf(o, "%s{%s,counter=\"%s\"} %.17g\n", names[m], labels,
                                gd_port_counter_name((gd_port_counter)c), p->counters_last[c].v);
            }
    }
}

char *gd_prom_render(const gd_facts *f, const gd_findings *fs, const gd_prom_counters *c, size_t *len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&text, &n);
    entities es = {0};
    if (!o || !build_entities(&es, f, c)) {
        if (o)
            fclose(o);
        free(text);
        free(es.v);
        return NULL;
    }
    dcgm_section(o, f, f->series.n ? f->series.n - 1 : 0, &es);
    dcgm_health_section(o, f, c, &es);
    free(es.v);
    net_section(o, f->net);
    own_section(o, f, fs, c);
    if (fclose(o) != 0) {
        free(text);
        return NULL;
    }
    *len = n;
    return text;
}
