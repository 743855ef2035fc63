/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The nccl-tests reader (src/formats/nccl_tests/) on literal tables, one
 * for each launcher's prefix and each collective, and on every real paste
 * in ../shared/realdata/network/nccl-tests/: the facts exactly, what the
 * paste lacks, aborts and wrong data, and the bytes that are no table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/nccl_tests_judge.h"
#include "facts_fixture.h"
#include "formats/capture/import.h"
#include "gpudoctor/nccl_tests.h"
#include "gpudoctor/net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REAL GD_SOURCE_DIR "/../shared/realdata/network/nccl-tests/"

/* text read into a zeroed f: 0 or -1; *t the tables. */
static int read_text(const char *name, const char *text, gd_facts *f, const gd_nccl_tests **t)
{
    memset(f, 0, sizeof *f);
    char err[512] = "";
    int rc = gd_import_buffer(name, text, strlen(text), f, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "(expected or not) %s\n", err);
    *t = f->net ? f->net->tables : NULL;
    return rc;
}

static int read_real(const char *file, gd_facts *f, const gd_nccl_tests **t)
{
    char *text = fx_read_file(file);
    if (!text)
        skip(); /* the real captures are not here (../shared/realdata) */
    int rc = read_text(file, text, f, t);
    free(text);
    return rc;
}

static bool near(double a, double b)
{
    return fabs(a - b) < 0.005;
}

/* Today's header, the rank list over two hosts, the rows with root and #wrong, the trailer. */
static const char modern[] =
    "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
    "validation: 1 graph: 0\n"
    "#\n"
    "# Using devices\n"
    "#  Rank  0 Group  0 Pid   1001 on nodeA device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  1 Group  0 Pid   1002 on nodeA device  1 [0000:2a:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  2 Group  0 Pid   2001 on nodeB device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  3 Group  0 Pid   2002 on nodeB device  1 [0000:2a:00] NVIDIA H100 80GB HBM3\n"
    "#\n"
    "#                                                              out-of-place                       in-place\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
    "#wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
    "     1048576        262144     float     sum      -1    100.0   10.49   15.73      0    101.0   10.38   15.57     "
    " 0\n"
    "     2097152        524288     float     sum      -1    150.0   13.98   20.97      0    151.0   13.89   20.83     "
    " 0\n"
    "     4194304       1048576     float     sum      -1    250.0   16.78   25.17      0    249.0   16.84   25.27     "
    " 0\n"
    "# Out of bounds values : 0 OK\n"
    "# Avg bus bandwidth    : 20.59 \n";

static void modern_table(void **state)
{
    (void)state;
    gd_facts f;
    const gd_nccl_tests *t;
    assert_int_equal(read_text("t.log", modern, &f, &t), 0);
    assert_non_null(t);
    assert_int_equal(t->count, 1);
    const gd_nt_table *x = &t->tables[0];
    assert_true(x->header);
    assert_int_equal(x->nthread, 1);
    assert_int_equal(x->ngpus, 1);
    assert_int_equal(x->iters, 20);
    assert_int_equal(x->warmup, 5);
    assert_int_equal(x->max_bytes, 4194304);
    assert_int_equal(x->ranks, 4);
    assert_int_equal(x->nodes, 2);
    assert_int_equal(x->ranks_per_node, 2);
    assert_string_equal(x->gpu, "NVIDIA H100 80GB HBM3");
    assert_int_equal(x->row_count, 3);
    assert_true(x->has_root);
    assert_false(x->old_columns);
    assert_int_equal(x->wrong_total, 0);
    assert_int_equal(x->oob_values, 0);
    assert_true(near(x->avg_busbw_gbps, 20.59));
    assert_int_equal(x->op, GD_NT_ALL_REDUCE); /* by its columns: busbw = 1.5 algbw */
    assert_true(x->op_inferred);
    assert_string_equal(x->cut, "");
    assert_true(near(x->rows[2].ip.busbw_gbps, 25.27));
    gd_nt_summary s;
    gd_nt_summarize(x, &s);
    assert_true(near(s.peak_busbw_gbps, 25.27));
    assert_int_equal(s.peak_bytes, 4194304);
    assert_false(s.collapse);
    gd_facts_free(&f);
}

