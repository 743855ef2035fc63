/* SPDX-License-Identifier: Apache-2.0 */
/* The path between GPUs and RDMA NICs (src/checks/net_gdr.c): the RoCE GID
 * NCCL uses, a GPU far from every NIC while others have one beside them,
 * GPUDirect RDMA's module, PCIe ACS on a switch between peers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/pcie.h"
#include "net_fixture.h"

static const char *ev_str(const gd_finding *x, const char *key)
{
    return json_string_value(json_object_get(x->evidence, key));
}

/* NCCL issue 1510's table: index 4 RoCE v1 and 5 v2 for 10.12.0.21, 6 and 7 link-local. */
static gd_net_port *roce_port(gd_facts *f)
{
    gd_net_facts *n = nx_net(f, "show_gids:show_gids.txt");
    gd_net_dev *d = nx_dev(n, "mlx5_0", "MT4129", NULL, GD_LINK_ETHERNET, GD_PORT_ACTIVE, GD_PORT_PHYS_LINKUP, 200);
    gd_net_port *p = &d->ports[0];
    nx_gid(p, 4, "0000:0000:0000:0000:0000:ffff:0a0c:0015", "v1", "10.12.0.21");
    nx_gid(p, 5, "0000:0000:0000:0000:0000:ffff:0a0c:0015", "v2", "10.12.0.21");
    nx_gid(p, 6, "fe80:0000:0000:0000:9cbb:b7ff:feb3:937a", "v1", "");
    nx_gid(p, 7, "fe80:0000:0000:0000:9cbb:b7ff:feb3:937a", "v2", "");
    return p;
}

static void gid_index_on_roce_v1_fires(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 2);
    roce_port(&f);
    fx_env(&f, (const char *const[]){"NCCL_IB_GID_INDEX=4", NULL});
    gd_findings fs = fx_run_one(&f, "net.roce_gid");
    const gd_finding *x = fx_only(&fs, "net.roce_gid");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_non_null(strstr(x->title, "NCCL_IB_GID_INDEX=4 points mlx5_0 port 1 at a RoCE v1 GID"));
    assert_non_null(strstr(x->title, "10.12.0.21"));
    assert_string_equal(ev_str(x, "source"), "show_gids:show_gids.txt");
    gd_findings_free(&fs);
    fx_env(&f, (const char *const[]){"NCCL_IB_GID_INDEX=9", NULL});
    fs = fx_run_one(&f, "net.roce_gid");
    assert_non_null(strstr(fx_only(&fs, "net.roce_gid")->title, "names no GID"));
    gd_findings_free(&fs);
    /* ibstatus's default GID alone, untyped, is no table: not judged, never "no v2 GID". */
    fx_env(&f, (const char *const[]){NULL});
    gd_net_port *p0 = &f.net->devs[0].ports[0], kept = *p0;
    p0->gid_count = 1;
    p0->gids[0].type[0] = '\0';
    fs = fx_run_one(&f, "net.roce_gid");
    assert_int_equal(fs.n, 0);
    assert_true(fx_skipped(&fs, "net.roce_gid", GD_NO_GPU, "GID tables of the 1 RoCE port were not read"));
    gd_findings_free(&fs);
    *p0 = kept;
    /* One variable is one cause: eight ports at the same v1 row are one finding naming them all. */
    fx_env(&f, (const char *const[]){"NCCL_IB_GID_INDEX=4", NULL});
    gd_net_facts *n = f.net;
    for (int k = 1; k < 8; k++) {
        n->devs[n->dev_count] = n->devs[0];
        n->devs[n->dev_count++].name[5] = (char)('0' + k); /* mlx5_1 ... mlx5_7 */
    }
    fs = fx_run_one(&f, "net.roce_gid");
    x = fx_only(&fs, "net.roce_gid");
    assert_non_null(strstr(x->title, "points 8 RoCE ports (mlx5_0 port 1 and 7 more) at a RoCE v1 GID"));
    assert_int_equal(json_array_size(json_object_get(x->evidence, "ports")), 8);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void gid_v2_or_unset_is_quiet_a_table_without_v2_is_not(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 2);
    gd_net_port *p = roce_port(&f);
    fx_env(&f, (const char *const[]){"NCCL_IB_GID_INDEX=5", NULL});
    fx_assert_silent(&f, "net.roce_gid");
    fx_env(&f, (const char *const[]){"PATH=/usr/bin", NULL});
    fx_assert_silent(&f, "net.roce_gid"); /* NCCL 2.21+ picks index 5 itself */
    p->gid_count = 1; /* only the v1 row */
    gd_findings fs = fx_run_one(&f, "net.roce_gid");
    assert_non_null(strstr(fx_only(&fs, "net.roce_gid")->title, "has no RoCE v2 GID"));
    gd_findings_free(&fs);
    /* A table not read: not checked, never passed. */
    p->gid_count = 0;
    fs = fx_run_one(&f, "net.roce_gid");
    assert_int_equal(fs.n, 0);
    assert_true(fx_skipped(&fs, "net.roce_gid", GD_NO_GPU, "GID tables of the 1 RoCE port were not read"));
    gd_findings_free(&fs);
    /* InfiniBand has no RoCE version. */
    p->link_layer = GD_LINK_INFINIBAND;
    fx_assert_silent(&f, "net.roce_gid");
    gd_facts_free(&f);
}

