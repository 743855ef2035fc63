/* SPDX-License-Identifier: Apache-2.0 */
/* PCIe helpers, topology derivation and the PCIe / NVLink checks from literal facts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"
#include "analysis/topology.h"
#include "core/pcie_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void speed_strings_of_old_and_new_kernels(void **state)
{
    (void)state;
    assert_true(gd_pcie_parse_speed("8 GT/s") == 8.0); /* kernels <= 5.6 */
    assert_true(gd_pcie_parse_speed("8.0 GT/s PCIe\n") == 8.0); /* newer */
    assert_true(gd_pcie_parse_speed("2.5 GT/s PCIe") == 2.5);
    assert_true(gd_pcie_parse_speed("16GT/s") == 16.0); /* lspci */
    assert_true(isnan(gd_pcie_parse_speed("Unknown")));
    assert_true(isnan(gd_pcie_parse_speed("Unknown speed")));
    assert_true(isnan(gd_pcie_parse_speed("8 MB/s")));
    assert_int_equal(gd_pcie_gen_of_speed(2.5), 1);
    assert_int_equal(gd_pcie_gen_of_speed(32), 5);
    assert_int_equal(gd_pcie_gen_of_speed(7), 0);
    /* Per direction: 15.75 / 31.5 / 63 GB/s at x16 (research/facts.md 2.1). */
    assert_true(fabs(gd_pcie_link_gbps(3, 16) - 15.75) < 0.01);
    assert_true(fabs(gd_pcie_link_gbps(4, 16) - 31.5) < 0.02);
    assert_true(fabs(gd_pcie_link_gbps(5, 16) - 63.0) < 0.03);
    assert_true(fabs(gd_pcie_link_gbps(1, 16) - 4.0) < 0.001);
    assert_true(isnan(gd_pcie_link_gbps(0, 16)));
}

static void bus_ids_and_cpulists(void **state)
{
    (void)state;
    char b[16];
    assert_int_equal(gd_pcie_norm_bdf("00000000:1B:00.0", b, sizeof b), 0);
    assert_string_equal(b, "0000:1b:00.0");
    assert_int_equal(gd_pcie_norm_bdf("1b:00.0", b, sizeof b), 0);
    assert_string_equal(b, "0000:1b:00.0");
    assert_int_equal(gd_pcie_norm_bdf("garbage", b, sizeof b), -1);
    assert_true(gd_cpulist_has("0-23,48-71", 50));
    assert_false(gd_cpulist_has("0-23,48-71", 24));
    assert_int_equal(gd_cpulist_count("0-23,48-71"), 48);
    assert_int_equal(gd_cpulist_count("5"), 1);
    assert_int_equal(gd_cpulist_count("3-1"), 0);
    assert_int_equal(gd_cpulist_count(""), 0);
}

/* A path from literal bdfs, deepest first; the last is the root port. */
static void path(gd_pcie_gpu *g, const char *hb, int numa, const char *const *bdfs)
{
    memset(g, 0, sizeof *g);
    snprintf(g->host_bridge, sizeof g->host_bridge, "%s", hb);
    g->numa_node = numa >= 0 ? gd_val(numa) : gd_missing(GD_ST_NOT_SUPPORTED);
    while (bdfs[g->hop_count]) {
        gd_pcie_hop *h = &g->hops[g->hop_count];
        snprintf(h->bdf, sizeof h->bdf, "%s", bdfs[g->hop_count]);
        g->hop_count++;
    }
    snprintf(g->bdf, sizeof g->bdf, "%s", bdfs[0]);
    snprintf(g->hops[0].role, sizeof g->hops[0].role, "gpu");
    snprintf(g->hops[g->hop_count - 1].role, sizeof g->hops[0].role, "root_port");
}

