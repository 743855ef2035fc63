/* SPDX-License-Identifier: Apache-2.0 */
/* What `check` covered, by the registry's groups (software stack,
 * configuration, health, thermal, ...), with each group's outcome. */
#ifndef GD_REPORT_CHECKED_H
#define GD_REPORT_CHECKED_H

#include "gpudoctor/report.h"

/* The text report's "Checked" section. */
void gd_report_checked_text(FILE *out, const gd_facts *f, const gd_findings *fs, const gd_text_style *st);

/* The JSON report's "checked" array (caller owns it). */
json_t *gd_report_checked_json(const gd_facts *f, const gd_findings *fs);

#endif
