/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Detection of the RDMA captures by what each tool prints first (the
 * first line of evidence, shell lines blanked): ibstat's "CA 'mlx5_0'",
 * ibstatus' "Infiniband device 'mlx5_0' port 1 status:", ibv_devinfo's
 * "hca_id:", an ibdev2netdev "==>" line, show_gids' header, lsmod's
 * header or rows, two `ip -br a` lines, an ACSCtl line, `rdma link`'s
 * "link mlx5_0/1 state ...".
 */
#include "net_readers.h"

#include <string.h>

/* The first line of evidence, or NULL. */
static const char *first(const gd_capture_view *v)
{
    return v->shape == GD_VIEW_LINES && v->first < v->nlines ? v->lines[v->first].text : NULL;
}

long gd_detect_ibstat(const gd_capture_view *v)
{
    const char *l = first(v);
    char name[GD_NET_NAME];
    return l && gd_ibstat_ca_line(l, name, sizeof name) ? (long)v->first : -1;
}

long gd_detect_ibstatus(const gd_capture_view *v)
{
    const char *l = first(v);
    char name[GD_NET_NAME];
    int port;
    return l && gd_ibstatus_head(l, name, sizeof name, &port) ? (long)v->first : -1;
}

long gd_detect_ibv_devinfo(const gd_capture_view *v)
{
    const char *l = first(v);
    char name[GD_NET_NAME];
    return l && (gd_ibv_devinfo_head(l, name, sizeof name) || strcmp(l, GD_IBV_NO_DEVICES) == 0) ? (long)v->first : -1;
}

long gd_detect_ibdev2netdev(const gd_capture_view *v)
{
    const char *l = first(v);
    gd_ibdev2netdev_row r;
    return l && gd_ibdev2netdev_line(l, &r) ? (long)v->first : -1;
}

long gd_detect_show_gids(const gd_capture_view *v)
{
    const char *l = first(v);
    return l && gd_show_gids_header(l) ? (long)v->first : -1;
}

/* lsmod's header, or (grep's output pasted without its prompt) two module
 * rows, or one that is the whole file. */
long gd_detect_lsmod(const gd_capture_view *v)
{
    const char *l = first(v);
    char mod[64];
    if (!l)
        return -1;
    if (gd_lsmod_header(l))
        return (long)v->first;
    if (!gd_lsmod_row(l, mod, sizeof mod))
        return -1;
    return v->first + 1 >= v->nlines || gd_lsmod_row(v->lines[v->first + 1].text, mod, sizeof mod) ? (long)v->first
                                                                                                   : -1;
}

/* Two lines of `ip -br a` (one when the file has one): "NAME STATE
 * [ADDR/PREFIX ...]" is short enough to pass for other things alone. */
long gd_detect_ip_brief(const gd_capture_view *v)
{
    const char *l = first(v);
    gd_net_iface x;
    if (!l || !gd_ip_brief_line(l, &x))
        return -1;
    if (v->first + 1 < v->nlines && !gd_ip_brief_line(v->lines[v->first + 1].text, &x))
        return -1;
    return (long)v->first;
}

long gd_detect_lspci_acs(const gd_capture_view *v)
{
    const char *l = first(v);
    return l && (strncmp(l, "ACSCtl:", 7) == 0 || strncmp(l, "ACSCap:", 7) == 0) ? (long)v->first : -1;
}

long gd_detect_rdma_link(const gd_capture_view *v)
{
    const char *l = first(v);
    char dev[GD_NET_NAME];
    int port;
    return l && gd_rdma_link_line(l, dev, sizeof dev, &port) && strstr(l, " state ") ? (long)v->first : -1;
}

bool gd_lsmod_command(const char *cmd)
{
    cmd += strspn(cmd, " ");
    if (strncmp(cmd, "sudo ", 5) == 0)
        cmd += 5 + strspn(cmd + 5, " ");
    size_t n = strcspn(cmd, " |");
    const char *w = cmd;
    for (size_t i = n; i > 0; i--)
        if (cmd[i - 1] == '/') {
            w = cmd + i;
            break;
        }
    return (size_t)(cmd + n - w) == 5 && strncmp(w, "lsmod", 5) == 0;
}
