/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench.nccl_node_missing, bench.nccl_nodes_failed and bench.nccl_nodes_low
 * (src/checks/bench_nodes.c) from literal views of 4 nodes of 8 ports at
 * 400 Gb/s: quiet near what the NICs allow; a node whose port runs at a
 * quarter, slow with every partner, is named with its port and its own
 * network finding; a node on sockets; a slow link between two nodes fast
 * elsewhere; a rank that never came; wrong data on one rank.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/node_net.h"
#include "gpudoctor/bench.h"
#include "gpudoctor/bench_nodes.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODES 4

/* 4 nodes, each 8 ports at 400 Gb/s (384 GB/s at 0.96), its own ring 360
 * GB/s, every rank at `ring` GB/s. */
static gd_nccl_nodes *cluster(gd_facts *f, double ring)
{
    memset(f, 0, sizeof *f);
    gd_bench_facts *b = gd_bench_facts_get(f);
    gd_nccl_nodes *n = calloc(1, sizeof *n);
    b->nodes = n;
    n->world = NODES;
    n->nodes = calloc(NODES, sizeof *n->nodes);
    n->timeout_s = 60;
    snprintf(n->master, sizeof n->master, "node00:29517");
    snprintf(n->launcher, sizeof n->launcher, "slurm");
    n->ring_gbs = ring;
    n->ring_bytes = (size_t)1 << 30;
    for (int r = 0; r < NODES; r++) {
        gd_node_view *v = &n->nodes[r];
        v->rank = r;
        v->arrived = v->reported = true;
        snprintf(v->host, sizeof v->host, "node%02d", r);
        v->gpus = 8;
        v->net = (gd_node_net){.transport = "IB",
                               .ports = 8,
                               .now_gbs = 400,
                               .best_gbs = 400,
                               .slowest_gbps = 400,
                               .fastest_gbps = 400,
                               .gdr = 1};
        v->intra_expect_gbs = 360;
        v->world.verdict = GD_VERIFY_OK;
        v->world.peak_busbw_gbps[GD_NCCL_ALL_REDUCE] = ring;
    }
    return n;
}

/* The pairs of 4 nodes in 2 rounds (0-1, 2-3, 0-2, 1-3) at these figures. */
static void pairs(gd_nccl_nodes *n, double p01, double p23, double p02, double p13)
{
    n->pairs_run = true;
    n->pair_count = 4;
    n->pairs = calloc(4, sizeof *n->pairs);
    n->pairs[0] = (gd_node_pair){0, 1, 0, p01, ""};
    n->pairs[1] = (gd_node_pair){2, 3, 0, p23, ""};
    n->pairs[2] = (gd_node_pair){0, 2, 1, p02, ""};
    n->pairs[3] = (gd_node_pair){1, 3, 1, p13, ""};
}

static gd_findings judge(const gd_facts *f)
{
    gd_findings fs = {0};
    gd_check_run(gd_check_find("bench.nccl_node_missing"), f, &fs);
    gd_check_run(gd_check_find("bench.nccl_nodes_failed"), f, &fs);
    gd_check_run(gd_check_find("bench.nccl_nodes_low"), f, &fs);
    return fs;
}

static const gd_finding *only(const gd_findings *fs, const char *id)
{
    if (fs->n != 1 || strcmp(fs->v[0].id, id) != 0)
        fail_msg("want exactly %s, got %zu findings (%s)", id, fs->n, fs->n ? fs->v[0].id : "-");
    return &fs->v[0];
}

static void quiet_near_the_nics(void **state)
{
    (void)state;
    gd_facts f;
    cluster(&f, 0.85 * 400);
    gd_findings fs = judge(&f);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
    /* Without the run (check, a single-node bench): nothing, not even a note. */
    gd_facts none = {0};
    fs = judge(&none);
    assert_int_equal(fs.n + fs.nskips, 0);
    gd_findings_free(&fs);
}

