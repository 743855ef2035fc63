/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated NCCL's NCCL_DEBUG=INFO log (sim_nccl_log.c). */
#ifndef GPUDOCTOR_SIM_NCCL_LOG_H
#define GPUDOCTOR_SIM_NCCL_LOG_H

#include <stdbool.h>

/* Writes what NCCL says of a new clique of ndev ranks (comms[r] on
 * devices[r]) where NCCL_DEBUG=INFO: its version, variables, network,
 * GPUDirect RDMA and channels; nothing otherwise. */
void gdsim_nccl_log_init(const void *const *comms, int ndev, const int *devices, bool p2p_off);

#endif