static void topology_levels_from_paths(void **state)
{
    (void)state;
    gd_pcie_gpu a, b, c, d, e, x;
    /* One switch: a and b; a second-level switch under it: c. */
    path(&a, "pci0000:00", 0,
         (const char *const[]){"0000:03:00.0", "0000:02:00.0", "0000:01:00.0", "0000:00:01.0", NULL});
    path(&b, "pci0000:00", 0,
         (const char *const[]){"0000:07:00.0", "0000:02:02.0", "0000:01:00.0", "0000:00:01.0", NULL});
    path(&c, "pci0000:00", 0,
         (const char *const[]){"0000:06:00.0", "0000:05:00.0", "0000:04:00.0", "0000:02:01.0", "0000:01:00.0",
                               "0000:00:01.0", NULL});
    /* Another root port of the same host bridge; another host bridge on the
     * same node; another node. */
    path(&d, "pci0000:00", 0, (const char *const[]){"0000:41:00.0", "0000:00:03.0", NULL});
    path(&e, "pci0000:40", 0, (const char *const[]){"0000:42:00.0", "0000:40:01.0", NULL});
    path(&x, "pci0000:80", 1, (const char *const[]){"0000:81:00.0", "0000:80:01.0", NULL});
    assert_int_equal(gd_topo_pair_level(&a, &a), GD_TOPO_SELF);
    assert_int_equal(gd_topo_pair_level(&a, &b), GD_TOPO_PIX);
    assert_int_equal(gd_topo_pair_level(&a, &c), GD_TOPO_PXB);
    assert_int_equal(gd_topo_pair_level(&c, &b), GD_TOPO_PXB);
    assert_int_equal(gd_topo_pair_level(&a, &d), GD_TOPO_PHB);
    assert_int_equal(gd_topo_pair_level(&a, &e), GD_TOPO_NODE);
    assert_int_equal(gd_topo_pair_level(&e, &x), GD_TOPO_SYS);
    x.numa_node = gd_missing(GD_ST_NOT_SUPPORTED);
    assert_int_equal(gd_topo_pair_level(&e, &x), GD_TOPO_UNKNOWN);
    char cell[16];
    gd_topo_cell_label((gd_topo_cell){GD_TOPO_SYS, 18}, cell, sizeof cell);
    assert_string_equal(cell, "NV18");
    gd_topo_cell_label((gd_topo_cell){GD_TOPO_PXB, 0}, cell, sizeof cell);
    assert_string_equal(cell, "PXB");
}

/* Replays at `per_min` over a window of `secs` seconds on a Gen`gen` x`width` link. */
static size_t replay_findings_on(int gen, int width, double per_min, size_t secs)
{
    gd_facts f;
    fx_facts(&f, 1, secs + 1);
    fx_set(&f, 0, GD_M_PCIE_GEN, 0, secs + 1, gen);
    fx_set(&f, 0, GD_M_PCIE_WIDTH, 0, secs + 1, width);
    for (size_t i = 0; i <= secs; i++)
        fx_set(&f, 0, GD_M_PCIE_REPLAYS, i, i + 1, floor(per_min * (double)i / 60.0));
    gd_findings fs;
    fx_run(&f, "pcie.replays", &fs);
    size_t n = fx_count(&fs, "pcie.replays", 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
    return n;
}

static size_t replay_findings(int gen, double per_min)
{
    return replay_findings_on(gen, 16, per_min, 60);
}

static void replay_rate_follows_dcgm(void **state)
{
    (void)state;
    /* ceil(1e-12 x rate x 60 x lanes) per minute: exactly the allowance is
     * healthy, one more is a finding, at every generation and width. */
    static const struct {
        int gen, width, allowed;
    } edge[] = {{3, 16, 8}, {4, 16, 16}, {5, 16, 31}, {3, 8, 4}, {4, 8, 8}, {5, 8, 16}};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        assert_int_equal(replay_findings_on(edge[i].gen, edge[i].width, edge[i].allowed, 60), 0);
        assert_int_equal(replay_findings_on(edge[i].gen, edge[i].width, edge[i].allowed + 1, 60), 1);
    }
    assert_int_equal(replay_findings(3, 12), 1);
    assert_int_equal(replay_findings(5, 0), 0);
    /* A 10 s window: 12 replays (72/min) are fewer than one minute's 16 at
     * Gen4 x16, so not yet a rate; 17 are. */
    assert_int_equal(replay_findings_on(4, 16, 72, 10), 0);
    assert_int_equal(replay_findings_on(4, 16, 102, 10), 1);
    /* Over 10 minutes the rate, not the count, decides. */
    assert_int_equal(replay_findings_on(4, 16, 16, 600), 0);
    assert_int_equal(replay_findings_on(4, 16, 18, 600), 1);
}

