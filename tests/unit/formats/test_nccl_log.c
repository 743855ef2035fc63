/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NCCL log reader (src/formats/nccl_log/): every prefix style a launcher
 * puts before NCCL's "host:pid:tid [dev] NCCL INFO", and the facts of each
 * real log of ../shared/realdata/network/nccl-logs, exactly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "formats/nccl_log/nccl_line.h"
#include "formats/nccl_log/nccl_log_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void split_ok(const char *line, const char *host, long pid, int dev, const char *msg)
{
    gd_nccl_prefix p;
    assert_true(gd_nccl_line_split(line, &p));
    assert_string_equal(p.host, host);
    assert_int_equal(p.pid, pid);
    assert_int_equal(p.dev, dev);
    assert_string_equal(p.msg, msg);
}

static void every_prefix_style(void **state)
{
    (void)state;
    split_ok("gpu32:22612:22693 [0] NCCL INFO Using network IB", "gpu32", 22612, 0, "Using network IB");
    split_ok("[1,0]<stdout>:gpu32:22612:22693 [3] NCCL INFO Using network IB", "gpu32", 22612, 3, "Using network IB");
    split_ok("[1,12]<stderr>: node-7:10:11 [1] NCCL INFO x", "node-7", 10, 1, "x");
    split_ok("[rank0]:n1:5:6 [0] NCCL INFO x", "n1", 5, 0, "x");
    split_ok("[default3]:n1:5:6 [3] NCCL INFO x", "n1", 5, 3, "x");
    split_ok("0: n1:5:6 [0] NCCL INFO x", "n1", 5, 0, "x");
    split_ok("05-06-76-200:7839:7911 [0] NCCL INFO P2P plugin IBext", "05-06-76-200", 7839, 0, "P2P plugin IBext");
    split_ok("2025-08-12 09:37:02.216313 worker-9 >> :168:1228 [2] NCCL INFO Connected all trees", "", 168, 2,
             "Connected all trees");
    split_ok("h100-4:739790:739878 [4] misc/socket.cc:397 NCCL WARN Net : connecting", "h100-4", 739790, 4,
             "Net : connecting");
    split_ok("NCCL INFO Using network Socket", "", -1, -1, "Using network Socket");
    gd_nccl_prefix p;
    assert_true(gd_nccl_line_split("NCCL version 2.17.1+cuda12.1", &p));
    assert_int_equal(p.level, GD_NCCL_LINE_VERSION);
    assert_true(gd_nccl_line_split("[1,0]<stdout>:NCCL version 2.17.1+cuda12.1", &p));
    assert_int_equal(p.level, GD_NCCL_LINE_VERSION);
    assert_false(gd_nccl_line_split("master_addr is only used for static rdzv_backend", &p));
    assert_false(gd_nccl_line_split("the NCCL version of torch", &p));
    assert_false(gd_nccl_line_split("$ export NCCL_DEBUG=INFO", &p));
}

static struct gd_nccl_log *read_text(const char *text)
{
    struct gd_nccl_log *log = gd_nccl_log_new();
    char err[128];
    assert_int_equal(gd_nccl_log_add(log, "t.log", text, strlen(text), err, sizeof err), 0);
    return log;
}

static void facts_of_literal_lines(void **state)
{
    (void)state;
    struct gd_nccl_log *log = read_text(
        "$ torchrun --nnodes 2 train.py\n"
        "[rank0]:n1:5:6 [0] NCCL INFO Bootstrap : Using ens5f0np0:10.220.178.201<0>\n"
        "[rank0]:NCCL version 2.18.3+cuda12.2\n"
        "[rank0]:n1:5:9 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB ens5f0np0:10.2.0.1<0>\n"
        "[rank0]:n1:5:9 [0] NCCL INFO Using network IB\n"
        "[rank0]:n1:5:9 [0] NCCL INFO comm 0x55cc rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 1c000 commId 0x65 - "
        "Init START\n"
        "[rank0]:n1:5:9 [0] NCCL INFO Channel 00/0 : 9[1] -> 0[0] [receive] via NET/IB/0/GDRDMA\n"
        "[rank0]:n1:5:9 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM\n"
        "[rank0]:n1:5:9 [0] NCCL INFO Channel 02/0 : 0[0] -> 2[2] via SHM/direct/direct\n"
        "[rank0]:n1:5:9 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 3.\n"
        "[rank0]:n1:5:9 [0] transport/net_ib.cc:100 NCCL WARN NET/IB : Got async event : port error\n"
        "loss 0.31 step 100\n");
    assert_int_equal(log->proc_count, 1);
    const gd_nccl_proc *x = &log->procs[0];
    assert_string_equal(x->host, "n1");
    assert_int_equal(x->pid, 5);
    assert_int_equal(x->dev, 0);
    assert_string_equal(x->version, "2.18.3+cuda12.2");
    assert_string_equal(x->bootstrap_iface, "ens5f0np0");
    assert_string_equal(x->bootstrap_addr, "10.220.178.201");
    assert_string_equal(x->ib_devs, "mlx5_0:1/IB mlx5_1:1/RoCE");
    assert_true(x->ib_roce);
    assert_string_equal(x->oob_iface, "ens5f0np0");
    assert_int_equal(x->net, GD_NCCL_NET_IB);
    assert_int_equal(x->rank, 0);
    assert_int_equal(x->nranks, 16);
    assert_string_equal(x->busid, "1c000");
    assert_int_equal(x->ch_net_gdr, 1);
    assert_int_equal(x->ch_p2p, 1);
    assert_int_equal(x->ch_shm, 1);
    assert_int_equal(log->env_count, 1);
    assert_string_equal(log->env[0].name, "NCCL_IB_GID_INDEX");
    assert_string_equal(log->env[0].value, "3");
    assert_int_equal(log->warn_count, 1);
    assert_string_equal(log->warns[0].text, "NET/IB : Got async event : port error");
    assert_int_equal(log->lines, 12);
    assert_int_equal(log->nccl_lines, 10);
    gd_nccl_log_free(log);
}

