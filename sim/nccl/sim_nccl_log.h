/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated NCCL's NCCL_DEBUG log and its choice of network (sim_nccl_log.c). */
#ifndef GPUDOCTOR_SIM_NCCL_LOG_H
#define GPUDOCTOR_SIM_NCCL_LOG_H

#include <stdbool.h>

/* NCCL's socket transport, a sim convention: 25 Gb/s a node. */
#define GDSIM_NCCL_SOCKET_GBPS (25.0 / 8.0)

/* Writes what NCCL says of a new clique where NCCL_DEBUG=INFO: its version
 * (where first_rank is 0), variables, network, GPUDirect RDMA, channels (a
 * ring within the process, nranks == ndev) and each rank's Init lines; this
 * process's ranks first_rank.. are comms[r] on devices[r] of nranks; commId
 * comm_id (0: one made of the pid). Nothing otherwise. */
void gdsim_nccl_log_init(const void *const *comms, int ndev, const int *devices, bool p2p_off, int first_rank,
                         int nranks, unsigned long long comm_id);

/* A "NCCL WARN" line where NCCL_DEBUG is set (but VERSION or NONE). */
void gdsim_nccl_log_warn(int dev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The node's network rate in GB/s as the simulated NCCL paces it, and its
 * transport ("IB", "RoCE", "Socket"): the IB transport's ports as the INFO
 * log lists them (Active, NCCL_IB_HCA; none under NCCL_IB_DISABLE=1 or
 * NCCL_NET=Socket) that have a rate, count x the slowest one's rate / 8;
 * without one, the socket transport's GDSIM_NCCL_SOCKET_GBPS. */
double gdsim_nccl_node_gbps(const char **transport);

#endif
