/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `lspci -vvv | grep -i acsctl` -> f->net->acs: the ACSCtl lines alone,
 * one a bridge (or multi-function device) with ACS, without the device
 * line that says which: rows without a bdf. Such a paste says that ACS is
 * on somewhere, not where; a full `lspci -vvv` (lspci.c) says where. Any
 * other line grep kept (ACSCap:, the capability's title) is passed over.
 */
#include "import.h"
#include "net_capture.h"
#include "net_readers.h"

#include <stdio.h>
#include <string.h>

int gd_import_lspci_acs(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    gd_net_read r;
    if (!gd_net_read_start(&r, name, text, len, f, err, errlen))
        return -1;
    gd_net_facts *n = r.n;
    while (gd_net_read_line(&r)) {
        gd_net_acs a;
        memset(&a, 0, sizeof a);
        if (!gd_net_parse_acsctl(r.s, &a))
            continue;
        r.rows++;
        if (n->acs_count == GD_NET_MAX_ACS)
            r.dropped++;
        else
            n->acs[n->acs_count++] = a;
    }
    n->acs_read |= r.rows > 0;
    return gd_net_read_end(&r, name, f, "\"ACSCtl:\"", "lspci -vvv | grep ACSCtl", "ACSCtl lines", n->acs_source,
                           sizeof n->acs_source, err, errlen);
}
