/* SPDX-License-Identifier: Apache-2.0 */
/* Fixes that fit where they are read and how bad the finding is: a check
 * keeps its fix texts in a small table of cases and picks the first that
 * fits (docs/checks.md, "A fix fits where it is read"). */
#include "checks_internal.h"

unsigned gd_where_bits(const gd_facts *f, const gd_findings *out)
{
    unsigned bits = GD_AT_BIT(out->where);
    if (f->pid >= 0)
        bits |= GD_AT_JOB;
    if (f->captured)
        bits |= GD_AT_CAPTURE;
    return bits;
}

const char *gd_fix_pick(const gd_fix_case *cases, size_t n, const gd_facts *f, const gd_findings *out, gd_severity sev)
{
    unsigned at = gd_where_bits(f, out);
    for (size_t i = 0; i < n; i++) {
        const gd_fix_case *c = &cases[i];
        if ((c->at == GD_AT_ANY || (c->at & at)) && (c->severities == 0 || (c->severities & (1u << sev))))
            return c->text;
    }
    return NULL;
}
