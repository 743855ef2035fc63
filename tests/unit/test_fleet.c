/* SPDX-License-Identifier: Apache-2.0 */
/* The fleet's rules on made-up nodes: identical GPUs (MAD 0) flag only a real
 * gap, small groups are not compared, models are never mixed, unknown
 * figures are left out, a slow GPU is not also "power low". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/fleet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gd_fleet make(size_t nodes, size_t gpus, const char *model)
{
    gd_fleet f = {nodes, calloc(nodes, sizeof(gd_fleet_node))};
    for (size_t n = 0; n < nodes; n++) {
        snprintf(f.nodes[n].name, sizeof f.nodes[n].name, "n%zu", n);
        f.nodes[n].ngpus = gpus;
        f.nodes[n].gpus = calloc(gpus, sizeof(gd_fleet_gpu));
        f.nodes[n].findings = calloc(4, sizeof(gd_fleet_finding));
        for (size_t g = 0; g < gpus; g++)
            f.nodes[n].gpus[g] = (gd_fleet_gpu){(int)g, "", "", 100, 1980, 60, 600};
        for (size_t g = 0; g < gpus; g++)
            snprintf(f.nodes[n].gpus[g].model, sizeof f.nodes[n].gpus[g].model, "%s", model);
    }
    return f;
}

static size_t count(const gd_fleet_result *r, const char *id)
{
    size_t c = 0;
    for (size_t i = 0; i < r->findings.n; i++)
        c += strcmp(r->findings.v[i].id, id) == 0;
    return c;
}

static void identical_gpus_flag_only_a_real_gap(void **state)
{
    (void)state;
    gd_fleet f = make(4, 8, "H100");
    gd_fleet_result r;
    assert_int_equal(gd_fleet_analyze(&f, &r), 0);
    assert_int_equal(r.findings.n, 0); /* MAD 0, nothing apart */
    gd_fleet_result_free(&r);
    f.nodes[2].gpus[5].sm_clock_mhz = 1950; /* 1.5 % lower: beyond 3 MADs of 0, but no gap that matters */
    f.nodes[1].gpus[0].temp_c = 66; /* 6 C: under the 8 C margin */
    assert_int_equal(gd_fleet_analyze(&f, &r), 0);
    assert_int_equal(r.findings.n, 0);
    gd_fleet_result_free(&r);
    f.nodes[2].gpus[5].sm_clock_mhz = 1700;
    f.nodes[2].gpus[5].power_w = 420; /* the same slow GPU draws less: said once, as its clock */
    f.nodes[3].gpus[7].temp_c = 75;
    assert_int_equal(gd_fleet_analyze(&f, &r), 0);
    assert_int_equal(count(&r, "fleet.clocks_low"), 1);
    assert_int_equal(count(&r, "fleet.hot"), 1);
    assert_int_equal(count(&r, "fleet.power_low"), 0);
    assert_float_equal(r.findings.v[0].impact_pct, 14.1, 0.05); /* 1700 of 1980 MHz */
    gd_fleet_result_free(&r);
    f.nodes[0].gpus[1].power_w = 400; /* less power at full clocks: its own finding */
    assert_int_equal(gd_fleet_analyze(&f, &r), 0);
    assert_int_equal(count(&r, "fleet.power_low"), 1);
    gd_fleet_result_free(&r);
    gd_fleet_free(&f);
}

