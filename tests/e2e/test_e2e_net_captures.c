/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `check --json --from` on every real capture of the node's
 * RDMA NICs (../shared/realdata/network/ib and misc, see SOURCES.md) gives
 * the "network" object the file shows: devices, each port's state, phys
 * state, rate, link layer, netdev and its state, GIDs; interfaces;
 * peermem; ACS rows (read off the files by hand). Several files join by
 * device and port; bad input exits 3 with a message; a capture with no
 * network part has no "network" object. Skips without the data.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const env[] = {"NO_COLOR=", NULL};

typedef struct expect {
    const char *file; /* under realdata/network/ */
    int devices, interfaces, acs_rows;
    const char *peermem; /* "loaded", "absent", NULL (null) */
    /* Ports, "dev/port=state,phys,rate,layer,netdev_up" with "-" for null. */
    const char *ports[4];
} expect;

static const expect cases[] = {
    {"ib/ibdev2netdev-h100-8x-cx7-pure-ib-netdev-down-is-normal-imbue4.txt",
     12,
     0,
     0,
     NULL,
     {"mlx5_0/1=-,-,-,-,false", "mlx5_1/1=-,-,-,-,true", "mlx5_9/1=-,-,-,-,false", NULL}},
    {"ib/ibstat-cx6-hdr200-active-cx6-down-disabled-cx4lx-ncclt128.txt",
     3,
     0,
     0,
     NULL,
     {"mlx5_0/1=active,link_up,200,infiniband,-", "mlx5_1/1=down,disabled,10,infiniband,-",
      "mlx5_2/1=active,link_up,-,-,-", NULL}},
    {"ib/ibstat-dgx-spark-gb10-cx7-roce200-two-active-two-disabled-geerling92.txt",
     4,
     0,
     0,
     NULL,
     {"roceP2p1s0f0/1=active,link_up,200,ethernet,-", "roceP2p1s0f1/1=down,disabled,40,ethernet,-",
      "rocep1s0f0/1=active,link_up,200,ethernet,-", NULL}},
    {"ib/ibstat-h100-8x-cx7-roce400-two-down-disabled-gpud.txt",
     12,
     0,
     0,
     NULL,
     {"mlx5_0/1=active,link_up,400,ethernet,-", "mlx5_1/1=active,link_up,100,ethernet,-",
      "mlx5_11/1=down,disabled,40,ethernet,-", "mlx5_5/1=down,disabled,40,ethernet,-"}},
    {"ib/ibstat-h100-8x-ndr400-ib-plus-bf3-bond-200-eth-gpud.txt",
     9,
     0,
     0,
     NULL,
     {"mlx5_0/1=active,link_up,400,infiniband,-", "mlx5_9/1=active,link_up,400,infiniband,-",
      "mlx5_bond_0/1=active,link_up,200,ethernet,-", NULL}},
    {"ib/ibstatus-a100-azure-8x-hdr200-all-active-gpud.txt",
     9,
     0,
     0,
     NULL,
     {"mlx5_0/1=active,link_up,200,infiniband,-", "mlx5_7/1=active,link_up,200,infiniband,-",
      "mlx5_8/1=active,link_up,40,ethernet,-", NULL}},
    {"ib/ibstatus-hdr200-one-active-one-down-disabled-nccl489.txt",
     2,
     0,
     0,
     NULL,
     {"mlx5_0/1=active,link_up,200,infiniband,-", "mlx5_1/1=down,disabled,10,infiniband,-", NULL}},
    {"ib/ip-ibdev2netdev-topo-hgx8-roce-12x-mlx5-two-down-slurmv4.txt",
     12,
     17,
     0,
     NULL,
     {"mlx5_0/1=-,-,-,-,true", "mlx5_10/1=-,-,-,-,false", "mlx5_4/1=-,-,-,-,false", "mlx5_3/1=-,-,-,-,true"}},
    {"ib/show_gids-roce-mlx5_0-gid-index-4-is-v1-nccl1510.txt", 1, 0, 0, NULL, {"mlx5_0/1=-,-,-,-,-", NULL}},
    {"misc/lsmod-no-nvidia_peermem-no-nv_peer_mem-a100-ib-nccl988.txt", 0, 0, 0, "absent", {NULL}},
    {"misc/lspci-acsctl-still-enabled-although-bios-off-vendor-err-81-nccl523.txt", 0, 0, 12, NULL, {NULL}},
};

