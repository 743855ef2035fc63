/* SPDX-License-Identifier: Apache-2.0 */
/* Renderers of the training memory plan (`gpudoctor vram`). They never probe. */
#ifndef GD_VRAM_REPORT_H
#define GD_VRAM_REPORT_H

#include "analysis/vram_plan.h"
#include "gpudoctor/report.h"

#include <jansson.h>
#include <stdio.h>

/* The plan as JSON (docs/vram.md (bytes per GPU), plus a few added keys.
 * Caller owns the result; NULL when out of memory. */
json_t *gd_vram_report_json(const gd_vram_plan *p);

/* The human answer: the breakdown, the verdict, the largest micro-batch,
 * the ranked changes. */
void gd_vram_report_text(FILE *out, const gd_vram_plan *p, const gd_text_style *st);

#endif