/* The same rows under each launcher's prefix read the same. */
static void launcher_prefixes(void **state)
{
    (void)state;
    static const char *const prefix[] = {"[1,0]<stdout>:", "[0] ", "0: ", "Thu Jul 18 15:41:05 2024<stdout>:", "> "};
    static const char *const launcher[] = {"mpirun", "mpirun", "srun", "mpirun", ""};
    for (size_t p = 0; p < sizeof prefix / sizeof prefix[0]; p++) {
        char text[4096] = "";
        const char *line = modern;
        while (*line) {
            const char *nl = strchr(line, '\n');
            size_t used = strlen(text);
            snprintf(text + used, sizeof text - used, "%s%.*s\n", prefix[p], (int)(nl - line), line);
            line = nl + 1;
        }
        gd_facts f;
        const gd_nccl_tests *t;
        assert_int_equal(read_text("p.log", text, &f, &t), 0);
        assert_int_equal(t->count, 1);
        assert_int_equal(t->tables[0].row_count, 3);
        assert_int_equal(t->tables[0].ranks, 4);
        assert_int_equal(t->tables[0].nodes, 2);
        assert_string_equal(t->tables[0].launcher, launcher[p]);
        assert_true(near(t->tables[0].avg_busbw_gbps, 20.59));
        gd_facts_free(&f);
    }
}

/* One row of each collective, its binary named by the command line. */
static void each_op(void **state)
{
    (void)state;
    static const struct {
        const char *binary, *row;
        gd_nt_op op;
    } ops[] = {
        {"all_reduce_perf",
         "    33554432       8388608     float     sum      -1    812.3   41.31   72.29      0    808.2   41.52   "
         "72.66      0",
         GD_NT_ALL_REDUCE},
        {"all_gather_perf",
         "    33554432       1048576     float    none      -1    812.3   41.31   36.15      0    808.2   41.52   "
         "36.33      0",
         GD_NT_ALL_GATHER},
        {"reduce_scatter_perf",
         "    33554432       1048576     float     sum      -1    812.3   41.31   36.15      0    808.2   41.52   "
         "36.33      0",
         GD_NT_REDUCE_SCATTER},
        {"broadcast_perf",
         "    33554432       8388608     float    none       0    812.3   41.31   41.31      0    808.2   41.52   "
         "41.52      0",
         GD_NT_BROADCAST},
        {"reduce_perf",
         "    33554432       8388608     float     sum       0    812.3   41.31   41.31      0    808.2   41.52   "
         "41.52      0",
         GD_NT_REDUCE},
        {"alltoall_perf",
         "    33554432       1048576     float    none      -1    812.3   41.31   36.15      0    808.2   41.52   "
         "36.33      0",
         GD_NT_ALLTOALL},
        {"sendrecv_perf",
         "    33554432       8388608     float     sum      -1    812.3   41.31   41.31      0    808.2   41.52   "
         "41.52      0",
         GD_NT_SENDRECV},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text, "mpirun -np 8 -npernode 4 ./build/%s -b 32M -e 32M -g 1 -n 50\n%s\n%s\n",
                 ops[i].binary, ops[i].row, ops[i].row);
        gd_facts f;
        const gd_nccl_tests *t;
        assert_int_equal(read_text("op.log", text, &f, &t), 0);
        const gd_nt_table *x = &t->tables[0];
        assert_int_equal(x->op, ops[i].op);
        assert_false(x->op_inferred);
        assert_string_equal(x->binary, ops[i].binary);
        assert_int_equal(x->ranks, 8); /* -np 8 x -g 1; nccl-tests' -n 50 is its iterations */
        assert_true(x->ranks_from_command);
        assert_int_equal(x->nodes, 2);
        assert_int_equal(x->ranks_per_node, 4);
        assert_int_equal(x->row_count, 2);
        assert_non_null(strstr(x->cut, "no run header"));
        gd_facts_free(&f);
    }
    /* The factors of doc/PERFORMANCE.md. */
    assert_true(near(gd_nt_busbw_factor(GD_NT_ALL_REDUCE, 16), 1.875));
    assert_true(near(gd_nt_busbw_factor(GD_NT_ALL_GATHER, 16), 0.9375));
    assert_true(near(gd_nt_busbw_factor(GD_NT_BROADCAST, 16), 1));
    assert_true(isnan(gd_nt_busbw_factor(GD_NT_UNKNOWN, 16)));
}

