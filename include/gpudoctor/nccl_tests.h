/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What an nccl-tests table says (all_reduce_perf and its siblings, read by
 * `check --from`): the run's header (threads, GPUs per thread, the ranks
 * with their hosts and devices), one row per size with the out-of-place
 * and in-place time, algorithm and bus bandwidth and the wrong-element
 * count, the trailer ("# Out of bounds values", "# Avg bus bandwidth") and
 * an abort where the run stopped. Values a table does not give are NAN or
 * -1, never 0: a table cut before its trailer has no average, not 0.
 * Kept at f->net->tables (gpudoctor/net.h).
 */
#ifndef GPUDOCTOR_NCCL_TESTS_H
#define GPUDOCTOR_NCCL_TESTS_H

#include <stdbool.h>
#include <stddef.h>

#define GD_NT_MAX_TABLES 16 /* tables kept, over every file */
#define GD_NT_MAX_ROWS 64 /* rows kept per table (8 B to 8 GiB by 2 is 31) */
#define GD_NT_MAX_HOSTS 2048 /* distinct hosts counted per table (past it, nodes are not known) */

/* The collectives nccl-tests measures, by the binary's name. */
typedef enum gd_nt_op {
    GD_NT_UNKNOWN = 0,
    GD_NT_ALL_REDUCE,
    GD_NT_ALL_GATHER,
    GD_NT_REDUCE_SCATTER,
    GD_NT_BROADCAST,
    GD_NT_REDUCE,
    GD_NT_ALLTOALL,
    GD_NT_SENDRECV,
    GD_NT_OPS
} gd_nt_op;

/* One half of a row: out-of-place or in-place. */
typedef struct gd_nt_half {
    double time_us, algbw_gbps, busbw_gbps; /* NAN: not printed */
    long wrong; /* the #wrong column; -1 when "N/A" or an older table's max-error column */
    double error; /* an older table's "error" column (max relative error), NAN none or "N/A" */
} gd_nt_half;

typedef struct gd_nt_row {
    size_t bytes; /* the size column */
    size_t count; /* elements */
    char type[12]; /* "float", "half", "bfloat16", ... */
    char redop[12]; /* "sum", "none", ... */
    int root; /* -1: none (or a table without the column) */
    gd_nt_half oop, ip;
    long line; /* its line in the file */
} gd_nt_row;

typedef struct gd_nt_table {
    char file[128]; /* the file's base name */
    long first_line; /* where the table (its header or first row) begins */
    gd_nt_op op; /* from the binary's name; else from the columns where they tell (op_inferred) */
    bool op_inferred;
    char binary[32]; /* "all_reduce_perf" as the command line names it, "" none */
    char launcher[16]; /* the prefix the launcher put on its lines: "mpirun", "srun", "" none */
    char nccl_version[32]; /* "2.8.4+cuda10.1" from "NCCL version", "" none */
    /* From the "# nThread 1 nGpus 1 minBytes ..." line; -1 / 0 when it is missing. */
    bool header;
    int nthread, ngpus, iters, warmup;
    size_t min_bytes, max_bytes;
    /* From the "#  Rank N Group G Pid P on HOST device D [BUS] NAME" lines. */
    int ranks; /* ranks listed, or from the command line (-np x -g x -t); -1 unknown */
    bool ranks_from_command; /* ranks and nodes come from mpirun's -np / -npernode, not the rank lines */
    int nodes; /* distinct hosts, -1 unknown */
    int ranks_per_node; /* the most ranks on one host, -1 unknown */
    char gpu[64]; /* the first rank's device name, "" none */
    bool gpus_mixed; /* ranks name more than one device model */
    char env[320]; /* NCCL_* settings the command line passes (-x NCCL_ALGO=Tree ...), "" none */
    char algo[16]; /* NCCL_ALGO from them, "" not set */
    size_t row_count; /* rows kept */
    size_t rows_dropped; /* rows past GD_NT_MAX_ROWS */
    gd_nt_row rows[GD_NT_MAX_ROWS];
    bool old_columns; /* an older table: an "error" column, no #wrong (no per-row check count) */
    bool has_root; /* the root column is there */
    long wrong_total; /* #wrong summed over both halves of every row; -1 none printed */
    double avg_busbw_gbps; /* "# Avg bus bandwidth", NAN: not in the file */
    long oob_values; /* "# Out of bounds values : N OK|FAILED", -1 not in the file */
    char abort[240]; /* the line that says the run stopped ("... NCCL failure ... 'unhandled system error'"), "" none */
    long abort_line;
    char cut[200]; /* what the file lacks, in words ("no header: ..., the table stops before its trailer"), "" whole */
} gd_nt_table;

typedef struct gd_nccl_tests {
    size_t count;
    size_t dropped; /* tables past GD_NT_MAX_TABLES */
    gd_nt_table tables[GD_NT_MAX_TABLES];
} gd_nccl_tests;

/* "all_reduce", "all_gather", ... ("" for unknown). */
const char *gd_nt_op_name(gd_nt_op op);
/* A message size as nccl-tests' sweeps step it: the largest whole binary
 * unit ("8 MiB", "1536 B"), in buf; returns buf. */
const char *gd_nt_size_text(size_t bytes, char *buf, size_t len);
/* The binary's name to its op: "all_reduce_perf" -> GD_NT_ALL_REDUCE, else GD_NT_UNKNOWN. */
gd_nt_op gd_nt_op_of_binary(const char *name);
/* nccl-tests' busbw / algbw for op on n ranks (doc/PERFORMANCE.md): all-reduce
 * 2(n-1)/n; all-gather, reduce-scatter, alltoall (n-1)/n; broadcast, reduce,
 * sendrecv 1. NAN for an unknown op or n < 1. */
double gd_nt_busbw_factor(gd_nt_op op, int n);

/* A row's better bus bandwidth of its two halves (NAN: neither). */
double gd_nt_row_busbw(const gd_nt_row *r);

#endif
