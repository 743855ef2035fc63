/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Causes, not GPU x id pairs (checks/causes.c): one power brake on 8 GPUs
 * is one cause; a single-threaded DataLoader and the 8 GPUs it leaves idle
 * are one cause with 8 symptoms; a slow switch uplink measured three ways is
 * one cause; different fixes are different causes; a symptom without its
 * cause stands alone; ignored findings are in no cause; the tables name
 * only known ids and have no cycle; docs/checks.md holds the symptom table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/causes.h"
#include "checks/trace_checks.h"
#include "facts_fixture.h"
#include "gpudoctor/checks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gd_finding *add(gd_findings *fs, const char *id, gd_severity sev, int gpu, double impact, const char *fix)
{
    json_t *ev = json_object();
    json_object_set_new(ev, "source", json_string("test"));
    return gd_finding_add(fs, id, sev, gpu, ev, impact, fix, "%s seen", id);
}

static void group(gd_findings *fs, gd_grouped_causes *c)
{
    gd_findings_sort(fs);
    assert_int_equal(gd_group_causes(fs, c), 0);
}

/* Every finding that counts is in exactly one cause. */
static void each_once(const gd_findings *fs, const gd_grouped_causes *c)
{
    for (size_t i = 0; i < fs->n; i++) {
        size_t seen = 0;
        for (size_t k = 0; k < c->n; k++) {
            for (size_t m = 0; m < c->v[k].nmembers; m++)
                seen += c->v[k].members[m] == i;
            for (size_t m = 0; m < c->v[k].nsymptoms; m++)
                seen += c->v[k].symptoms[m] == i;
        }
        assert_int_equal(seen, fs->v[i].ignored ? 0 : 1);
    }
}

/* Groups fs into c, each finding once, n causes. */
static void grouped(gd_findings *fs, gd_grouped_causes *c, size_t n)
{
    group(fs, c);
    each_once(fs, c);
    assert_int_equal(c->n, n);
}

static void one_brake_on_eight_gpus_is_one_cause(void **state)
{
    (void)state;
    gd_findings fs = {0};
    for (int g = 0; g < 8; g++) {
        char fix[128];
        snprintf(fix, sizeof fix, "Check the chassis power signal; 'nvidia-smi -q -d PERFORMANCE -i %d'", g);
        add(&fs, "power.brake", GD_SEV_WARNING, g, 10 + g, fix);
    }
    gd_grouped_causes c;
    grouped(&fs, &c, 1);
    assert_int_equal(c.v[0].nmembers, 8);
    assert_int_equal(c.v[0].severity, GD_SEV_WARNING);
    assert_true(fabs(c.v[0].impact_pct - 17) < 1e-9);
    int gpus[16];
    bool host;
    assert_int_equal(gd_grouped_cause_gpus(&fs, &c.v[0], gpus, 16, &host), 8);
    assert_false(host);
    assert_int_equal(gpus[0], 0);
    assert_int_equal(gpus[7], 7);
    gd_grouped_causes_free(&c);
    gd_findings_free(&fs);
}

static void idle_gpus_are_the_loaders_symptoms(void **state)
{
    (void)state;
    gd_findings fs = {0};
    for (int g = 0; g < 8; g++)
        add(&fs, "gpu.underutilized", GD_SEV_WARNING, g, NAN, "find out which");
    add(&fs, "input.single_thread", GD_SEV_WARNING, GD_NO_GPU, NAN, "more DataLoader workers");
    add(&fs, "input.few_workers", GD_SEV_WARNING, GD_NO_GPU, NAN, "num_workers");
    gd_grouped_causes c;
    grouped(&fs, &c, 1); /* two ids of one loader, eight idle GPUs: one cause */
    assert_int_equal(c.v[0].nmembers, 2);
    assert_int_equal(c.v[0].nsymptoms, 8);
    assert_memory_equal(fs.v[c.v[0].members[0]].id, "input.", 6);
    assert_memory_equal(fs.v[c.v[0].members[1]].id, "input.", 6);
    assert_string_equal(fs.v[c.v[0].symptoms[0]].id, "gpu.underutilized");
    int gpus[16];
    bool host;
    assert_int_equal(gd_grouped_cause_gpus(&fs, &c.v[0], gpus, 16, &host), 8);
    assert_true(host);
    assert_int_equal(gd_grouped_causes_count(&c, GD_SEV_WARNING), 1);
    gd_grouped_causes_free(&c);
    gd_findings_free(&fs);
}

