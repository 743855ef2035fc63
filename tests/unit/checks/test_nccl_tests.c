/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The nccl_tests.* checks (src/checks/nccl_tests.c) and the NICs'
 * expectation (src/analysis/nccl_tests_judge.c) from literal tables and
 * literal NIC facts: each check fires on its case and stays quiet on a
 * healthy table; without NIC facts the table is "not judged against the
 * NICs" and says why.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/nccl_tests_judge.h"
#include "facts_fixture.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/model.h"
#include "gpudoctor/nccl_tests.h"
#include "gpudoctor/net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An all-reduce over `nodes` nodes of 8 ranks, sizes 1 MiB to 1 GiB, whose
 * busbw rises to `peak` at 256 MiB and holds (or falls to `tail` from
 * 512 MiB on when tail is not NAN). */
static gd_nt_table *table_facts(gd_facts *f, int nodes, double peak, double tail)
{
    memset(f, 0, sizeof *f);
    f->net = calloc(1, sizeof *f->net);
    f->net->tables = calloc(1, sizeof *f->net->tables);
    f->net->tables->count = 1;
    gd_nt_table *x = &f->net->tables->tables[0];
    snprintf(x->file, sizeof x->file, "t.log");
    x->op = GD_NT_ALL_REDUCE;
    x->ranks = nodes * 8;
    x->nodes = nodes;
    x->ranks_per_node = 8;
    x->header = true;
    x->wrong_total = 0;
    x->oob_values = 0;
    x->avg_busbw_gbps = peak / 3;
    size_t n = 0;
    for (size_t b = 1u << 20; b <= (1u << 30); b <<= 1, n++) {
        gd_nt_row *r = &x->rows[n];
        r->bytes = b;
        r->count = b / 4;
        snprintf(r->type, sizeof r->type, "float");
        snprintf(r->redop, sizeof r->redop, "sum");
        r->root = -1;
        double bw = b >= (256u << 20) ? peak : peak * (double)b / (256u << 20);
        if (!isnan(tail) && b >= (512u << 20))
            bw = tail;
        r->oop.busbw_gbps = r->ip.busbw_gbps = bw;
        r->oop.algbw_gbps = r->ip.algbw_gbps = bw / gd_nt_busbw_factor(GD_NT_ALL_REDUCE, x->ranks);
        r->oop.time_us = r->ip.time_us = (double)b / (r->oop.algbw_gbps * 1e3);
        r->oop.error = r->ip.error = NAN;
    }
    x->row_count = n;
    return x;
}

/* `ports` Active InfiniBand ports, one a device, at `gbps` each. */
static void nics(gd_facts *f, size_t ports, double gbps)
{
    f->net->devices_read = true;
    f->net->dev_count = ports;
    for (size_t i = 0; i < ports; i++) {
        gd_net_dev *d = &f->net->devs[i];
        snprintf(d->name, sizeof d->name, "mlx5_%zu", i);
        d->port_count = 1;
        d->ports[0].port = 1;
        d->ports[0].state = GD_PORT_ACTIVE;
        d->ports[0].link_layer = GD_LINK_INFINIBAND;
        d->ports[0].rate_gbps = gd_val(gbps);
    }
}

static gd_findings judge(const gd_facts *f)
{
    static const char *const ids[] = {"nccl_tests.summary",  "nccl_tests.wrong_data", "nccl_tests.aborted",
                                      "nccl_tests.collapse", "nccl_tests.below_nics", "nccl_tests.below_topology"};
    gd_findings fs = {0};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        gd_check_run(gd_check_find(ids[i]), f, &fs);
    return fs;
}

static const gd_finding *find(const gd_findings *fs, const char *id)
{
    for (size_t i = 0; i < fs->n; i++)
        if (strcmp(fs->v[i].id, id) == 0)
            return &fs->v[i];
    return NULL;
}

static const gd_skip *skip_of(const gd_findings *fs, const char *id)
{
    for (size_t i = 0; i < fs->nskips; i++)
        if (strcmp(fs->skips[i].check, id) == 0)
            return &fs->skips[i];
    return NULL;
}

