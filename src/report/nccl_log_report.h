/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON report's "nccl_log" object: what NCCL's own log said it chose. */
#ifndef GD_NCCL_LOG_REPORT_H
#define GD_NCCL_LOG_REPORT_H

#include "gpudoctor/model.h"

#include <jansson.h>

/* The object (docs/interface.md), or NULL when no NCCL log was read. */
json_t *gd_report_nccl_log_json(const gd_facts *f);

#endif
