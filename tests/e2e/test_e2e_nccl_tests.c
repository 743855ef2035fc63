/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: nccl-tests output through `check --from`. Each real paste
 * (../shared/realdata/network/nccl-tests) is judged as its thread
 * concluded: the 256-GPU and 2-node A3 Mega all-reduces are references
 * that ran well (their peaks, not their averages, said; the 2-node tree
 * note); nccl issue 1453's three nodes across racks collapse from 29.5 to
 * about 5 GB/s from 64 MiB on (nccl_tests.collapse); nccl-tests 232's
 * Tree paste stops at 32 MiB (said); the 8-node V100 table is slow by its
 * thread, but without NIC facts it is explained, "not judged against the
 * NICs". Then an srun-labelled table, an abort, a one-node table beside
 * its node's nvidia-smi capture and topology (held to the ring's slowest
 * edge), a malformed paste and a huge one (exit 3).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const env[] = {"NO_COLOR=", NULL};

static json_t *finding(json_t *report, const char *id)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(report, "findings"), i,
                       x) if (strcmp(json_string_value(json_object_get(x, "id")), id) == 0) return x;
    return NULL;
}

static json_t *table0(json_t *report)
{
    return json_array_get(json_object_get(report, "nccl_tests"), 0);
}

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static tool_result check_real(const char *file)
{
    char rel[256];
    snprintf(rel, sizeof rel, "network/nccl-tests/%s", file);
    return run_tool((const char *[]){"check", "--json", "--from", realdata(rel), NULL}, env);
}

static void references_explained(void **state)
{
    (void)state;
    need_realdata();
    tool_result r = check_real("all_reduce_perf-256gpu-16-per-node-nccl2.8.4-45-72GBs-ncclt78.txt");
    assert_int_equal(r.exit_code, 0);
    json_t *t = table0(r.json);
    assert_string_equal(json_string_value(json_object_get(t, "op")), "all_reduce");
    assert_int_equal(json_integer_value(json_object_get(t, "ranks")), 256);
    assert_int_equal(json_integer_value(json_object_get(t, "nodes")), 16);
    assert_true(fabs(num(t, "peak_busbw_gbps") - 74.36) < 0.01);
    assert_int_equal(json_array_size(json_object_get(t, "rows")), 6);
    assert_non_null(strstr(json_string_value(json_object_get(t, "cut")), "before its trailer"));
    assert_non_null(strstr(json_string_value(json_object_get(t, "not_judged_because")), "no NIC facts were given"));
    tool_result_free(&r);

    r = check_real("all_reduce_perf-2node-16x-h100-gcp-a3mega-tcpxo-338GBs-lessizzmore.txt");
    assert_int_equal(r.exit_code, 0);
    t = table0(r.json);
    assert_int_equal(json_integer_value(json_object_get(t, "ranks")), 16);
    assert_int_equal(json_integer_value(json_object_get(t, "nodes")), 2);
    assert_true(fabs(num(t, "peak_busbw_gbps") - 338.82) < 0.01);
    assert_true(fabs(num(t, "avg_busbw_gbps") - 70.742) < 0.001);
    assert_int_equal(json_integer_value(json_object_get(t, "wrong")), 0);
    assert_true(json_is_null(json_object_get(t, "cut")));
    json_t *s = finding(r.json, "nccl_tests.summary");
    assert_non_null(s);
    assert_non_null(strstr(json_string_value(json_object_get(s, "title")), "peak busbw 338.8 GB/s at 8 GiB"));
    assert_null(finding(r.json, "nccl_tests.collapse"));
    tool_result_free(&r);
    /* The text says it on the first screen, the 2-node tree note too. */
    char rel[256];
    snprintf(rel, sizeof rel, "network/nccl-tests/%s",
             "all_reduce_perf-2node-16x-h100-gcp-a3mega-tcpxo-338GBs-lessizzmore.txt");
    r = run_tool((const char *[]){"check", "--from", realdata(rel), NULL}, env);
    char *first = strndup(r.out, 2200);
    assert_non_null(strstr(first, "peak busbw  338.8 GB/s at 8 GiB"));
    assert_non_null(strstr(first, "not judged against the NICs, because no NIC facts were given"));
    assert_non_null(strstr(first, "NCCL's tree can put busbw above the NICs' line rate"));
    free(first);
    tool_result_free(&r);
}