static void small_groups_and_unknowns(void **state)
{
    (void)state;
    gd_fleet f = make(1, 8, "A100"); /* one node: its GPUs against each other would be gpu-fryer's rule, not ours */
    f.nodes[0].gpus[0].sm_clock_mhz = 1000;
    gd_fleet_result r;
    assert_int_equal(gd_fleet_analyze(&f, &r), 0);
    assert_int_equal(r.findings.n, 0);
    assert_int_equal(r.findings.nskips, 1);
    assert_false(r.groups[0].compared);
    gd_fleet_result_free(&r);
    gd_fleet_free(&f);
    f = make(6, 2, "L40S");
    for (size_t n = 0; n < 6; n++) /* never loaded: no medians */
        for (size_t g = 0; g < 2; g++)
            f.nodes[n].gpus[g].sm_clock_mhz = f.nodes[n].gpus[g].temp_c = f.nodes[n].gpus[g].power_w = NAN;
    f.nodes[4].gpus[1].sm_clock_mhz = 900; /* one known figure alone is no group */
    assert_int_equal(gd_fleet_analyze(&f, &r), 0);
    assert_int_equal(r.findings.n, 0);
    assert_true(isnan(r.groups[0].median[0]));
    gd_fleet_result_free(&r);
    gd_fleet_free(&f);
}

static void models_are_not_mixed_and_shared_findings_are_fleet_wide(void **state)
{
    (void)state;
    gd_fleet f = make(6, 4, "H100");
    for (size_t g = 0; g < 4; g++) { /* node 5 holds A100s: slower by design, not an outlier */
        snprintf(f.nodes[5].gpus[g].model, sizeof f.nodes[5].gpus[g].model, "A100");
        f.nodes[5].gpus[g].sm_clock_mhz = 1410;
    }
    for (size_t n = 0; n < 3; n++) { /* 3 of 6 nodes: half, and 3 at least */
        f.nodes[n].nfindings = 2;
        f.nodes[n].findings[0] = (gd_fleet_finding){"cuda.driver_too_old", GD_SEV_CRITICAL, GD_NO_GPU};
        f.nodes[n].findings[1] = (gd_fleet_finding){"cuda.driver_too_old", GD_SEV_CRITICAL, GD_NO_GPU};
    }
    f.nodes[4].nfindings = 1;
    f.nodes[4].findings[0] = (gd_fleet_finding){"thermal.hot", GD_SEV_WARNING, 2};
    gd_fleet_result r;
    assert_int_equal(gd_fleet_analyze(&f, &r), 0);
    assert_int_equal(r.ngroups, 2);
    assert_int_equal(count(&r, "fleet.clocks_low"), 0);
    assert_int_equal(count(&r, "fleet.common_finding"), 1);
    assert_int_equal(r.findings.v[0].severity, GD_SEV_CRITICAL);
    assert_int_equal(json_integer_value(json_object_get(r.findings.v[0].evidence, "nodes")), 3);
    gd_fleet_result_free(&r);
    gd_fleet_free(&f);
}

/* A node is judged only where one of its GPUs met a median of GPUs under
 * load on two nodes at least; --exit-findings counts the nodes' own
 * findings and is 3 when nothing was found but a node was not judged. */
static void unjudged_nodes_and_their_own_findings_count(void **state)
{
    (void)state;
    gd_fleet f = make(4, 8, "H100");
    gd_fleet_result r;
    assert_int_equal(gd_fleet_analyze(&f, &r), 0);
    for (size_t n = 0; n < 4; n++)
        assert_true(r.nodes[n].judged);
    assert_int_equal(gd_fleet_exit_code(&f, &r), 0);
    gd_fleet_result_free(&r);
    for (size_t n = 1; n < 4; n++) /* only node 0 under load: a median of one node's GPUs holds nobody */
        for (size_t g = 0; g < 8; g++)
            f.nodes[n].gpus[g].sm_clock_mhz = f.nodes[n].gpus[g].temp_c = f.nodes[n].gpus[g].power_w = NAN;
    assert_int_equal(gd_fleet_analyze(&f, &r), 0);
    assert_false(r.groups[0].compared);
    assert_false(r.nodes[0].judged);
    assert_string_equal(r.nodes[0].why, "too few GPUs of its model to compare");
    assert_string_equal(r.nodes[1].why, "no GPU under load in its window");
    assert_int_equal(gd_fleet_exit_code(&f, &r), 3);
    gd_fleet_result_free(&r);
    f.nodes[2].nfindings = 1; /* a node's own critical finding: 2, whatever was compared */
    f.nodes[2].findings[0] = (gd_fleet_finding){"power.brake", GD_SEV_CRITICAL, 0};
    assert_int_equal(gd_fleet_analyze(&f, &r), 0);
    assert_int_equal(gd_fleet_exit_code(&f, &r), 2);
    gd_fleet_result_free(&r);
    f.nodes[2].findings[0].severity = GD_SEV_WARNING;
    assert_int_equal(gd_fleet_analyze(&f, &r), 0);
    assert_int_equal(gd_fleet_exit_code(&f, &r), 1);
    gd_fleet_result_free(&r);
    gd_fleet_free(&f);
}