/* Two GPUs under two host bridges; a NIC beside GPU 0 only. */
static void far_gpu(gd_facts *f, bool nic_beside_both)
{
    gd_pcie_facts *p = calloc(1, sizeof *p);
    p->gpu_count = 2;
    p->gpus = calloc(2, sizeof *p->gpus);
    fx_pcie_path(&p->gpus[0], "pci0000:16", 0,
                 (const char *const[]){"0000:18:00.0", "0000:17:01.0", "0000:17:00.0", "0000:16:01.0", NULL});
    fx_pcie_path(&p->gpus[1], "pci0000:40", 0,
                 (const char *const[]){"0000:42:00.0", "0000:41:01.0", "0000:41:00.0", "0000:40:01.0", NULL});
    for (size_t g = 0; g < 2; g++) {
        p->gpus[g].gpu = (int)g;
        p->gpus[g].matched = true;
        snprintf(p->gpus[g].hops[1].role, 16, "switch_port");
        snprintf(p->gpus[g].hops[2].role, 16, "switch_port");
    }
    p->nic_count = nic_beside_both ? 2 : 1;
    p->nics = calloc(2, sizeof *p->nics);
    fx_pcie_path(&p->nics[0].where, "pci0000:16", 0,
                 (const char *const[]){"0000:19:00.0", "0000:17:02.0", "0000:17:00.0", "0000:16:01.0", NULL});
    snprintf(p->nics[0].name, sizeof p->nics[0].name, "mlx5_0");
    fx_pcie_path(&p->nics[1].where, "pci0000:40", 0,
                 (const char *const[]){"0000:43:00.0", "0000:41:02.0", "0000:41:00.0", "0000:40:01.0", NULL});
    snprintf(p->nics[1].name, sizeof p->nics[1].name, "mlx5_1");
    f->pcie = p;
    gd_net_facts *n = nx_net(f, "sysfs:/sys");
    nx_dev(n, "mlx5_0", "MT4129", "0000:19:00.0", GD_LINK_INFINIBAND, GD_PORT_ACTIVE, GD_PORT_PHYS_LINKUP, 400);
    nx_dev(n, "mlx5_1", "MT4129", "0000:43:00.0", GD_LINK_INFINIBAND, GD_PORT_ACTIVE, GD_PORT_PHYS_LINKUP, 400);
}

