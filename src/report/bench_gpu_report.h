/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Renderers of `gpudoctor bench gemm`, `bench membw`, `bench stress` and
 * `bench all` (docs/bench.md describes the JSON). They never probe.
 */
#ifndef GD_BENCH_GPU_REPORT_H
#define GD_BENCH_GPU_REPORT_H

#include "gpudoctor/bench.h"
#include "gpudoctor/findings.h"
#include "gpudoctor/model.h"
#include "text_util.h"

#include <jansson.h>
#include <stdio.h>

/* what: "gemm", "membw", "stress" or "all" (pcie results nested when f has them). */
json_t *gd_bench_gpu_json(const gd_facts *f, const gd_findings *fs, const char *what);
void gd_bench_gpu_text(FILE *out, const gd_facts *f, const gd_findings *fs, const char *what, const gd_text_style *st);

/* bench p2p's part of the report (bench_p2p_report.c): f->bench->p2p is set. */
json_t *gd_bench_p2p_json(const gd_facts *f);
void gd_bench_p2p_text(FILE *out, const gd_facts *f, const gd_text_style *st);

/* bench stress as it goes: t of total seconds, then each GPU's throughput
 * in its last interval, temperature and SM clock at the last sample of
 * window, as many GPUs a line as st->width holds. */
void gd_bench_stress_progress_text(FILE *out, const gd_facts *window, const gd_bench_facts *b, double t, double total,
                                   const gd_text_style *st);

#endif
