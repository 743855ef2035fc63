/* SPDX-License-Identifier: Apache-2.0 */
/* health.xid (src/checks/xid.c): Xids of the kernel log and NVML's events,
 * mapped to GPUs by bus id and counted once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/stack.h"

#include <stdlib.h>
#include <string.h>

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

/* An Xid 79 on GPU 0, then 1100 Xid 13 on GPU 1: the ring of the newest
 * 1024 events lets the 79 go; the check judges the session's sums and keeps
 * GPU 0 critical, with both Xids counted. */
static void an_xid_79_stays_critical_after_a_storm(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 120);
    f.events.xid_watched = true;
    gd_event x79 = {.t = 1, .gpu = 0, .kind = GD_EV_XID, .value = 79};
    snprintf(x79.what, sizeof x79.what, "nvml");
    assert_int_equal(gd_event_add(&f.events, &x79), 0);
    for (int k = 0; k < 1100; k++) {
        gd_event e = {.t = 2 + k * 0.1, .gpu = 1, .kind = GD_EV_XID, .value = 13};
        snprintf(e.what, sizeof e.what, "nvml");
        assert_int_equal(gd_event_add(&f.events, &e), 0);
    }
    assert_true(f.events.dropped > 0);
    gd_findings out;
    fx_run(&f, "health.xid", &out);
    assert_int_equal(fx_count(&out, "health.xid", 0), 1);
    assert_int_equal(fx_count(&out, "health.xid", 1), 1);
    for (size_t i = 0; i < out.n; i++) {
        const gd_finding *x = &out.v[i];
        json_t *row = json_array_get(json_object_get(x->evidence, "xids"), 0);
        if (x->gpu == 0) {
            assert_int_equal(x->severity, GD_SEV_CRITICAL);
            assert_non_null(strstr(x->title, "Xid 79"));
            assert_float_equal(json_number_value(json_object_get(row, "session_last_seen_s")), 1, 1e-9);
        } else if (x->gpu == 1) {
            assert_int_equal(json_integer_value(json_object_get(row, "count")), 1100);
        }
    }
    gd_findings_free(&out);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(xids_map_to_gpus_by_bus_id),
        cmocka_unit_test(xids_from_the_log_and_nvml_count_once),
        cmocka_unit_test(an_xid_79_stays_critical_after_a_storm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
