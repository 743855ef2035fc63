/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The captures of the node's RDMA NICs, GPUDirect's module, its
 * interfaces and PCIe ACS (`check --from`), each a reader into f->net and
 * a detector (net_detect.c). They join by device name and port: ibstat's
 * states, ibdev2netdev's netdevs and show_gids' GIDs land on the same
 * mlx5_0 port 1 whatever the order of the files.
 */
#ifndef GD_FORMATS_CAPTURE_NET_READERS_H
#define GD_FORMATS_CAPTURE_NET_READERS_H

#include "capture_formats.h"
#include "gpudoctor/net.h"

#include <stdbool.h>
#include <stddef.h>

/* What ibv_devinfo prints on a node without RDMA devices. */
#define GD_IBV_NO_DEVICES "No IB devices found"

int gd_import_ibstat(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);
int gd_import_ibstatus(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);
int gd_import_ibv_devinfo(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);
int gd_import_ibdev2netdev(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);
int gd_import_show_gids(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);
int gd_import_lsmod(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);
int gd_import_ip_brief(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);
int gd_import_rdma_link(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);
int gd_import_lspci_acs(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);

/* The line shapes each reader starts from, shared with the detectors. */
bool gd_ibstat_ca_line(const char *line, char *name, size_t cap); /* "CA 'mlx5_0'" */
bool gd_ibstatus_head(const char *line, char *dev, size_t cap,
                      int *port); /* "Infiniband device 'mlx5_0' port 1 status:" */
bool gd_ibv_devinfo_head(const char *line, char *dev, size_t cap); /* "hca_id: mlx5_0" */
bool gd_show_gids_header(const char *line); /* "DEV PORT INDEX GID IPv4 VER DEV" */
bool gd_lsmod_header(const char *line); /* "Module  Size  Used by" */
bool gd_lsmod_row(const char *line, char *name, size_t cap); /* "nvidia_peermem  16384  0" */
bool gd_rdma_link_line(const char *line, char *dev, size_t cap, int *port); /* "link mlx5_0/1 state ACTIVE ..." */
bool gd_ip_brief_line(const char *line, gd_net_iface *out); /* "enp25s0np0  UP  10.99.91.59/31" */

/* One ibdev2netdev line, plain or -v. */
typedef struct gd_ibdev2netdev_row {
    char dev[GD_NET_NAME], netdev[GD_NET_NAME], bdf[16], firmware[32];
    int port, netdev_up; /* netdev_up: -1 unknown */
    gd_port_state state; /* -v's "(ACTIVE)"; UNKNOWN without -v */
} gd_ibdev2netdev_row;
bool gd_ibdev2netdev_line(const char *line, gd_ibdev2netdev_row *r);

/* The detectors (net_detect.c). */
long gd_detect_ibstat(const gd_capture_view *v);
long gd_detect_ibstatus(const gd_capture_view *v);
long gd_detect_ibv_devinfo(const gd_capture_view *v);
long gd_detect_ibdev2netdev(const gd_capture_view *v);
long gd_detect_show_gids(const gd_capture_view *v);
long gd_detect_lsmod(const gd_capture_view *v);
long gd_detect_ip_brief(const gd_capture_view *v);
long gd_detect_lspci_acs(const gd_capture_view *v);
long gd_detect_rdma_link(const gd_capture_view *v);

/* Whether a command line runs lsmod ("sudo lsmod | grep peer"): its output
 * (even none, a grep that found nothing) is lsmod's. */
bool gd_lsmod_command(const char *cmd);

#endif
