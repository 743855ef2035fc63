/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One line of NCCL's debug output split into who wrote it and what it says:
 * "host:pid:tid [dev] NCCL INFO msg" as NCCL prints it, behind whatever a
 * launcher or a log collector put in front (mpirun's "[1,0]<stdout>:",
 * torchrun's "[rank0]:" / "[default0]:", srun's "0: ", a timestamp), and
 * the unprefixed "NCCL version 2.17.1+cuda12.1" older NCCLs print.
 */
#ifndef GD_NCCL_LINE_H
#define GD_NCCL_LINE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum gd_nccl_level {
    GD_NCCL_LINE_INFO = 0,
    GD_NCCL_LINE_WARN,
    GD_NCCL_LINE_VERSION, /* "NCCL version ..." with no NCCL prefix */
} gd_nccl_level;

typedef struct gd_nccl_prefix {
    char host[64]; /* "" when the prefix had none (":166:1228 [2]") */
    long pid; /* -1 none */
    long tid;
    int dev; /* [N], -1 none */
    gd_nccl_level level;
    const char *msg; /* into the line: after "NCCL INFO " / "NCCL WARN ", or "NCCL version ..." */
} gd_nccl_prefix;

/* Splits a NUL-terminated line; false when it is none of NCCL's lines. */
bool gd_nccl_line_split(const char *line, gd_nccl_prefix *p);

#endif