/* bench all on one slow switch uplink: the pairs through it, the host
 * links behind it and NCCL's ring are one cause, the located hop first. */
static void one_slow_uplink_measured_three_ways(void **state)
{
    (void)state;
    gd_findings fs = {0};
    add(&fs, "bench.nccl_low", GD_SEV_CRITICAL, GD_NO_GPU, 79, "the ring's slowest edge");
    gd_finding *p = add(&fs, "p2p.slow_pair", GD_SEV_CRITICAL, GD_NO_GPU, 75, "the hop 0000:38:00.0");
    json_t *pairs = json_array();
    json_array_append_new(pairs, json_pack("{s:i,s:i}", "from", 0, "to", 2));
    json_array_append_new(pairs, json_pack("{s:i,s:i}", "from", 1, "to", 3));
    json_object_set_new(p->evidence, "pairs", pairs);
    add(&fs, "pcie.bandwidth_low", GD_SEV_CRITICAL, 2, 80, "Healthy links reach ... GPU 2");
    add(&fs, "pcie.bandwidth_low", GD_SEV_CRITICAL, 3, 80, "Healthy links reach ... GPU 3");
    gd_grouped_causes c;
    grouped(&fs, &c, 1);
    assert_int_equal(c.v[0].nmembers, 1);
    assert_string_equal(fs.v[c.v[0].members[0]].id, "p2p.slow_pair");
    assert_int_equal(c.v[0].nsymptoms, 3);
    assert_int_equal(c.v[0].severity, GD_SEV_CRITICAL);
    assert_true(fabs(c.v[0].impact_pct - 80) < 1e-9);
    int gpus[16];
    assert_int_equal(gd_grouped_cause_gpus(&fs, &c.v[0], gpus, 16, NULL), 4);
    gd_grouped_causes_free(&c);
    gd_findings_free(&fs);
}

/* Two Xids whose fixes differ are two problems; a severity apart is another. */
static void different_fixes_are_different_causes(void **state)
{
    (void)state;
    gd_findings fs = {0};
    add(&fs, "health.xid", GD_SEV_CRITICAL, 3, NAN, "Xid 79: GPU 3 fell off the bus: reseat it");
    add(&fs, "health.xid", GD_SEV_CRITICAL, 4, NAN, "Xid 48: GPU 4 has a double-bit error: reset it");
    add(&fs, "health.xid", GD_SEV_INFO, 1, NAN, "Xid 13: an application fault");
    add(&fs, "health.xid", GD_SEV_CRITICAL, 5, NAN, "Xid 79: GPU 5 fell off the bus: reseat it");
    gd_grouped_causes c;
    grouped(&fs, &c, 3);
    assert_int_equal(c.v[0].nmembers, 2); /* GPU 3 and 5: one fix */
    assert_int_equal(c.v[1].nmembers, 1);
    assert_int_equal(c.v[2].severity, GD_SEV_INFO);
    assert_int_equal(gd_grouped_causes_count(&c, GD_SEV_CRITICAL), 2);
    int gpus[16];
    assert_int_equal(gd_grouped_causes_gpus(&fs, &c, GD_SEV_WARNING, gpus, 16, NULL), 3);
    gd_grouped_causes_free(&c);
    gd_findings_free(&fs);
}