static void the_node_with_a_slow_port_is_named(void **state)
{
    (void)state;
    gd_facts f;
    gd_nccl_nodes *n = cluster(&f, 85);
    gd_node_view *v = &n->nodes[2];
    v->net.now_gbs = 100;
    v->net.slowest_gbps = 100;
    snprintf(v->net.slowest, sizeof v->net.slowest, "mlx5_3/1");
    v->note_count = 1;
    snprintf(v->notes[0].id, sizeof v->notes[0].id, "net.port_rate_low");
    snprintf(v->notes[0].title, sizeof v->notes[0].title, "mlx5_3 port 1 runs at 100 of 400 Gb/s");
    pairs(n, 340, 85, 85, 340);
    gd_findings fs = judge(&f);
    const gd_finding *x = only(&fs, "bench.nccl_nodes_low");
    assert_int_equal(x->severity, GD_SEV_CRITICAL); /* 85 of 360: under 30 % */
    assert_non_null(strstr(x->title, "node02's mlx5_3/1 at 100 Gb/s (its others 400)"));
    assert_non_null(strstr(x->title, "of the 360 GB/s")); /* the node's own ring is lower than 384 */
    json_t *b = json_array_get(json_object_get(x->evidence, "blamed_nodes"), 0);
    assert_int_equal(json_integer_value(json_object_get(b, "rank")), 2);
    assert_string_equal(json_string_value(json_object_get(b, "port")), "mlx5_3/1");
    json_t *note = json_array_get(json_object_get(b, "network_findings"), 0);
    assert_string_equal(json_string_value(json_object_get(note, "id")), "net.port_rate_low");
    assert_non_null(strstr(x->fix, "ibstat mlx5_3"));
    assert_true(fabs(x->impact_pct - 100 * (1 - 85.0 / 360)) < 0.01);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void a_node_on_sockets_is_named(void **state)
{
    (void)state;
    gd_facts f;
    gd_nccl_nodes *n = cluster(&f, 2.7);
    gd_node_view *v = &n->nodes[1];
    v->net =
        (gd_node_net){.transport = "Socket", .now_gbs = NAN, .best_gbs = NAN, .slowest_gbps = NAN, .fastest_gbps = NAN};
    pairs(n, 2.7, 340, 340, 2.7);
    gd_findings fs = judge(&f);
    const gd_finding *x = only(&fs, "bench.nccl_nodes_low");
    assert_non_null(strstr(x->title, "node01 has no RDMA port"));
    assert_non_null(strstr(x->fix, "NCCL_IB_DISABLE"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void a_node_without_gpudirect_rdma_is_named(void **state)
{
    (void)state;
    gd_facts f;
    gd_nccl_nodes *n = cluster(&f, 20);
    n->nodes[3].net.gdr = 0; /* its ports run at full rate: the staging through host memory is the cause */
    pairs(n, 340, 20, 340, 20);
    gd_findings fs = judge(&f);
    const gd_finding *x = only(&fs, "bench.nccl_nodes_low");
    assert_non_null(strstr(x->title, "node03 runs without GPUDirect RDMA"));
    assert_non_null(strstr(x->fix, "modprobe nvidia_peermem"));
    json_t *b = json_array_get(json_object_get(x->evidence, "blamed_nodes"), 0);
    assert_false(json_boolean_value(json_object_get(b, "gpudirect_rdma")));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void a_slow_link_between_fast_nodes(void **state)
{
    (void)state;
    gd_facts f;
    gd_nccl_nodes *n = cluster(&f, 90);
    pairs(n, 340, 90, 340, 340); /* 2 - 3 slow, both fast with others */
    gd_findings fs = judge(&f);
    const gd_finding *x = only(&fs, "bench.nccl_nodes_low");
    assert_non_null(strstr(x->title, "the link node02 - node03"));
    assert_int_equal(json_array_size(json_object_get(x->evidence, "blamed_nodes")), 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void without_pairs_the_nodes_own_account(void **state)
{
    (void)state;
    gd_facts f;
    gd_nccl_nodes *n = cluster(&f, 150);
    n->world = 2; /* two nodes: the ring is the only pair */
    gd_node_view *v = &n->nodes[1];
    v->net.now_gbs = 200;
    v->net.slowest_gbps = 200;
    snprintf(v->net.slowest, sizeof v->net.slowest, "mlx5_7/1");
    gd_findings fs = judge(&f);
    const gd_finding *x = only(&fs, "bench.nccl_nodes_low");
    assert_int_equal(x->severity, GD_SEV_WARNING); /* 150 of 360: 42 % */
    assert_non_null(strstr(x->title, "node01's mlx5_7/1 at 200 Gb/s"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void a_rank_that_never_came(void **state)
{
    (void)state;
    gd_facts f;
    gd_nccl_nodes *n = cluster(&f, NAN);
    n->missing = 1;
    for (int r = 0; r < NODES; r++)
        n->nodes[r].reported = false;
    n->nodes[3].arrived = false;
    n->nodes[3].host[0] = '\0';
    gd_findings fs = judge(&f);
    const gd_finding *x = only(&fs, "bench.nccl_node_missing");
    assert_int_equal(x->severity, GD_SEV_CRITICAL);
    assert_non_null(strstr(x->title, "Rank 3 of 4 never joined"));
    json_t *never = json_object_get(x->evidence, "never_arrived");
    assert_int_equal(json_array_size(never), 1);
    assert_int_equal(json_integer_value(json_array_get(never, 0)), 3);
    assert_int_equal(json_array_size(json_object_get(x->evidence, "no_report")), 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
    /* All came, one went silent. */
    n = cluster(&f, 340);
    n->unreported = 1;
    n->nodes[2].reported = false;
    fs = judge(&f);
    x = only(&fs, "bench.nccl_node_missing");
    assert_non_null(strstr(x->title, "Rank 2 (node02) of 4 joined the run across nodes and stopped before reporting"));
    gd_findings_free(&fs);
    /* The others saw NCCL's remote error: that is the silent rank's doing, not a failure of theirs. */
    for (int r = 0; r < NODES; r++)
        if (r != 2) {
            n->nodes[r].world.failed = n->nodes[r].world.remote = true;
            snprintf(n->nodes[r].world.error, sizeof n->nodes[r].world.error,
                     "ncclGroupEnd failed: ncclRemoteError (remote process exited or there was a network error)");
        }
    fs = judge(&f);
    x = only(&fs, "bench.nccl_node_missing");
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void wrong_data_on_one_rank(void **state)
{
    (void)state;
    gd_facts f;
    gd_nccl_nodes *n = cluster(&f, NAN);
    gd_node_view *v = &n->nodes[3];
    v->world.failed = true;
    v->world.verdict = GD_VERIFY_WRONG;
    snprintf(v->world.detail, sizeof v->world.detail, "GPU rank 29 element 7 is 3, expected 2");
    gd_findings fs = judge(&f);
    const gd_finding *x = only(&fs, "bench.nccl_nodes_failed");
    assert_non_null(strstr(x->title, "wrong data on rank 3 (node03)"));
    assert_non_null(strstr(x->title, "GPU rank 29 element 7"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* The node's network from its NIC facts: ports x the slowest, sockets without RDMA. */
static void a_nodes_network_from_its_ports(void **state)
{
    (void)state;
    gd_net_facts *net = calloc(1, sizeof *net);
    net->devices_read = true;
    net->dev_count = 4;
    for (size_t d = 0; d < 4; d++) {
        snprintf(net->devs[d].name, sizeof net->devs[d].name, "mlx5_%zu", d);
        net->devs[d].port_count = 1;
        gd_net_port *p = &net->devs[d].ports[0];
        p->port = 1;
        p->state = GD_PORT_ACTIVE;
        p->link_layer = GD_LINK_INFINIBAND;
        p->rate_gbps = gd_val(d == 2 ? 100 : 400);
    }
    gd_node_net nn;
    gd_node_port ports[GD_NODE_PORTS];
    size_t count;
    net->peermem = GD_PEERMEM_ABSENT;
    gd_node_net_of(net, "", &nn, ports, &count, GD_NODE_PORTS);
    assert_string_equal(nn.transport, "IB");
    assert_int_equal(nn.gdr, 0);
    assert_int_equal(nn.ports, 4);
    assert_true(fabs(nn.now_gbs - 4 * 100 / 8.0) < 1e-9);
    assert_true(fabs(nn.best_gbs - 4 * 400 / 8.0) < 1e-9);
    assert_string_equal(nn.slowest, "mlx5_2/1");
    assert_int_equal(count, 4);
    /* NCCL_IB_HCA leaves the slow one out: the rest run alike. */
    gd_node_net_of(net, "NCCL_IB_HCA=^mlx5_2", &nn, ports, &count, GD_NODE_PORTS);
    assert_int_equal(nn.ports, 3);
    assert_string_equal(nn.slowest, "");
    assert_true(fabs(nn.now_gbs - 3 * 400 / 8.0) < 1e-9);
    /* NCCL_IB_DISABLE=1: sockets. */
    gd_node_net_of(net, "NCCL_IB_DISABLE=1", &nn, ports, &count, GD_NODE_PORTS);
    assert_string_equal(nn.transport, "Socket");
    assert_true(isnan(nn.now_gbs));
    /* A port down is not used; RoCE is said. */
    net->devs[0].ports[0].state = GD_PORT_DOWN;
    for (size_t d = 0; d < 4; d++)
        net->devs[d].ports[0].link_layer = GD_LINK_ETHERNET;
    gd_node_net_of(net, "", &nn, ports, &count, GD_NODE_PORTS);
    assert_string_equal(nn.transport, "RoCE");
    assert_int_equal(nn.ports, 3);
    assert_false(ports[0].active);
    free(net);
    /* Not read: no transport said. */
    gd_node_net_of(NULL, "", &nn, ports, &count, GD_NODE_PORTS);
    assert_string_equal(nn.transport, "");
    assert_int_equal(nn.gdr, -1);
    assert_int_equal(count, 0);
}

static void the_runs_expectation(void **state)
{
    (void)state;
    gd_facts f;
    gd_nccl_nodes *n = cluster(&f, 300);
    n->nodes[1].net.best_gbs = 200; /* fewer ports: the best node's NICs still set the bar */
    n->nodes[3].intra_expect_gbs = 150; /* a node whose own ring is slower */
    gd_nodes_expect e;
    gd_nodes_expect_of(n->nodes, NODES, &e);
    assert_true(fabs(e.net_gbs - 384) < 1e-9);
    assert_int_equal(e.net_rank, 0);
    assert_true(fabs(e.busbw_gbs - 150) < 1e-9);
    assert_int_equal(e.intra_rank, 3);
    /* One node: its own ring alone, whatever its NICs. */
    gd_nodes_expect_of(n->nodes, 1, &e);
    assert_true(fabs(e.busbw_gbs - 360) < 1e-9);
    assert_true(isnan(e.net_gbs));
    for (int r = 0; r < NODES; r++)
        n->nodes[r].net.best_gbs = NAN;
    gd_nodes_expect_of(n->nodes, NODES, &e);
    assert_true(isnan(e.busbw_gbs));
    assert_non_null(strstr(e.why_not, "no node reported an Active RDMA port"));
    gd_findings fs = judge(&f);
    assert_int_equal(fs.n, 0);
    assert_int_equal(fs.nskips, 1); /* not checked, because */
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quiet_near_the_nics),
        cmocka_unit_test(the_node_with_a_slow_port_is_named),
        cmocka_unit_test(a_node_on_sockets_is_named),
        cmocka_unit_test(a_node_without_gpudirect_rdma_is_named),
        cmocka_unit_test(a_slow_link_between_fast_nodes),
        cmocka_unit_test(without_pairs_the_nodes_own_account),
        cmocka_unit_test(a_rank_that_never_came),
        cmocka_unit_test(wrong_data_on_one_rank),
        cmocka_unit_test(a_nodes_network_from_its_ports),
        cmocka_unit_test(the_runs_expectation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
