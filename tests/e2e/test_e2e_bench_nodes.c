/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `bench nccl --nodes`, several gpudoctor processes on loopback,
 * each playing one node from its own scenario (8 H100s, 8 NDR ports), met
 * through torchrun's variables, the simulated libnccl carrying the data
 * between them over sockets at the pace of each node's NICs. The stories of
 * docs/bench.md "Across nodes": healthy 4 nodes; one node's NIC at a quarter
 * rate; one node without RDMA; a node that never joins; wrong data on one
 * rank; and the meeting under faults: a rank late, a wrong MASTER_ADDR, the
 * port taken, no launcher at all. Every wait is bounded by --timeout.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <math.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_NODES 8

/* What each node is: the healthy example, changed. */
typedef enum { NODE_OK, NODE_QUARTER_NIC, NODE_NO_RDMA, NODE_WRONG_DATA, NODE_DIES, NODE_ABSENT } node_kind;

/* A loopback port nobody listens on now, below the kernel's ephemeral range
 * (as tests/common/free_ports.py picks them): one bind(0) gave could go to
 * another test's bind(0) or a connection's source end before rank 0 binds it. */
static int free_port(void)
{
    int low = 32768;
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    if (f) {
        if (fscanf(f, "%d", &low) != 1)
            low = 32768;
        fclose(f);
    }
    if (low < 12000)
        low = 12000;
    srand((unsigned)getpid() ^ (unsigned)time(NULL));
    for (int tries = 0; tries < 10000; tries++) {
        int port = 10000 + rand() % (low - 10000);
        int s = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        int ok = bind(s, (struct sockaddr *)&a, sizeof a) == 0;
        close(s);
        if (ok)
            return port;
    }
    fail_msg("no free port below %d", low);
    return -1;
}

/* The scenario of node `rank`, written into dir. */
static char *node_scenario(const char *dir, int rank, node_kind kind)
{
    json_error_t e;
    json_t *root = json_load_file(example("net-ib-h100x8-healthy.json"), 0, &e);
    assert_non_null(root);
    char host[32], name[32];
    snprintf(host, sizeof host, "node%02d", rank);
    json_object_set_new(json_object_get(root, "host"), "hostname", json_string(host));
    json_t *nics = json_object_get(root, "nics");
    if (kind == NODE_QUARTER_NIC)
        json_object_set_new(json_array_get(json_object_get(json_array_get(nics, 3), "ports"), 0), "rate_gbps",
                            json_integer(100));
    if (kind == NODE_NO_RDMA)
        json_object_set_new(root, "nics", json_array());
    if (kind == NODE_DIES) /* the simulated NCCL ends the process mid-sweep (docs/scenarios.md) */
        json_object_set_new(json_array_get(json_object_get(root, "gpus"), 0), "faults",
                            json_pack("{s:b}", "nccl_process_exit", 1));
    if (kind == NODE_WRONG_DATA) {
        json_t *gpu = json_array_get(json_object_get(root, "gpus"), 5);
        json_object_set_new(gpu, "faults", json_pack("{s:b}", "nccl_wrong_results", 1));
    }
    char *text = json_dumps(root, JSON_INDENT(1));
    json_decref(root);
    snprintf(name, sizeof name, "node%d.json", rank);
    char *path = write_temp_file(dir, name, text);
    free(text);
    return path;
}

typedef struct cluster {
    int world;
    node_kind kind[MAX_NODES];
    int late_ms[MAX_NODES];
    const char *master_addr[MAX_NODES]; /* NULL: 127.0.0.1 */
    const char *timeout; /* --timeout */
    int port; /* 0: a free one */
    const char *report; /* rank 0's --report FILE.html, NULL none */
    bool text; /* the text report, not --json */
} cluster;

typedef struct outcome {
    tool_result rank0;
    tool_result others[MAX_NODES];
    double seconds; /* rank 0's wall time */
} outcome;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Starts every rank of c but the absent ones (rank 0 after the others, the
 * late ones after rank 0 by their delay), and waits for all. */
