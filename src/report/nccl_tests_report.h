/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nccl-tests tables read by --from, in the report: the text section under
 * the verdict (what each table says, in a few lines) and the JSON report's
 * "nccl_tests" array (docs/interface.md). Nothing when no table was read.
 */
#ifndef GD_REPORT_NCCL_TESTS_REPORT_H
#define GD_REPORT_NCCL_TESTS_REPORT_H

#include "gpudoctor/model.h"
#include "gpudoctor/report.h"

#include <jansson.h>
#include <stdio.h>

/* The "nccl_tests" array, or NULL when no table was read. */
json_t *gd_nccl_tests_json(const gd_facts *f);
void gd_nccl_tests_text(FILE *out, const gd_facts *f, const gd_text_style *st);

#endif
