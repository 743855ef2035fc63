/* SPDX-License-Identifier: Apache-2.0 */
/* The launch's place from the environment (launch_env.h). */
#include "analysis/launch_env.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole decimal number in [lo, hi], or false. */
static bool number(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool gd_slurm_first_host(const char *list, char *out, size_t len)
{
    if (!list || !*list || len == 0)
        return false;
    size_t name = strcspn(list, "[,");
    if (name == 0 || name >= len)
        return false;
    if (list[name] != '[') {
        snprintf(out, len, "%.*s", (int)name, list);
        return true;
    }
    /* "prefix[07-09,12]suffix": the range's first number, as written (its zeros kept). */
    const char *r = list + name + 1;
    size_t digits = strspn(r, "0123456789");
    if (digits == 0 || (r[digits] != '-' && r[digits] != ',' && r[digits] != ']'))
        return false;
    const char *close = strchr(r, ']');
    if (!close)
        return false;
    size_t suffix = strcspn(close + 1, ",");
    if (name + digits + suffix >= len)
        return false;
    snprintf(out, len, "%.*s%.*s%.*s", (int)name, list, (int)digits, r, (int)suffix, close + 1);
    return true;
}

/* The rank and world size of one launcher's pair of variables, and the local rank. */
static int place(const char *rank_name, const char *rank, const char *world_name, const char *world, const char *local,
                 gd_launch *out, char *err, size_t errlen)
{
    long v;
    if (!number(world, 1, 1 << 20, &v)) {
        snprintf(err, errlen, "%s=%s: not a number of ranks", world_name, world);
        return -1;
    }
    out->world = (int)v;
    if (!number(rank, 0, out->world - 1, &v)) {
        snprintf(err, errlen, "%s=%s: not a rank of %s=%d", rank_name, rank, world_name, out->world);
        return -1;
    }
    out->rank = (int)v;
    if (number(local, 0, 1 << 20, &v))
        out->local_rank = (int)v;
    return 0;
}

int gd_launch_from_env(const char *(*get)(const char *name, void *ud), void *ud, gd_launch *out, char *err,
                       size_t errlen)
{
    *out = (gd_launch){.rank = -1, .world = -1, .local_rank = -1, .master_port = GD_LAUNCH_DEFAULT_PORT};
    const char *rank = get("RANK", ud), *world = get("WORLD_SIZE", ud);
    const char *srank = get("SLURM_PROCID", ud), *sworld = get("SLURM_NTASKS", ud);
    long v;
    if (rank && world) {
        snprintf(out->launcher, sizeof out->launcher, "torchrun");
        if (place("RANK", rank, "WORLD_SIZE", world, get("LOCAL_RANK", ud), out, err, errlen) != 0)
            return -1;
        const char *addr = get("MASTER_ADDR", ud), *port = get("MASTER_PORT", ud);
        if (!addr || !*addr) {
            snprintf(err, errlen, "RANK and WORLD_SIZE are set but MASTER_ADDR is not: rank 0's address is needed");
            return -1;
        }
        snprintf(out->master_addr, sizeof out->master_addr, "%s", addr);
        if (port && !number(port, 1, 65535, &v)) {
            snprintf(err, errlen, "MASTER_PORT=%s: not a TCP port", port);
            return -1;
        }
        if (port)
            out->master_port = (int)v;
        return 0;
    }
    if (srank && sworld) {
        snprintf(out->launcher, sizeof out->launcher, "slurm");
        if (place("SLURM_PROCID", srank, "SLURM_NTASKS", sworld, get("SLURM_LOCALID", ud), out, err, errlen) != 0)
            return -1;
        const char *nodes = get("SLURM_STEP_NODELIST", ud);
        if (!nodes || !*nodes)
            nodes = get("SLURM_JOB_NODELIST", ud);
        if (!gd_slurm_first_host(nodes, out->master_addr, sizeof out->master_addr)) {
            snprintf(err, errlen, "SLURM_STEP_NODELIST=%s: no first host to meet at", nodes ? nodes : "(unset)");
            return -1;
        }
        /* A job script that exports MASTER_ADDR (many do, for torch) names rank 0's address itself. */
        const char *addr = get("MASTER_ADDR", ud);
        if (addr && *addr)
            snprintf(out->master_addr, sizeof out->master_addr, "%s", addr);
        const char *port = get("MASTER_PORT", ud);
        if (port && number(port, 1, 65535, &v))
            out->master_port = (int)v;
        return 0;
    }
    snprintf(err, errlen,
             "no launcher's variables: start one process per node with srun (SLURM_PROCID, SLURM_NTASKS) or torchrun "
             "(RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)");
    return -1;
}