/* The allowance is the loaded link's: idle samples at Gen1 do not make it stricter. */
static void replay_allowance_from_the_loaded_link(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 61);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 40, 0);
    fx_set(&f, 0, GD_M_PCIE_GEN, 0, 40, 1);
    fx_set(&f, 0, GD_M_PCIE_GEN, 40, 61, 4);
    fx_set(&f, 0, GD_M_PCIE_WIDTH, 0, 61, 16);
    for (size_t i = 0; i < 61; i++) /* 12/min: under Gen4 x16's 16, over Gen1 x16's 3 */
        fx_set(&f, 0, GD_M_PCIE_REPLAYS, i, i + 1, floor(12.0 * (double)i / 60.0));
    gd_findings fs;
    fx_run(&f, "pcie.replays", &fs);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_PCIE_GEN, 40, 61, 1); /* loaded at Gen1 too: now 12/min is too many */
    fx_run(&f, "pcie.replays", &fs);
    assert_int_equal(fx_count(&fs, "pcie.replays", 0), 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void downgrade_only_judged_under_load(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 10);
    for (size_t g = 0; g < 2; g++) {
        f.gpus[g].pcie_gen_max = gd_val(5);
        f.gpus[g].pcie_width_max = gd_val(16);
        fx_set(&f, g, GD_M_PCIE_GEN, 0, 10, 5);
        fx_set(&f, g, GD_M_PCIE_WIDTH, 0, 10, 16);
    }
    fx_set(&f, 1, GD_M_PCIE_WIDTH, 0, 10, 8);
    gd_findings fs;
    fx_run(&f, "pcie.link_downgraded", &fs);
    assert_int_equal(fx_count(&fs, "pcie.link_downgraded", 1), 1);
    assert_int_equal(fs.n, 1);
    gd_findings_free(&fs);
    /* Idle: Gen1 is power saving, not a finding; a note says how to judge. */
    fx_set(&f, 1, GD_M_UTIL_GPU_PCT, 0, 10, 0);
    fx_set(&f, 1, GD_M_PCIE_GEN, 0, 10, 1);
    fx_run(&f, "pcie.link_downgraded", &fs);
    assert_int_equal(fs.n, 0);
    assert_int_equal(fs.nskips, 1);
    assert_non_null(strstr(fs.skips[0].reason, "bench pcie"));
    gd_findings_free(&fs);
    /* Loaded, but no link reading (a dmon log): not "idle", unreadable. */
    fx_set(&f, 1, GD_M_UTIL_GPU_PCT, 0, 10, 98);
    fx_unset(&f, 1, GD_M_PCIE_GEN, GD_ST_NOT_SUPPORTED);
    fx_unset(&f, 1, GD_M_PCIE_WIDTH, GD_ST_NOT_SUPPORTED);
    fx_run(&f, "pcie.link_downgraded", &fs);
    assert_int_equal(fs.n, 0);
    assert_int_equal(fs.nskips, 1);
    assert_non_null(strstr(fs.skips[0].reason, "not readable while GPU 1 was under load"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Runs check `id` and asserts n findings and nskips skips. */
static void want_run(const gd_facts *f, const char *id, size_t n, size_t nskips)
{
    gd_findings fs;
    fx_run(f, id, &fs);
    assert_int_equal(fs.n, n);
    assert_int_equal(fs.nskips, nskips);
    gd_findings_free(&fs);
}

/* A Gen5 card in a Gen4 slot: pcie.slot_limited, at any load; the link at
 * Gen4 is what card and slot allow together, so no pcie.link_downgraded. */
static void slot_limit_is_static_and_not_a_downgrade(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 10);
    for (size_t g = 0; g < 2; g++) {
        f.gpus[g].pcie_gen_max = gd_val(g == 0 ? 4 : 5); /* together */
        f.gpus[g].pcie_gen_max_device = gd_val(5);
        f.gpus[g].pcie_width_max = gd_val(16);
        fx_set(&f, g, GD_M_PCIE_GEN, 0, 10, g == 0 ? 4 : 5);
        fx_set(&f, g, GD_M_PCIE_WIDTH, 0, 10, 16);
    }
    gd_findings fs;
    fx_run(&f, "pcie.slot_limited", &fs);
    assert_int_equal(fs.n, 1);
    assert_int_equal(fx_count(&fs, "pcie.slot_limited", 0), 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    json_t *ev = fs.v[0].evidence;
    assert_int_equal(json_integer_value(json_object_get(ev, "pcie_gen_max_device")), 5);
    assert_int_equal(json_integer_value(json_object_get(ev, "pcie_gen_max")), 4);
    assert_true(fabs(json_number_value(json_object_get(ev, "lost_gbps")) - 31.51) < 0.01);
    assert_non_null(strstr(fs.v[0].fix, "slot wired for Gen5 x16"));
    gd_findings_free(&fs);
    want_run(&f, "pcie.link_downgraded", 0, 0);
    /* Idle: the same verdict, from the maxima alone. */
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 10, 0);
    fx_set(&f, 0, GD_M_PCIE_GEN, 0, 10, 1);
    fx_run(&f, "pcie.slot_limited", &fs);
    assert_int_equal(fx_count(&fs, "pcie.slot_limited", 0), 1);
    assert_int_equal(fs.n, 1);
    gd_findings_free(&fs);
    /* Under load below the together maximum: a downgrade against Gen4, not Gen5. */
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 10, 98);
    fx_set(&f, 0, GD_M_PCIE_GEN, 0, 10, 3);
    fx_run(&f, "pcie.link_downgraded", &fs);
    assert_int_equal(fs.n, 1);
    assert_int_equal(json_integer_value(json_object_get(fs.v[0].evidence, "pcie_gen_max")), 4);
    gd_findings_free(&fs);
    /* Without the card's own maximum nothing is judged, and it says so. */
    f.gpus[0].pcie_gen_max_device = gd_missing(GD_ST_NOT_SUPPORTED);
    f.gpus[1].pcie_gen_max_device = gd_missing(GD_ST_NOT_SUPPORTED);
    want_run(&f, "pcie.slot_limited", 0, 2);
    gd_facts_free(&f);
}

/* The card's own maximum from its LnkCap, the slot's from the port above:
 * what lspci and sysfs give when NVML or nvidia-smi do not. */
static void maxima_from_the_pcie_tree(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 2);
    f.gpus[0].pcie_gen_max = f.gpus[0].pcie_width_max = gd_missing(GD_ST_NOT_SUPPORTED);
    gd_pcie_facts *p = gd_pcie_facts_get(&f);
    assert_non_null(p);
    gd_pcie_gpu *pg = gd_pcie_gpu_add(p);
    pg->gpu = 0;
    pg->matched = true;
    pg->hop_count = 2;
    pg->hops[0] = (gd_pcie_hop){.bdf = "0000:02:00.0", .gen_max = gd_val(4), .width_max = gd_val(16)};
    pg->hops[1] = (gd_pcie_hop){.bdf = "0000:00:03.0", .gen_max = gd_val(3), .width_max = gd_val(8)};
    gd_pcie_fill_link_max(&f, "lspci:x.txt:LnkCap");
    assert_int_equal((int)f.gpus[0].pcie_gen_max_device.v, 4);
    assert_int_equal((int)f.gpus[0].pcie_width_max_device.v, 16);
    assert_int_equal((int)f.gpus[0].pcie_gen_max.v, 3);
    assert_int_equal((int)f.gpus[0].pcie_width_max.v, 8);
    assert_string_equal(f.gpus[0].pcie_max_source, "lspci:x.txt:LnkCap");
    gd_findings fs;
    fx_run(&f, "pcie.slot_limited", &fs);
    assert_int_equal(fs.n, 1);
    assert_non_null(strstr(fs.v[0].title, "Gen4 x16 card in a slot that allows Gen3 x8"));
    assert_non_null(strstr(fs.v[0].fix, "lspci -vv -s 0000:00:03.0"));
    gd_findings_free(&fs);
    /* The port above as fast as the card: quiet. */
    pg->hops[1].gen_max = gd_val(4);
    pg->hops[1].width_max = gd_val(16);
    f.gpus[0].pcie_gen_max = f.gpus[0].pcie_width_max = gd_missing(GD_ST_NOT_SUPPORTED);
    gd_pcie_fill_link_max(&f, "lspci:x.txt:LnkCap");
    want_run(&f, "pcie.slot_limited", 0, 0);
    gd_facts_free(&f);
}

