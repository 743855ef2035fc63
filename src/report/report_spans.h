/* SPDX-License-Identifier: Apache-2.0 */
/* The intervals a plot shades: when a GPU's clocks were held back (by the
 * clock event reasons in the series) or its PCIe link ran below its
 * maximum under load. Pure functions of the facts. */
#ifndef GD_REPORT_SPANS_H
#define GD_REPORT_SPANS_H

#include "gpudoctor/model.h"

#include <stddef.h>

typedef struct gd_report_span {
    double t0, t1; /* window seconds: from the first sample in the state to the next sample after it */
    unsigned long long key; /* the reason bits, or gen * 100 + width of the link */
    char label[128]; /* "sw_thermal_slowdown, hw_thermal_slowdown", "PCIe Gen1 x16 (max Gen5 x16)" */
    int cls; /* a colour for the label: 0..7 */
} gd_report_span;

/*
 * Runs of samples of GPU g with the same clock event reasons (gpu_idle left
 * out: an idle GPU lowers its clocks on purpose). A run that starts less
 * than merge_s after the end of the previous one with the same reasons
 * joins it, so a flapping reason is one band, not hundreds. Returns the
 * spans written (at most cap).
 */
size_t gd_reason_spans(const gd_facts *f, size_t g, double merge_s, gd_report_span *out, size_t cap);

/* Runs of loaded samples of GPU g whose PCIe generation or width was below
 * its maximum (gd_gpu.pcie_gen_max, pcie_width_max), merged the same way. */
size_t gd_pcie_spans(const gd_facts *f, size_t g, double merge_s, gd_report_span *out, size_t cap);

#endif