/* Same GPU or nothing: a hotter GPU 5 is not GPU 2's throttling; GPU 2's is. */
static void same_gpu_scope(void **state)
{
    (void)state;
    gd_findings fs = {0};
    add(&fs, "thermal.throttling", GD_SEV_CRITICAL, 2, 30, "cooling of GPU 2");
    add(&fs, "thermal.outlier", GD_SEV_WARNING, 5, NAN, "cooling of GPU 5");
    add(&fs, "thermal.outlier", GD_SEV_WARNING, 2, NAN, "cooling of GPU 2");
    gd_grouped_causes c;
    grouped(&fs, &c, 2);
    assert_int_equal(c.v[0].nsymptoms, 1);
    assert_int_equal(fs.v[c.v[0].symptoms[0]].gpu, 2);
    assert_int_equal(c.v[1].nmembers, 1);
    assert_int_equal(fs.v[c.v[1].members[0]].gpu, 5);
    gd_grouped_causes_free(&c);
    gd_findings_free(&fs);
}

/* An ignored cause explains nothing: its symptoms stand as their own cause,
 * ranked by what they are; a critical symptom makes its cause critical. */
static void ignored_and_worst_symptom(void **state)
{
    (void)state;
    gd_findings fs = {0};
    add(&fs, "input.io_wait", GD_SEV_WARNING, GD_NO_GPU, NAN, "faster storage");
    add(&fs, "gpu.underutilized", GD_SEV_WARNING, 0, NAN, "find out which");
    add(&fs, "thermal.hot", GD_SEV_WARNING, 1, NAN, "airflow");
    gd_findings_sort(&fs);
    gd_policy p = {.nignore = 1};
    snprintf(p.ignore[0].id, sizeof p.ignore[0].id, "input.io_wait");
    p.ignore[0].gpu = GD_NO_GPU;
    gd_findings_apply_policy(&fs, &p);
    gd_grouped_causes c;
    assert_int_equal(gd_group_causes(&fs, &c), 0);
    each_once(&fs, &c);
    assert_int_equal(c.n, 2);
    for (size_t k = 0; k < c.n; k++)
        assert_int_equal(c.v[k].nsymptoms, 0);
    gd_grouped_causes_free(&c);
    gd_findings_free(&fs);

    memset(&fs, 0, sizeof fs);
    add(&fs, "thermal.hot", GD_SEV_WARNING, 1, 5, "airflow");
    add(&fs, "input.cpu_starved", GD_SEV_WARNING, GD_NO_GPU, NAN, "more CPUs");
    add(&fs, "gpu.underutilized", GD_SEV_CRITICAL, 0, 40, "find out which");
    group(&fs, &c);
    assert_int_equal(c.n, 2);
    assert_string_equal(fs.v[c.v[0].members[0]].id, "input.cpu_starved");
    assert_int_equal(c.v[0].severity, GD_SEV_CRITICAL);
    gd_grouped_causes_free(&c);
    gd_findings_free(&fs);
}

static void no_finding_no_cause(void **state)
{
    (void)state;
    gd_findings fs = {0};
    gd_grouped_causes c;
    assert_int_equal(gd_group_causes(&fs, &c), 0);
    assert_int_equal(c.n, 0);
    gd_grouped_causes_free(&c);
}

static bool known_id(const char *id)
{
    if (gd_check_find(id))
        return true;
    for (size_t i = 0; i < gd_trace_checks_count; i++)
        if (strcmp(gd_trace_checks[i].id, id) == 0)
            return true;
    return false;
}

static bool known_key(const char *name)
{
    static const char *const keys[] = {"dataloader", "io_wait", "host_reads", "host_sync", "small_kernels"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strcmp(keys[i], name) == 0)
            return true;
    return false;
}

/* Does a walk from symptom id reach it again? */
static bool cycles(const char *id, const char *from, int depth)
{
    const gd_symptom_rule *r = gd_symptom_rule_of(from);
    if (!r || depth > 32)
        return depth > 32;
    for (size_t c = 0; c < GD_SYMPTOM_MAX_CAUSES && r->causes[c]; c++)
        if (strcmp(r->causes[c], id) == 0 || cycles(id, r->causes[c], depth + 1))
            return true;
    return false;
}

