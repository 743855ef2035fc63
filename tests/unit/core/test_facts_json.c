/* SPDX-License-Identifier: Apache-2.0 */
/* A recording's end record (src/core/facts_json.c) keeps the training
 * network (f->net): a replay reads back the devices, ports, counters at the
 * window's start and end, GIDs, interfaces, module and ACS the live run
 * judged; a port state out of range is refused, never indexed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/facts_json.h"
#include "gpudoctor/net.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static gd_net_facts *sample_net(void)
{
    gd_net_facts *n = calloc(1, sizeof *n);
    assert_non_null(n);
    snprintf(n->source, sizeof n->source, "sysfs:/sys/class/infiniband");
    n->devices_read = true;
    n->dev_count = 2;
    for (size_t d = 0; d < 2; d++) {
        gd_net_dev *x = &n->devs[d];
        snprintf(x->name, sizeof x->name, "mlx5_%zu", d);
        snprintf(x->bdf, sizeof x->bdf, "0000:%02zx:00.0", 0x19 + d);
        x->numa_node = (int)d;
        x->port_count = 1;
        gd_net_port *p = &x->ports[0];
        p->port = 1;
        p->state = d ? GD_PORT_DOWN : GD_PORT_ACTIVE;
        p->phys = d ? GD_PORT_PHYS_POLLING : GD_PORT_PHYS_LINKUP;
        p->link_layer = GD_LINK_ETHERNET;
        p->rate_gbps = gd_val(400);
        snprintf(p->rate_text, sizeof p->rate_text, "400 Gb/sec (4X NDR)");
        snprintf(p->netdev, sizeof p->netdev, "eth%zu", d);
        p->netdev_up = d ? 0 : 1;
        p->gid_count = 1;
        p->gids[0].index = 3;
        snprintf(p->gids[0].gid, sizeof p->gids[0].gid, "0000:0000:0000:0000:0000:ffff:0a00:0001");
        snprintf(p->gids[0].type, sizeof p->gids[0].type, "RoCE v2");
        for (int c = 0; c < GD_PC_COUNT; c++) {
            p->counters_first[c] = c == GD_PC_OUT_OF_BUFFER ? gd_missing(GD_ST_NOT_SUPPORTED) : gd_val(c);
            p->counters_last[c] = c == GD_PC_OUT_OF_BUFFER ? gd_missing(GD_ST_NOT_SUPPORTED) : gd_val(c + 100.0 * d);
        }
        p->counter_span_s = 60;
    }
    n->ifaces_read = true;
    n->iface_count = 1;
    snprintf(n->ifaces[0].name, sizeof n->ifaces[0].name, "docker0");
    n->ifaces[0].up = 0;
    n->ifaces[0].bridge = n->ifaces[0].virtual_dev = true;
    n->peermem = GD_PEERMEM_ABSENT;
    snprintf(n->peermem_source, sizeof n->peermem_source, "/proc/modules");
    n->acs_read = true;
    n->acs_count = 1;
    snprintf(n->acs[0].bdf, sizeof n->acs[0].bdf, "0000:17:00.0");
    n->acs[0].src_valid = n->acs[0].req_redir = true;
    return n;
}

static void the_network_round_trips(void **state)
{
    (void)state;
    gd_facts live = {0}, replay = {0};
    live.net = sample_net();
    json_t *end = gd_facts_end_to_json(&live);
    assert_non_null(end);
    assert_non_null(json_object_get(end, "net"));
    char err[256] = "";
    if (gd_facts_end_from_json(end, &replay, err, sizeof err) != 0)
        fail_msg("%s", err);
    const gd_net_facts *a = live.net, *b = replay.net;
    assert_non_null(b);
    assert_string_equal(b->source, a->source);
    assert_true(b->devices_read && b->ifaces_read && b->acs_read);
    assert_int_equal(b->dev_count, 2);
    for (size_t d = 0; d < 2; d++) {
        assert_string_equal(b->devs[d].name, a->devs[d].name);
        assert_string_equal(b->devs[d].bdf, a->devs[d].bdf);
        assert_int_equal(b->devs[d].numa_node, a->devs[d].numa_node);
        const gd_net_port *p = &b->devs[d].ports[0], *q = &a->devs[d].ports[0];
        assert_int_equal(p->state, q->state);
        assert_int_equal(p->phys, q->phys);
        assert_int_equal(p->link_layer, q->link_layer);
        assert_int_equal(p->netdev_up, q->netdev_up);
        assert_float_equal(p->rate_gbps.v, 400, 0);
        assert_string_equal(p->rate_text, q->rate_text);
        assert_int_equal(p->gid_count, 1);
        assert_int_equal(p->gids[0].index, 3);
        assert_string_equal(p->gids[0].type, "RoCE v2");
        assert_float_equal(p->counter_span_s, 60, 0);
        for (int c = 0; c < GD_PC_COUNT; c++) {
            assert_int_equal(p->counters_first[c].status, q->counters_first[c].status);
            assert_int_equal(p->counters_last[c].status, q->counters_last[c].status);
            assert_float_equal(p->counters_last[c].v, q->counters_last[c].v, 0);
        }
    }
    assert_string_equal(b->ifaces[0].name, "docker0");
    assert_true(b->ifaces[0].bridge);
    assert_int_equal(b->peermem, GD_PEERMEM_ABSENT);
    assert_int_equal(b->acs_count, 1);
    assert_true(b->acs[0].src_valid && b->acs[0].req_redir && !b->acs[0].trans_blk);

    /* A port state no reader makes: refused. */
    json_t *port = json_array_get(
        json_object_get(json_array_get(json_object_get(json_object_get(end, "net"), "devs"), 0), "ports"), 0);
    json_object_set_new(port, "state", json_integer(99));
    gd_facts bad = {0};
    assert_int_not_equal(gd_facts_end_from_json(end, &bad, err, sizeof err), 0);
    assert_non_null(strstr(err, "net"));
    gd_net_facts_free(bad.net);
    json_decref(end);
    gd_net_facts_free(live.net);
    gd_net_facts_free(replay.net);
}

static void no_network_no_key(void **state)
{
    (void)state;
    gd_facts f = {0};
    json_t *end = gd_facts_end_to_json(&f);
    assert_null(json_object_get(end, "net"));
    gd_facts g = {0};
    char err[64];
    assert_int_equal(gd_facts_end_from_json(end, &g, err, sizeof err), 0);
    assert_null(g.net); /* an older recording: nothing said of the network */
    json_decref(end);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_network_round_trips),
        cmocka_unit_test(no_network_no_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
