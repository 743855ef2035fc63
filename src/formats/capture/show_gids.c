/* SPDX-License-Identifier: Apache-2.0 */
/*
 * show_gids (Mellanox OFED) -> f->net: "DEV PORT INDEX GID IPv4 VER DEV"
 * rows into each port's GID table: the index, the GID, its IPv4 (empty for
 * a link-local GID), "v1" or "v2" as the script writes it (it prints "v1"
 * for anything that is not RoCE v2, IB's GIDs included) and the netdev.
 * The closing "n_gids_found=19" is passed over.
 */
#include "import.h"
#include "net_capture.h"
#include "net_readers.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool gd_show_gids_header(const char *line)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", line);
    static const char *const want[] = {"DEV", "PORT", "INDEX", "GID"};
    char *save = NULL, *t = strtok_r(buf, " ", &save);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++, t = strtok_r(NULL, " ", &save))
        if (!t || strcmp(t, want[i]) != 0)
            return false;
    return true;
}

static bool all_digits(const char *s)
{
    return *s && strspn(s, "0123456789") == strlen(s);
}

/* One row: DEV PORT INDEX GID [IPv4] VER [NETDEV]. */
static bool row(char *s, char *dev, size_t cap, int *port, gd_net_gid *g)
{
    char *tok[8], *save = NULL;
    size_t n = 0;
    for (char *t = strtok_r(s, " ", &save); t && n < 8; t = strtok_r(NULL, " ", &save))
        tok[n++] = t;
    if (n < 5 || !all_digits(tok[1]) || !all_digits(tok[2]) || !strchr(tok[3], ':'))
        return false;
    memset(g, 0, sizeof *g);
    snprintf(dev, cap, "%s", tok[0]);
    *port = atoi(tok[1]);
    g->index = atoi(tok[2]);
    snprintf(g->gid, sizeof g->gid, "%s", tok[3]);
    size_t at = 4;
    if (strchr(tok[at], '.'))
        snprintf(g->ipv4, sizeof g->ipv4, "%s", tok[at++]);
    if (at >= n || tok[at][0] != 'v')
        return false;
    snprintf(g->type, sizeof g->type, "%s", tok[at++]);
    if (at < n)
        snprintf(g->netdev, sizeof g->netdev, "%s", tok[at]);
    return true;
}

int gd_import_show_gids(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    gd_net_read r;
    if (!gd_net_read_start(&r, name, text, len, f, err, errlen))
        return -1;
    char dev[GD_NET_NAME];
    bool header = false;
    while (gd_net_read_line(&r)) {
        if (gd_show_gids_header(r.s)) {
            header = true;
            r.rows += r.rows == 0; /* the header alone: a port without GIDs is a fact */
            continue;
        }
        gd_net_gid g;
        int port = 0;
        char copy[sizeof r.line];
        snprintf(copy, sizeof copy, "%s", r.s);
        if (!header || !row(copy, dev, sizeof dev, &port, &g))
            continue;
        gd_net_dev *d = gd_net_read_dev(&r, dev);
        gd_net_port *p = d ? gd_net_capture_port(d, port) : NULL;
        if (!p || !gd_net_capture_gid(p, &g))
            r.dropped++;
    }
    return gd_net_read_end(&r, name, f, "\"DEV PORT INDEX GID ...\" header", "show_gids", "GID rows", r.n->source,
                           sizeof r.n->source, err, errlen);
}