static void text_of(const json_t *v, char *out, size_t cap)
{
    if (json_is_null(v) || !v)
        snprintf(out, cap, "-");
    else if (json_is_string(v))
        snprintf(out, cap, "%s", json_string_value(v));
    else if (json_is_boolean(v))
        snprintf(out, cap, "%s", json_is_true(v) ? "true" : "false");
    else
        snprintf(out, cap, "%g", json_number_value(v));
}

static const json_t *device(const json_t *net, const char *name)
{
    size_t i;
    const json_t *d;
    json_array_foreach(json_object_get(net, "devices"), i, d)
    {
        if (strcmp(json_string_value(json_object_get(d, "name")), name) == 0)
            return d;
    }
    return NULL;
}

/* "dev/port=state,phys,rate,layer,netdev_up" holds in net. */
static void port_is(const char *file, const json_t *net, const char *want)
{
    char dev[64];
    int port;
    if (sscanf(want, "%63[^/]/%d=", dev, &port) != 2)
        fail_msg("bad expectation %s", want);
    const json_t *d = device(net, dev);
    if (!d)
        fail_msg("%s: no device %s", file, dev);
    const json_t *p = NULL, *q;
    size_t i;
    json_array_foreach(json_object_get(d, "ports"), i, q)
    {
        if (json_integer_value(json_object_get(q, "port")) == port)
            p = q;
    }
    if (!p)
        fail_msg("%s: %s has no port %d", file, dev, port);
    static const char *const keys[] = {"state", "phys", "rate_gbps", "link_layer", "netdev_up"};
    char got[256] = "";
    size_t used = (size_t)snprintf(got, sizeof got, "%s/%d=", dev, port);
    for (size_t k = 0; k < 5; k++) {
        char v[64];
        text_of(json_object_get(p, keys[k]), v, sizeof v);
        used += (size_t)snprintf(got + used, sizeof got - used, "%s%s", k ? "," : "", v);
    }
    if (strcmp(got, want) != 0)
        fail_msg("%s: %s, want %s", file, got, want);
}

static json_t *network_of(const tool_result *r, const char *file)
{
    if (!r->json)
        fail_msg("%s: no JSON; exit %d, stderr: %s", file, r->exit_code, r->err);
    json_t *net = json_object_get(r->json, "network");
    if (!json_is_object(net))
        fail_msg("%s: no \"network\" object", file);
    return net;
}

static void every_real_network_capture(void **state)
{
    (void)state;
    need_realdata();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const expect *e = &cases[c];
        char rel[512];
        snprintf(rel, sizeof rel, "network/%s", e->file);
        tool_result r = run_tool((const char *[]){"check", "--json", "--from", realdata(rel), NULL}, env);
        json_t *net = network_of(&r, e->file);
        assert_int_equal(json_array_size(json_object_get(net, "devices")), e->devices);
        assert_int_equal(json_array_size(json_object_get(net, "interfaces")), e->interfaces);
        assert_int_equal(json_array_size(json_object_get(json_object_get(net, "acs"), "rows")), e->acs_rows);
        char pm[32];
        text_of(json_object_get(json_object_get(net, "peermem"), "state"), pm, sizeof pm);
        if (strcmp(pm, e->peermem ? e->peermem : "-") != 0)
            fail_msg("%s: peermem %s", e->file, pm);
        for (size_t k = 0; k < 4 && e->ports[k]; k++)
            port_is(e->file, net, e->ports[k]);
        tool_result_free(&r);
    }
}

