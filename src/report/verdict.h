/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict of a check report, one sentence that the text and the HTML
 * page both say (docs/interface.md, "The verdict"). */
#ifndef GD_REPORT_VERDICT_H
#define GD_REPORT_VERDICT_H

#include "checks/causes.h"
#include "gpudoctor/model.h"

#include <stddef.h>

/*
 * The verdict's word ("OK", "WARNING", "CRITICAL", "NOT CHECKED") and the
 * rest of its line into rest: "- 1 cause, on 8 GPUs"; "on what could be
 * judged; GPUs idle: PCIe links, clocks and throttling need load (...)";
 * "- nothing of the GPUs' own state could be judged: ..."; then "; 2 info"
 * and ", 1 ignored" where there are.
 */
const char *gd_report_verdict(const gd_facts *f, const gd_findings *fs, const gd_grouped_causes *c, char *rest,
                              size_t len);

#endif