static void binary_is_refused(void **state)
{
    (void)state;
    struct gd_nccl_log *log = gd_nccl_log_new();
    char err[128];
    static const char text[] = "a:1:2 [0] NCCL INFO x\n\0\1\2";
    assert_int_equal(gd_nccl_log_add(log, "t.log", text, sizeof text - 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "binary"));
    gd_nccl_log_free(log);
}

/* A real file of realdata/network/nccl-logs, read whole. */
static struct gd_nccl_log *real(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/../shared/realdata/network/nccl-logs/%s", GD_SOURCE_DIR, name);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        skip();
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    struct gd_nccl_log *log = gd_nccl_log_new();
    char err[128];
    assert_int_equal(gd_nccl_log_add(log, name, buf, n, err, sizeof err), 0);
    return log;
}

static const gd_nccl_proc *proc(const struct gd_nccl_log *log, const char *host, long pid, int dev)
{
    for (size_t i = 0; i < log->proc_count; i++)
        if (strcmp(log->procs[i].host, host) == 0 && log->procs[i].pid == pid && log->procs[i].dev == dev)
            return &log->procs[i];
    fail_msg("no process %s:%ld [%d]", host, pid, dev);
    return NULL;
}

static void real_asymmetric_gdr(void **state)
{
    (void)state;
    struct gd_nccl_log *log = real("asymmetric-gdr-send-gdrdma-receive-host-staged-peermem-missing-one-node-"
                                   "nccltests152.log");
    assert_int_equal(log->proc_count, 2);
    assert_int_equal(proc(log, "gpu32", 22612, 0)->ch_net_gdr, 1);
    assert_int_equal(proc(log, "gpu37", 52125, 0)->ch_net_host, 1);
    assert_int_equal(proc(log, "gpu37", 52125, 0)->ch_net_gdr, 0);
    gd_nccl_log_free(log);
}

static void real_azure_healthy(void **state)
{
    (void)state;
    struct gd_nccl_log *log = real("azure-aks-ib-gdrdma-healthy-gdr-level-forced-sys-aksrdma36.log");
    assert_int_equal(log->proc_count, 8);
    assert_int_equal(log->nccl_lines, 15);
    assert_int_equal(log->env_count, 1);
    assert_string_equal(log->env[0].value, "SYS");
    assert_int_equal(log->env[0].hosts, 8);
    assert_int_equal(proc(log, "leader-h2nng", 523, 0)->ch_net_gdr, 2);
    assert_int_equal(log->gdr_off_count, 0);
    gd_nccl_log_free(log);
}

static void real_container_socket(void **state)
{
    (void)state;
    struct gd_nccl_log *log = real("container-no-ib-device-hpcx-ibext-socket-fallback-virbr0-nccl941.log");
    assert_int_equal(log->proc_count, 1);
    const gd_nccl_proc *x = proc(log, "05-06-76-200", 7839, 0);
    assert_string_equal(x->version, "2.17.1+cuda12.1");
    assert_string_equal(x->bootstrap_iface, "ens5f0np0");
    assert_string_equal(x->plugin, "NCCL RDMA Plugin (v5)");
    assert_string_equal(x->ib_missing, "NET/IB : No device found");
    assert_string_equal(x->socket_ifaces, "ens5f0np0 ens3f0np0 ens8f1np1 bond0 virbr0");
    assert_int_equal(x->net, GD_NCCL_NET_SOCKET);
    assert_int_equal(log->missing_count, 1);
    gd_nccl_log_free(log);
}