/* A healthy table: the summary alone; without NIC facts, not judged against them. */
static void healthy_quiet_without_nics(void **state)
{
    (void)state;
    gd_facts f;
    table_facts(&f, 4, 90, NAN);
    gd_findings fs = judge(&f);
    assert_int_equal(fs.n, 1);
    const gd_finding *s = find(&fs, "nccl_tests.summary");
    assert_non_null(s);
    assert_int_equal(s->severity, GD_SEV_INFO);
    assert_non_null(strstr(s->title, "peak busbw 90.0 GB/s at 256 MiB"));
    assert_non_null(strstr(s->title, "Avg bus bandwidth' 30.0 GB/s"));
    assert_non_null(strstr(s->title, "not judged against the NICs"));
    const gd_skip *k = skip_of(&fs, "nccl_tests.below_nics");
    assert_non_null(k);
    assert_non_null(strstr(k->reason, "not judged against the NICs, because no NIC facts were given"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* 4 x 200 Gb/s: 100 GB/s line, 96 expected; 90 is healthy. */
static void expectation_from_literal_nics(void **state)
{
    (void)state;
    gd_facts f;
    gd_nt_table *x = table_facts(&f, 4, 90, NAN);
    nics(&f, 4, 200);
    gd_nt_expect e;
    assert_int_equal(gd_nt_expect_of(f.net, x, &e), 0);
    assert_int_equal(e.nics, 4);
    assert_true(fabs(e.line_gbps - 100) < 1e-9);
    assert_true(fabs(e.busbw_gbps - 96) < 1e-9);
    /* NCCL_IB_HCA picks two of them; an exclusion leaves three. */
    snprintf(x->env, sizeof x->env, "NCCL_DEBUG=INFO NCCL_IB_HCA=mlx5_0:1,mlx5_1:1");
    assert_int_equal(gd_nt_expect_of(f.net, x, &e), 0);
    assert_int_equal(e.nics, 2);
    snprintf(x->env, sizeof x->env, "NCCL_IB_HCA=^mlx5_3");
    assert_int_equal(gd_nt_expect_of(f.net, x, &e), 0);
    assert_int_equal(e.nics, 3);
    /* One rank a node drives one NIC. */
    x->env[0] = '\0';
    x->ranks_per_node = 1;
    assert_int_equal(gd_nt_expect_of(f.net, x, &e), 0);
    assert_int_equal(e.nics, 1);
    assert_true(fabs(e.line_gbps - 25) < 1e-9);
    /* A port Down is not counted; a run on one node has no expectation from its NICs. */
    x->ranks_per_node = 8;
    f.net->devs[0].ports[0].state = GD_PORT_DOWN;
    assert_int_equal(gd_nt_expect_of(f.net, x, &e), 0);
    assert_int_equal(e.nics, 3);
    x->nodes = 1;
    assert_int_equal(gd_nt_expect_of(f.net, x, &e), -1);
    assert_non_null(strstr(e.why_not, "one node"));
    gd_findings fs = judge(&f);
    assert_null(find(&fs, "nccl_tests.below_nics"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void below_nics_fires(void **state)
{
    (void)state;
    gd_facts f;
    table_facts(&f, 4, 40, NAN);
    nics(&f, 4, 200);
    gd_findings fs = judge(&f);
    const gd_finding *b = find(&fs, "nccl_tests.below_nics");
    assert_non_null(b);
    assert_int_equal(b->severity, GD_SEV_WARNING);
    assert_non_null(strstr(b->title, "42% of the 96.0 GB/s"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    table_facts(&f, 4, 20, NAN);
    nics(&f, 4, 200);
    fs = judge(&f);
    assert_int_equal(find(&fs, "nccl_tests.below_nics")->severity, GD_SEV_CRITICAL);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* On 2 nodes a tree result above the NICs' line rate is said to be normal, and nothing fires. */
static void two_node_tree_above_line_rate(void **state)
{
    (void)state;
    gd_facts f;
    table_facts(&f, 2, 150, NAN);
    nics(&f, 4, 200);
    gd_findings fs = judge(&f);
    assert_int_equal(fs.n, 1);
    assert_non_null(strstr(find(&fs, "nccl_tests.summary")->title, "2-node tree"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void wrong_data_fires(void **state)
{
    (void)state;
    gd_facts f;
    gd_nt_table *x = table_facts(&f, 2, 90, NAN);
    x->rows[3].ip.wrong = 12;
    x->wrong_total = 12;
    gd_findings fs = judge(&f);
    const gd_finding *w = find(&fs, "nccl_tests.wrong_data");
    assert_non_null(w);
    assert_int_equal(w->severity, GD_SEV_CRITICAL);
    assert_non_null(strstr(w->title, "12 wrong elements, from 8 MiB up"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void aborted_fires_with_meaning(void **state)
{
    (void)state;
    gd_facts f;
    gd_nt_table *x = table_facts(&f, 2, 90, NAN);
    x->row_count = 2;
    snprintf(x->abort, sizeof x->abort, "node2: Test NCCL failure common.cu:1005 'unhandled system error / '");
    x->abort_line = 40;
    gd_findings fs = judge(&f);
    const gd_finding *a = find(&fs, "nccl_tests.aborted");
    assert_non_null(a);
    assert_int_equal(a->severity, GD_SEV_CRITICAL);
    assert_non_null(strstr(a->title, "stopped after 2 MiB"));
    assert_non_null(strstr(a->fix, "NCCL_SOCKET_IFNAME"));
    assert_non_null(strstr(a->fix, "GID"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void collapse_fires(void **state)
{
    (void)state;
    gd_facts f;
    table_facts(&f, 3, 30, 5);
    gd_findings fs = judge(&f);
    const gd_finding *c = find(&fs, "nccl_tests.collapse");
    assert_non_null(c);
    assert_int_equal(c->severity, GD_SEV_WARNING);
    assert_non_null(strstr(c->title, "from 30.0 GB/s at 256 MiB to 5.0 GB/s or less from 512 MiB on"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    /* One size that dips and recovers is noise. */
    gd_nt_table *x = table_facts(&f, 3, 30, NAN);
    x->rows[9].oop.busbw_gbps = x->rows[9].ip.busbw_gbps = 5;
    fs = judge(&f);
    assert_null(find(&fs, "nccl_tests.collapse"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* No table read: nothing fires, and no check speaks (the group is "not used", report/checked.c). */
static void no_table(void **state)
{
    (void)state;
    gd_facts f;
    memset(&f, 0, sizeof f);
    gd_findings fs = judge(&f);
    assert_int_equal(fs.n, 0);
    assert_int_equal(fs.nskips, 0);
    gd_findings_free(&fs);
}

/* One node of n GPUs on PCIe Gen4 x16 whose driver denies peer access
 * (the ring's expectation: host-staged, half the link at 0.8, 12.6 GB/s),
 * and a one-node all-reduce table over them peaking at `peak`. */
static void node_facts(gd_facts *f, size_t n, double peak)
{
    gd_facts t;
    table_facts(&t, 1, peak, NAN);
    fx_facts_no_peer_access(f, n);
    f->net = t.net;
    gd_nt_table *x = &f->net->tables->tables[0];
    x->ranks = (int)n;
    x->ranks_per_node = (int)n;
}

static void below_topology_one_node(void **state)
{
    (void)state;
    gd_facts f;
    node_facts(&f, 4, 12);
    gd_findings fs = judge(&f);
    assert_null(find(&fs, "nccl_tests.below_topology"));
    assert_null(skip_of(&fs, "nccl_tests.below_topology"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    node_facts(&f, 4, 6);
    fs = judge(&f);
    const gd_finding *b = find(&fs, "nccl_tests.below_topology");
    assert_non_null(b);
    assert_int_equal(b->severity, GD_SEV_WARNING);
    gd_findings_free(&fs);
    gd_facts_free(&f);
    node_facts(&f, 4, 3);
    fs = judge(&f);
    assert_int_equal(find(&fs, "nccl_tests.below_topology")->severity, GD_SEV_CRITICAL);
    assert_null(find(&fs, "nccl_tests.below_nics")); /* one node: its NICs carry none of it */
    gd_findings_free(&fs);
    gd_facts_free(&f);
    /* Without the node's GPUs: not judged, and why. */
    table_facts(&f, 1, 3, NAN);
    fs = judge(&f);
    assert_null(find(&fs, "nccl_tests.below_topology"));
    assert_non_null(strstr(skip_of(&fs, "nccl_tests.below_topology")->reason, "no GPU facts were given"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(healthy_quiet_without_nics),
        cmocka_unit_test(expectation_from_literal_nics),
        cmocka_unit_test(below_nics_fires),
        cmocka_unit_test(two_node_tree_above_line_rate),
        cmocka_unit_test(wrong_data_fires),
        cmocka_unit_test(aborted_fires_with_meaning),
        cmocka_unit_test(collapse_fires),
        cmocka_unit_test(no_table),
        cmocka_unit_test(below_topology_one_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