static void tables_name_known_ids_without_cycles(void **state)
{
    (void)state;
    for (size_t i = 0; i < gd_symptom_rules_count; i++) {
        const gd_symptom_rule *r = &gd_symptom_rules[i];
        if (!known_id(r->id))
            fail_msg("symptom %s is no check id", r->id);
        assert_non_null(r->why);
        for (size_t c = 0; c < GD_SYMPTOM_MAX_CAUSES && r->causes[c]; c++)
            if (!known_id(r->causes[c]) && !known_key(r->causes[c]))
                fail_msg("cause %s of %s is no check id nor cause key", r->causes[c], r->id);
        if (cycles(r->id, r->id, 0))
            fail_msg("symptom %s is its own cause through the table", r->id);
    }
    assert_non_null(gd_cause_rule_of("input.single_thread"));
    assert_string_equal(gd_cause_rule_of("trace.dataloader")->key, "dataloader");
    assert_null(gd_cause_rule_of("thermal.hot"));
}

/* docs/checks.md's "Causes and symptoms" table: one row per symptom rule,
 * `| \`id\` | same GPU / anywhere | causes |`, in the table's order. */
static void docs_hold_the_symptom_table(void **state)
{
    (void)state;
    char *doc = fx_read_file(GD_DOCS_DIR "/checks.md");
    assert_non_null(doc);
    const char *at = strstr(doc, "## Causes and symptoms");
    if (!at)
        fail_msg("docs/checks.md has no '## Causes and symptoms' section");
    for (size_t i = 0; i < gd_symptom_rules_count; i++) {
        const gd_symptom_rule *r = &gd_symptom_rules[i];
        char head[128];
        snprintf(head, sizeof head, "\n| `%s` | %s |", r->id,
                 r->scope == GD_SYMPTOM_SAME_GPU ? "the same GPU" : "anywhere");
        const char *row = strstr(at, head);
        if (!row)
            fail_msg("docs/checks.md: no row '%s'", head + 1);
        const char *end = strchr(row + 1, '\n');
        for (size_t c = 0; c < GD_SYMPTOM_MAX_CAUSES && r->causes[c]; c++) {
            char name[64];
            snprintf(name, sizeof name, "`%s`", r->causes[c]);
            const char *hit = strstr(row, name);
            if (!hit || (end && hit > end))
                fail_msg("docs/checks.md: the row of %s does not name %s", r->id, name);
        }
        at = row + 1;
    }
    free(doc);
}

/* A rail NIC down and the GPU it served now far from any NIC: one cause,
 * the port; ACS on a switch explains a slow pair on its GPU. */
static void network_causes(void **state)
{
    (void)state;
    gd_findings fs = {0};
    add(&fs, "net.port_down", GD_SEV_CRITICAL, GD_NO_GPU, 12.5, "reseat mlx5_3");
    add(&fs, "net.gpu_nic_far", GD_SEV_WARNING, 3, NAN, "place a NIC beside GPU 3");
    add(&fs, "net.acs_enabled", GD_SEV_WARNING, 5, NAN, "turn ACS off");
    add(&fs, "p2p.slow_pair", GD_SEV_WARNING, 5, NAN, "look at the pair");
    gd_grouped_causes c;
    grouped(&fs, &c, 2);
    assert_string_equal(fs.v[c.v[0].members[0]].id, "net.port_down");
    assert_int_equal(c.v[0].nsymptoms, 1);
    assert_string_equal(fs.v[c.v[0].symptoms[0]].id, "net.gpu_nic_far");
    assert_string_equal(fs.v[c.v[1].members[0]].id, "net.acs_enabled");
    assert_string_equal(fs.v[c.v[1].symptoms[0]].id, "p2p.slow_pair");
    gd_grouped_causes_free(&c);
    gd_findings_free(&fs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_brake_on_eight_gpus_is_one_cause),
        cmocka_unit_test(idle_gpus_are_the_loaders_symptoms),
        cmocka_unit_test(one_slow_uplink_measured_three_ways),
        cmocka_unit_test(different_fixes_are_different_causes),
        cmocka_unit_test(same_gpu_scope),
        cmocka_unit_test(ignored_and_worst_symptom),
        cmocka_unit_test(no_finding_no_cause),
        cmocka_unit_test(tables_name_known_ids_without_cycles),
        cmocka_unit_test(docs_hold_the_symptom_table),
        cmocka_unit_test(network_causes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