static outcome run_cluster(const cluster *c)
{
    outcome o = {0};
    char *dir = temp_dir();
    int port = c->port ? c->port : free_port();
    char envs[MAX_NODES][4][64], *scen[MAX_NODES] = {0};
    tool_proc procs[MAX_NODES] = {0};
    bool started[MAX_NODES] = {0};
    double t0 = 0;
    /* Each pass starts some: the punctual others, rank 0, then the late ones. */
    for (int pass = 0; pass < 3; pass++)
        for (int r = c->world - 1; r >= 0; r--) {
            if (c->kind[r] == NODE_ABSENT || (pass == 0) != (r > 0 && !c->late_ms[r]) || (pass == 1) != (r == 0))
                continue;
            scen[r] = node_scenario(dir, r, c->kind[r]);
            snprintf(envs[r][0], 64, "RANK=%d", r);
            snprintf(envs[r][1], 64, "WORLD_SIZE=%d", c->world);
            snprintf(envs[r][2], 64, "MASTER_ADDR=%s", c->master_addr[r] ? c->master_addr[r] : "127.0.0.1");
            snprintf(envs[r][3], 64, "MASTER_PORT=%d", port);
            const char *env[] = {
                envs[r][0], envs[r][1], envs[r][2], envs[r][3], "GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", NULL};
            const char *argv[] = {"bench",
                                  "nccl",
                                  "--nodes",
                                  c->text ? "--force" : "--json",
                                  "--force",
                                  "--sim",
                                  scen[r],
                                  "--timeout",
                                  c->timeout ? c->timeout : "5",
                                  r == 0 && c->report ? "--report" : NULL, /* rank 0's page */
                                  c->report,
                                  NULL};
            if (pass == 2) {
                struct timespec d = {c->late_ms[r] / 1000, (c->late_ms[r] % 1000) * 1000000L};
                nanosleep(&d, NULL);
            }
            if (r == 0)
                t0 = now_s();
            procs[r] = run_tool_start(argv, env, NULL);
            started[r] = true;
        }
    for (int r = 0; r < c->world; r++) {
        if (!started[r])
            continue;
        tool_result res = run_tool_wait(&procs[r]);
        if (r == 0) {
            o.rank0 = res;
            o.seconds = now_s() - t0;
        } else {
            o.others[r] = res;
        }
        free(scen[r]);
    }
    remove_tree(dir);
    free(dir);
    return o;
}

static void outcome_free(outcome *o)
{
    tool_result_free(&o->rank0);
    for (int r = 0; r < MAX_NODES; r++)
        tool_result_free(&o->others[r]);
}

static json_t *nodes_of(const outcome *o)
{
    json_t *n = json_object_get(o->rank0.json, "nodes");
    if (!json_is_object(n))
        fail_msg("no nodes object; exit %d; stderr: %s; stdout: %.400s", o->rank0.exit_code, o->rank0.err,
                 o->rank0.out);
    return n;
}

static json_t *finding(const tool_result *r, const char *id)
{
    json_t *fs = json_object_get(r->json, "findings"), *f;
    size_t i;
    json_array_foreach(fs, i, f) if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0) return f;
    return NULL;
}

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void others_exit(const outcome *o, const cluster *c, int code)
{
    for (int r = 1; r < c->world; r++)
        if (c->kind[r] != NODE_ABSENT && o->others[r].exit_code != code)
            fail_msg("rank %d exited %d, not %d: %s", r, o->others[r].exit_code, code, o->others[r].err);
}

static void healthy_four_nodes_reach_the_nics(void **state)
{
    (void)state;
    cluster c = {.world = 4};
    outcome o = run_cluster(&c);
    assert_exact_findings("healthy 4 nodes", &o.rank0, 0, (const char *[]){NULL});
    others_exit(&o, &c, 0);
    json_t *n = nodes_of(&o);
    assert_int_equal(num(n, "world"), 4);
    assert_string_equal(json_string_value(json_object_get(n, "launcher")), "torchrun");
    double bw = num(n, "busbw_gbps"), want = num(n, "expected_gbps");
    /* The simulated ring: 0.85 x the slowest of 8 x 400 Gb/s and the node's NVLink ring. */
    assert_true(bw > 0.6 * want && bw <= want);
    assert_false(json_boolean_value(json_object_get(n, "pairs_run")));
    json_t *ranks = json_object_get(n, "ranks"), *v;
    size_t i;
    assert_int_equal(json_array_size(ranks), 4);
    json_array_foreach(ranks, i, v)
    {
        char host[32];
        snprintf(host, sizeof host, "node%02d", (int)i);
        assert_string_equal(json_string_value(json_object_get(v, "host")), host);
        assert_true(json_boolean_value(json_object_get(v, "reported")));
        assert_int_equal(num(v, "gpus"), 8);
        assert_string_equal(json_string_value(json_object_get(v, "verified")), "ok");
        assert_string_equal(json_string_value(json_object_get(json_object_get(v, "network"), "transport")), "IB");
    }
    outcome_free(&o);
    /* The text: the verdict for the run, every rank's row. */
    c.text = true;
    o = run_cluster(&c);
    assert_int_equal(o.rank0.exit_code, 0);
    assert_non_null(strstr(o.rank0.out, "Verdict: OK - no problem found in the all-reduce across 4 nodes (32 GPUs)"));
    assert_non_null(strstr(o.rank0.out, "NCCL all-reduce across 4 nodes"));
    assert_non_null(strstr(o.rank0.out, "node03"));
    assert_non_null(strstr(o.rank0.out, "node pairs not measured: the ring reached"));
    outcome_free(&o);
}

