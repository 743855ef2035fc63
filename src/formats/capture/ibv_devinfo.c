/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ibv_devinfo (rdma-core), plain or -v -> f->net: "hca_id: mlx5_0" starts
 * a device (fw_ver), "port: 1" a port (state "PORT_ACTIVE (4)",
 * phys_state "LINK_UP (5)" (-v only), link_layer, and with -v
 * active_width x active_speed as its rate, "4X" x "50.0 Gbps" = 200 Gb/s,
 * and its "GID[  3]: ..., RoCE v2" rows). MTUs, lids and the device limits
 * -v lists are not read.
 */
#include "import.h"
#include "core/strf.h"
#include "net_capture.h"
#include "net_readers.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool gd_ibv_devinfo_head(const char *line, char *dev, size_t cap)
{
    const char *v = gd_net_value_of(line, "hca_id");
    if (!v || !*v || strchr(v, ' '))
        return false;
    snprintf(dev, cap, "%s", v);
    return true;
}

/* "4X (2)" -> 4; the enum alone ("(2)") by libibverbs' numbering; 0 unknown. */
static int width_lanes(const char *s)
{
    int lanes = atoi(s);
    if (lanes > 0 && lanes <= 32 && strchr(s, 'X'))
        return lanes;
    const char *open = strchr(s, '(');
    int e = open ? atoi(open + 1) : 0;
    return e == 1 ? 1 : e == 2 ? 4 : e == 4 ? 8 : e == 8 ? 12 : e == 16 ? 2 : 0;
}

/* "50.0 Gbps (64)" -> 50; the enum alone by IBTA's numbering; 0 unknown. */
static double lane_gbps(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end != s && v > 0 && strstr(end, "Gbps"))
        return v;
    const char *open = strchr(s, '(');
    static const struct {
        int e;
        double gbps;
    } speeds[] = {{1, 2.5}, {2, 5}, {4, 10}, {8, 10}, {16, 14}, {32, 25}, {64, 50}, {128, 100}, {256, 200}};
    int e = open ? atoi(open + 1) : 0;
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
        if (speeds[i].e == e)
            return speeds[i].gbps;
    return 0;
}

/* "GID[  3]:  fe80::...,  RoCE v2" into p's table; false when it did not fit. */
static bool gid_row(gd_net_port *p, const char *s)
{
    int index = -1, used = 0;
    if (sscanf(s, "GID[%d]:%n", &index, &used) != 1 || used == 0 || index < 0)
        return true;
    gd_net_gid g = {.index = index};
    const char *v = gd_net_skip_blanks(s + used);
    size_t n = strcspn(v, ", ");
    snprintf(g.gid, sizeof g.gid, "%.*s", (int)(n < sizeof g.gid ? n : sizeof g.gid - 1), v);
    const char *comma = strchr(v, ',');
    if (comma)
        snprintf(g.type, sizeof g.type, "%s", gd_net_skip_blanks(comma + 1));
    return !g.gid[0] || gd_net_capture_gid(p, &g);
}

/* The rate from the width and the lane speed, when both were read. */
static void set_rate(gd_net_port *p, int lanes, double gbps, const char *width, const char *speed)
{
    if (!p || lanes <= 0 || gbps <= 0)
        return;
    p->rate_gbps = gd_val(lanes * gbps);
    char w[16], sp[24];
    snprintf(w, sizeof w, "%.*s", (int)strcspn(width, " "), width);
    snprintf(sp, sizeof sp, "%.*s", (int)strcspn(speed, "("), speed);
    size_t k = strlen(sp);
    while (k && sp[k - 1] == ' ')
        sp[--k] = '\0';
    gd_strf(p->rate_text, sizeof p->rate_text, "%g Gb/sec (%s %s)", lanes * gbps, w, sp);
}

int gd_import_ibv_devinfo(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    gd_net_read r;
    if (!gd_net_read_start(&r, name, text, len, f, err, errlen))
        return -1;
    char dev[GD_NET_NAME], width[32] = "", speed[32] = "";
    gd_net_dev *d = NULL;
    gd_net_port *p = NULL;
    while (gd_net_read_line(&r)) {
        const char *s = r.s, *v;
        if (strcmp(s, GD_IBV_NO_DEVICES) == 0) {
            r.rows++; /* a node without RDMA devices: a fact */
        } else if (gd_ibv_devinfo_head(s, dev, sizeof dev)) {
            r.rows++;
            d = gd_net_read_dev(&r, dev);
            r.dropped += d == NULL;
            p = NULL;
        } else if (!d) {
            continue;
        } else if ((v = gd_net_value_of(s, "fw_ver"))) {
            snprintf(d->firmware, sizeof d->firmware, "%s", v);
        } else if ((v = gd_net_value_of(s, "port"))) {
            p = gd_net_capture_port(d, atoi(v));
            width[0] = speed[0] = '\0';
        } else if (!p) {
            continue;
        } else if ((v = gd_net_value_of(s, "state"))) {
            p->state = gd_net_parse_state(v);
        } else if ((v = gd_net_value_of(s, "phys_state"))) {
            p->phys = gd_net_parse_phys(v);
        } else if ((v = gd_net_value_of(s, "link_layer"))) {
            p->link_layer = gd_net_parse_link_layer(v);
        } else if ((v = gd_net_value_of(s, "active_width"))) {
            snprintf(width, sizeof width, "%s", v);
            set_rate(p, width_lanes(width), speed[0] ? lane_gbps(speed) : 0, width, speed);
        } else if ((v = gd_net_value_of(s, "active_speed"))) {
            snprintf(speed, sizeof speed, "%s", v);
            set_rate(p, width[0] ? width_lanes(width) : 0, lane_gbps(speed), width, speed);
        } else if (strncmp(s, "GID[", 4) == 0) {
            r.dropped += !gid_row(p, s);
        }
    }
    r.n->devices_read |= r.rows > 0;
    return gd_net_read_end(&r, name, f, "\"hca_id:\"", "ibv_devinfo", "devices or GID rows", r.n->source,
                           sizeof r.n->source, err, errlen);
}
