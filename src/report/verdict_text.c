/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict line (verdict_text.h). */
#include "verdict_text.h"
#include "text_util.h"

#include <stdio.h>
#include <string.h>

const char *gd_verdict_word(const gd_findings *fs, bool judged)
{
    return gd_findings_count(fs, GD_SEV_CRITICAL)  ? "CRITICAL"
           : gd_findings_count(fs, GD_SEV_WARNING) ? "WARNING"
           : judged                                ? "OK"
                                                   : "NOT CHECKED";
}

void gd_verdict_counts(const gd_findings *fs, char *buf, size_t len)
{
    size_t c = gd_findings_count(fs, GD_SEV_CRITICAL), w = gd_findings_count(fs, GD_SEV_WARNING),
           i = gd_findings_count(fs, GD_SEV_INFO), ig = gd_findings_ignored(fs);
    int n = snprintf(buf, len, "%zu critical, %zu warning%s, %zu info", c, w, w == 1 ? "" : "s", i);
    if (ig && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ", %zu ignored", ig);
}

void gd_text_verdict_line(FILE *out, const gd_text_style *st, const char *word, const char *rest)
{
    const char *col = strcmp(word, "CRITICAL") == 0 ? GD_ANSI_RED
                      : strcmp(word, "OK") == 0     ? GD_ANSI_GREEN
                                                    : GD_ANSI_YELLOW;
    fprintf(out, "%sVerdict: %s%s - ", gd_c(st, col), word, gd_c(st, GD_ANSI_RESET));
    gd_wrap(out, st, 4, (int)(strlen("Verdict: ") + strlen(word) + 3), rest);
}
