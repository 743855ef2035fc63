/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `gpudoctor bench nccl`'s part of the bench report (docs/bench.md): the
 * sweep of both collectives, the peak bus bandwidth against what the
 * topology allows, the data check. Renders, never probes.
 */
#ifndef GD_BENCH_NCCL_REPORT_H
#define GD_BENCH_NCCL_REPORT_H

#include "gpudoctor/bench.h"
#include "gpudoctor/model.h"
#include "text_util.h"

#include <jansson.h>
#include <stdio.h>

/* The "nccl" object of the bench JSON, NULL when bench nccl did not run. */
json_t *gd_bench_nccl_json(const gd_facts *f);
/* One collective's sweep: {"peak_busbw_gbps", "points": [...]}. */
json_t *gd_bench_nccl_sweep_json(const gd_nccl_bench *n, gd_nccl_coll c);
/* "ok", "wrong", "not_checked". */
const char *gd_bench_verdict_name(gd_bench_verdict v);
/* The NCCL section of the text report; nothing when it did not run. */
void gd_bench_nccl_text(FILE *out, const gd_facts *f, const gd_text_style *st);

#endif
