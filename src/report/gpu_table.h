/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One line per GPU, nvidia-smi's table in fewer columns: what `info` shows
 * first and `check` shows under its verdict.
 */
#ifndef GD_REPORT_GPU_TABLE_H
#define GD_REPORT_GPU_TABLE_H

#include "gpudoctor/model.h"
#include "gpudoctor/report.h"

#include <stdio.h>

/* The table of f's GPUs over samples [from, f->series.n): each reading the
 * median of those samples (one sample: its value), "-" where not reported.
 * Fits st->width (80 when unset); a wider terminal gets longer names. */
void gd_gpu_table(FILE *out, const gd_facts *f, size_t from, const gd_text_style *st);

/* The table's readings of GPU g over samples [from, n) as JSON, each under
 * its metric's name (temp_c, power_w, sm_clock_mhz, mem_used_mib,
 * util_gpu_pct; null where no sample has it): the JSON report's
 * gpus[].window.median, so text and JSON show the same statistic. */
json_t *gd_gpu_table_median_json(const gd_facts *f, size_t g, size_t from);

/* "520/700", "520", "-/700" or "-": a reading and its ceiling (as the
 * table and watch's view write them). */
const char *gd_reading_pair(gd_value x, gd_value y, char *buf, size_t len);

#endif
