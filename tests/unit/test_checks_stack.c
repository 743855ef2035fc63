/* SPDX-License-Identifier: Apache-2.0 */
/* Configuration, memory health and Xid checks from literal facts: severity edges. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/abi/nvml_api.h"
#include "gpudoctor/stack.h"

#include <stdlib.h>
#include <string.h>

static gd_severity only_severity(const gd_findings *fs, const char *id)
{
    assert_int_equal(fx_count(fs, id, -2), 1);
    for (size_t i = 0; i < fs->n; i++)
        if (strcmp(fs->v[i].id, id) == 0)
            return fs->v[i].severity;
    return GD_SEV_INFO;
}

static void retired_pages_warn_from_15_fail_at_63(void **state)
{
    (void)state;
    static const struct {
        double sbe, dbe;
        int findings;
        gd_severity sev;
    } cases[] = {{10, 4, 0, 0}, {10, 5, 1, GD_SEV_WARNING}, {40, 22, 1, GD_SEV_WARNING}, {40, 23, 1, GD_SEV_CRITICAL}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gd_facts f;
        fx_facts(&f, 1, 2);
        f.gpus[0].retired_pages_sbe = gd_val(cases[c].sbe);
        f.gpus[0].retired_pages_dbe = gd_val(cases[c].dbe);
        gd_findings out;
        fx_run(&f, "health.row_remap", &out);
        assert_int_equal(fx_count(&out, "health.row_remap", 0), cases[c].findings);
        if (cases[c].findings)
            assert_int_equal(only_severity(&out, "health.row_remap"), cases[c].sev);
        gd_findings_free(&out);
        gd_facts_free(&f);
    }
}

static void pending_remap_is_critical_and_unreadable_is_skipped(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 2);
    f.gpus[0].remap_pending = gd_val(1);
    f.gpus[0].remap_failure = gd_val(0);
    f.gpus[0].remap_unc_rows = gd_val(3);
    gd_findings out;
    fx_run(&f, "health.row_remap", &out);
    assert_int_equal(only_severity(&out, "health.row_remap"), GD_SEV_CRITICAL);
    assert_int_equal(out.nskips, 1); /* GPU 1: nothing readable, said so */
    assert_int_equal(out.skips[0].gpu, 1);
    gd_findings_free(&out);
    gd_facts_free(&f);
}

static void ecc_volatile_is_critical_aggregate_a_warning(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 2);
    f.gpus[0].ecc_volatile_uncorrected = gd_val(1);
    f.gpus[0].ecc_aggregate_uncorrected = gd_val(1);
    f.gpus[1].ecc_volatile_uncorrected = gd_val(0);
    f.gpus[1].ecc_aggregate_uncorrected = gd_val(3);
    gd_findings out;
    fx_run(&f, "health.ecc_uncorrectable", &out);
    assert_int_equal(out.n, 2);
    assert_int_equal(out.v[0].severity, GD_SEV_CRITICAL);
    assert_int_equal(out.v[1].severity, GD_SEV_WARNING);
    gd_findings_free(&out);
    gd_facts_free(&f);
}

static void configuration_severities(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 4, 2);
    for (size_t g = 0; g < 4; g++) {
        f.gpus[g].persistence_mode = gd_val(g == 0 ? 0 : 1);
        f.gpus[g].compute_mode = gd_val(NVML_COMPUTEMODE_DEFAULT);
        f.gpus[g].mig_mode = gd_val(0);
    }
    f.gpus[1].compute_mode = gd_val(NVML_COMPUTEMODE_EXCLUSIVE_PROCESS);
    gd_findings out;
    fx_run(&f, "config.persistence_off", &out);
    assert_int_equal(only_severity(&out, "config.persistence_off"), GD_SEV_INFO);
    gd_findings_free(&out);
    fx_run(&f, "config.compute_mode", &out);
    assert_int_equal(only_severity(&out, "config.compute_mode"), GD_SEV_INFO);
    gd_findings_free(&out);
    f.gpus[1].compute_mode = gd_val(NVML_COMPUTEMODE_PROHIBITED);
    fx_run(&f, "config.compute_mode", &out);
    assert_int_equal(only_severity(&out, "config.compute_mode"), GD_SEV_CRITICAL);
    gd_findings_free(&out);
    fx_run(&f, "config.mig_enabled", &out);
    assert_int_equal(out.n, 0);
    gd_findings_free(&out);
    gd_facts_free(&f);
}

