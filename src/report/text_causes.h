/* SPDX-License-Identifier: Apache-2.0 */
/* The causes of a report in text (checks/causes.h): the verdict's count,
 * the ranked list with what to do under the verdict, and the evidence of
 * each cause with its symptoms nested under it. */
#ifndef GD_TEXT_CAUSES_H
#define GD_TEXT_CAUSES_H

#include "checks/causes.h"
#include "gpudoctor/report.h"
#include "text_finding.h"

/* "1 cause, on 8 GPUs", "3 causes (1 critical, 2 warnings), on GPUs 2,5",
 * "1 cause, host-wide": the causes of warning and critical severity. */
void gd_causes_phrase(const gd_findings *fs, const gd_grouped_causes *c, char *buf, size_t len);

/* The ranked list: each cause's rank, severity, where, ids, headline, the
 * symptoms it explains and its fix (said once for all its GPUs); the
 * warning and critical ones, and with `info` the info ones after them. */
void gd_text_causes_list(FILE *out, const gd_text_style *st, const gd_findings *fs, const gd_grouped_causes *c,
                         bool info);

/* "Findings, by cause": gd_text_findings (text_finding.h) under its head,
 * for the causes c of fs already grouped; how->ranked: the list above said
 * the causes' fixes, each block marks its cause's rank. */
void gd_text_causes_details(FILE *out, const gd_text_style *st, const gd_findings *fs, const gd_grouped_causes *c,
                            const gd_text_finding_how *how);

#endif