static void nvlink_down_needs_nvlink_somewhere(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 3);
    for (size_t g = 0; g < 2; g++) {
        f.gpus[g].nvlink_count = 4;
        for (unsigned l = 0; l < 4; l++)
            f.gpus[g].nvlink[l] = (gd_nvlink){.link = l, .active = gd_val(0)};
    }
    gd_findings fs;
    fx_run(&f, "nvlink.down", &fs); /* PCIe boards without a bridge: all inactive */
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    for (unsigned l = 0; l < 4; l++)
        f.gpus[0].nvlink[l].active = gd_val(1);
    for (unsigned l = 0; l < 3; l++)
        f.gpus[1].nvlink[l].active = gd_val(1);
    fx_run(&f, "nvlink.down", &fs);
    assert_int_equal(fx_count(&fs, "nvlink.down", 1), 1);
    assert_int_equal(fs.n, 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void add_aer(gd_stack_facts *s, gd_aer_severity sev, const char *dev, unsigned long times)
{
    size_t k = 0;
    while (k < s->aer_device_count && strcmp(s->aer_devices[k].dev, dev) != 0)
        k++;
    gd_aer_device *d = &s->aer_devices[k];
    if (k == s->aer_device_count) {
        s->aer_device_count++;
        memset(d, 0, sizeof *d);
        snprintf(d->dev, sizeof d->dev, "%s", dev);
    }
    d->count[sev] += times;
    d->last.severity = sev;
    snprintf(d->last.dev, sizeof d->last.dev, "%s", dev);
    snprintf(d->last.port, sizeof d->last.port, "0000:17:00.0");
    snprintf(d->last.text, sizeof d->last.text, "AER: ...");
}

/* The kernel log's AER messages: uncorrectable ones judged like the
 * counters, correctable ones warn from DCGM's 480 and are context below;
 * a device on no known GPU's path is context; a clean log says nothing. */
static void aer_messages_of_the_kernel_log(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 3); /* GPUs at 18:00.0 and 19:00.0 */
    f.stack = calloc(1, sizeof *f.stack);
    f.stack->kernel_log_read = true;
    snprintf(f.stack->kernel_log_source, sizeof f.stack->kernel_log_source, "dmesg.txt");
    gd_findings fs;
    fx_run(&f, "pcie.aer_errors", &fs);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);

    add_aer(f.stack, GD_AER_CORRECTED, "0000:18:00.0", 3);
    fx_run(&f, "pcie.aer_errors", &fs);
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].gpu, 0);
    assert_int_equal(fs.v[0].severity, GD_SEV_INFO);
    assert_string_equal(json_string_value(json_object_get(fs.v[0].evidence, "source")), "kernel log: dmesg.txt");
    gd_findings_free(&fs);

    add_aer(f.stack, GD_AER_CORRECTED, "0000:18:00.0", 476); /* 479: one below DCGM's 480 */
    fx_run(&f, "pcie.aer_errors", &fs);
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_INFO);
    assert_non_null(strstr(fs.v[0].title, "479 correctable"));
    gd_findings_free(&fs);

    add_aer(f.stack, GD_AER_CORRECTED, "0000:18:00.0", 1); /* 480: warns */
    add_aer(f.stack, GD_AER_NONFATAL, "0000:19:00.0", 1);
    add_aer(f.stack, GD_AER_FATAL, "0000:99:00.0", 1); /* no GPU of the machine */
    fx_run(&f, "pcie.aer_errors", &fs);
    assert_int_equal(fs.n, 3);
    for (size_t i = 0; i < fs.n; i++) {
        const gd_finding *x = &fs.v[i];
        gd_severity want = x->gpu == 0 ? GD_SEV_WARNING : x->gpu == 1 ? GD_SEV_WARNING : GD_SEV_INFO;
        if (x->gpu == GD_NO_GPU)
            assert_non_null(strstr(x->title, "0000:99:00.0"));
        assert_int_equal(x->severity, want);
    }
    gd_findings_free(&fs);
    f.stack->aer_device_count = 0;
    add_aer(f.stack, GD_AER_FATAL, "0000:19:00.0", 1);
    fx_run(&f, "pcie.aer_errors", &fs);
    assert_int_equal(fx_count(&fs, "pcie.aer_errors", 1), 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_CRITICAL);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* f->pcie for f's GPUs (bus 18+g): each GPU behind its own switch
 * port, a switch upstream port 0000:17:00.0 they share and the root port
 * 0000:16:01.0, with AER counters at zero; a PCIe-only matrix. */
