/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ibstat (infiniband-diags) -> f->net: one "CA 'mlx5_0'" block a device
 * (CA type, firmware), one "Port N:" block a port (State, Physical state,
 * Rate, Link layer). Lids, GUIDs and the capability mask are not read:
 * nothing judges them. A paste cut inside a block keeps what it shows.
 */
#include "import.h"
#include "net_capture.h"
#include "net_readers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "CA 'mlx5_0'" -> mlx5_0; false for any other line. */
bool gd_ibstat_ca_line(const char *line, char *name, size_t cap)
{
    if (strncmp(line, "CA '", 4) != 0)
        return false;
    const char *q = strchr(line + 4, '\'');
    if (!q || q == line + 4 || q[1] != '\0')
        return false;
    size_t n = (size_t)(q - (line + 4));
    snprintf(name, cap, "%.*s", (int)(n < cap ? n : cap - 1), line + 4);
    return true;
}

/* "Port 1:" -> 1; 0 for any other line. */
static int port_line(const char *s)
{
    int port = 0, used = 0;
    if (sscanf(s, "Port %d:%n", &port, &used) == 1 && used > 0 && s[used] == '\0')
        return port;
    return 0;
}

/* The value after "Key:" when s starts with it, else NULL. */
int gd_import_ibstat(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    gd_net_read r;
    if (!gd_net_read_start(&r, name, text, len, f, err, errlen))
        return -1;
    char ca[GD_NET_NAME];
    gd_net_dev *d = NULL;
    gd_net_port *p = NULL;
    while (gd_net_read_line(&r)) {
        const char *s = r.s, *v;
        int port;
        if (gd_ibstat_ca_line(s, ca, sizeof ca)) {
            r.rows++;
            d = gd_net_read_dev(&r, ca);
            r.dropped += d == NULL;
            p = NULL;
        } else if (!d) {
            continue;
        } else if ((port = port_line(s)) > 0) {
            p = gd_net_capture_port(d, port);
        } else if ((v = gd_net_value_of(s, "CA type"))) {
            snprintf(d->ca_type, sizeof d->ca_type, "%s", v);
        } else if ((v = gd_net_value_of(s, "Firmware version"))) {
            snprintf(d->firmware, sizeof d->firmware, "%s", v);
        } else if (!p) {
            continue;
        } else if ((v = gd_net_value_of(s, "State"))) {
            p->state = gd_net_parse_state(v);
        } else if ((v = gd_net_value_of(s, "Physical state"))) {
            p->phys = gd_net_parse_phys(v);
        } else if ((v = gd_net_value_of(s, "Rate"))) {
            gd_net_parse_rate(p, v);
        } else if ((v = gd_net_value_of(s, "Link layer"))) {
            p->link_layer = gd_net_parse_link_layer(v);
        }
    }
    r.n->devices_read |= r.rows > 0;
    return gd_net_read_end(&r, name, f, "\"CA 'NAME'\"", "ibstat", "CA blocks", r.n->source, sizeof r.n->source, err,
                           errlen);
}
