/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated NCCL across processes (sim_nccl_net.c): the unique id, the
 * join at the root, and the ring of sockets a step goes around. */
#ifndef GPUDOCTOR_SIM_NCCL_NET_H
#define GPUDOCTOR_SIM_NCCL_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpudoctor/abi/nccl_api.h"

/* What of the slowest edge a ring's bus bandwidth reaches (nccl-tests on
 * healthy machines), within a process or across. */
#define GDSIM_NCCL_RING_EFFICIENCY 0.85

/* One process's part of a communicator across processes. */
struct gdsim_net;

/* ncclGetUniqueId: a root listener on 127.0.0.1, named in id. */
ncclResult_t gdsim_net_unique_id(ncclUniqueId *id);
/* An id's nonce: ncclSuccess, or ncclInvalidArgument for one the sim did not make. */
ncclResult_t gdsim_net_id_nonce(const ncclUniqueId *id, uint64_t *nonce);

/* What this process brings to a join. */
typedef struct gdsim_net_member {
    int first_rank, local_count, nranks;
    double edge_gbps; /* its local ring's slowest edge, +inf for one GPU */
    int dev0; /* for the log */
} gdsim_net_member;

/* Joins the communicator of id: *out (NULL where this process holds every
 * rank: no network) and the communicator's bus bandwidth in GB/s. */
ncclResult_t gdsim_net_join(const ncclUniqueId *id, const gdsim_net_member *me, struct gdsim_net **out,
                            double *busbw_gbps);

/* One collective step: its description, agreed with every process; unit is
 * the bytes of this process's contribution per unit (all-reduce: one unit;
 * all-gather: one per local rank, local_count of them). With data (mine
 * non-NULL on every process), `all` receives every process's contribution
 * in rank order (sum over process units). *with_data says whether it did. */
typedef struct gdsim_net_step_desc {
    uint32_t kind, type;
    uint64_t count;
    size_t unit;
    bool per_rank; /* contribution = unit x local_count */
} gdsim_net_step_desc;
ncclResult_t gdsim_net_step(struct gdsim_net *n, const gdsim_net_step_desc *d, const void *mine, void *all,
                            bool *with_data);
/* Process count and this process's index in rank order. */
int gdsim_net_processes(const struct gdsim_net *n, int *self);
/* The bytes of `all` for a step: the sum of every process's contribution. */
size_t gdsim_net_all_bytes(const struct gdsim_net *n, const gdsim_net_step_desc *d);
void gdsim_net_close(struct gdsim_net *n);

#endif