static gd_pcie_facts *aer_paths(gd_facts *f)
{
    gd_pcie_facts *p = calloc(1, sizeof *p);
    p->gpu_count = f->gpu_count;
    p->gpus = calloc(f->gpu_count, sizeof *p->gpus);
    p->matrix = calloc(f->gpu_count * f->gpu_count, sizeof *p->matrix);
    for (size_t g = 0; g < f->gpu_count; g++) {
        char gpu[16], port[16];
        snprintf(gpu, sizeof gpu, "0000:%02x:00.0", (unsigned)(0x18 + g) & 0xffu);
        snprintf(port, sizeof port, "0000:17:%02x.0", (unsigned)(g + 1) & 0x1fu);
        gd_pcie_gpu *pg = &p->gpus[g];
        path(pg, "pci0000:16", 0, (const char *const[]){gpu, port, "0000:17:00.0", "0000:16:01.0", NULL});
        pg->gpu = (int)g;
        pg->matched = true;
        snprintf(pg->hops[1].role, sizeof pg->hops[1].role, "switch_port");
        snprintf(pg->hops[2].role, sizeof pg->hops[2].role, "switch_port");
        for (size_t k = 0; k < pg->hop_count; k++)
            pg->hops[k].aer_cor = pg->hops[k].aer_nonfatal = pg->hops[k].aer_fatal = gd_val(0);
        for (size_t b = 0; b < f->gpu_count; b++)
            p->matrix[g * f->gpu_count + b] = (gd_topo_cell){b == g ? GD_TOPO_SELF : GD_TOPO_PXB, 0};
    }
    f->pcie = p;
    return p;
}

