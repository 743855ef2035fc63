/* SPDX-License-Identifier: Apache-2.0 */
/* One layout for a finding in every text report (check, run, bench,
 * trace, fleet): docs/interface.md, "One vocabulary".
 *
 *     SEVERITY WHERE  ID
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
} gd_text_finding_how;

/* One finding in the layout above; how NULL: check's defaults. */
void gd_text_finding(FILE *out, const gd_text_style *st, const gd_finding *x, const gd_text_finding_how *how);

/* Every finding that is not ignored, one cause on several GPUs as one block
 * (text_group.h), in the layout above. */
void gd_text_findings(FILE *out, const gd_text_style *st, const gd_findings *fs, const gd_text_finding_how *how);

#endif
