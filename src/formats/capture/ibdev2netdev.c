/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ibdev2netdev (Mellanox OFED) -> f->net: "mlx5_0 port 1 ==> ibp26s0
 * (Down)" gives the netdev behind a port and THAT NETDEV's state, not the
 * port's: on a pure InfiniBand port the netdev is IPoIB's, Down whenever
 * IPoIB is not configured, while the port itself is Active and carries
 * NCCL's traffic. The port's state stays unread unless -v says it
 * ("0000:1a:00.0 mlx5_0 (MT4123 - ...) ... fw 20.31.1014 port 1 (ACTIVE)
 * ==> ib0 (Up)"), which also gives the PCI function and firmware. A
 * comment after the line ("# CX-7 1/8") is passed over.
 */
#include "import.h"
#include "net_capture.h"
#include "net_readers.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 48

static size_t tokens(char *s, char **tok, size_t cap)
{
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(s, " ", &save); t && n < cap; t = strtok_r(NULL, " ", &save))
        tok[n++] = t;
    return n;
}

/* "0000:1a:00.0" or "1a:00.0". */
static bool is_bdf(const char *s)
{
    unsigned a, b, c, d;
    int used = 0;
    return (sscanf(s, "%x:%x:%x.%x%n", &a, &b, &c, &d, &used) == 4 && s[used] == '\0') ||
           (sscanf(s, "%x:%x.%x%n", &a, &b, &c, &used) == 3 && s[used] == '\0');
}

bool gd_ibdev2netdev_line(const char *line, gd_ibdev2netdev_row *r)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", line);
    char *hash = strstr(buf, " #");
    if (hash)
        *hash = '\0';
    char *tok[MAX_TOKENS];
    size_t n = tokens(buf, tok, MAX_TOKENS), arrow = 0, port_at = 0;
    for (size_t i = 0; i < n && !arrow; i++)
        if (strcmp(tok[i], "==>") == 0)
            arrow = i;
    for (size_t i = 0; i + 1 < arrow && !port_at; i++)
        if (strcmp(tok[i], "port") == 0 && isdigit((unsigned char)tok[i + 1][0]))
            port_at = i;
    if (arrow == 0 || port_at == 0 || arrow + 1 >= n)
        return false;
    memset(r, 0, sizeof *r);
    r->state = GD_PORT_STATE_UNKNOWN;
    size_t name_at = is_bdf(tok[0]) && port_at > 1 ? 1 : 0;
    if (name_at)
        snprintf(r->bdf, sizeof r->bdf, "%s", tok[0]);
    snprintf(r->dev, sizeof r->dev, "%s", tok[name_at]);
    r->port = atoi(tok[port_at + 1]);
    if (port_at + 2 < arrow && tok[port_at + 2][0] == '(')
        r->state = gd_net_parse_state(tok[port_at + 2]);
    for (size_t i = name_at + 1; i + 1 < port_at; i++)
        if (strcmp(tok[i], "fw") == 0)
            snprintf(r->firmware, sizeof r->firmware, "%s", tok[i + 1]);
    snprintf(r->netdev, sizeof r->netdev, "%s", tok[arrow + 1]);
    r->netdev_up = -1;
    if (arrow + 2 < n) {
        const char *st = tok[arrow + 2];
        r->netdev_up = strcmp(st, "(Up)") == 0 ? 1 : strcmp(st, "(Down)") == 0 ? 0 : -1;
    }
    return r->port > 0 && r->dev[0];
}

/* The PCI function as the model writes it: "0000:1a:00.0", lower case. */
static void set_bdf(gd_net_dev *d, const char *bdf)
{
    char full[40];
    size_t k = 0;
    snprintf(full, sizeof full, "%s%s", strlen(bdf) < 12 ? "0000:" : "", bdf);
    for (; full[k]; k++)
        full[k] = (char)tolower((unsigned char)full[k]);
    snprintf(d->bdf, sizeof d->bdf, "%.15s", full);
}

int gd_import_ibdev2netdev(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    gd_net_read r;
    if (!gd_net_read_start(&r, name, text, len, f, err, errlen))
        return -1;
    while (gd_net_read_line(&r)) {
        gd_ibdev2netdev_row row;
        if (!gd_ibdev2netdev_line(r.s, &row))
            continue;
        r.rows++;
        gd_net_dev *d = gd_net_read_dev(&r, row.dev);
        gd_net_port *p = d ? gd_net_capture_port(d, row.port) : NULL;
        if (!p) {
            r.dropped++;
            continue;
        }
        snprintf(p->netdev, sizeof p->netdev, "%s", row.netdev);
        p->netdev_up = row.netdev_up;
        if (row.state != GD_PORT_STATE_UNKNOWN)
            p->state = row.state;
        if (row.bdf[0])
            set_bdf(d, row.bdf);
        if (row.firmware[0])
            snprintf(d->firmware, sizeof d->firmware, "%s", row.firmware);
    }
    r.n->devices_read |= r.rows > 0;
    return gd_net_read_end(&r, name, f, "\"DEV port N ==> NETDEV (Up|Down)\"", "ibdev2netdev", "lines", r.n->source,
                           sizeof r.n->source, err, errlen);
}