/* An abort after one row, and rows with wrong elements. */
static void abort_and_wrong(void **state)
{
    (void)state;
    const char *text =
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
        "#wrong\n"
        "     1048576        262144     float     sum      -1    100.0   10.49   15.73      0    101.0   10.38   15.57 "
        "     3\n"
        "     2097152        524288     float     sum      -1    150.0   13.98   20.97      2    151.0   13.89   20.83 "
        "     0\n"
        "node2: Test NCCL failure common.cu:1005 'unhandled system error / '\n";
    gd_facts f;
    const gd_nccl_tests *t;
    assert_int_equal(read_text("a.log", text, &f, &t), 0);
    const gd_nt_table *x = &t->tables[0];
    assert_int_equal(x->wrong_total, 5);
    assert_non_null(strstr(x->abort, "unhandled system error"));
    assert_int_equal(x->abort_line, 4);
    assert_string_equal(x->cut, "no run header or rank list: ranks and nodes not known"); /* no trailer: it aborted */
    gd_facts_free(&f);
}

/* A run that aborts before its first row is a table of its own. */
static void abort_before_rows(void **state)
{
    (void)state;
    const char *text =
        "# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
        "validation: 1 graph: 0\n"
        "#  Rank  0 Group  0 Pid  50 on gpu01 device  0 [0x1b] NVIDIA A100-SXM4-80GB\n"
        "gpu01: Test NCCL failure common.cu:892 'unhandled cuda error'\n";
    gd_facts f;
    const gd_nccl_tests *t;
    assert_int_equal(read_text("b.log", text, &f, &t), 0);
    assert_int_equal(t->count, 1);
    assert_int_equal(t->tables[0].row_count, 0);
    assert_non_null(strstr(t->tables[0].abort, "unhandled cuda error"));
    gd_facts_free(&f);
}

/* Two runs in one file: two tables; a row cut short at the end is said. */
static void two_runs_and_a_cut_row(void **state)
{
    (void)state;
    char text[4096];
    snprintf(text, sizeof text, "%s%s     8388608       2097152     float     sum      -1    231.4   36.24\n", modern,
             modern);
    gd_facts f;
    const gd_nccl_tests *t;
    assert_int_equal(read_text("two.log", text, &f, &t), 0);
    assert_int_equal(t->count, 2);
    assert_int_equal(t->tables[1].row_count, 3);
    assert_non_null(strstr(t->tables[1].cut, "cut short"));
    gd_facts_free(&f);
}

/* A column header with no row under it, and nothing of nccl-tests at all. */
static void not_a_table(void **state)
{
    (void)state;
    gd_facts f;
    const gd_nccl_tests *t;
    assert_int_equal(read_text("c.log",
                               "#       size         count      type   redop    root     time   algbw   busbw #wrong "
                               "    time   algbw   busbw #wrong\n"
                               "garbage here\n",
                               &f, &t),
                     -1);
    gd_facts_free(&f);
    assert_int_equal(read_text("d.log", "hello\nworld\n", &f, &t), -1);
    gd_facts_free(&f);
}

/* The real pastes, fact by fact. */
static void real_256_gpus(void **state)
{
    (void)state;
    gd_facts f;
    const gd_nccl_tests *t;
    assert_int_equal(read_real(REAL "all_reduce_perf-256gpu-16-per-node-nccl2.8.4-45-72GBs-ncclt78.txt", &f, &t), 0);
    const gd_nt_table *x = &t->tables[0];
    assert_int_equal(x->op, GD_NT_ALL_REDUCE);
    assert_false(x->op_inferred);
    assert_int_equal(x->ranks, 256);
    assert_int_equal(x->nodes, 16);
    assert_int_equal(x->ranks_per_node, 16);
    assert_string_equal(x->nccl_version, "2.8.4+cuda10.1");
    assert_int_equal(x->row_count, 6);
    assert_true(x->old_columns || x->wrong_total < 0); /* "N/A" error column */
    assert_int_equal(x->rows[0].bytes, 33554432);
    assert_int_equal(x->rows[5].bytes, 1073741824);
    gd_nt_summary s;
    gd_nt_summarize(x, &s);
    assert_true(near(s.peak_busbw_gbps, 74.36));
    assert_int_equal(s.peak_bytes, 536870912);
    assert_true(isnan(x->avg_busbw_gbps));
    assert_non_null(strstr(x->cut, "before its trailer"));
    assert_non_null(strstr(x->env, "NCCL_SOCKET_IFNAME=enp134s0f1"));
    gd_facts_free(&f);
}