static void collapse_across_racks(void **state)
{
    (void)state;
    need_realdata();
    tool_result r =
        check_real("all_reduce_perf-3node-cross-rack-h100-roce-collapse-29-to-5GBs-tagged-rows-nccl1453.txt");
    assert_int_equal(r.exit_code, 1);
    json_t *c = finding(r.json, "nccl_tests.collapse");
    assert_non_null(c);
    json_t *ev = json_object_get(c, "evidence");
    assert_true(fabs(num(ev, "before_busbw_gbps") - 29.5) < 0.01);
    assert_int_equal(json_integer_value(json_object_get(ev, "from_bytes")), 67108864);
    json_t *t = table0(r.json);
    assert_string_equal(json_string_value(json_object_get(t, "launcher")), "mpirun");
    assert_true(json_is_true(json_object_get(t, "op_inferred")));
    tool_result_free(&r);
}

static void cut_and_slow_without_nics(void **state)
{
    (void)state;
    need_realdata();
    tool_result r = check_real("all_reduce_perf-2node-1x-h100-per-node-4nic-tree-41GBs-ncclt232.txt");
    assert_int_equal(r.exit_code, 0);
    json_t *t = table0(r.json);
    assert_int_equal(json_integer_value(json_object_get(t, "ranks")), 2);
    assert_true(fabs(num(t, "peak_busbw_gbps") - 41.52) < 0.01);
    assert_non_null(strstr(json_string_value(json_object_get(t, "cut")), "stops at 32 MiB"));
    assert_non_null(strstr(json_string_value(json_object_get(t, "nccl_env")), "NCCL_ALGO=Tree"));
    tool_result_free(&r);

    r = check_real("all_reduce_perf-8node-64x-v100-100g-ib-4.3GBs-slow-ncclt78.txt");
    assert_int_equal(r.exit_code, 0);
    t = table0(r.json);
    assert_true(fabs(num(t, "peak_busbw_gbps") - 4.33) < 0.01);
    assert_null(finding(r.json, "nccl_tests.below_nics"));
    size_t i;
    json_t *k;
    bool said = false;
    json_array_foreach(json_object_get(r.json, "not_checked"), i, k)
    {
        const char *reason = json_string_value(json_object_get(k, "reason"));
        said |= reason && strstr(reason, "not judged against the NICs, because no NIC facts were given");
    }
    assert_true(said);
    tool_result_free(&r);
}

static char *write_tmp(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/gd-e2e-nccl-tests-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static void srun_labels_and_an_abort(void **state)
{
    (void)state;
    const char *text =
        "0: # nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 agg iters: "
        "1 "
        "validation: 1 graph: 0\n"
        "0: #  Rank  0 Group  0 Pid   1001 on nodeA device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"
        "1: #  Rank  1 Group  0 Pid   2001 on nodeB device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"
        "0: #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
        "busbw #wrong\n"
        "0:      1048576        262144     float     sum      -1    100.0   10.49   10.49      0    101.0   10.38   "
        "10.38      0\n"
        "1: nodeB: Test NCCL failure common.cu:1005 'unhandled system error / '\n";
    char *path = write_tmp(text);
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", path, NULL}, env);
    unlink(path);
    assert_int_equal(r.exit_code, 2);
    json_t *a = finding(r.json, "nccl_tests.aborted");
    assert_non_null(a);
    assert_non_null(strstr(json_string_value(json_object_get(a, "fix")), "NCCL_SOCKET_IFNAME"));
    json_t *t = table0(r.json);
    assert_string_equal(json_string_value(json_object_get(t, "launcher")), "srun");
    assert_int_equal(json_integer_value(json_object_get(t, "nodes")), 2);
    tool_result_free(&r);
}

/* A one-node table of 8 ranks whose busbw rises to `peak` GB/s at 256 MiB. */
static char *one_node_table(double peak)
{
    static char text[8192];
    size_t used = (size_t)snprintf(text, sizeof text,
                                   "# nThread 1 nGpus 8 minBytes 1048576 maxBytes 1073741824 step: 2(factor) warmup "
                                   "iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n");
    for (int i = 0; i < 8; i++)
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "#  Rank %2d Group  0 Pid   1001 on nodeA device  %d [0x%02x] NVIDIA H100 80GB HBM3\n",
                                 i, i, 0x18 + i);
    used += (size_t)snprintf(text + used, sizeof text - used,
                             "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
                             "time   algbw   busbw #wrong\n");
    for (unsigned long b = 1ul << 20; b <= 1ul << 30; b <<= 1) {
        double bus = b >= (256ul << 20) ? peak : peak * (double)b / (256ul << 20), alg = bus / 1.75;
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "%12lu  %12lu     float     sum      -1  %7.1f  %6.2f  %6.2f      0  %7.1f  %6.2f  "
                                 "%6.2f      0\n",
                                 b, b / 4, b / (alg * 1e3), alg, bus, b / (alg * 1e3), alg, bus);
    }
    snprintf(text + used, sizeof text - used, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : %.1f\n",
             peak / 2);
    return text;
}