static void xids_map_to_gpus_by_bus_id(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 2); /* bus ids 18 and 19 */
    f.stack = calloc(1, sizeof *f.stack);
    f.stack->kernel_log_read = true;
    snprintf(f.stack->kernel_log_source, sizeof f.stack->kernel_log_source, "test");
    f.stack->xid_groups[0] = (gd_xid_group){.xid = 94, .gpu = 1, .pci = "0000:19:00", .count = 1, .example_count = 1};
    f.stack->xid_groups[1] = (gd_xid_group){.xid = 31, .gpu = 1, .pci = "0000:19:00", .count = 1, .example_count = 1};
    f.stack->xid_groups[2] =
        (gd_xid_group){.xid = 4242, .gpu = -1, .pci = "0000:99:00", .count = 1, .example_count = 1};
    f.stack->xid_group_count = 3;
    gd_findings out;
    fx_run(&f, "health.xid", &out);
    assert_int_equal(fx_count(&out, "health.xid", 1), 1);
    assert_int_equal(fx_count(&out, "health.xid", GD_NO_GPU), 1); /* a bus id no GPU has */
    assert_int_equal(out.v[0].severity, GD_SEV_WARNING); /* DCGM: 94 and 31 warn */
    gd_findings_free(&out);
    f.stack->kernel_log_read = false;
    snprintf(f.stack->kernel_log_error, sizeof f.stack->kernel_log_error, "not readable");
    fx_run(&f, "health.xid", &out);
    assert_int_equal(out.n, 0);
    assert_int_equal(out.nskips, 1);
    gd_findings_free(&out);
    gd_facts_free(&f);
}

/* The kernel log's groups and the session's Xids (NVML's events, followed
 * log lines) together: one row per Xid, counted by the larger source (never
 * their sum); an address no GPU has keeps its own finding, and a followed
 * line on such an address is a finding of its own too. */
static void xids_from_the_log_and_nvml_count_once(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 2);
    f.stack = calloc(1, sizeof *f.stack);
    f.stack->kernel_log_read = true;
    snprintf(f.stack->kernel_log_source, sizeof f.stack->kernel_log_source, "test");
    f.stack->xid_groups[0] = (gd_xid_group){.xid = 79, .gpu = 1, .pci = "0000:19:00", .count = 2, .example_count = 1};
    f.stack->xid_groups[1] =
        (gd_xid_group){.xid = 4242, .gpu = -1, .pci = "0000:99:00", .count = 1, .example_count = 1};
    f.stack->xid_group_count = 2;
    f.events.xid_watched = true;
    for (int k = 0; k < 3; k++) {
        gd_event e = {.t = 5 + k, .gpu = 1, .kind = GD_EV_XID, .value = 79};
        snprintf(e.what, sizeof e.what, "nvml");
        assert_int_equal(gd_event_add(&f.events, &e), 0);
    }
    gd_event line = {.t = 9, .gpu = -1, .kind = GD_EV_XID, .value = 48};
    snprintf(line.what, sizeof line.what, "kernel log");
    assert_int_equal(gd_event_add(&f.events, &line), 0);
    gd_findings out;
    fx_run(&f, "health.xid", &out);
    assert_int_equal(fx_count(&out, "health.xid", 1), 1);
    assert_int_equal(fx_count(&out, "health.xid", GD_NO_GPU), 2);
    for (size_t i = 0; i < out.n; i++) {
        const gd_finding *x = &out.v[i];
        json_t *rows = json_object_get(x->evidence, "xids");
        if (x->gpu == 1) {
            assert_int_equal(json_array_size(rows), 1);
            json_t *row = json_array_get(rows, 0);
            assert_int_equal(json_integer_value(json_object_get(row, "count")), 3); /* max(2, 3), not 5 */
            assert_int_equal(json_integer_value(json_object_get(row, "session_nvml_events")), 3);
            assert_non_null(strstr(x->title, "Xid 79"));
            assert_non_null(strstr(x->title, "3 times"));
            assert_string_equal(json_string_value(json_object_get(x->evidence, "source")),
                                "kernel log: test; nvml: Xid events");
        } else if (strstr(x->title, "0000:99:00")) {
            assert_non_null(strstr(x->title, "no GPU of this report has that address"));
            assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 0), "xid")), 4242);
        } else {
            assert_non_null(strstr(x->title, "an address that no GPU of this report has"));
            assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 0), "xid")), 48);
        }
    }
    gd_findings_free(&out);
    gd_facts_free(&f);
}

