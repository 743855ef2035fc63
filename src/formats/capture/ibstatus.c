/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ibstatus (infiniband-diags) -> f->net: one "Infiniband device 'mlx5_0'
 * port 1 status:" block a port, with its state ("4: ACTIVE"), phys state
 * ("5: LinkUp"), rate ("200 Gb/sec (4X HDR)"), link_layer and default GID
 * (kept as GID index 0, its type not said). Lids are not read.
 */
#include "import.h"
#include "net_capture.h"
#include "net_readers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool gd_ibstatus_head(const char *line, char *dev, size_t cap, int *port)
{
    static const char head[] = "Infiniband device '";
    if (strncmp(line, head, sizeof head - 1) != 0)
        return false;
    const char *name = line + sizeof head - 1, *q = strchr(name, '\'');
    int used = 0;
    if (!q || q == name || sscanf(q + 1, " port %d status:%n", port, &used) != 1 || used == 0 || q[1 + used] != '\0')
        return false;
    size_t n = (size_t)(q - name);
    snprintf(dev, cap, "%.*s", (int)(n < cap ? n : cap - 1), name);
    return true;
}

int gd_import_ibstatus(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    gd_net_read r;
    if (!gd_net_read_start(&r, name, text, len, f, err, errlen))
        return -1;
    char dev[GD_NET_NAME];
    gd_net_port *p = NULL;
    while (gd_net_read_line(&r)) {
        const char *s = r.s, *v;
        int port = 0;
        if (gd_ibstatus_head(s, dev, sizeof dev, &port)) {
            r.rows++;
            gd_net_dev *d = gd_net_read_dev(&r, dev);
            p = d ? gd_net_capture_port(d, port) : NULL;
            r.dropped += p == NULL;
        } else if (!p) {
            continue;
        } else if ((v = gd_net_value_of(s, "state"))) {
            p->state = gd_net_parse_state(v);
        } else if ((v = gd_net_value_of(s, "phys state"))) {
            p->phys = gd_net_parse_phys(v);
        } else if ((v = gd_net_value_of(s, "rate"))) {
            gd_net_parse_rate(p, v);
        } else if ((v = gd_net_value_of(s, "link_layer"))) {
            p->link_layer = gd_net_parse_link_layer(v);
        } else if ((v = gd_net_value_of(s, "default gid")) && *v) {
            gd_net_gid g = {.index = 0};
            snprintf(g.gid, sizeof g.gid, "%s", v);
            gd_net_capture_gid(p, &g);
        }
    }
    r.n->devices_read |= r.rows > 0;
    return gd_net_read_end(&r, name, f, "\"Infiniband device 'NAME' port N status:\"", "ibstatus", "port blocks",
                           r.n->source, sizeof r.n->source, err, errlen);
}
