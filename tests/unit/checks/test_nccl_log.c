/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The nccl_log.* checks (src/checks/nccl_log.c) on literal NCCL INFO lines:
 * each fires on its story and keeps quiet on a healthy log (GDRDMA on every
 * channel), an Ethernet-only cluster, a single node, and with no log at all.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "formats/capture/import.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/nccl_log.h"
#include "gpudoctor/net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The findings of check `id` on the log of the given files (NULL-terminated). */
static size_t run_on(const char *id, const char *const *files, gd_facts *f, gd_findings *out, gd_severity *sev)
{
    for (size_t i = 0; files[i]; i++) {
        char err[256];
        assert_int_equal(gd_import_nccl_log("rank.log", files[i], strlen(files[i]), f, err, sizeof err), 0);
    }
    const gd_check *c = gd_check_find(id);
    assert_non_null(c);
    gd_check_run(c, f, out);
    size_t n = 0;
    for (size_t i = 0; i < out->n; i++)
        if (strcmp(out->v[i].id, id) == 0) {
            n++;
            if (sev)
                *sev = out->v[i].severity;
        }
    return n;
}

static size_t count(const char *id, const char *const *files, gd_severity *sev, char *title, size_t tlen)
{
    gd_facts f;
    memset(&f, 0, sizeof f);
    gd_findings out;
    memset(&out, 0, sizeof out);
    size_t n = run_on(id, files, &f, &out, sev);
    if (title && n)
        snprintf(title, tlen, "%s", out.v[0].title);
    gd_findings_free(&out);
    gd_facts_free(&f);
    return n;
}

static const char healthy[] =
    "a:1:2 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>\n"
    "a:1:2 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
    "a:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB ib0:10.0.0.1<0>\n"
    "a:1:2 [0] NCCL INFO Using network IB\n"
    "a:1:2 [0] NCCL INFO comm 0x55 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1c000 commId 0x6 - Init START\n"
    "a:1:2 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA\n"
    "b:7:8 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.2<0>\n"
    "b:7:8 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
    "b:7:8 [0] NCCL INFO Using network IB\n"
    "b:7:8 [0] NCCL INFO comm 0x56 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 1c000 commId 0x6 - Init START\n"
    "b:7:8 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n";