static void real_gdr_distance(void **state)
{
    (void)state;
    struct gd_nccl_log *log = real("gdr-disabled-by-distance-for-far-gpus-gdr-level-phb-dle383.log");
    assert_int_equal(log->proc_count, 3);
    assert_int_equal(log->gdr_off_count, 2); /* GPU 18000 and 3b000 on node-1, once each */
    assert_int_equal(log->gdr_off[0].cause, GD_NCCL_GDR_DISTANCE);
    assert_string_equal(log->gdr_off[0].gpu, "18000");
    assert_string_equal(log->gdr_off[1].gpu, "3b000");
    assert_int_equal(log->gdr_off[0].distance, 5);
    assert_int_equal(log->gdr_off[0].limit, 4);
    assert_int_equal(proc(log, "node-1", 32726, 0)->gdr_enabled, 4);
    assert_string_equal(log->env[0].name, "NCCL_NET_GDR_LEVEL");
    assert_string_equal(log->env[0].value, "PHB");
    gd_nccl_log_free(log);
}

static void real_no_module(void **state)
{
    (void)state;
    struct gd_nccl_log *log = real("ib-4hca-gdr-disabled-no-module-peermem-missing-nccl899.log");
    assert_int_equal(log->proc_count, 2);
    const gd_nccl_proc *x = proc(log, "6a5a91752e39", 74352, 0);
    assert_string_equal(x->ib_devs, "mlx5_0:1/IB mlx5_1:1/IB mlx5_2:1/IB mlx5_3:1/IB");
    assert_string_equal(x->oob_iface, "eth0");
    assert_int_equal(log->gdr_off_count, 1);
    assert_int_equal(log->gdr_off[0].cause, GD_NCCL_GDR_NO_MODULE);
    assert_string_equal(log->gdr_off[0].hca, "0 'mlx5_0'");
    gd_nccl_log_free(log);
}

static void real_four_node_virbr0(void **state)
{
    (void)state;
    struct gd_nccl_log *log = real("ib-without-gdr-virbr0-in-socket-list-4node-nccltests29.log");
    assert_int_equal(log->proc_count, 7);
    assert_string_equal(proc(log, "server3", 15223, 7)->socket_ifaces, "enp41s0f1 virbr0");
    assert_string_equal(proc(log, "server3", 15223, 7)->ib_devs, "mlx5_0:1/IB");
    assert_string_equal(proc(log, "server1", 117953, 7)->socket_ifaces, "enp41s0f1");
    assert_string_equal(proc(log, "server1", 117953, 7)->ib_devs, "mlx5_1:1/IB");
    gd_nccl_log_free(log);
}

static void real_no_route(void **state)
{
    (void)state;
    struct gd_nccl_log *log = real("no-route-to-host-bootstrap-retries-llamafactory8045.log");
    assert_int_equal(log->connect_count, 1);
    assert_string_equal(log->connects[0].error, "No route to host");
    assert_int_equal(log->connects[0].count, 9);
    assert_true(log->connects[0].retries_exhausted);
    assert_int_equal(log->connects[0].where.line, 1);
    gd_nccl_log_free(log);
}

static void real_roce_no_cause(void **state)
{
    (void)state;
    struct gd_nccl_log *log = real("roce-gdr-disabled-both-hcas-peermem-loaded-nccl1537.log");
    const gd_nccl_proc *x = proc(log, "hostname1", 25668, 0);
    assert_true(x->ib_roce);
    assert_string_equal(x->oob_iface, "primaryip");
    assert_int_equal(x->rank, 0);
    assert_int_equal(x->nranks, 16);
    assert_int_equal(log->gdr_off_count, 2);
    assert_int_equal(log->gdr_off[1].cause, GD_NCCL_GDR_NO_CAUSE);
    assert_string_equal(log->gdr_off[1].hca, "1 'mlx5_1'");
    gd_nccl_log_free(log);
}

static void real_fastsocket(void **state)
{
    (void)state;
    struct gd_nccl_log *log = real("version-mismatch-problem-node-nccl-2.14.3-fastsocket-gcp-nccl1267.log");
    assert_int_equal(log->proc_count, 1);
    const gd_nccl_proc *x = proc(log, "instance-8g-96c-1", 525765, 0);
    assert_string_equal(x->version, "2.14.3+cuda11.7");
    assert_string_equal(x->plugin, "FastSocket (v4)");
    assert_string_equal(x->bootstrap_iface, "ens7");
    gd_nccl_log_free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_prefix_style),    cmocka_unit_test(facts_of_literal_lines),
        cmocka_unit_test(binary_is_refused),     cmocka_unit_test(real_asymmetric_gdr),
        cmocka_unit_test(real_azure_healthy),    cmocka_unit_test(real_container_socket),
        cmocka_unit_test(real_gdr_distance),     cmocka_unit_test(real_no_module),
        cmocka_unit_test(real_four_node_virbr0), cmocka_unit_test(real_no_route),
        cmocka_unit_test(real_roce_no_cause),    cmocka_unit_test(real_fastsocket),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
