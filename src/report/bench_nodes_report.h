/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `bench nccl --nodes`' part of the bench report (docs/bench.md, "Across
 * nodes"): the ring across nodes against its expectation, every rank's
 * view, and the node pairs. Renders, never probes.
 */
#ifndef GD_BENCH_NODES_REPORT_H
#define GD_BENCH_NODES_REPORT_H

#include "gpudoctor/model.h"
#include "text_util.h"

#include <jansson.h>
#include <stdio.h>

/* The "nodes" object of the bench JSON, NULL when --nodes did not run. */
json_t *gd_bench_nodes_json(const gd_facts *f);
/* Its text section; nothing when it did not run. */
void gd_bench_nodes_text(FILE *out, const gd_facts *f, const gd_text_style *st);
/* Its section of the HTML page (every rank's view, the pairs); nothing when it did not run. */
void gd_html_bench_nodes(FILE *out, const gd_facts *f);

#endif