static void healthy_log_is_quiet(void **state)
{
    (void)state;
    const char *const files[] = {healthy, NULL};
    static const char *const ids[] = {"nccl_log.socket_fallback",  "nccl_log.gdr_off",
                                      "nccl_log.version_mismatch", "nccl_log.bad_iface",
                                      "nccl_log.connect_failed",   "nccl_log.transport_disabled"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        assert_int_equal(count(ids[i], files, NULL, NULL, 0), 0);
}

static void no_log_is_quiet(void **state)
{
    (void)state;
    gd_facts f;
    memset(&f, 0, sizeof f);
    gd_findings out;
    memset(&out, 0, sizeof out);
    gd_check_run(gd_check_find("nccl_log.socket_fallback"), &f, &out);
    gd_check_run(gd_check_find("nccl_log.gdr_off"), &f, &out);
    assert_int_equal(out.n, 0);
    assert_int_equal(out.nskips, 0);
    gd_findings_free(&out);
    gd_facts_free(&f);
}

/* One node on sockets while the other uses IB: critical, with NCCL's cause. */
static void socket_fallback_beside_ib_is_critical(void **state)
{
    (void)state;
    const char *const files[] = {"a:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>\n"
                                 "a:1:2 [0] NCCL INFO Using network IB\n",
                                 "b:7:8 [0] NCCL INFO NET/IB : No device found.\n"
                                 "b:7:8 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>\n"
                                 "b:7:8 [0] NCCL INFO Using network Socket\n",
                                 NULL};
    gd_severity sev = GD_SEV_INFO;
    char title[200];
    assert_int_equal(count("nccl_log.socket_fallback", files, &sev, title, sizeof title), 1);
    assert_int_equal(sev, GD_SEV_CRITICAL);
    assert_non_null(strstr(title, "No device found"));
    assert_non_null(strstr(title, "while a uses RDMA"));
}

/* This node's RDMA ports are Active and NCCL still chose sockets: critical. */
static void socket_fallback_with_active_ports_is_critical(void **state)
{
    (void)state;
    gd_facts f;
    memset(&f, 0, sizeof f);
    f.net = calloc(1, sizeof *f.net);
    f.net->devices_read = true;
    f.net->dev_count = 1;
    snprintf(f.net->devs[0].name, sizeof f.net->devs[0].name, "mlx5_0");
    f.net->devs[0].port_count = 1;
    f.net->devs[0].ports[0].state = GD_PORT_ACTIVE;
    const char *const files[] = {"b:7:8 [0] NCCL INFO Failed to open libibverbs.so[.1]\n"
                                 "b:7:8 [0] NCCL INFO Using network Socket\n",
                                 NULL};
    gd_findings out;
    memset(&out, 0, sizeof out);
    gd_severity sev = GD_SEV_INFO;
    assert_int_equal(run_on("nccl_log.socket_fallback", files, &f, &out, &sev), 1);
    assert_int_equal(sev, GD_SEV_CRITICAL);
    assert_non_null(strstr(out.v[0].fix, "libibverbs1"));
    gd_findings_free(&out);
    gd_facts_free(&f);
}

/* An Ethernet-only cluster (no RDMA anywhere, NCCL said only "No device found"): quiet. */
static void socket_on_ethernet_cluster_is_quiet(void **state)
{
    (void)state;
    const char *const files[] = {"ip-1:45:45 [0] NCCL INFO NET/IB : No device found.\n"
                                 "ip-1:45:45 [0] NCCL INFO NET/Socket : Using [0]ens3:172.31.12.21<0>\n"
                                 "ip-1:45:45 [0] NCCL INFO Using network Socket\n"
                                 "ip-2:46:46 [0] NCCL INFO Using network Socket\n",
                                 NULL};
    assert_int_equal(count("nccl_log.socket_fallback", files, NULL, NULL, 0), 0);
}

static void gdr_no_module_fires(void **state)
{
    (void)state;
    const char *const files[] = {
        "h:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)\n"
        "h:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1' (no module)\n",
        NULL};
    char title[200];
    gd_severity sev = GD_SEV_INFO;
    assert_int_equal(count("nccl_log.gdr_off", files, &sev, title, sizeof title), 1);
    assert_int_equal(sev, GD_SEV_WARNING);
    assert_non_null(strstr(title, "nvidia_peermem"));
    assert_non_null(strstr(title, "mlx5_1"));
}

/* Refused for a GPU too far from the NIC: the GPU named by the report's index where its bus id is known. */
static void gdr_distance_names_the_gpu(void **state)
{
    (void)state;
    gd_facts f;
    memset(&f, 0, sizeof f);
    f.gpu_count = 2;
    f.gpus = calloc(2, sizeof *f.gpus);
    f.gpus[0].index = 0;
    snprintf(f.gpus[0].pci_bus_id, sizeof f.gpus[0].pci_bus_id, "00000000:18:00.0");
    f.gpus[1].index = 1;
    snprintf(f.gpus[1].pci_bus_id, sizeof f.gpus[1].pci_bus_id, "00000000:86:00.0");
    const char *const files[] = {"n:1:2 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to PHB\n"
                                 "n:1:2 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 18000 / HCA 0 (distance 5 > 4)\n"
                                 "n:1:2 [0] NCCL INFO GPU Direct RDMA Enabled for GPU 86000 / HCA 0 (distance 4 <= 4), "
                                 "read 0\n",
                                 NULL};
    gd_findings out;
    memset(&out, 0, sizeof out);
    assert_int_equal(run_on("nccl_log.gdr_off", files, &f, &out, NULL), 1);
    json_t *gpus = json_object_get(out.v[0].evidence, "gpus");
    assert_int_equal(json_array_size(gpus), 1);
    assert_int_equal(json_integer_value(json_array_get(gpus, 0)), 0);
    assert_non_null(strstr(out.v[0].fix, "NCCL_NET_GDR_LEVEL=PHB"));
    gd_findings_free(&out);
    gd_facts_free(&f);
}

/* NET/Socket says GDR is disabled for every interface: not a refusal. */
static void gdr_socket_line_is_quiet(void **state)
{
    (void)state;
    const char *const files[] = {"h:1:2 [0] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 0 'eth0'\n", NULL};
    assert_int_equal(count("nccl_log.gdr_off", files, NULL, NULL, 0), 0);
}

static void version_mismatch_fires_across_files(void **state)
{
    (void)state;
    const char *const files[] = {"n1:5:5 [0] NCCL INFO cudaDriverVersion 12000\nNCCL version 2.14.3+cuda11.7\n",
                                 "n2:6:6 [0] NCCL INFO cudaDriverVersion 12000\nNCCL version 2.17.1+cuda12.1\n", NULL};
    gd_severity sev = GD_SEV_INFO;
    char title[200];
    assert_int_equal(count("nccl_log.version_mismatch", files, &sev, title, sizeof title), 1);
    assert_int_equal(sev, GD_SEV_CRITICAL);
    assert_non_null(strstr(title, "n1=2.14.3"));
    assert_non_null(strstr(title, "n2=2.17.1"));
    /* The same NCCL built for two CUDAs is one protocol. */
    const char *const same[] = {"n1:5:5 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n",
                                "n2:6:6 [0] NCCL INFO NCCL version 2.18.3+cuda11.8\n", NULL};
    assert_int_equal(count("nccl_log.version_mismatch", same, NULL, NULL, 0), 0);
}

static void bootstrap_on_docker0_fires(void **state)
{
    (void)state;
    const char *const files[] = {"[1,0]<stdout>:h:1:2 [0] NCCL INFO Bootstrap : Using docker0:172.17.0.1<0>\n", NULL};
    char title[200];
    assert_int_equal(count("nccl_log.bad_iface", files, NULL, title, sizeof title), 1);
    assert_non_null(strstr(title, "docker0"));
    assert_non_null(strstr(title, "bootstrap"));
    const char *const ok[] = {"h:1:2 [0] NCCL INFO Bootstrap : Using locnet0:10.1.1.1<0>\n", NULL};
    assert_int_equal(count("nccl_log.bad_iface", ok, NULL, NULL, 0), 0);
}

/* NET/Socket's interfaces matter where sockets carry the data; a single node reaches itself over anything. */
static void socket_list_only_where_sockets_carry_data(void **state)
{
    (void)state;
    const char *const ib[] = {"s3:1:1 [7] NCCL INFO NET/Socket : Using [0]enp41s0f1:<0> [1]virbr0:<0>\n"
                              "s3:1:1 [7] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB enp41s0f1:<0>\n",
                              NULL};
    assert_int_equal(count("nccl_log.bad_iface", ib, NULL, NULL, 0), 0);
    const char *const sock[] = {"s3:1:1 [7] NCCL INFO NET/Socket : Using [0]enp41s0f1:<0> [1]virbr0:<0>\n"
                                "s3:1:1 [7] NCCL INFO Using network Socket\n",
                                NULL};
    assert_int_equal(count("nccl_log.bad_iface", sock, NULL, NULL, 0), 1);
    const char *const one_node[] = {"h:1:2 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\n"
                                    "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 - Init START\n"
                                    "h:1:3 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 busId 2000 - Init START\n",
                                    NULL};
    assert_int_equal(count("nccl_log.bad_iface", one_node, NULL, NULL, 0), 0);
}

/* NCCL 2.4 says no "Using network": NET/IB found nothing, NET/Socket listed an interface. */
static void old_nccl_socket_inferred(void **state)
{
    (void)state;
    const char *const files[] = {"ip-1:45:45 [0] NCCL INFO NET/IB : No device found.\n"
                                 "ip-1:45:45 [0] NCCL INFO NET/Socket : Using [0]ens3:172.31.12.21<0>\n"
                                 "ip-2:46:46 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ens3:172.31.1.2<0>\n",
                                 NULL};
    gd_severity sev = GD_SEV_INFO;
    assert_int_equal(count("nccl_log.socket_fallback", files, &sev, NULL, 0), 1);
    assert_int_equal(sev, GD_SEV_CRITICAL);
}

static void connect_refused_names_interface(void **state)
{
    (void)state;
    const char *const files[] = {
        "h:1:2 [0] NCCL INFO Bootstrap : Using eth1:10.9.0.3<0>\n"
        "h:1:2 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.9.0.4<43215> failed : "
        "Connection refused\n",
        NULL};
    gd_severity sev = GD_SEV_INFO;
    char title[200];
    assert_int_equal(count("nccl_log.connect_failed", files, &sev, title, sizeof title), 1);
    assert_int_equal(sev, GD_SEV_CRITICAL);
    assert_non_null(strstr(title, "10.9.0.4<43215>"));
    assert_non_null(strstr(title, "over eth1"));
    const char *const retrying[] = {
        "h:1:2 [0] NCCL INFO socketPollConnect: connect returned No route to host, retrying (1/34) after sleep\n",
        NULL};
    assert_int_equal(count("nccl_log.connect_failed", retrying, &sev, NULL, 0), 1);
    assert_int_equal(sev, GD_SEV_WARNING);
}

static void p2p_disabled_by_env_fires(void **state)
{
    (void)state;
    const char *const files[] = {"h:1:2 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.\n"
                                 "h:1:2 [0] NCCL INFO NCCL_SHM_DISABLE set by environment to 1\n",
                                 NULL};
    assert_int_equal(count("nccl_log.transport_disabled", files, NULL, NULL, 0), 2);
    const char *const quiet[] = {"h:1:2 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 0.\n", NULL};
    assert_int_equal(count("nccl_log.transport_disabled", quiet, NULL, NULL, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(healthy_log_is_quiet),
        cmocka_unit_test(no_log_is_quiet),
        cmocka_unit_test(socket_fallback_beside_ib_is_critical),
        cmocka_unit_test(socket_fallback_with_active_ports_is_critical),
        cmocka_unit_test(socket_on_ethernet_cluster_is_quiet),
        cmocka_unit_test(gdr_no_module_fires),
        cmocka_unit_test(gdr_distance_names_the_gpu),
        cmocka_unit_test(gdr_socket_line_is_quiet),
        cmocka_unit_test(version_mismatch_fires_across_files),
        cmocka_unit_test(bootstrap_on_docker0_fires),
        cmocka_unit_test(socket_list_only_where_sockets_carry_data),
        cmocka_unit_test(old_nccl_socket_inferred),
        cmocka_unit_test(connect_refused_names_interface),
        cmocka_unit_test(p2p_disabled_by_env_fires),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
