/* SPDX-License-Identifier: Apache-2.0 */
/* The causes of a report in text (checks/causes.h): the verdict's count,
 * the ranked list with what to do under the verdict, and the evidence of
 * each cause with its symptoms nested under it. */
#ifndef GD_TEXT_CAUSES_H
#define GD_TEXT_CAUSES_H

#include "checks/causes.h"
#include "gpudoctor/report.h"

/* "1 cause, on 8 GPUs", "3 causes (1 critical, 2 warnings), on GPUs 2,5",
 * "1 cause, host-wide": the causes of warning and critical severity. */
void gd_causes_phrase(const gd_findings *fs, const gd_grouped_causes *c, char *buf, size_t len);

/* The ranked list: each cause's rank, severity, where, ids, headline, the
 * symptoms it explains and its fix (said once for all its GPUs); the
 * warning and critical ones, and with `info` the info ones after them. */
void gd_text_causes_list(FILE *out, const gd_text_style *st, const gd_findings *fs, const gd_grouped_causes *c,
                         bool info);

/* Each cause's findings with their evidence, the symptoms under their
 * cause; fixes only where they differ from the cause's (the list said it).
 * ranks: mark each block with its cause's rank in that list. */
void gd_text_causes_details(FILE *out, const gd_text_style *st, const gd_findings *fs, const gd_grouped_causes *c,
                            bool series, bool ranks);

#endif
