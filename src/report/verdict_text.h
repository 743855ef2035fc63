/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict line every judging command opens with (docs/interface.md,
 * "One vocabulary"): "Verdict: WORD - what it rests on". */
#ifndef GD_VERDICT_TEXT_H
#define GD_VERDICT_TEXT_H

#include "gpudoctor/report.h"

#include <stdbool.h>
#include <stddef.h>

/* The word of findings that count (not ignored): "CRITICAL", "WARNING",
 * else "OK" where something was judged, "NOT CHECKED" where nothing was. */
const char *gd_verdict_word(const gd_findings *fs, bool judged);

/* "1 critical, 0 warnings, 2 info" (", 1 ignored" when some are). */
void gd_verdict_counts(const gd_findings *fs, char *buf, size_t len);

/* "Verdict: WORD - rest", the word coloured by its severity, wrapped under
 * the word's end. */
void gd_text_verdict_line(FILE *out, const gd_text_style *st, const char *word, const char *rest);

#endif