/* CUDA_VISIBLE_DEVICES against four GPUs (GPU 2 in MIG mode): indices,
 * UUIDs and their prefixes, MIG devices, truncation at a bad entry. */
static void visible_devices_indices_uuids_and_mig(void **state)
{
    (void)state;
    static const struct {
        const char *value;
        int findings;
        gd_severity sev;
        const char *says;
    } cases[] = {
        {"0,1,2,3", 0, 0, NULL},
        {"3,2,1,0", 0, 0, NULL},
        {"GPU-aaaa0000-0000-0000-0000-000000000001,1,2,3", 1, GD_SEV_INFO, "3 of 4"}, /* a UUID and index 1 */
        {"GPU-aaaa", 1, GD_SEV_CRITICAL, "hides every GPU"}, /* a prefix of three GPUs' UUIDs names none */
        {"GPU-BBBB", 1, GD_SEV_INFO, "1 of 4"}, /* a unique prefix, any case */
        {"GPU-ffffffff-0000-0000-0000-000000000000", 1, GD_SEV_CRITICAL, "hides every GPU"},
        {"", 1, GD_SEV_CRITICAL, "hides every GPU"},
        {"1", 1, GD_SEV_INFO, "1 of 4"},
        {"0,0", 1, GD_SEV_INFO, "1 of 4"}, /* one GPU listed twice */
        {"0,7,1", 1, GD_SEV_WARNING, "only 1 of 4"},
        {"0,1,2,3,4", 1, GD_SEV_INFO, "still sees all 4"},
        {"MIG-GPU-aaaa0000-0000-0000-0000-000000000002/1/0", 0, 0, NULL},
        {"MIG-GPU-aaaa0000-0000-0000-0000-000000000001/1/0", 1, GD_SEV_CRITICAL,
         "hides every GPU"}, /* not in MIG mode */
        {"MIG-5c0ffee0-0000-0000-0000-000000000000", 0, 0, NULL},
        {"MIG-5c0ffee0-0000-0000-0000-000000000000,MIG-5c0ffee0-0000-0000-0000-000000000001", 1, GD_SEV_WARNING,
         "only the first"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gd_facts f;
        fx_facts(&f, 4, 2);
        for (size_t g = 0; g < 4; g++) {
            snprintf(f.gpus[g].uuid, sizeof f.gpus[g].uuid, "GPU-%s0000-0000-0000-0000-00000000000%zu",
                     g < 3 ? "aaaa" : "bbbb", g);
            f.gpus[g].mig_mode = gd_val(g == 2);
        }
        f.stack = calloc(1, sizeof *f.stack);
        f.stack->env_read = true;
        f.stack->env = calloc(1, sizeof *f.stack->env);
        size_t len = strlen(cases[c].value) + sizeof "CUDA_VISIBLE_DEVICES=";
        f.stack->env[0] = malloc(len);
        snprintf(f.stack->env[0], len, "CUDA_VISIBLE_DEVICES=%s", cases[c].value);
        f.stack->env_count = 1;
        gd_findings out;
        fx_run(&f, "env.visible_devices", &out);
        if ((int)fx_count(&out, "env.visible_devices", -2) != cases[c].findings)
            fail_msg("'%s': %zu findings, want %d", cases[c].value, out.n, cases[c].findings);
        if (cases[c].findings) {
            if (only_severity(&out, "env.visible_devices") != cases[c].sev || !strstr(out.v[0].title, cases[c].says))
                fail_msg("'%s': %s", cases[c].value, out.v[0].title);
            assert_non_null(json_object_get(out.v[0].evidence, "source"));
        }
        gd_findings_free(&out);
        gd_facts_free(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(retired_pages_warn_from_15_fail_at_63),
        cmocka_unit_test(pending_remap_is_critical_and_unreadable_is_skipped),
        cmocka_unit_test(ecc_volatile_is_critical_aggregate_a_warning),
        cmocka_unit_test(configuration_severities),
        cmocka_unit_test(xids_map_to_gpus_by_bus_id),
        cmocka_unit_test(xids_from_the_log_and_nvml_count_once),
        cmocka_unit_test(visible_devices_indices_uuids_and_mig),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
