/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What NCCL's own INFO log (NCCL_DEBUG=INFO) said it chose, per process:
 * its version, the network (NET/IB with its devices, NET/Socket with its
 * interfaces, a plugin), the bootstrap interface, GPUDirect RDMA per HCA and
 * per channel, the transport of each channel; and for the whole log the
 * NCCL_* variables it reported as set, its WARN lines, connect errors and
 * the causes it printed for not using RDMA. Filled by the reader
 * (src/formats/nccl_log/), read by the checks (src/checks/nccl_log.c), kept
 * at f->net->nccl. Text fields are "" when the log did not say; numbers -1.
 */
#ifndef GPUDOCTOR_NCCL_LOG_H
#define GPUDOCTOR_NCCL_LOG_H

#include <stdbool.h>
#include <stddef.h>

#define GD_NCCL_MAX_PROCS 1024 /* processes (host, pid, device) kept; more are counted */
#define GD_NCCL_MAX_ENV 64
#define GD_NCCL_MAX_LINES 32 /* WARN lines, connect errors, fallback causes, GDR refusals kept each */
#define GD_NCCL_HOST 64
#define GD_NCCL_TEXT 240

/* The network a process's NCCL used between nodes. */
typedef enum gd_nccl_net {
    GD_NCCL_NET_UNKNOWN = 0, /* the log did not say */
    GD_NCCL_NET_IB, /* NET/IB (InfiniBand or RoCE), the internal one or a plugin's (IBext) */
    GD_NCCL_NET_SOCKET, /* NET/Socket: TCP */
    GD_NCCL_NET_OTHER, /* a plugin of another kind (FastSocket, AWS OFI, TCPX): named in net_name */
} gd_nccl_net;

/* One line of the log kept as evidence. */
typedef struct gd_nccl_line {
    char host[GD_NCCL_HOST];
    long pid;
    int file; /* which input file (0 the first) */
    long line; /* its line number in that file */
    char text[GD_NCCL_TEXT]; /* the message, prefixes removed */
} gd_nccl_line;

/* One NCCL process (or one device of a process that drives several): a
 * "host:pid:tid [dev]" prefix. */
typedef struct gd_nccl_proc {
    char host[GD_NCCL_HOST];
    long pid; /* -1: a line without NCCL's prefix */
    int dev; /* the [N] of the prefix: its CUDA device; -1 none */
    int rank, nranks; /* "comm 0x.. rank R nranks N"; -1 unknown */
    char busid[16]; /* "busId 1c000" of that line, "" */
    char version[48]; /* "2.18.3+cuda12.2" */
    gd_nccl_net net;
    char net_name[48]; /* "Using network X": "IB", "Socket", "IBext_v8", "FastSocket" */
    char ib_devs[200]; /* NET/IB : Using ...: "mlx5_0:1/IB mlx5_1:1/IB" */
    bool ib_roce; /* a device of ib_devs is /RoCE */
    char socket_ifaces[200]; /* NET/Socket : Using ...: "ens5f0np0 virbr0" */
    char bootstrap_iface[48]; /* "Bootstrap : Using ens5f0np0:10.220.178.201<0>": "ens5f0np0" */
    char bootstrap_addr[64];
    char oob_iface[48]; /* NET/IB's "; OOB eth0:10.0.1.2<0>": "eth0" */
    char plugin[96]; /* "Loaded net plugin NCCL RDMA Plugin (v5)", "P2P plugin IBext" */
    char ib_missing[GD_NCCL_TEXT]; /* why NET/IB found nothing: "NET/IB : No device found." */
    /* Channels by transport ("Channel 00/0 : 9[1] -> 0[0] [receive] via NET/IB/0/GDRDMA"). */
    unsigned ch_net_gdr, ch_net_host; /* NET with and without /GDRDMA */
    unsigned ch_socket, ch_p2p, ch_shm, ch_collnet;
    unsigned gdr_enabled; /* "GPU Direct RDMA Enabled for ..." lines */
    unsigned gdr_disabled; /* "GPU Direct RDMA Disabled for ..." lines of an RDMA network (not NET/Socket) */
    int file;
    long line; /* its first line */
} gd_nccl_proc;

/* An NCCL_* variable NCCL said was set: "NCCL_NET_GDR_LEVEL set by environment to PHB". */
typedef struct gd_nccl_env {
    char name[48];
    char value[96];
    char host[GD_NCCL_HOST]; /* the first host that said so */
    unsigned hosts; /* how many processes said so */
} gd_nccl_env;

/* A GPUDirect RDMA refusal: per GPU and HCA (distance) or per HCA (module). */
typedef enum gd_nccl_gdr_cause {
    GD_NCCL_GDR_NO_CAUSE = 0, /* "Disabled for HCA 0 'mlx5_0'" with no reason */
    GD_NCCL_GDR_NO_MODULE, /* "(no module)": nvidia_peermem / nv_peer_mem not loaded */
    GD_NCCL_GDR_DISTANCE, /* "(distance 5 > 4)": the GPU is farther from the NIC than NCCL_NET_GDR_LEVEL allows */
} gd_nccl_gdr_cause;

typedef struct gd_nccl_gdr_off {
    gd_nccl_gdr_cause cause;
    char host[GD_NCCL_HOST];
    char gpu[16]; /* the GPU's bus id as NCCL prints it ("18000"), "" for a per-HCA line */
    char hca[48]; /* "0", or "0 'mlx5_0'" */
    int distance, limit; /* the distance case; -1 otherwise */
    int file;
    long line;
} gd_nccl_gdr_off;

/* A connect error: "connect returned No route to host, retrying (26/34)",
 * "Connect to 10.0.0.2<43215> failed : Connection refused". */
typedef struct gd_nccl_connect {
    gd_nccl_line where; /* the first such line */
    char error[48]; /* "No route to host", "Connection refused", "Connection timed out", "Network is unreachable" */
    char peer[96]; /* the address it tried, as printed, "" */
    char iface[48]; /* the interface of the process's bootstrap or socket list, "" unknown */
    unsigned count;
    bool retries_exhausted; /* a "(N/N)" retry, or a WARN that gave up */
} gd_nccl_connect;

struct gd_nccl_log {
    char source[600]; /* "nccl_log:FILE" joined with ", " */
    int files; /* input files read */
    /* run --nccl-log: seconds into the window when NCCL's first log file
     * appeared (NCCL opens it as its first communicator starts); NAN when
     * not seen (a capture, or the job's own log). */
    double started_s;
    unsigned long lines, nccl_lines; /* lines read; lines that were NCCL's */
    size_t proc_count, procs_dropped;
    gd_nccl_proc *procs; /* GD_NCCL_MAX_PROCS of them */
    size_t env_count;
    gd_nccl_env env[GD_NCCL_MAX_ENV];
    size_t warn_count, warns_total;
    gd_nccl_line warns[GD_NCCL_MAX_LINES];
    size_t missing_count; /* NET/IB's causes for finding nothing, each kept once per host */
    gd_nccl_line missing[GD_NCCL_MAX_LINES];
    size_t gdr_off_count, gdr_off_total;
    gd_nccl_gdr_off gdr_off[GD_NCCL_MAX_LINES];
    size_t connect_count;
    gd_nccl_connect connects[GD_NCCL_MAX_LINES];
};

#endif