static void gpu_far_from_every_nic_fires(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 2);
    far_gpu(&f, false);
    gd_findings fs = fx_run_one(&f, "net.gpu_nic_far");
    const gd_finding *x = fx_only(&fs, "net.gpu_nic_far");
    assert_int_equal(x->gpu, 1);
    assert_string_equal(ev_str(x, "level"), "NODE");
    assert_string_equal(ev_str(x, "nearest_nic"), "mlx5_0");
    assert_non_null(strstr(x->title, "across the CPU, while 1 GPU has one on its own switch"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void gpus_each_beside_a_nic_or_none_are_quiet(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 2);
    far_gpu(&f, true);
    fx_assert_silent(&f, "net.gpu_nic_far");
    /* The NIC beside GPU 1 down: GPU 1 is now far. */
    f.net->devs[1].ports[0].state = GD_PORT_DOWN;
    assert_int_equal(fx_run_count(&f, "net.gpu_nic_far"), 1);
    /* nvidia-smi topo -m's levels, no tree: the same judgement. */
    f.net->devs[1].ports[0].state = GD_PORT_ACTIVE;
    f.pcie->nics[0].level_count = f.pcie->nics[1].level_count = 2;
    f.pcie->nics[0].levels[0] = GD_TOPO_PIX, f.pcie->nics[0].levels[1] = GD_TOPO_SYS;
    f.pcie->nics[1].levels[0] = GD_TOPO_SYS, f.pcie->nics[1].levels[1] = GD_TOPO_PIX;
    fx_assert_silent(&f, "net.gpu_nic_far");
    gd_facts_free(&f);
    /* No RDMA port active (an Ethernet-only node): nothing to be near. */
    fx_facts(&f, 2, 2);
    nx_net(&f, "sysfs:/sys");
    fx_assert_silent(&f, "net.gpu_nic_far");
    gd_facts_free(&f);
}

static void gdr_module_missing_fires_loaded_or_unread_does_not(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 2);
    gd_net_facts *n = nx_net(&f, "sysfs:/sys");
    nx_rails(n, 4, "MT4123", GD_LINK_INFINIBAND, 200);
    n->peermem = GD_PEERMEM_ABSENT;
    snprintf(n->peermem_source, sizeof n->peermem_source, "lsmod:lsmod.txt");
    gd_findings fs = fx_run_one(&f, "net.gdr_module");
    const gd_finding *x = fx_only(&fs, "net.gdr_module");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_non_null(strstr(x->title, "neither nvidia_peermem nor nv_peer_mem"));
    assert_string_equal(ev_str(x, "source"), "lsmod:lsmod.txt");
    assert_non_null(strstr(x->fix, "modprobe nvidia_peermem"));
    gd_findings_free(&fs);
    n->peermem = GD_PEERMEM_LOADED;
    fx_assert_silent(&f, "net.gdr_module");
    n->peermem = GD_PEERMEM_UNKNOWN;
    fs = fx_run_one(&f, "net.gdr_module");
    assert_true(fx_skipped(&fs, "net.gdr_module", GD_NO_GPU, "modules were not read"));
    gd_findings_free(&fs);
    n->peermem = GD_PEERMEM_ABSENT;
    n->dev_count = 0; /* no RDMA device: no GPUDirect RDMA to have, read or not */
    fx_assert_silent(&f, "net.gdr_module");
    n->peermem = GD_PEERMEM_UNKNOWN;
    fx_assert_silent(&f, "net.gdr_module");
    n->peermem = GD_PEERMEM_ABSENT;
    /* NCCL issue 988's paste: 'lsmod | grep nvidia_peermem' and nv_peer_mem, both empty, alone. */
    n->devices_read = false;
    f.captured = true;
    fs = fx_run_one(&f, "net.gdr_module");
    assert_non_null(strstr(fx_only(&fs, "net.gdr_module")->title, "the RDMA devices were not listed"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static gd_net_acs *acs_row(gd_net_facts *n, const char *bdf, bool on)
{
    n->acs_read = true;
    snprintf(n->acs_source, sizeof n->acs_source, "lspci:lspci.txt");
    gd_net_acs *a = &n->acs[n->acs_count++];
    snprintf(a->bdf, sizeof a->bdf, "%s", bdf);
    a->src_valid = a->req_redir = a->cmplt_redir = a->upstream_fwd = on;
    return a;
}

static void acs_on_a_shared_switch_fires(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 2);
    fx_pcie_switch_tree(&f); /* both GPUs behind switch 0000:17:00.0 */
    gd_net_facts *n = nx_net(&f, "sysfs:/sys");
    acs_row(n, "0000:16:01.0", true); /* the root port's: harmless */
    acs_row(n, "0000:17:02.0", false);
    fx_assert_silent(&f, "net.acs_enabled");
    acs_row(n, "0000:17:02.0", true); /* above GPU 1 */
    gd_findings fs = fx_run_one(&f, "net.acs_enabled");
    const gd_finding *x = fx_only(&fs, "net.acs_enabled");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_int_equal(x->gpu, 1);
    assert_string_equal(ev_str(x, "bridge"), "0000:17:02.0");
    assert_string_equal(ev_str(x, "acsctl"), "SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+");
    assert_string_equal(ev_str(x, "shares_switch_with"), "another GPU");
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* NCCL issue 523's paste: 'lspci -vvv | grep ACSCtl', whose lines name no device. */
static void acs_lines_without_devices_are_info(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 2);
    gd_net_facts *n = nx_net(&f, "lspci:acs.txt");
    n->devices_read = false;
    acs_row(n, "", true);
    acs_row(n, "", false);
    acs_row(n, "", true);
    gd_findings fs = fx_run_one(&f, "net.acs_enabled");
    const gd_finding *x = fx_only(&fs, "net.acs_enabled");
    assert_int_equal(x->severity, GD_SEV_INFO);
    assert_non_null(strstr(x->title, "ACS is on for 2 of 3 ports listed; which ones is not known"));
    gd_findings_free(&fs);
    n->acs_count = 0;
    acs_row(n, "", false);
    fx_assert_silent(&f, "net.acs_enabled");
    n->acs_read = false;
    fs = fx_run_one(&f, "net.acs_enabled");
    assert_true(fx_skipped(&fs, "net.acs_enabled", GD_NO_GPU, "ACS was not read"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gid_index_on_roce_v1_fires),
        cmocka_unit_test(gid_v2_or_unset_is_quiet_a_table_without_v2_is_not),
        cmocka_unit_test(gpu_far_from_every_nic_fires),
        cmocka_unit_test(gpus_each_beside_a_nic_or_none_are_quiet),
        cmocka_unit_test(gdr_module_missing_fires_loaded_or_unread_does_not),
        cmocka_unit_test(acs_on_a_shared_switch_fires),
        cmocka_unit_test(acs_lines_without_devices_are_info),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
