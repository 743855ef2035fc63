/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL's network variables against the node (src/checks/env_nccl.c, and
 * NCCL_NET=Socket in src/checks/env.c): NCCL_SOCKET_IFNAME, NCCL_IB_HCA,
 * NCCL_NET_GDR_LEVEL with NCCL's own syntax. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"
#include "net_fixture.h"

/* A node with interfaces lo, docker0, eth0, ib0 and four active HDR ports mlx5_0..3. */
static gd_net_facts *node(gd_facts *f)
{
    fx_facts(f, 8, 2);
    gd_net_facts *n = nx_net(f, "sysfs:/sys");
    nx_iface(n, "lo", 1, true, false);
    nx_iface(n, "docker0", 1, false, true);
    nx_iface(n, "eth0", 1, false, false);
    nx_iface(n, "ib0", 1, false, false);
    nx_rails(n, 4, "MT4123", GD_LINK_INFINIBAND, 200);
    return n;
}

static size_t fired(gd_facts *f, const char *id, const char *var)
{
    fx_env(f, (const char *const[]){var, NULL});
    return fx_run_count(f, id);
}

static void socket_ifname(void **state)
{
    (void)state;
    gd_facts f;
    node(&f);
    static const char *const good[] = {"NCCL_SOCKET_IFNAME=eth", "NCCL_SOCKET_IFNAME==eth0",
                                       "NCCL_SOCKET_IFNAME=^docker,lo", "NCCL_SOCKET_IFNAME=eth0,ib0"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        if (fired(&f, "env.nccl_socket_ifname", good[i]))
            fail_msg("%s fired", good[i]);
    static const char *const bad[] = {"NCCL_SOCKET_IFNAME=lo",     "NCCL_SOCKET_IFNAME==docker0",
                                      "NCCL_SOCKET_IFNAME=virbr0", "NCCL_SOCKET_IFNAME=ens",
                                      "NCCL_SOCKET_IFNAME==eth1",  "NCCL_SOCKET_IFNAME=^eth,ib,docker"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (fired(&f, "env.nccl_socket_ifname", bad[i]) == 0)
            fail_msg("%s quiet", bad[i]);
    fx_env(&f, (const char *const[]){"NCCL_SOCKET_IFNAME=ens", NULL});
    gd_findings fs = fx_run_one(&f, "env.nccl_socket_ifname");
    const gd_finding *x = fx_only(&fs, "env.nccl_socket_ifname");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_non_null(strstr(x->title, "NCCL_SOCKET_IFNAME=ens matches none of this node's 4 interfaces"));
    gd_findings_free(&fs);
    fx_env(&f, (const char *const[]){"NCCL_SOCKET_IFNAME=docker0", NULL});
    fs = fx_run_one(&f, "env.nccl_socket_ifname");
    assert_non_null(
        strstr(fx_only(&fs, "env.nccl_socket_ifname")->title, "docker0, a bridge that reaches no other node"));
    gd_findings_free(&fs);
    /* Interfaces not read: only lo / docker / virbr are judged. */
    f.net->ifaces_read = false;
    assert_int_equal(fired(&f, "env.nccl_socket_ifname", "NCCL_SOCKET_IFNAME=ens"), 0);
    assert_int_equal(fired(&f, "env.nccl_socket_ifname", "NCCL_SOCKET_IFNAME=lo"), 1);
    gd_facts_free(&f);
}

static void ib_hca(void **state)
{
    (void)state;
    gd_facts f;
    gd_net_facts *n = node(&f);
    static const char *const good[] = {"NCCL_IB_HCA=mlx5", "NCCL_IB_HCA==mlx5_0,mlx5_1",
                                       "NCCL_IB_HCA=mlx5_0:1,mlx5_2:1", "NCCL_IB_HCA=^mlx5_3"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        if (fired(&f, "env.nccl_ib_hca", good[i]))
            fail_msg("%s fired", good[i]);
    fx_env(&f, (const char *const[]){"NCCL_IB_HCA=mlx5_0,mlx5_7", NULL});
    gd_findings fs = fx_run_one(&f, "env.nccl_ib_hca");
    const gd_finding *x = fx_only(&fs, "env.nccl_ib_hca");
    assert_int_equal(x->severity, GD_SEV_INFO);
    assert_non_null(strstr(x->title, "names device this node does not have: mlx5_7"));
    gd_findings_free(&fs);
    fx_env(&f, (const char *const[]){"NCCL_IB_HCA==mlx5_8:1", NULL});
    fs = fx_run_one(&f, "env.nccl_ib_hca");
    x = fx_only(&fs, "env.nccl_ib_hca");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_non_null(strstr(x->title, "leaves NCCL no active RDMA port (4 active on the node); absent: mlx5_8"));
    gd_findings_free(&fs);
    assert_int_equal(fired(&f, "env.nccl_ib_hca", "NCCL_IB_HCA=^mlx5"), 1);
    /* The devices not read: not checked, never a guess. */
    n->devices_read = false;
    fx_env(&f, (const char *const[]){"NCCL_IB_HCA=mlx5_9", NULL});
    fs = fx_run_one(&f, "env.nccl_ib_hca");
    assert_int_equal(fs.n, 0);
    assert_true(fx_skipped(&fs, "env.nccl_ib_hca", GD_NO_GPU, "not listed"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void gdr_level(void **state)
{
    (void)state;
    gd_facts f;
    gd_net_facts *n = node(&f);
    assert_int_equal(fired(&f, "env.nccl_gdr_level", "NCCL_NET_GDR_LEVEL=PHB"), 0);
    assert_int_equal(fired(&f, "env.nccl_gdr_level", "NCCL_NET_GDR_LEVEL=LOC"), 1);
    assert_int_equal(fired(&f, "env.nccl_gdr_level", "NCCL_NET_GDR_LEVEL=0"), 1);
    n->dev_count = 0; /* no RDMA device: nothing disabled */
    assert_int_equal(fired(&f, "env.nccl_gdr_level", "NCCL_NET_GDR_LEVEL=LOC"), 0);
    gd_facts_free(&f);
    /* A NIC behind the GPUs' switch (PXB): PIX cuts GPUDirect RDMA off, PXB keeps it. */
    n = node(&f);
    gd_pcie_facts *p = fx_pcie_switch_tree(&f);
    p->nic_count = 1;
    p->nics = calloc(1, sizeof *p->nics);
    fx_pcie_path(&p->nics[0].where, "pci0000:16", 0,
                 (const char *const[]){"0000:1a:00.0", "0000:17:09.0", "0000:17:00.0", "0000:16:01.0", NULL});
    snprintf(p->nics[0].name, sizeof p->nics[0].name, "mlx5_0");
    assert_int_equal(fired(&f, "env.nccl_gdr_level", "NCCL_NET_GDR_LEVEL=PXB"), 0);
    assert_int_equal(fired(&f, "env.nccl_gdr_level", "NCCL_NET_GDR_LEVEL=SYS"), 0);
    fx_env(&f, (const char *const[]){"NCCL_NET_GDR_LEVEL=PIX", NULL});
    gd_findings fs = fx_run_one(&f, "env.nccl_gdr_level");
    assert_non_null(strstr(fx_only(&fs, "env.nccl_gdr_level")->title, "turns GPUDirect RDMA off for 8 GPUs"));
    gd_findings_free(&fs);
    assert_int_equal(fired(&f, "env.nccl_gdr_level", "NCCL_NET_GDR_LEVEL=1"), 1);
    gd_facts_free(&f);
}

/* NCCL_IB_DISABLE=1 / NCCL_NET=Socket on a multi-node job: the title counts
 * the active ports; a node without any is told it costs nothing. */
static void sockets_forced_beside_active_ports(void **state)
{
    (void)state;
    gd_facts f;
    gd_net_facts *n = node(&f);
    fx_env(&f, (const char *const[]){"NCCL_NET=Socket", "SLURM_JOB_NUM_NODES=4", NULL});
    gd_findings fs = fx_run_one(&f, "env.nccl_ib_disabled");
    const gd_finding *x = fx_only(&fs, "env.nccl_ib_disabled");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_non_null(strstr(x->title, "NCCL_NET=Socket: NCCL is told to use TCP sockets"));
    assert_non_null(strstr(x->title, "although 4 RDMA ports are active here"));
    gd_findings_free(&fs);
    fx_env(&f, (const char *const[]){"NCCL_NET=IB", "SLURM_JOB_NUM_NODES=4", NULL});
    fx_assert_silent(&f, "env.nccl_ib_disabled");
    n->dev_count = 0;
    fx_env(&f, (const char *const[]){"NCCL_IB_DISABLE=1", "SLURM_JOB_NUM_NODES=4", NULL});
    fs = fx_run_one(&f, "env.nccl_ib_disabled");
    x = fx_only(&fs, "env.nccl_ib_disabled");
    assert_int_equal(x->severity, GD_SEV_INFO);
    assert_non_null(strstr(x->title, "(no active RDMA port on this node)"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(socket_ifname),
        cmocka_unit_test(ib_hca),
        cmocka_unit_test(gdr_level),
        cmocka_unit_test(sockets_forced_beside_active_ports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