/* Groups come in the order their models were first seen, whatever their
 * names' order, each GPU held to its own model's group (found by sorting:
 * a fleet of as many models as GPUs is not each model against every GPU). */
static void groups_in_the_order_seen_and_many_models(void **state)
{
    (void)state;
    gd_fleet f = make(4, 4, "NVIDIA H100");
    for (size_t n = 0; n < 4; n++) /* GPU 0 of each node an A100: seen before the H100s */
        snprintf(f.nodes[n].gpus[0].model, sizeof f.nodes[n].gpus[0].model, "A100");
    snprintf(f.nodes[3].gpus[3].model, sizeof f.nodes[3].gpus[3].model, "L4"); /* alone: not compared */
    f.nodes[2].gpus[2].sm_clock_mhz = 1500;
    gd_fleet_result r;
    assert_int_equal(gd_fleet_analyze(&f, &r), 0);
    assert_int_equal(r.ngroups, 3);
    assert_string_equal(r.groups[0].model, "A100");
    assert_string_equal(r.groups[1].model, "NVIDIA H100");
    assert_string_equal(r.groups[2].model, "L4");
    assert_int_equal(r.groups[0].gpus, 4);
    assert_int_equal(r.groups[0].nodes, 4);
    assert_int_equal(r.groups[1].gpus, 11);
    assert_int_equal(r.groups[1].nodes, 4);
    assert_int_equal(r.groups[2].gpus, 1);
    assert_false(r.groups[2].compared);
    assert_int_equal(count(&r, "fleet.clocks_low"), 1);
    assert_string_equal(json_string_value(json_object_get(r.findings.v[0].evidence, "node")), "n2");
    assert_int_equal(r.findings.v[0].gpu, 2);
    for (size_t n = 0; n < 4; n++)
        assert_true(r.nodes[n].judged);
    gd_fleet_result_free(&r);
    gd_fleet_free(&f);
    /* 3000 nodes of one GPU each, every one its own model: 3000 groups, none compared, none judged. */
    f = make(3000, 1, "");
    for (size_t n = 0; n < 3000; n++)
        snprintf(f.nodes[n].gpus[0].model, sizeof f.nodes[n].gpus[0].model, "model-%04zu", 2999 - n);
    assert_int_equal(gd_fleet_analyze(&f, &r), 0);
    assert_int_equal(r.ngroups, 3000);
    assert_string_equal(r.groups[0].model, "model-2999");
    assert_string_equal(r.groups[2999].model, "model-0000");
    assert_int_equal(r.findings.nskips, 3000);
    assert_false(r.nodes[1234].judged);
    assert_string_equal(r.nodes[1234].why, "too few GPUs of its model to compare");
    gd_fleet_result_free(&r);
    gd_fleet_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identical_gpus_flag_only_a_real_gap),
        cmocka_unit_test(small_groups_and_unknowns),
        cmocka_unit_test(models_are_not_mixed_and_shared_findings_are_fleet_wide),
        cmocka_unit_test(unjudged_nodes_and_their_own_findings_count),
        cmocka_unit_test(groups_in_the_order_seen_and_many_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