/* One node's table beside that node's nvidia-smi capture and topology: held to the ring's slowest edge. */
static void one_node_beside_its_gpus(void **state)
{
    (void)state;
    need_realdata();
    char smi[1024], topo[1024];
    snprintf(smi, sizeof smi, "%s", realdata("smi-text/h100x8-hw-slowdown-power-brake-gpud.txt"));
    snprintf(topo, sizeof topo, "%s", realdata("topo/h100-8gpu-nv18-stas00.txt"));
    char *path = write_tmp(one_node_table(3));
    tool_result r =
        run_tool((const char *[]){"check", "--json", "--from", smi, "--from", topo, "--from", path, NULL}, env);
    unlink(path);
    json_t *b = finding(r.json, "nccl_tests.below_topology");
    assert_non_null(b);
    assert_string_equal(json_string_value(json_object_get(b, "severity")), "critical");
    assert_null(finding(r.json, "nccl_tests.below_nics"));
    tool_result_free(&r);
    path = write_tmp(one_node_table(60));
    r = run_tool((const char *[]){"check", "--json", "--from", smi, "--from", topo, "--from", path, NULL}, env);
    unlink(path);
    assert_null(finding(r.json, "nccl_tests.below_topology"));
    assert_non_null(finding(r.json, "nccl_tests.summary"));
    tool_result_free(&r);
}

static void malformed_and_huge_exit_3(void **state)
{
    (void)state;
    char *path = write_tmp("#       size         count      type   redop    root     time   algbw   busbw #wrong     "
                           "time   algbw   busbw #wrong\n     1048576  x  y\n");
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", path, NULL}, env);
    unlink(path);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "without a row that could be read"));
    tool_result_free(&r);
    /* Past the 64 MiB an input may be: refused, not read. */
    char big[] = "/tmp/gd-e2e-nccl-tests-big-XXXXXX";
    int fd = mkstemp(big);
    assert_true(fd >= 0);
    const char row[] = "     1048576        262144     float     sum      -1    100.0   10.49   15.73      0    101.0  "
                       " 10.38   15.57      0\n";
    char *block = malloc(1 << 20);
    size_t n = 0;
    while (n + sizeof row <= (1 << 20)) {
        memcpy(block + n, row, sizeof row - 1);
        n += sizeof row - 1;
    }
    for (int i = 0; i < 66; i++)
        assert_int_equal(write(fd, block, n), (ssize_t)n);
    free(block);
    close(fd);
    r = run_tool((const char *[]){"check", "--json", "--from", big, NULL}, env);
    unlink(big);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "larger than 64 MiB"));
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(references_explained),      cmocka_unit_test(collapse_across_racks),
        cmocka_unit_test(cut_and_slow_without_nics), cmocka_unit_test(srun_labels_and_an_abort),
        cmocka_unit_test(one_node_beside_its_gpus),  cmocka_unit_test(malformed_and_huge_exit_3),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
