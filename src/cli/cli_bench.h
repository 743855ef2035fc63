/* SPDX-License-Identifier: Apache-2.0 */
/* `gpudoctor bench`: the parsed command line, and the runs (cmd_bench_run.c). */
#ifndef GD_CLI_BENCH_H
#define GD_CLI_BENCH_H

#include "sources/collect.h"
#include "gpudoctor/bench.h"
#include "probes/nccl_bench.h"

#include <limits.h>
#include <stdbool.h>

#define GD_BENCH_MAX_PYTHONS 8

typedef struct gd_bench_cli {
    const char *what; /* pcie, gemm, membw, nccl, stress, all */
    int json;
    const char *sim;
    double size; /* --size: MiB (pcie, membw, nccl) or M = N = K (gemm, stress); 0: default */
    long reps;
    bool concurrent;
    gd_gemm_dtype dtype;
    double seconds; /* 0: default */
    double interval_ms; /* 0: 1000 */
    bool force;
    const char *python[GD_BENCH_MAX_PYTHONS];
    size_t python_count;
    const char *report;
    bool exit_findings;
    bool nodes; /* bench nccl --nodes: one all-reduce across the nodes of a launch */
    double timeout_s; /* --timeout: every wait on another rank; 0: GD_NODES_TIMEOUT_S */
    /* Resolved: */
    const gd_ctx *ctx;
    char sim_cuda[PATH_MAX + 16], sim_cublaslt[PATH_MAX + 24], sim_nccl[PATH_MAX + 16], scenario[PATH_MAX];
} gd_bench_cli;

#define GD_NODES_TIMEOUT_S 60.0

/* bench nccl's options as the command line sets them, with the library's
 * search and the NCCL_* settings they point into. */
typedef struct gd_cli_nccl_opts {
    gd_nccl_bench_opts opts;
    gd_nccl_search search;
    const char *sites[16];
    char env[256];
} gd_cli_nccl_opts;
void gd_cli_bench_nccl_opts(const gd_bench_cli *o, const gd_facts *f, gd_cli_nccl_opts *out);

/* Prints the report of f and fs as the command line asks (text, --json,
 * the HTML page); the exit code. */
int gd_cli_bench_finish(const gd_bench_cli *o, const gd_facts *f, gd_findings *fs);

/* bench nccl --nodes (bench_nodes.c): the exit code. */
int gd_cli_bench_nodes(const gd_bench_cli *o, gd_facts *f);

/* pcie, gemm, membw, nccl or all on the snapshot f; the exit code. */
int gd_cli_bench_measure(const gd_bench_cli *o, const gd_collect_opts *co, gd_facts *f);
/* stress: the window is a new session; the exit code. */
int gd_cli_bench_stress(const gd_bench_cli *o, const gd_collect_opts *co, const gd_facts *f);

#endif