/* One rank: the same path (ncclGetUniqueId, ncclCommInitRank) on one node,
 * judged against its own ring, as tests/gpu/run.sh runs it on a real GPU. */
static void one_node_through_the_same_path(void **state)
{
    (void)state;
    cluster c = {.world = 1};
    outcome o = run_cluster(&c);
    assert_exact_findings("one node", &o.rank0, 0, (const char *[]){NULL});
    json_t *n = nodes_of(&o);
    assert_true(json_is_null(json_object_get(n, "network_expected_gbps")));
    assert_true(num(n, "expected_gbps") == num(n, "node_ring_expected_gbps"));
    assert_true(num(n, "busbw_gbps") > 0.6 * num(n, "expected_gbps"));
    outcome_free(&o);
}

/* The blamed node of bench.nccl_nodes_low, with its evidence. */
static json_t *blamed(const outcome *o)
{
    json_t *f = finding(&o->rank0, "bench.nccl_nodes_low");
    if (!f)
        fail_msg("no bench.nccl_nodes_low; stdout %.600s", o->rank0.out);
    json_t *b = json_object_get(json_object_get(f, "evidence"), "blamed_nodes");
    assert_int_equal(json_array_size(b), 1);
    return json_array_get(b, 0);
}

static void a_quarter_rate_nic_is_named(void **state)
{
    (void)state;
    char *dir = temp_dir(), page[600];
    snprintf(page, sizeof page, "%s/nodes.html", dir);
    cluster c = {.world = 4, .kind = {[2] = NODE_QUARTER_NIC}, .report = page};
    outcome o = run_cluster(&c);
    assert_exact_findings("quarter NIC", &o.rank0, 0, (const char *[]){"bench.nccl_nodes_low@-1", NULL});
    others_exit(&o, &c, 0);
    json_t *n = nodes_of(&o), *b = blamed(&o);
    assert_true(json_boolean_value(json_object_get(n, "pairs_run")));
    assert_int_equal(json_array_size(json_object_get(n, "pairs")), 4); /* 2 rounds of 2 pairs */
    assert_int_equal(num(b, "rank"), 2);
    assert_string_equal(json_string_value(json_object_get(b, "host")), "node02");
    assert_string_equal(json_string_value(json_object_get(b, "port")), "mlx5_3/1");
    assert_int_equal(num(b, "port_gbps"), 100);
    /* The node's own check agrees, and the report joins it. */
    json_t *notes = json_object_get(b, "network_findings"), *x;
    size_t i;
    bool rate_low = false;
    json_array_foreach(notes, i, x) rate_low |=
        strcmp(json_string_value(json_object_get(x, "id")), "net.port_rate_low") == 0;
    assert_true(rate_low);
    const char *title = json_string_value(json_object_get(finding(&o.rank0, "bench.nccl_nodes_low"), "title"));
    assert_non_null(strstr(title, "node02's mlx5_3/1 at 100 Gb/s"));
    /* The ring ran at about a quarter of a healthy one. */
    assert_true(num(n, "busbw_gbps") < 0.3 * num(n, "expected_gbps"));
    /* The page has every rank's view and the pairs beside the finding. */
    FILE *f = fopen(page, "r");
    if (!f)
        fail_msg("no %s: %s", page, o.rank0.err);
    char html[1 << 16];
    size_t len = fread(html, 1, sizeof html - 1, f);
    html[len] = '\0';
    fclose(f);
    assert_non_null(strstr(html, "NCCL all-reduce across nodes"));
    assert_non_null(strstr(html, "<td>node02</td>"));
    assert_non_null(strstr(html, "mlx5_3/1 at 100 Gb/s"));
    assert_non_null(strstr(html, "<td>2 - 3</td>"));
    remove_tree(dir);
    free(dir);
    outcome_free(&o);
}

static void a_node_without_rdma_is_named(void **state)
{
    (void)state;
    cluster c = {.world = 4, .kind = {[1] = NODE_NO_RDMA}};
    outcome o = run_cluster(&c);
    assert_exact_findings("no RDMA", &o.rank0, 0, (const char *[]){"bench.nccl_nodes_low@-1", NULL});
    json_t *b = blamed(&o);
    assert_int_equal(num(b, "rank"), 1);
    assert_string_equal(json_string_value(json_object_get(b, "transport")), "Socket");
    const char *title = json_string_value(json_object_get(finding(&o.rank0, "bench.nccl_nodes_low"), "title"));
    assert_non_null(strstr(title, "node01 has no RDMA port"));
    outcome_free(&o);
}

