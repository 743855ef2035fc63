/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JSON report's "nccl_log" object (src/report/nccl_log_report.c): absent
 * without a log; with one, each process's facts, unknown as null (never ""),
 * the channel counts summed, GDR refusals with their cause.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "formats/capture/import.h"
#include "report/nccl_log_report.h"

#include <string.h>

static void absent_without_a_log(void **state)
{
    (void)state;
    gd_facts f;
    memset(&f, 0, sizeof f);
    assert_null(gd_report_nccl_log_json(&f));
}

static void facts_and_nulls(void **state)
{
    (void)state;
    gd_facts f;
    memset(&f, 0, sizeof f);
    static const char text[] =
        "n1:5:6 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>\n"
        "n1:5:6 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0\n"
        "n1:5:6 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/IPC\n"
        "n1:5:6 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)\n";
    char err[128];
    assert_int_equal(gd_import_nccl_log("n1.log", text, sizeof text - 1, &f, err, sizeof err), 0);
    json_t *o = gd_report_nccl_log_json(&f);
    assert_non_null(o);
    json_t *r = json_array_get(json_object_get(o, "ranks"), 0);
    assert_string_equal(json_string_value(json_object_get(r, "host")), "n1");
    assert_true(json_is_null(json_object_get(r, "version")));
    assert_true(json_is_null(json_object_get(r, "rank")));
    assert_true(json_is_null(json_object_get(r, "bootstrap_interface")));
    assert_string_equal(json_string_value(json_object_get(r, "oob_interface")), "eth0");
    assert_true(json_is_true(json_object_get(r, "roce")));
    assert_string_equal(json_string_value(json_array_get(json_object_get(r, "ib_devices"), 0)), "mlx5_0:1/RoCE");
    json_t *t = json_object_get(o, "transports");
    assert_int_equal(json_integer_value(json_object_get(t, "net_host")), 1);
    assert_int_equal(json_integer_value(json_object_get(t, "p2p")), 1);
    json_t *g = json_array_get(json_object_get(o, "gdr_disabled"), 0);
    assert_string_equal(json_string_value(json_object_get(g, "cause")), "no module");
    assert_true(json_is_null(json_object_get(g, "gpu")));
    assert_true(json_is_null(json_object_get(g, "distance")));
    json_decref(o);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(absent_without_a_log),
        cmocka_unit_test(facts_and_nulls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