static void real_a3mega(void **state)
{
    (void)state;
    gd_facts f;
    const gd_nccl_tests *t;
    assert_int_equal(read_real(REAL "all_reduce_perf-2node-16x-h100-gcp-a3mega-tcpxo-338GBs-lessizzmore.txt", &f, &t),
                     0);
    const gd_nt_table *x = &t->tables[0];
    assert_int_equal(x->op, GD_NT_ALL_REDUCE);
    assert_int_equal(x->ranks, 16);
    assert_false(x->ranks_from_command);
    assert_int_equal(x->nodes, 2);
    assert_int_equal(x->ranks_per_node, 8);
    assert_int_equal(x->row_count, 31);
    assert_int_equal(x->rows[0].bytes, 8);
    assert_int_equal(x->rows[30].bytes, 8589934592);
    assert_int_equal(x->wrong_total, 0);
    assert_int_equal(x->oob_values, 0);
    assert_true(near(x->avg_busbw_gbps, 70.742));
    gd_nt_summary s;
    gd_nt_summarize(x, &s);
    assert_true(near(s.peak_busbw_gbps, 338.82));
    assert_int_equal(s.peak_bytes, 8589934592);
    assert_false(s.collapse);
    assert_string_equal(x->cut, "");
    gd_facts_free(&f);
}

static void real_two_nodes_tree(void **state)
{
    (void)state;
    gd_facts f;
    const gd_nccl_tests *t;
    assert_int_equal(read_real(REAL "all_reduce_perf-2node-1x-h100-per-node-4nic-tree-41GBs-ncclt232.txt", &f, &t), 0);
    const gd_nt_table *x = &t->tables[0];
    assert_int_equal(x->op, GD_NT_ALL_REDUCE);
    assert_int_equal(x->ranks, 2);
    assert_int_equal(x->nodes, -1); /* a hostfile: not in the paste */
    assert_string_equal(x->algo, "Tree");
    assert_int_equal(x->row_count, 5);
    gd_nt_summary s;
    gd_nt_summarize(x, &s);
    assert_true(near(s.peak_busbw_gbps, 41.52));
    assert_non_null(strstr(x->cut, "the table stops at 32 MiB, before its trailer"));
    gd_facts_free(&f);
}

static void real_collapse(void **state)
{
    (void)state;
    gd_facts f;
    const gd_nccl_tests *t;
    assert_int_equal(
        read_real(REAL "all_reduce_perf-3node-cross-rack-h100-roce-collapse-29-to-5GBs-tagged-rows-nccl1453.txt", &f,
                  &t),
        0);
    const gd_nt_table *x = &t->tables[0];
    assert_int_equal(x->row_count, 10);
    assert_string_equal(x->launcher, "mpirun");
    assert_int_equal(x->op, GD_NT_ALL_REDUCE);
    assert_true(x->op_inferred);
    assert_int_equal(x->ranks, -1);
    assert_true(near(x->rows[0].ip.time_us, 2302.3)); /* the tag inside the row taken out */
    gd_nt_summary s;
    gd_nt_summarize(x, &s);
    assert_true(s.collapse);
    assert_int_equal(s.collapse_bytes, 67108864);
    assert_true(near(s.before_busbw_gbps, 29.50));
    assert_true(near(s.collapse_busbw_gbps, 5.33));
    assert_non_null(strstr(x->cut, "no run header or rank list"));
    gd_facts_free(&f);
}

static void real_eight_nodes_old_columns(void **state)
{
    (void)state;
    gd_facts f;
    const gd_nccl_tests *t;
    assert_int_equal(read_real(REAL "all_reduce_perf-8node-64x-v100-100g-ib-4.3GBs-slow-ncclt78.txt", &f, &t), 0);
    const gd_nt_table *x = &t->tables[0];
    assert_int_equal(x->row_count, 2);
    assert_true(x->old_columns);
    assert_false(x->has_root);
    assert_true(near(x->rows[0].oop.error, 2e-6));
    assert_int_equal(x->wrong_total, -1);
    assert_true(near(x->avg_busbw_gbps, 4.32178));
    assert_int_equal(x->oob_values, 0);
    gd_nt_summary s;
    gd_nt_summarize(x, &s);
    assert_true(near(s.peak_busbw_gbps, 4.33));
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(modern_table),      cmocka_unit_test(launcher_prefixes),
        cmocka_unit_test(each_op),           cmocka_unit_test(abort_and_wrong),
        cmocka_unit_test(abort_before_rows), cmocka_unit_test(two_runs_and_a_cut_row),
        cmocka_unit_test(not_a_table),       cmocka_unit_test(real_256_gpus),
        cmocka_unit_test(real_a3mega),       cmocka_unit_test(real_two_nodes_tree),
        cmocka_unit_test(real_collapse),     cmocka_unit_test(real_eight_nodes_old_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
