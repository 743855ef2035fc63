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

/* Two GPUs (bus ids 18 and 19) and a kernel log read ("test"), no Xid yet. */
static void log_facts(gd_facts *f)
{
    fx_facts(f, 2, 2);
    f->stack = calloc(1, sizeof *f->stack);
    f->stack->kernel_log_read = true;
    snprintf(f->stack->kernel_log_source, sizeof f->stack->kernel_log_source, "test");
}

static void xids_map_to_gpus_by_bus_id(void **state)
{
    (void)state;
    gd_facts f;
    log_facts(&f);
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
    log_facts(&f);
    f.stack->xid_groups[0] = (gd_xid_group){
        .xid = 79, .gpu = 1, .pci = "0000:19:00", .count = 2, .example_count = 1, .first_seen = "8734.551035"};
    snprintf(f.stack->xid_groups[0].examples[0].when, sizeof f.stack->xid_groups[0].examples[0].when,
             "Tue Mar  5 10:12:41 2024");
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
            assert_int_equal(json_integer_value(json_object_get(row, "nvml_events_in_window")), 3);
            /* Times say what they count from; no internal name reaches the reader (issue 39). */
            assert_string_equal(json_string_value(json_object_get(row, "first_seen")), "8734.551035 s after boot");
            assert_string_equal(json_string_value(json_object_get(row, "last_seen")), "Tue Mar  5 10:12:41 2024");
            assert_string_equal(json_string_value(json_object_get(row, "seen_by")), "NVML's Xid events");
            assert_string_equal(json_string_value(json_object_get(row, "dcgm_health")), "fail");
            const char *key;
            json_t *v;
            json_object_foreach(row, key, v) assert_null(strstr(key, "session"));
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

/* One Xid alone on GPU 1: the finding's severity and what its fix asks. */
static gd_severity xid_alone(int xid, const char *text, char *fix, size_t len)
{
    gd_facts f;
    log_facts(&f);
    f.stack->xid_groups[0] =
        (gd_xid_group){.xid = xid, .gpu = 1, .pci = "0000:19:00", .count = 1, .lines = 1, .example_count = 1};
    snprintf(f.stack->xid_groups[0].examples[0].text, sizeof f.stack->xid_groups[0].examples[0].text, "%s", text);
    f.stack->xid_group_count = 1;
    gd_findings out;
    fx_run(&f, "health.xid", &out);
    assert_int_equal(out.n, 1);
    gd_severity sev = out.v[0].severity;
    snprintf(fix, len, "%s", out.v[0].fix);
    gd_findings_free(&out);
    gd_facts_free(&f);
    return sev;
}

/* What the table's actions say (data/xid.tsv, NVIDIA's Xid catalog): a
 * contained ECC error (94) is the memory's, not the application's: the GPU
 * is drained and reset so its row remap takes effect; an Xid 45 follows a
 * kill or another Xid; a fault the catalog does not blame on the
 * application is not sent to compute-sanitizer. */
static void xid_actions_in_the_fix(void **state)
{
    (void)state;
    char fix[1024];
    gd_severity x = xid_alone(94, "pid=1, name=python, Contained: SM (0x1). RST: No, D-RST: No", fix, sizeof fix);
    assert_int_equal(x, GD_SEV_WARNING);
    if (strstr(fix, "compute-sanitizer") || !strstr(fix, "nvidia-smi -r -i 1") || !strstr(fix, "row remap"))
        fail_msg("Xid 94's fix: %s", fix);
    x = xid_alone(63, "Row Remapper: New row marked for remapping, reset gpu to activate.", fix, sizeof fix);
    assert_int_equal(x, GD_SEV_WARNING);
    assert_non_null(strstr(fix, "row remap"));
    x = xid_alone(45, "pid=1, Ch 00000008", fix, sizeof fix);
    assert_int_equal(x, GD_SEV_INFO);
    assert_null(strstr(fix, "compute-sanitizer"));
    x = xid_alone(32, "pid=1, Channel ID 00000010 intr0 00040000", fix, sizeof fix);
    assert_int_equal(x, GD_SEV_WARNING); /* DCGM warns */
    if (strstr(fix, "compute-sanitizer") || !strstr(fix, "PCIe"))
        fail_msg("Xid 32's fix: %s", fix);
    x = xid_alone(44, "pid=1, Graphics engine fault during context switch", fix, sizeof fix);
    assert_int_equal(x, GD_SEV_INFO); /* the catalog: IGNORE */
    x = xid_alone(46, "GPU stopped processing", fix, sizeof fix);
    assert_int_equal(x, GD_SEV_WARNING); /* the catalog: RESET_GPU */
    assert_non_null(strstr(fix, "nvidia-smi -r -i 1"));
    x = xid_alone(13, "pid=1, Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0): Out Of Range Address", fix,
                  sizeof fix);
    assert_int_equal(x, GD_SEV_INFO);
    assert_non_null(strstr(fix, "compute-sanitizer"));
}

/* GPU 1 fell off the bus (Xid 79 in the kernel log, and at session second
 * `at` from NVML when at >= 0) while the window's 10 readings of it (0 to
 * 9 s) say 98 % busy. */
static void off_bus_answering(gd_facts *f, double at, bool watched)
{
    fx_facts(f, 2, 10);
    f->stack = calloc(1, sizeof *f->stack);
    f->stack->kernel_log_read = true;
    snprintf(f->stack->kernel_log_source, sizeof f->stack->kernel_log_source, "test");
    snprintf(f->gpus[1].serial, sizeof f->gpus[1].serial, "1654922000101");
    f->stack->xid_groups[0] = (gd_xid_group){.xid = 79, .gpu = 1, .pci = "0000:19:00", .count = 1, .example_count = 1};
    f->stack->xid_group_count = 1;
    f->events.xid_watched = watched;
    if (at >= 0) {
        gd_event e = {.t = at, .gpu = 1, .kind = GD_EV_XID, .value = 79};
        snprintf(e.what, sizeof e.what, "nvml");
        assert_int_equal(gd_event_add(&f->events, &e), 0);
    }
}

/* An Xid 79 says whether it is from before the window and whether the GPU's
 * readings after it can be trusted, and gives health.gpu_lost's instruction
 * word for word: one event, one instruction (issue 39). */
static void fallen_off_the_bus_says_when_beside_its_readings(void **state)
{
    (void)state;
    static const struct {
        double at;
        bool watched, captured;
        gd_severity sev;
        const char *said, *fix;
    } cases[] = {
        {5, true, false, GD_SEV_CRITICAL, "answered after it (98% busy at 9.0 s): stale readings",
         "until the node reboots"},
        {-1, true, false, GD_SEV_WARNING, "before this window: it answered all of it", "It answers now"},
        {-1, false, false, GD_SEV_CRITICAL, "it answered all of this window", "until the node reboots"},
        {-1, false, true, GD_SEV_CRITICAL, "the capture still reads it", "until the node reboots"},
        {30, true, false, GD_SEV_CRITICAL, "its readings (to 9.0 s) came before the fault (at 30.0 s)",
         "until the node reboots"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gd_facts f;
        off_bus_answering(&f, cases[k].at, cases[k].watched);
        f.captured = cases[k].captured;
        gd_findings out;
        fx_run(&f, "health.xid", &out);
        const gd_finding *x = fx_only(&out, "health.xid");
        if (!strstr(x->title, cases[k].said) || !strstr(x->fix, cases[k].fix) || x->severity != cases[k].sev)
            fail_msg("case %zu: %s: %s (%s)", k, x->title, x->fix, gd_severity_name(x->severity));
        assert_non_null(json_object_get(x->evidence, "gpu_answered"));
        assert_non_null(strstr(x->fix, "1654922000101"));
        assert_null(strstr(x->fix, "try 'nvidia-smi -r"));
        gd_findings_free(&out);
        gd_facts_free(&f);
    }
    /* A snapshot (--duration 0) is too short to say the GPU came back: still critical. */
    gd_facts f;
    off_bus_answering(&f, -1, true);
    f.series.n = 1;
    gd_findings snap;
    fx_run(&f, "health.xid", &snap);
    const gd_finding *s1 = fx_only(&snap, "health.xid");
    if (s1->severity != GD_SEV_CRITICAL || !strstr(s1->title, "it still answers"))
        fail_msg("a snapshot: %s (%s)", s1->title, gd_severity_name(s1->severity));
    gd_findings_free(&snap);
    gd_facts_free(&f);
    /* Lost by NVML too: both findings give the one instruction. */
    off_bus_answering(&f, 5, true);
    f.gpus[1].lost = true;
    f.gpus[1].lost_at_s = 5;
    snprintf(f.gpus[1].lost_call, sizeof f.gpus[1].lost_call, "nvmlDeviceGetTemperature");
    gd_findings xid, lost;
    fx_run(&f, "health.xid", &xid);
    fx_run(&f, "health.gpu_lost", &lost);
    const char *a = fx_only(&xid, "health.xid")->fix, *b = fx_only(&lost, "health.gpu_lost")->fix;
    const char *core = strstr(a, "It stays unusable until the node reboots");
    assert_non_null(core);
    assert_non_null(strstr(b, core)); /* the same words, after gpu_lost's lead */
    assert_null(json_object_get(fx_only(&xid, "health.xid")->evidence, "gpu_answered")); /* lost: they agree */
    gd_findings_free(&xid);
    gd_findings_free(&lost);
    gd_facts_free(&f);
}

/* A contained memory error's fix asks for a reset only for a remap that waits for one. */
static void remap_fix_follows_what_is_pending(void **state)
{
    (void)state;
    for (int pending = -1; pending <= 1; pending++) {
        gd_facts f;
        log_facts(&f);
        f.stack->xid_groups[0] =
            (gd_xid_group){.xid = 94, .gpu = 1, .pci = "0000:19:00", .count = 1, .lines = 1, .example_count = 1};
        f.stack->xid_group_count = 1;
        if (pending >= 0) {
            f.gpus[1].remap_pending = gd_val(pending);
            f.gpus[1].remap_failure = gd_val(0);
        }
        gd_findings out;
        fx_run(&f, "health.xid", &out);
        const char *fix = fx_only(&out, "health.xid")->fix;
        bool asks_reset = strstr(fix, "so the pending row remap takes effect") != NULL;
        if (asks_reset != (pending != 0))
            fail_msg("pending %d: %s", pending, fix);
        gd_findings_free(&out);
        gd_facts_free(&f);
    }
}

/* A fault printed over several lines is one event: its row says both. */
static void xid_rows_count_events_and_lines(void **state)
{
    (void)state;
    gd_facts f;
    log_facts(&f);
    f.stack->xid_groups[0] =
        (gd_xid_group){.xid = 13, .gpu = 1, .pci = "0000:19:00", .count = 2, .lines = 5, .example_count = 2};
    f.stack->xid_group_count = 1;
    gd_findings out;
    fx_run(&f, "health.xid", &out);
    assert_int_equal(out.n, 1);
    json_t *row = json_array_get(json_object_get(out.v[0].evidence, "xids"), 0);
    assert_int_equal(json_integer_value(json_object_get(row, "count")), 2);
    assert_int_equal(json_integer_value(json_object_get(row, "lines")), 5);
    assert_non_null(strstr(out.v[0].title, "2 times"));
    gd_findings_free(&out);
    gd_facts_free(&f);
}

/* The title says where the Xids were seen: one that only NVML's events gave
 * is not "in the kernel log", though a kernel log was read (and clean). */
static void xid_title_names_its_source(void **state)
{
    (void)state;
    gd_facts f;
    log_facts(&f);
    f.stack->xid_groups[0] = (gd_xid_group){.xid = 31, .gpu = 0, .pci = "0000:18:00", .count = 1, .example_count = 1};
    f.stack->xid_group_count = 1;
    f.events.xid_watched = true;
    gd_event e = {.t = 5, .gpu = 1, .kind = GD_EV_XID, .value = 79};
    snprintf(e.what, sizeof e.what, "nvml");
    assert_int_equal(gd_event_add(&f.events, &e), 0);
    gd_findings out;
    fx_run(&f, "health.xid", &out);
    assert_int_equal(out.n, 2);
    for (size_t i = 0; i < out.n; i++) {
        const gd_finding *x = &out.v[i];
        if (x->gpu == 1) {
            assert_null(strstr(x->title, "kernel log"));
            assert_non_null(strstr(x->title, "(NVML event)"));
        } else {
            assert_non_null(strstr(x->title, "in the kernel log"));
        }
    }
    gd_findings_free(&out);
    /* Seen by both: both named. */
    e.gpu = 0;
    e.value = 31;
    assert_int_equal(gd_event_add(&f.events, &e), 0);
    fx_run(&f, "health.xid", &out);
    for (size_t i = 0; i < out.n; i++)
        if (out.v[i].gpu == 0)
            assert_non_null(strstr(out.v[i].title, "in the kernel log and NVML's events"));
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
            assert_float_equal(json_number_value(json_object_get(row, "last_in_window_s")), 1, 1e-9);
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
        cmocka_unit_test(xid_actions_in_the_fix),
        cmocka_unit_test(fallen_off_the_bus_says_when_beside_its_readings),
        cmocka_unit_test(remap_fix_follows_what_is_pending),
        cmocka_unit_test(xid_rows_count_events_and_lines),
        cmocka_unit_test(xid_title_names_its_source),
        cmocka_unit_test(an_xid_79_stays_critical_after_a_storm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
