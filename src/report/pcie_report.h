/* SPDX-License-Identifier: Apache-2.0 */
/* Renderers of `gpudoctor topo` and `gpudoctor bench pcie`. They never probe. */
#ifndef GD_PCIE_REPORT_H
#define GD_PCIE_REPORT_H

#include "gpudoctor/findings.h"
#include "gpudoctor/model.h"
#include "gpudoctor/report.h"

#include <jansson.h>
#include <stdio.h>

/* The topology: matrix with nvidia-smi's legend, NUMA placement, NICs, paths. */
json_t *gd_topo_json(const gd_facts *f);
/* Fits st->width: the matrices in blocks of the GPUs' columns that fit, the
 * placement (CPU and NUMA affinity, bus id) as a table of its own. */
void gd_topo_text(FILE *out, const gd_facts *f, const gd_text_style *st);

/* bench pcie results (f->pcie->bench) with the findings about them
 * (docs/pcie.md describes the JSON). */
json_t *gd_bench_pcie_json(const gd_facts *f, const gd_findings *fs);
void gd_bench_pcie_text(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_text_style *st);

/* bench pcie's tables and legend alone (bench all's first part). */
void gd_bench_pcie_tables_text(FILE *out, const gd_facts *f, const gd_text_style *st);

/* The findings of a bench run, after every table: "Findings, by cause" in
 * check's layout (text_finding.h), each cause's fix with it. */
void gd_bench_findings_text(FILE *out, const gd_findings *fs, const gd_text_style *st);

/* What a bench report opens with: check's first line ("gpudoctor VERSION
 * bench WHAT", SIMULATION ...) and the verdict on what was measured,
 * counting causes; for `bench all`, whose tables are long, the causes
 * ranked with what to do under it (the answer first). */
void gd_bench_verdict_text(FILE *out, const gd_facts *f, const gd_findings *fs, const char *what,
                           const gd_text_style *st);

/* The findings by cause after bench all's tables, each marked with its
 * cause's rank (the answer above said the fixes). */
void gd_bench_details_text(FILE *out, const gd_findings *fs, const gd_text_style *st);

/* Sets root's "findings" and "not_checked" as the check report writes them
 * (every bench JSON ends with them). */
void gd_bench_add_findings(json_t *root, const gd_facts *f, const gd_findings *fs);

#endif