static void a_node_that_never_joins_is_named_within_the_timeout(void **state)
{
    (void)state;
    cluster c = {.world = 4, .kind = {[3] = NODE_ABSENT}, .timeout = "1"};
    outcome o = run_cluster(&c);
    assert_exact_findings("never joins", &o.rank0, 3, (const char *[]){"bench.nccl_node_missing@-1", NULL});
    assert_true(o.seconds < 1 + 15); /* the timeout and start-up on a busy machine, not a hang */
    json_t *ev = json_object_get(finding(&o.rank0, "bench.nccl_node_missing"), "evidence");
    assert_int_equal(json_array_size(json_object_get(ev, "never_arrived")), 1);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(ev, "never_arrived"), 0)), 3);
    assert_int_equal(json_array_size(json_object_get(ev, "no_report")), 0);
    /* The others hear that the run will not happen, and say where the report is. */
    for (int r = 1; r < 3; r++) {
        assert_int_equal(o.others[r].exit_code, 3);
        assert_non_null(strstr(o.others[r].err, "rank 0"));
    }
    outcome_free(&o);
}

static void wrong_data_on_one_rank_is_a_failure_never_a_figure(void **state)
{
    (void)state;
    cluster c = {.world = 4, .kind = {[3] = NODE_WRONG_DATA}};
    outcome o = run_cluster(&c);
    assert_exact_findings("wrong data", &o.rank0, 0, (const char *[]){"bench.nccl_nodes_failed@-1", NULL});
    json_t *n = nodes_of(&o);
    assert_true(json_is_null(json_object_get(n, "busbw_gbps")));
    json_t *ranks = json_object_get(json_object_get(finding(&o.rank0, "bench.nccl_nodes_failed"), "evidence"), "ranks");
    assert_int_equal(json_array_size(ranks), 1);
    assert_int_equal(num(json_array_get(ranks, 0), "rank"), 3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(ranks, 0), "what")), "wrong data");
    outcome_free(&o);
}

static void a_node_that_dies_mid_run_is_named(void **state)
{
    (void)state;
    cluster c = {.world = 4, .kind = {[2] = NODE_DIES}, .timeout = "5"};
    outcome o = run_cluster(&c);
    /* The others saw NCCL's remote error, and said so; rank 0 names the silent rank alone. */
    assert_exact_findings("dies mid-run", &o.rank0, 3, (const char *[]){"bench.nccl_node_missing@-1", NULL});
    assert_true(o.seconds < 5 + 15); /* no wait for the dead rank past its bound */
    json_t *ev = json_object_get(finding(&o.rank0, "bench.nccl_node_missing"), "evidence");
    json_t *silent = json_object_get(ev, "no_report");
    assert_int_equal(json_array_size(silent), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(silent, 0), "host")), "node02");
    assert_int_equal(o.others[2].exit_code, 137);
    assert_int_equal(o.others[1].exit_code, 0);
    assert_non_null(strstr(o.others[1].err, "failed"));
    json_t *r1 = json_array_get(json_object_get(nodes_of(&o), "ranks"), 1);
    assert_non_null(strstr(json_string_value(json_object_get(r1, "error")), "ncclRemoteError"));
    outcome_free(&o);
}

static void a_late_rank_is_waited_for(void **state)
{
    (void)state;
    cluster c = {.world = 3, .late_ms = {[1] = 1500}, .timeout = "10"};
    outcome o = run_cluster(&c);
    assert_exact_findings("late rank", &o.rank0, 0, (const char *[]){NULL});
    /* Measured against the punctual rank 2, which started as rank 0 did: start-up times cancel. */
    json_t *ranks = json_object_get(nodes_of(&o), "ranks");
    double late = num(json_array_get(ranks, 1), "joined_s"), punctual = num(json_array_get(ranks, 2), "joined_s");
    assert_true(late - punctual >= 1.0);
    outcome_free(&o);
}

static void a_wrong_master_addr_is_said(void **state)
{
    (void)state;
    cluster c = {.world = 2, .master_addr = {[1] = "no-such-node.invalid"}, .timeout = "1"};
    outcome o = run_cluster(&c);
    assert_int_equal(o.others[1].exit_code, 3);
    assert_non_null(strstr(o.others[1].err, "cannot reach rank 0 at no-such-node.invalid"));
    assert_exact_findings("wrong master", &o.rank0, 3, (const char *[]){"bench.nccl_node_missing@-1", NULL});
    outcome_free(&o);
}

