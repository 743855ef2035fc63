/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rdma link [show] (iproute2; what rdma-core's own tools give where the
 * Mellanox OFED's ibdev2netdev is not installed) -> f->net: one port a
 * line, "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev
 * ens1f0np0", its words as key and value in any order: the port's state,
 * physical state and netdev (the netdev's own state is not in it). Lids
 * and the subnet prefix of an InfiniBand port are not read.
 */
#include "core/strf.h"
#include "import.h"
#include "net_capture.h"
#include "net_readers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool gd_rdma_link_line(const char *line, char *dev, size_t cap, int *port)
{
    int used = 0;
    char name[64];
    if (sscanf(line, "link %63[^/ ]/%d%n", name, port, &used) != 2 || (line[used] != ' ' && line[used] != '\0') ||
        *port < 1)
        return false;
    gd_strf(dev, cap, "%s", name);
    return true;
}

int gd_import_rdma_link(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    gd_net_read r;
    if (!gd_net_read_start(&r, name, text, len, f, err, errlen))
        return -1;
    char dev[GD_NET_NAME];
    while (gd_net_read_line(&r)) {
        int port = 0;
        if (!gd_rdma_link_line(r.s, dev, sizeof dev, &port))
            continue;
        r.rows++;
        gd_net_dev *d = gd_net_read_dev(&r, dev);
        gd_net_port *p = d ? gd_net_capture_port(d, port) : NULL;
        if (!p) {
            r.dropped++;
            continue;
        }
        char copy[sizeof r.line], *save = NULL;
        snprintf(copy, sizeof copy, "%s", r.s);
        strtok_r(copy, " ", &save); /* "link" */
        strtok_r(NULL, " ", &save); /* "mlx5_0/1" */
        for (char *k = strtok_r(NULL, " ", &save), *v; k && (v = strtok_r(NULL, " ", &save)) != NULL;
             k = strtok_r(NULL, " ", &save)) {
            if (strcmp(k, "state") == 0)
                p->state = gd_net_parse_state(v);
            else if (strcmp(k, "physical_state") == 0)
                p->phys = gd_net_parse_phys(v);
            else if (strcmp(k, "netdev") == 0)
                snprintf(p->netdev, sizeof p->netdev, "%s", v);
        }
    }
    r.n->devices_read |= r.rows > 0;
    return gd_net_read_end(&r, name, f, "\"link DEV/PORT state ...\"", "rdma link", "ports", r.n->source,
                           sizeof r.n->source, err, errlen);
}
