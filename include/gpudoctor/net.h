/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The training network's facts: the node's RDMA devices and their ports
 * (sysfs /sys/class/infiniband, or captures of ibstat, ibstatus,
 * ibv_devinfo, ibdev2netdev, show_gids), GPUDirect RDMA's kernel module,
 * PCIe ACS on the bridges (config space, or lspci -vvv's ACSCtl), and what
 * NCCL said it chose (its NCCL_DEBUG=INFO log). Values a source does not
 * give stay GD_ST_UNREAD, never 0: an ibdev2netdev paste says nothing of a
 * port's rate, and a port whose rate is unknown is not slow.
 */
#ifndef GPUDOCTOR_NET_H
#define GPUDOCTOR_NET_H

#include "gpudoctor/model.h"

#include <stdbool.h>
#include <stddef.h>

#define GD_NET_MAX_DEVS 64 /* RDMA devices of one node (12-18 on an 8-GPU node with front-end ports) */
#define GD_NET_MAX_PORTS 4 /* ports of one device */
#define GD_NET_MAX_GIDS 16 /* GID table rows kept per port (index order) */
#define GD_NET_MAX_ACS 256 /* bridges with an ACS capability */
#define GD_NET_NAME 32
#define GD_NET_MAX_IFACES 128 /* network interfaces of one node (/sys/class/net) */

/* A port's logical state, numbered as the kernel's sysfs `state` ("4:
 * ACTIVE") and ibstat's "State:" (IBTA PortState). */
typedef enum gd_port_state {
    GD_PORT_STATE_UNKNOWN = 0, /* not read */
    GD_PORT_DOWN = 1,
    GD_PORT_INIT = 2,
    GD_PORT_ARMED = 3,
    GD_PORT_ACTIVE = 4,
    GD_PORT_ACTIVE_DEFER = 5,
} gd_port_state;

/* A port's physical state, numbered as sysfs `phys_state` ("5: LinkUp") and
 * ibstat's "Physical state:" (IBTA PortPhysicalState). */
typedef enum gd_port_phys {
    GD_PORT_PHYS_UNKNOWN = 0,
    GD_PORT_PHYS_SLEEP = 1,
    GD_PORT_PHYS_POLLING = 2, /* no peer answers: a cable out, a peer port down */
    GD_PORT_PHYS_DISABLED = 3, /* switched off (administratively, or by the firmware) */
    GD_PORT_PHYS_TRAINING = 4, /* PortConfigurationTraining */
    GD_PORT_PHYS_LINKUP = 5,
    GD_PORT_PHYS_ERROR_RECOVERY = 6, /* LinkErrorRecovery */
    GD_PORT_PHYS_TEST = 7, /* Phy Test */
} gd_port_phys;

typedef enum gd_link_layer {
    GD_LINK_UNKNOWN = 0,
    GD_LINK_INFINIBAND,
    GD_LINK_ETHERNET, /* RoCE */
} gd_link_layer;

/* The port counters that say a link is unwell, as sysfs names them
 * (ports/N/counters/ and ports/N/hw_counters/). */
typedef enum gd_port_counter {
    GD_PC_LINK_DOWNED = 0, /* counters/link_downed */
    GD_PC_LINK_ERROR_RECOVERY, /* counters/link_error_recovery */
    GD_PC_SYMBOL_ERROR, /* counters/symbol_error */
    GD_PC_RCV_ERRORS, /* counters/port_rcv_errors */
    GD_PC_XMIT_DISCARDS, /* counters/port_xmit_discards */
    GD_PC_LOCAL_LINK_INTEGRITY, /* counters/local_link_integrity_errors */
    GD_PC_EXCESSIVE_OVERRUN, /* counters/excessive_buffer_overrun_errors */
    GD_PC_RCV_REMOTE_PHYS, /* counters/port_rcv_remote_physical_errors */
    GD_PC_OUT_OF_BUFFER, /* hw_counters/out_of_buffer */
    GD_PC_OUT_OF_SEQUENCE, /* hw_counters/out_of_sequence (RoCE) */
    GD_PC_PACKET_SEQ_ERR, /* hw_counters/packet_seq_err (RoCE) */
    GD_PC_LOCAL_ACK_TIMEOUT, /* hw_counters/local_ack_timeout_err */
    GD_PC_COUNT
} gd_port_counter;

/* One row of a port's GID table. */
typedef struct gd_net_gid {
    int index;
    char gid[48]; /* "fe80:0000:...", as written */
    char type[16]; /* "IB", "RoCE v1", "RoCE v2" (sysfs gid_attrs/types), show_gids' "v1"/"v2" */
    char ipv4[16]; /* show_gids' IPv4 column, "" none */
    char netdev[GD_NET_NAME]; /* gid_attrs/ndevs, "" none */
} gd_net_gid;

typedef struct gd_net_port {
    int port; /* the port number, from 1 */
    gd_port_state state;
    gd_port_phys phys;
    gd_link_layer link_layer;
    /* The rate in Gb/s as sysfs `rate` and ibstat "Rate:" give it ("200 Gb/sec
     * (4X HDR)" is 200); not read: GD_ST_UNREAD. */
    gd_value rate_gbps;
    char rate_text[48]; /* as written, "200 Gb/sec (4X HDR)", "" not read */
    char netdev[GD_NET_NAME]; /* the netdev behind it (ibdev2netdev, sysfs), "" unknown */
    int netdev_up; /* -1 unknown, 0 down, 1 up (ibdev2netdev's "(Up)", operstate) */
    size_t gid_count;
    gd_net_gid gids[GD_NET_MAX_GIDS];
    /* The counters at the window's start and end (one reading: both the
     * same); counter_span_s the seconds between, 0 for one reading. */
    gd_value counters_first[GD_PC_COUNT];
    gd_value counters_last[GD_PC_COUNT];
    double counter_span_s;
} gd_net_port;

/* One RDMA device (an HCA or a RoCE NIC function). */
typedef struct gd_net_dev {
    char name[GD_NET_NAME]; /* "mlx5_0", "rocep1s0f0" */
    char ca_type[32]; /* "MT4129", "" unknown */
    char firmware[32]; /* "28.39.1002", "" unknown */
    char bdf[16]; /* its PCI function, "0000:1a:00.0" lower case; "" unknown */
    int numa_node; /* -1 unknown */
    uint8_t file; /* the capture file that gave it (capture_files index), 0 live */
    size_t port_count;
    gd_net_port ports[GD_NET_MAX_PORTS];
} gd_net_dev;

/* GPUDirect RDMA's kernel module: nvidia_peermem (driver 470 and newer),
 * or the older Mellanox nv_peer_mem. */
typedef enum gd_peermem_state {
    GD_PEERMEM_UNKNOWN = 0, /* not read: no /proc/modules, no lsmod in a capture */
    GD_PEERMEM_ABSENT, /* neither module loaded */
    GD_PEERMEM_LOADED,
} gd_peermem_state;

/* One bridge's (or multi-function device's) ACS control, from its config
 * space (root only) or lspci -vvv's "ACSCtl:" line. */
typedef struct gd_net_acs {
    char bdf[16]; /* "" when the capture did not say whose line it was (lspci | grep ACSCtl) */
    bool src_valid, trans_blk, req_redir, cmplt_redir, upstream_fwd, egress_ctrl, direct_trans;
} gd_net_acs;

/* What NCCL's INFO log said. Filled by the NCCL log reader; the rank facts
 * are the reader's own (src/formats/nccl_log/), kept behind this pointer. */
struct gd_nccl_log;

/* nccl-tests tables read by --from (include/gpudoctor/nccl_tests.h). */
struct gd_nccl_tests;

/* One network interface of the node (/sys/class/net/NAME, `ip -br a`). */
typedef struct gd_net_iface {
    char name[GD_NET_NAME];
    int up; /* -1 unknown, 0 down, 1 up (operstate "up", or "unknown" with carrier on: lo, tun) */
    bool loopback, bridge, virtual_dev; /* lo; a bridge (docker0, virbr0, cni0); no device behind it */
    char ipv4[16]; /* the first IPv4 address, "" none or unknown */
} gd_net_iface;

typedef struct gd_net_facts {
    char source[600]; /* "sysfs:/sys", "ibstat:FILE", "sim:FILE" (joined with ", ") */
    bool devices_read; /* a source listed the RDMA devices (none found is a fact: an Ethernet-only node) */
    size_t dev_count;
    gd_net_dev devs[GD_NET_MAX_DEVS];
    bool ifaces_read; /* a source listed the interfaces */
    size_t iface_count;
    gd_net_iface ifaces[GD_NET_MAX_IFACES];
    gd_peermem_state peermem;
    char peermem_module[GD_NET_NAME]; /* the one loaded, "" none */
    char peermem_source[128]; /* "/proc/modules", "lsmod:FILE" */
    bool acs_read; /* a source read ACS (none listed: no bridge has it enabled or none has the capability) */
    char acs_source[128];
    size_t acs_count;
    gd_net_acs acs[GD_NET_MAX_ACS];
    struct gd_nccl_log *nccl; /* NULL: no NCCL log read */
    void (*nccl_free)(struct gd_nccl_log *log); /* its layer's own free */
    struct gd_nccl_tests *tables; /* nccl-tests output read by --from, NULL none; freed with these facts */
} gd_net_facts;

void gd_net_facts_free(gd_net_facts *n);

/* The device named `name`, or NULL. */
const gd_net_dev *gd_net_dev_by_name(const gd_net_facts *n, const char *name);

/* A port counter's sysfs name ("symbol_error"), or "" out of range. */
const char *gd_port_counter_name(gd_port_counter c);

/* A port counter by its sysfs name; GD_PC_COUNT when none is. */
gd_port_counter gd_port_counter_by_name(const char *name);

#endif
