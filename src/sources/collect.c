/* SPDX-License-Identifier: Apache-2.0 */
/* gd_collect: a whole session in one call (info, topo, vram, bench). */
#include "collect.h"

#include <stdio.h>

int gd_collect(const gd_collect_opts *o, gd_facts *f, char *err, size_t errlen)
{
    gd_session *s = gd_session_open(o, f, err, errlen);
    if (!s)
        return -1;
    int rc;
    while ((rc = gd_session_step(s, err, errlen)) > 0)
        ;
    if (rc < 0) {
        gd_session_close(s, NULL, 0);
        return -1;
    }
    return gd_session_close(s, err, errlen);
}
