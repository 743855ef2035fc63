/* SPDX-License-Identifier: Apache-2.0 */
/* One layout for a finding in every text report (check, run, bench,
 * trace, fleet): docs/interface.md, "One vocabulary"; the findings of a
 * report grouped by cause, each cause's symptoms under it (checks/causes.h).
 *
 *     SEVERITY WHERE  ID  (cause 1)
 *         TITLE
 *         evidence key=value ...
 *         source   ...
 *         timeline ...
 *         impact   ~N% of ...
 *         fix      ...
 */
#ifndef GD_TEXT_FINDING_H
#define GD_TEXT_FINDING_H

#include "gpudoctor/report.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct gd_text_finding_how {
    bool series; /* the report covers a window: a finding's timeline is told */
    /* Where the finding is ("GPU 3", "host" when NULL; "rank 0", a node). */
    void (*where)(const gd_finding *x, char *buf, size_t len);
    const char *at; /* or where, said by the caller (a node and its GPUs) */
    /* The impact line's text ("~29% of training throughput" when NULL). */
    void (*impact)(const gd_finding *x, char *buf, size_t len);
    const char *const *hide; /* evidence keys not shown (NULL-terminated), or NULL */
    const char *mark; /* after the id ("  (cause 1)", "  (symptom of cause 1)"), or NULL */
    bool no_fix; /* the fix was said with its cause: not again */
    /* gd_text_findings: the causes were ranked above with their fixes (each
     * block says its cause's rank and leaves out a fix said there). */
    bool ranked;
    /* gd_text_findings: whether a list above said x's fix (said_ud its
     * argument), or NULL. */
    bool (*said)(const gd_finding *x, const void *ud);
    const void *said_ud;
} gd_text_finding_how;

/* One finding in the layout above; how NULL: check's defaults. */
void gd_text_finding(FILE *out, const gd_text_style *st, const gd_finding *x, const gd_text_finding_how *how);

/* "host", "GPU 2", "GPUs 0-3": where a finding is (a pair's on both its GPUs). */
void gd_text_finding_where(const gd_finding *x, char *buf, size_t len);

/* Every finding that is not ignored, by cause (checks/causes.h): each
 * cause's findings, one cause on several GPUs as one block (text_group.h),
 * then the symptoms it explains, in the layout above. A caller that says
 * where (how->where, how->at) gets its findings alone, one block each. */
void gd_text_findings(FILE *out, const gd_text_style *st, const gd_findings *fs, const gd_text_finding_how *how);

#endif
