/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Prometheus text exposition (format 0.0.4) of a session's newest
 * sample: dcgm-exporter's metric names and labels for what both measure
 * (docs/exporter.md has the mapping), and gpudoctor's own: the findings that
 * hold over the judged window, their impact, clock-event seconds per
 * reason, lost GPUs, build info.
 */
#ifndef GD_REPORT_PROM_REPORT_H
#define GD_REPORT_PROM_REPORT_H

#include "gpudoctor/findings.h"
#include "gpudoctor/model.h"
#include "gpudoctor/workload.h"

#include <stddef.h>

/* A GPU's job as dcgm-exporter labels it from the kubelet's pod-resources
 * (Kubernetes): pod, namespace, container; pod "" when no pod holds it. */
typedef struct gd_prom_pod {
    char pod[254], namespace_[254], container[254];
} gd_prom_pod;
#define GD_PROM_POD_SLOTS (1 + GD_MAX_MIG_DEVICES)

/* Counters that outlive the bounded series: seconds each GPU spent with
 * each clock event reason set, accumulated sample by sample. */
typedef struct gd_prom_counters {
    size_t gpus;
    double *event_s; /* [gpus][gd_reason_names_count] */
    double *pcie_kb; /* [gpus][2]: KB sent and received (NVML's throughput times the time between samples) */
    double last_t; /* time of the last sample accounted; NAN before the first */
    const char *hostname; /* the Hostname label (NODE_NAME where set); NULL: the host's own name */
    /* Slurm job ids by GPU (or GPU instance), or NULL: dcgm-exporter's
     * hpc_job label; each id gives its own copy of the GPU's series. */
    const gd_gpu_jobs *jobs;
    size_t job_count;
    /* [gpus * GD_PROM_POD_SLOTS]: each GPU's pod labels (slot 0), then its
     * MIG devices' (slot 1 + m, matched by their MIG UUID); NULL: none. */
    const gd_prom_pod *pods;
} gd_prom_counters;

/* 0, or -1 (no memory). */
int gd_prom_counters_init(gd_prom_counters *c, size_t gpus);
/* Adds sample i of f: each reason set in it counts the time since the
 * previous sample accounted (the first sample counts nothing). */
void gd_prom_counters_add(gd_prom_counters *c, const gd_facts *f, size_t i);
void gd_prom_counters_free(gd_prom_counters *c);

/* Series of a MIG-enabled GPU are given once per MIG device (GPU instance),
 * with its GPU_I_PROFILE and GPU_I_ID labels: its memory is the instance's,
 * the GPU's other readings repeat, as dcgm-exporter gives them. */

/* The exposition of f's newest sample, the findings fs (judged over the
 * window the exporter chose) and the counters (may be NULL): a malloc'd,
 * NUL-terminated text of *len bytes, or NULL (no memory). */
char *gd_prom_render(const gd_facts *f, const gd_findings *fs, const gd_prom_counters *c, size_t *len);

/* The JSON health document of the exporter's /health: {"healthy",
 * "status" (ok, warning, critical), "summary", "findings" (as in check's
 * JSON report), "events" (the session's health events with their
 * wall-clock time)}: a malloc'd text of *len bytes, or NULL (no memory). */
char *gd_health_json(const gd_facts *f, const gd_findings *fs, size_t *len);

/* Writes s as a Prometheus label value (backslash, double quote and newline
 * escaped) into buf; the text is cut at len - 1 bytes, never mid-escape. */
void gd_prom_label_value(char *buf, size_t len, const char *s);

#endif