/* Runs pcie.aer_errors: the number of findings; the first one's severity and GPU. */
static size_t aer_run(const gd_facts *f, gd_severity *sev, int *gpu)
{
    gd_findings fs;
    fx_run(f, "pcie.aer_errors", &fs);
    size_t n = fs.n;
    *sev = n ? fs.v[0].severity : GD_SEV_INFO;
    *gpu = n ? fs.v[0].gpu : -100;
    for (size_t i = 0; i < fs.n; i++)
        assert_string_equal(fs.v[i].id, "pcie.aer_errors");
    gd_findings_free(&fs);
    return n;
}

/* The AER counters of sysfs: correctable errors warn from DCGM's 480 (479
 * is quiet), any non-fatal one warns, any fatal one is critical; a port on
 * the path of several GPUs is reported once; lspci's error bits say which
 * correctable errors were flagged, not how many, and are never judged. */
static void aer_counters_at_the_dcgm_threshold(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 3);
    gd_pcie_facts *p = aer_paths(&f);
    gd_severity sev;
    int gpu;
    assert_int_equal(aer_run(&f, &sev, &gpu), 0);

    gd_pcie_hop *h = &p->gpus[1].hops[0];
    h->aer_cor = gd_val(479);
    assert_int_equal(aer_run(&f, &sev, &gpu), 0);
    h->aer_cor = gd_val(480);
    assert_int_equal(aer_run(&f, &sev, &gpu), 1);
    assert_int_equal(sev, GD_SEV_WARNING);
    assert_int_equal(gpu, 1);
    gd_findings fs;
    fx_run(&f, "pcie.aer_errors", &fs);
    assert_true(json_integer_value(json_object_get(fs.v[0].evidence, "correctable")) == 480);
    assert_non_null(strstr(fs.v[0].title, "480 correctable"));
    gd_findings_free(&fs);
    h->aer_cor = gd_val(0);

    h->aer_nonfatal = gd_val(1);
    assert_int_equal(aer_run(&f, &sev, &gpu), 1);
    assert_int_equal(sev, GD_SEV_WARNING);
    h->aer_fatal = gd_val(1);
    assert_int_equal(aer_run(&f, &sev, &gpu), 1);
    assert_int_equal(sev, GD_SEV_CRITICAL);
    h->aer_nonfatal = h->aer_fatal = gd_val(0);

    p->gpus[0].hops[2].aer_fatal = gd_val(2); /* the shared upstream port */
    p->gpus[1].hops[2].aer_fatal = gd_val(2);
    assert_int_equal(aer_run(&f, &sev, &gpu), 1);
    assert_int_equal(sev, GD_SEV_CRITICAL);
    p->gpus[0].hops[2].aer_fatal = p->gpus[1].hops[2].aer_fatal = gd_val(0);

    h->aer_bits = true; /* lspci: CESta bits, however many */
    h->aer_cor = gd_val(480);
    assert_int_equal(aer_run(&f, &sev, &gpu), 0);
    h->aer_nonfatal = gd_val(1); /* a UESta bit */
    assert_int_equal(aer_run(&f, &sev, &gpu), 1);
    assert_int_equal(sev, GD_SEV_WARNING);
    gd_facts_free(&f);
}