/* The GID rows with their types; the interfaces of the cut paste. */
static void gids_and_interfaces(void **state)
{
    (void)state;
    need_realdata();
    tool_result r =
        run_tool((const char *[]){"check", "--json", "--from",
                                  realdata("network/ib/show_gids-roce-mlx5_0-gid-index-4-is-v1-nccl1510.txt"), NULL},
                 env);
    const json_t *port = json_array_get(json_object_get(device(network_of(&r, "show_gids"), "mlx5_0"), "ports"), 0);
    const json_t *gids = json_object_get(port, "gids");
    assert_int_equal(json_array_size(gids), 4);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(gids, 0), "index")), 4);
    assert_string_equal(json_string_value(json_object_get(json_array_get(gids, 0), "type")), "v1");
    assert_string_equal(json_string_value(json_object_get(json_array_get(gids, 1), "type")), "v2");
    assert_string_equal(json_string_value(json_object_get(json_array_get(gids, 0), "ipv4")), "10.12.0.21");
    assert_true(json_is_null(json_object_get(json_array_get(gids, 2), "ipv4")));
    tool_result_free(&r);

    r = run_tool((const char *[]){"check", "--json", "--from",
                                  realdata("network/ib/ip-ibdev2netdev-topo-hgx8-roce-12x-mlx5-two-down-slurmv4.txt"),
                                  NULL},
                 env);
    const json_t *net = network_of(&r, "ip paste"), *lo = json_array_get(json_object_get(net, "interfaces"), 0);
    assert_string_equal(json_string_value(json_object_get(lo, "name")), "lo");
    assert_true(json_is_true(json_object_get(lo, "loopback")));
    const json_t *formats = json_object_get(json_object_get(r.json, "window"), "formats");
    assert_non_null(strstr(json_string_value(formats), "nvidia-smi topo -m"));
    assert_non_null(strstr(json_string_value(json_object_get(net, "source")), "ibdev2netdev:"));
    tool_result_free(&r);
}

/* ibstat, ibdev2netdev and show_gids of one node, as three files: one port. */
static void three_files_join(void **state)
{
    (void)state;
    char *dir = temp_dir();
    static const char ibstat[] = "CA 'mlx5_0'\n\tCA type: MT4129\n\tPort 1:\n\t\tState: Active\n"
                                 "\t\tPhysical state: LinkUp\n\t\tRate: 400\n\t\tLink layer: Ethernet\n";
    static const char map[] = "mlx5_0 port 1 ==> eth2 (Up)\n";
    static const char gids[] = "DEV PORT INDEX GID IPv4 VER DEV\n"
                               "mlx5_0 1 3 0000:0000:0000:0000:0000:ffff:0a0c:0015 10.12.0.21 v2 eth2\n";
    put_file(dir, "a.txt", gids, strlen(gids));
    put_file(dir, "b.txt", map, strlen(map));
    put_file(dir, "c.txt", ibstat, strlen(ibstat));
    char a[1024], b[1024], c[1024];
    snprintf(a, sizeof a, "%s/a.txt", dir);
    snprintf(b, sizeof b, "%s/b.txt", dir);
    snprintf(c, sizeof c, "%s/c.txt", dir);
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", a, "--from", b, "--from", c, NULL}, env);
    const json_t *net = network_of(&r, "three files");
    assert_int_equal(json_array_size(json_object_get(net, "devices")), 1);
    port_is("three files", net, "mlx5_0/1=active,link_up,400,ethernet,true");
    const json_t *port = json_array_get(json_object_get(device(net, "mlx5_0"), "ports"), 0);
    assert_string_equal(json_string_value(json_object_get(port, "netdev")), "eth2");
    assert_int_equal(json_array_size(json_object_get(port, "gids")), 1);
    assert_string_equal(json_string_value(json_object_get(device(net, "mlx5_0"), "file")), "a.txt");
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* Binary bytes: exit 3 and a message; a capture without a network part: no "network" object. */
static void bad_input_and_no_network(void **state)
{
    (void)state;
    char *dir = temp_dir();
    static const char junk[] = "CA 'mlx5_0\x01\x02\x03\x04\x05\x06\x07\x08 ==> \x0e\x0f";
    put_file(dir, "junk.txt", junk, sizeof junk - 1);
    char path[1024];
    snprintf(path, sizeof path, "%s/junk.txt", dir);
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", path, NULL}, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.out, "junk.txt") ? r.out : r.err);
    tool_result_free(&r);
    static const char dmesg[] = "[    5.123456] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15\n";
    put_file(dir, "dmesg.txt", dmesg, strlen(dmesg));
    snprintf(path, sizeof path, "%s/dmesg.txt", dir);
    r = run_tool((const char *[]){"check", "--json", "--from", path, NULL}, env);
    assert_non_null(r.json);
    assert_null(json_object_get(r.json, "network"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_real_network_capture),
        cmocka_unit_test(gids_and_interfaces),
        cmocka_unit_test(three_files_join),
        cmocka_unit_test(bad_input_and_no_network),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
