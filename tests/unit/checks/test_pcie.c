/* SPDX-License-Identifier: Apache-2.0 */
/* pcie.link_downgraded, pcie.width_reduced, pcie.slot_limited and pcie.upstream_downgraded
 * (src/checks/pcie.c): each GPU's link, its slot, and the links above it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "core/pcie_util.h"
#include "gpudoctor/pcie.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* n GPUs, 10 samples, each link at Gen`gen` x16 of Gen`gen_max` x16. */
static void links(gd_facts *f, size_t n, int gen_max, int gen)
{
    fx_facts(f, n, 10);
    for (size_t g = 0; g < n; g++) {
        f->gpus[g].pcie_gen_max = gd_val(gen_max);
        f->gpus[g].pcie_width_max = gd_val(16);
        fx_set(f, g, GD_M_PCIE_GEN, 0, 10, gen);
        fx_set(f, g, GD_M_PCIE_WIDTH, 0, 10, 16);
    }
}

static void downgrade_only_judged_under_load(void **state)
{
    (void)state;
    gd_facts f;
    links(&f, 2, 5, 5);
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

/* Two GPUs behind one switch whose uplink (its upstream port 0000:17:00.0
 * and the root port 0000:16:01.0 above) can train to Gen`gen_max` x`width_max`
 * and runs at Gen`gen` x`width`. */
static gd_pcie_facts *switch_uplink(gd_facts *f, int gen_max, int width_max, int gen, int width)
{
    fx_facts(f, 2, 10);
    gd_pcie_facts *p = fx_pcie_switch_tree(f);
    snprintf(p->source, sizeof p->source, "sysfs:/sys");
    for (size_t g = 0; g < 2; g++)
        for (size_t k = 2; k < 4; k++) {
            gd_pcie_hop *h = &p->gpus[g].hops[k];
            h->gen_max = gd_val(gen_max);
            h->width_max = gd_val(width_max);
            h->gen = gd_val(gen);
            h->width = gd_val(width);
        }
    return p;
}

/* An uplink at half its lanes caps every GPU behind it: one finding per GPU. */
static void upstream_downgraded_names_each_gpu_behind_the_link(void **state)
{
    (void)state;
    gd_facts f;
    switch_uplink(&f, 4, 16, 4, 8);
    gd_findings fs = fx_run_one(&f, "pcie.upstream_downgraded");
    assert_int_equal(fs.n, 2);
    for (int g = 0; g < 2; g++) {
        const gd_finding *x = &fs.v[g];
        char title[160];
        snprintf(title, sizeof title, "PCIe link above GPU %d (bridge 0000:17:00.0) at Gen4 x8, below its Gen4 x16", g);
        assert_int_equal(x->gpu, g);
        assert_int_equal(x->severity, GD_SEV_CRITICAL); /* half the link: at the critical fraction */
        assert_string_equal(x->title, title);
        assert_string_equal(json_string_value(json_object_get(x->evidence, "port_above")), "0000:16:01.0");
        assert_float_equal(json_number_value(json_object_get(x->evidence, "link_gbps")), 15.75, 1e-9);
        assert_float_equal(json_number_value(json_object_get(x->evidence, "link_max_gbps")), 31.51, 1e-9);
        assert_string_equal(json_string_value(json_object_get(x->evidence, "source")), "sysfs:/sys");
    }
    assert_non_null(strstr(fs.v[0].fix, "Every GPU behind 0000:17:00.0 shares this link"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    /* Gen2 of Gen3 (8b/10b against 128b/130b): just over half, a warning. */
    switch_uplink(&f, 3, 16, 2, 16);
    fs = fx_run_one(&f, "pcie.upstream_downgraded");
    assert_int_equal(fx_count(&fs, "pcie.upstream_downgraded", 0), 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* A slower generation on an idle GPU is power saving: said, not judged. */
static void upstream_downgraded_idle_generation_is_not_judged(void **state)
{
    (void)state;
    gd_facts f;
    switch_uplink(&f, 4, 16, 1, 16);
    fx_set(&f, 1, GD_M_UTIL_GPU_PCT, 0, 10, 0);
    gd_findings fs = fx_run_one(&f, "pcie.upstream_downgraded");
    assert_int_equal(fx_count(&fs, "pcie.upstream_downgraded", 0), 1);
    assert_int_equal(fs.n, 1);
    assert_true(fx_skipped(&fs, "pcie.upstream_downgraded", 1,
                           "the link 0000:17:00.0-0000:16:01.0 runs at Gen1 of Gen4 while GPU 1 is idle"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void upstream_downgraded_quiet_at_full_speed_or_unknown(void **state)
{
    (void)state;
    gd_facts f;
    switch_uplink(&f, 4, 16, 4, 16);
    fx_assert_silent(&f, "pcie.upstream_downgraded");
    gd_facts_free(&f);
    fx_facts(&f, 2, 10); /* no speeds read for the switch links */
    fx_pcie_switch_tree(&f);
    fx_assert_silent(&f, "pcie.upstream_downgraded");
    gd_facts_free(&f);
}

static void upstream_downgraded_not_checked_without_the_tree(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 10);
    gd_findings fs = fx_run_one(&f, "pcie.upstream_downgraded");
    assert_true(fx_skipped(&fs, "pcie.upstream_downgraded", GD_NO_GPU, "the PCIe tree is not known"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    gd_pcie_facts *p = switch_uplink(&f, 4, 16, 4, 8);
    p->gpus[1].hop_count = 0; /* GPU 1 not found in the tree */
    fs = fx_run_one(&f, "pcie.upstream_downgraded");
    assert_int_equal(fx_count(&fs, "pcie.upstream_downgraded", 0), 1);
    assert_true(fx_skipped(&fs, "pcie.upstream_downgraded", 1, "0000:19:00.0 is not in the sysfs tree"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* An idle link narrower than its maximum: info, since idle links slow down
 * but seldom narrow; judged only where pcie.link_downgraded could not. */
static void idle_narrow_link_is_said(void **state)
{
    (void)state;
    gd_facts f;
    links(&f, 3, 4, 1); /* idle power saving: Gen1 is not a finding */
    for (size_t g = 0; g < 3; g++)
        fx_set(&f, g, GD_M_UTIL_GPU_PCT, 0, 10, 0);
    fx_set(&f, 1, GD_M_PCIE_WIDTH, 0, 10, 8);
    fx_set(&f, 2, GD_M_PCIE_WIDTH, 0, 5, 8); /* back to x16 at rest: the width moves, not judged */
    gd_findings fs = fx_run_one(&f, "pcie.width_reduced");
    assert_int_equal(fs.n, 1);
    const gd_finding *x = fx_only(&fs, "pcie.width_reduced");
    assert_int_equal(x->gpu, 1);
    assert_int_equal(x->severity, GD_SEV_INFO);
    assert_non_null(strstr(x->title, "x8 of x16"));
    assert_non_null(strstr(x->fix, "reseat"));
    assert_string_equal(json_string_value(json_object_get(x->evidence, "load")), "idle");
    assert_int_equal(json_integer_value(json_object_get(x->evidence, "pcie_width_max")), 16);
    gd_findings_free(&fs);
    /* Loaded: pcie.link_downgraded judges it (a warning or worse), not this. */
    fx_set(&f, 1, GD_M_UTIL_GPU_PCT, 0, 10, 98);
    want_run(&f, "pcie.width_reduced", 0, 0);
    /* Load unknown (an lspci capture): said, as such. */
    fx_unset(&f, 1, GD_M_UTIL_GPU_PCT, GD_ST_NOT_SUPPORTED);
    fx_unset(&f, 1, GD_M_POWER_W, GD_ST_NOT_SUPPORTED);
    fx_unset(&f, 1, GD_M_SM_CLOCK_MHZ, GD_ST_NOT_SUPPORTED);
    fs = fx_run_one(&f, "pcie.width_reduced");
    assert_string_equal(json_string_value(json_object_get(fx_only(&fs, "pcie.width_reduced")->evidence, "load")),
                        "unknown");
    gd_findings_free(&fs);
    /* A slot wired x8 (its LnkCap): x8 is the link's maximum, nothing to say here. */
    f.gpus[1].pcie_width_max = gd_val(8);
    want_run(&f, "pcie.width_reduced", 0, 0);
    /* Grace Hopper over NVLink-C2C: its PCIe link is not the host path. */
    f.gpus[1].pcie_width_max = gd_val(16);
    f.gpus[1].c2c_mode = gd_val(1);
    want_run(&f, "pcie.width_reduced", 0, 1);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(downgrade_only_judged_under_load),
        cmocka_unit_test(idle_narrow_link_is_said),
        cmocka_unit_test(slot_limit_is_static_and_not_a_downgrade),
        cmocka_unit_test(maxima_from_the_pcie_tree),
        cmocka_unit_test(upstream_downgraded_names_each_gpu_behind_the_link),
        cmocka_unit_test(upstream_downgraded_idle_generation_is_not_judged),
        cmocka_unit_test(upstream_downgraded_quiet_at_full_speed_or_unknown),
        cmocka_unit_test(upstream_downgraded_not_checked_without_the_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