/* A device with both counters and kernel-log messages gives one finding,
 * the counters' (with the messages as evidence); 479 logged correctable
 * errors beside counters below the threshold stay context (info). */
static void aer_counters_take_the_kernel_log_messages(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 3);
    gd_pcie_facts *p = aer_paths(&f);
    f.stack = calloc(1, sizeof *f.stack);
    f.stack->kernel_log_read = true;
    snprintf(f.stack->kernel_log_source, sizeof f.stack->kernel_log_source, "dmesg.txt");
    add_aer(f.stack, GD_AER_CORRECTED, "0000:18:00.0", 479);
    gd_severity sev;
    int gpu;
    assert_int_equal(aer_run(&f, &sev, &gpu), 1);
    assert_int_equal(sev, GD_SEV_INFO);
    p->gpus[0].hops[0].aer_cor = gd_val(480);
    gd_findings fs;
    fx_run(&f, "pcie.aer_errors", &fs);
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    json_t *log = json_object_get(fs.v[0].evidence, "kernel_log_messages");
    assert_true(json_integer_value(json_object_get(log, "corrected")) == 479);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Runs topology.iommu_p2p: the number of findings (and the one's evidence checked). */
static size_t iommu_run(const gd_facts *f, const char *type, size_t gpus, size_t pairs)
{
    gd_findings fs;
    fx_run(f, "topology.iommu_p2p", &fs);
    size_t n = fs.n;
    if (n == 1) {
        const gd_finding *x = &fs.v[0];
        assert_string_equal(x->id, "topology.iommu_p2p");
        assert_int_equal(x->severity, GD_SEV_WARNING);
        assert_int_equal(x->gpu, GD_NO_GPU);
        assert_string_equal(json_string_value(json_object_get(x->evidence, "iommu_group_type")), type);
        assert_int_equal(json_array_size(json_object_get(x->evidence, "gpus")), gpus);
        assert_true(json_integer_value(json_object_get(x->evidence, "gpu_pairs_over_pcie")) == (json_int_t)pairs);
    }
    gd_findings_free(&fs);
    return n;
}

static void iommu_types(gd_pcie_facts *p, const char *const *types)
{
    for (size_t g = 0; g < p->gpu_count; g++)
        snprintf(p->gpus[g].iommu_type, sizeof p->gpus[g].iommu_type, "%s", types[g]);
}

/* IOMMU translation (DMA, DMA-FQ) on two or more GPUs that talk over PCIe
 * warns; identity (passthrough), unknown, one translated GPU, GPUs that
 * all talk over NVLink, or no topology stay quiet. */
static void iommu_translation_on_pcie_peers(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 3, 3);
    gd_pcie_facts *p = aer_paths(&f);
    assert_int_equal(iommu_run(&f, "", 0, 0), 0); /* type unknown */
    iommu_types(p, (const char *const[]){"identity", "identity", "identity"});
    assert_int_equal(iommu_run(&f, "", 0, 0), 0);
    iommu_types(p, (const char *const[]){"DMA", "DMA", "DMA"});
    assert_int_equal(iommu_run(&f, "DMA", 3, 3), 1);
    iommu_types(p, (const char *const[]){"DMA-FQ", "identity", "DMA-FQ"});
    assert_int_equal(iommu_run(&f, "DMA-FQ", 2, 3), 1);
    iommu_types(p, (const char *const[]){"DMA", "identity", "identity"});
    assert_int_equal(iommu_run(&f, "", 0, 0), 0);

    iommu_types(p, (const char *const[]){"DMA", "DMA", "DMA"});
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 3; b++)
            p->matrix[a * 3 + b].nvlinks = a == b ? 0 : 18;
    assert_int_equal(iommu_run(&f, "", 0, 0), 0); /* every pair over NVLink */
    p->matrix[0 * 3 + 2].nvlinks = p->matrix[2 * 3 + 0].nvlinks = 0;
    assert_int_equal(iommu_run(&f, "DMA", 3, 1), 1); /* GPUs 0 and 2 over PCIe */

    free(p->matrix);
    p->matrix = NULL;
    assert_int_equal(iommu_run(&f, "", 0, 0), 0); /* no topology */
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(speed_strings_of_old_and_new_kernels),
        cmocka_unit_test(bus_ids_and_cpulists),
        cmocka_unit_test(topology_levels_from_paths),
        cmocka_unit_test(replay_rate_follows_dcgm),
        cmocka_unit_test(replay_allowance_from_the_loaded_link),
        cmocka_unit_test(downgrade_only_judged_under_load),
        cmocka_unit_test(slot_limit_is_static_and_not_a_downgrade),
        cmocka_unit_test(maxima_from_the_pcie_tree),
        cmocka_unit_test(nvlink_down_needs_nvlink_somewhere),
        cmocka_unit_test(aer_messages_of_the_kernel_log),
        cmocka_unit_test(aer_counters_at_the_dcgm_threshold),
        cmocka_unit_test(aer_counters_take_the_kernel_log_messages),
        cmocka_unit_test(iommu_translation_on_pcie_peers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