static void a_taken_port_is_said(void **state)
{
    (void)state;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t len = sizeof a;
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(s, 1), 0);
    assert_int_equal(getsockname(s, (struct sockaddr *)&a, &len), 0);
    cluster c = {.world = 2, .kind = {[1] = NODE_ABSENT}, .timeout = "1", .port = ntohs(a.sin_port)};
    outcome o = run_cluster(&c);
    assert_int_equal(o.rank0.exit_code, 3);
    assert_non_null(strstr(o.rank0.err, "cannot listen on port"));
    close(s);
    outcome_free(&o);
}

static void no_launcher_is_an_error_that_teaches(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"bench", "nccl", "--nodes", "--force", "--sim", example("net-ib-h100x8-healthy.json"), NULL},
        (const char *[]){"RANK=", "WORLD_SIZE=", "SLURM_PROCID=", "SLURM_NTASKS=", NULL});
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "srun -N 4"));
    assert_non_null(strstr(r.err, "MASTER_ADDR"));
    tool_result_free(&r);
    /* A second task on one node would drive the same GPUs. */
    r = run_tool((const char *[]){"bench", "nccl", "--nodes", NULL},
                 (const char *[]){"RANK=1", "WORLD_SIZE=2", "LOCAL_RANK=1", "MASTER_ADDR=127.0.0.1", NULL});
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "one task per node"));
    assert_non_null(strstr(r.err, "--ntasks-per-node=1"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"bench", "gemm", "--nodes", NULL}, NULL);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "--nodes is for 'bench nccl'"));
    tool_result_free(&r);
}

/* fleet reads rank 0's report beside the nodes' own: the run's finding and
 * the node's network finding land on the node they name; a node with its own
 * check report keeps its GPUs and gains the run's findings on it. */
static void fleet_reads_the_run(void **state)
{
    (void)state;
    cluster c = {.world = 4, .kind = {[2] = NODE_QUARTER_NIC}};
    outcome o = run_cluster(&c);
    char *dir = temp_dir();
    free(write_temp_file(dir, "run.json", o.rank0.out));
    char *own = node_scenario(dir, 2, NODE_QUARTER_NIC);
    tool_result chk = run_tool((const char *[]){"check", "--json", "--sim", own, NULL}, NULL);
    free(write_temp_file(dir, "node02-check.json", chk.out));
    tool_result fl = run_tool((const char *[]){"fleet", "--json", dir, NULL}, NULL);
    if (!fl.json)
        fail_msg("fleet: exit %d: %s", fl.exit_code, fl.err);
    json_t *nodes = json_object_get(fl.json, "nodes"), *x;
    size_t i;
    int seen = 0;
    json_array_foreach(nodes, i, x)
    {
        const char *name = json_string_value(json_object_get(x, "name"));
        json_t *fs = json_object_get(x, "findings"), *f;
        size_t k;
        bool low = false, rate = false;
        json_array_foreach(fs, k, f)
        {
            low |= strcmp(json_string_value(json_object_get(f, "id")), "bench.nccl_nodes_low") == 0;
            rate |= strcmp(json_string_value(json_object_get(f, "id")), "net.port_rate_low") == 0;
        }
        seen++;
        if (strcmp(name, "node02") == 0) {
            assert_true(low && rate);
            assert_int_equal(num(x, "gpus"), 8); /* its own check report's GPUs, merged */
        } else {
            assert_false(low);
        }
    }
    assert_int_equal(seen, 4);
    tool_result_free(&chk);
    tool_result_free(&fl);
    free(own);
    remove_tree(dir);
    free(dir);
    outcome_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(healthy_four_nodes_reach_the_nics),
        cmocka_unit_test(one_node_through_the_same_path),
        cmocka_unit_test(a_quarter_rate_nic_is_named),
        cmocka_unit_test(a_node_without_rdma_is_named),
        cmocka_unit_test(a_node_that_never_joins_is_named_within_the_timeout),
        cmocka_unit_test(wrong_data_on_one_rank_is_a_failure_never_a_figure),
        cmocka_unit_test(a_node_that_dies_mid_run_is_named),
        cmocka_unit_test(a_late_rank_is_waited_for),
        cmocka_unit_test(a_wrong_master_addr_is_said),
        cmocka_unit_test(a_taken_port_is_said),
        cmocka_unit_test(no_launcher_is_an_error_that_teaches),
        cmocka_unit_test(fleet_reads_the_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
