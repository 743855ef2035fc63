/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How the processes of a multi-node run find each other without MPI: rank 0
 * listens on MASTER_ADDR:MASTER_PORT, every other rank connects (retrying
 * while rank 0 is not up yet) and says who it is; once all have arrived,
 * rank 0 hands each the same blob (NCCL's unique id). Every wait is bounded
 * by one deadline: a rank that never arrives is named, nothing hangs.
 */
#ifndef GD_PROBES_RENDEZVOUS_H
#define GD_PROBES_RENDEZVOUS_H

#include "analysis/launch_env.h"

#include <stdbool.h>
#include <stddef.h>

#define GD_RDV_BLOB 128 /* NCCL_UNIQUE_ID_BYTES */
#define GD_RDV_HOST 64

typedef struct gd_rdv_rank {
    bool arrived;
    char host[GD_RDV_HOST]; /* as the rank named itself */
    double at_s; /* seconds after rank 0 started listening */
} gd_rdv_rank;

typedef struct gd_rdv_result {
    int world;
    gd_rdv_rank *ranks; /* rank 0's view: world entries (its own arrived); NULL elsewhere */
    int missing; /* ranks that did not arrive (rank 0) */
    /* The connections, kept for the run's messages: rank 0 one per rank
     * (-1: none, its own and a missing one's), the others fds[0] to rank 0. */
    int *fds;
} gd_rdv_result;

/* Meets the other ranks of l within timeout_s seconds. Rank 0 gives blob,
 * the others receive it there. 0, or -1 with err naming what did not
 * happen ("ranks 2 and 3 of 4 did not arrive within 5 s", "cannot reach
 * rank 0 at node01:29517 within 5 s: Connection refused"); res is filled
 * either way. gd_rdv_result_free frees it. */
int gd_rendezvous(const gd_launch *l, const char *self_host, double timeout_s, unsigned char blob[GD_RDV_BLOB],
                  gd_rdv_result *res, char *err, size_t errlen);

/* Closes the connections. */
void gd_rdv_result_free(gd_rdv_result *res);

/* One message on a connection of the meeting: a type and up to
 * GD_RDV_MSG_MAX bytes, within timeout_s. gd_rdv_recv wants the type and
 * size said; 0, or -1 (closed, timed out, another message). */
#define GD_RDV_MSG_MAX ((size_t)1 << 20)
int gd_rdv_send(int fd, unsigned type, const void *buf, size_t len, double timeout_s);
int gd_rdv_recv(int fd, unsigned type, void *buf, size_t len, double timeout_s);

#endif
