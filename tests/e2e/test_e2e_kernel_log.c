/*
 * End to end: kernel logs as captured evidence (--from dmesg.txt). The same
 * events in the three forms (dmesg, dmesg -T, journalctl -k) give the same
 * findings: Xids mapped to the nvidia-smi capture's GPUs by bus id, PCIe AER
 * messages on the GPUs they name, and the report cites the log it read.
 * Fixtures: tests/fixtures/kernel-log (bus ids of the 8x H100 capture).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const env[] = {"NO_COLOR=", NULL};

static const char smi_rel[] = "smi-text/h100x8-hw-slowdown-power-brake-gpud.txt";

static const char *fixture(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/kernel-log/%s", GD_FIXTURES_DIR, name);
    return path;
}

static const char *smi(void)
{
    return realdata(smi_rel);
}

/* The finding of this id on this GPU, or NULL. */
static json_t *finding(json_t *report, const char *id, int gpu)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(report, "findings"), i, x)
    {
        json_t *g = json_object_get(x, "gpu");
        if (strcmp(json_string_value(json_object_get(x, "id")), id) == 0 &&
            (gpu == -1 ? json_is_null(g) : json_integer_value(g) == gpu))
            return x;
    }
    return NULL;
}

static const char *severity(json_t *x)
{
    return x ? json_string_value(json_object_get(x, "severity")) : "(none)";
}

/* The health group of "checked" names the log that was read. */
static void kernel_log_named(const char *what, json_t *report, const char *name)
{
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(report, "checked"), i, g)
    {
        if (strcmp(json_string_value(json_object_get(g, "group")), "health") != 0)
            continue;
        json_t *k = json_object_get(g, "kernel_log");
        if (!json_is_string(k) || strcmp(json_string_value(k), name) != 0)
            fail_msg("%s: checked.health.kernel_log is %s, want %s", what,
                     json_is_string(k) ? json_string_value(k) : "null", name);
        return;
    }
    fail_msg("%s: no health group in checked", what);
}

static void no_word_of_an_unread_log(const char *what, const tool_result *r)
{
    if (strstr(r->out, "kernel log was not read") || strstr(r->out, "holds no kernel log") ||
        strstr(r->out, "kernel log: not read"))
        fail_msg("%s: the report says the kernel log was not read", what);
}

static void every_log_format_feeds_xid_and_aer(void **state)
{
    (void)state;
    need_realdata();
    static const char *const logs[] = {"dmesg.txt", "dmesg-T.txt", "journalctl-k.txt"};
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        char log[1024];
        snprintf(log, sizeof log, "%s", fixture(logs[i]));
        tool_result r = run_tool((const char *[]){"check", "--json", "--from", smi(), "--from", log, NULL}, env);
        if (!r.json)
            fail_msg("%s: no JSON (exit %d): %s", logs[i], r.exit_code, r.err);
        assert_int_equal(r.exit_code, 2);
        /* By bus id: 3b -> GPU 1, 4c -> 2, 9b -> 4, db -> 7 (the capture's order). */
        static const struct {
            int gpu, xid;
            const char *sev;
        } want[] = {{1, 79, "critical"}, {7, 48, "critical"}, {2, 63, "warning"}, {4, 94, "warning"}};
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
            json_t *x = finding(r.json, "health.xid", want[k].gpu);
            if (!x || strcmp(severity(x), want[k].sev) != 0)
                fail_msg("%s: health.xid on GPU %d is %s, want %s", logs[i], want[k].gpu, severity(x), want[k].sev);
            json_t *row = json_array_get(json_object_get(json_object_get(x, "evidence"), "xids"), 0);
            assert_int_equal(json_integer_value(json_object_get(row, "xid")), want[k].xid);
            char src[128];
            snprintf(src, sizeof src, "kernel log: %s", logs[i]);
            assert_string_equal(json_string_value(json_object_get(json_object_get(x, "evidence"), "source")), src);
        }
        assert_int_equal(count_findings(r.json, "health.xid", -2), 4);
        /* AER: the uncorrectable error on GPU 1 warns, one corrected error on GPU 3 is context. */
        json_t *a1 = finding(r.json, "pcie.aer_errors", 1), *a3 = finding(r.json, "pcie.aer_errors", 3);
        if (strcmp(severity(a1), "warning") != 0 || strcmp(severity(a3), "info") != 0)
            fail_msg("%s: pcie.aer_errors GPU 1 %s (want warning), GPU 3 %s (want info)", logs[i], severity(a1),
                     severity(a3));
        json_t *msgs = json_object_get(json_object_get(a1, "evidence"), "kernel_log_messages");
        assert_int_equal(json_integer_value(json_object_get(msgs, "nonfatal")), 1);
        assert_string_equal(json_string_value(json_object_get(msgs, "reported_by")), "0000:37:01.0");
        assert_int_equal(count_findings(r.json, "pcie.aer_errors", -2), 2);
        kernel_log_named(logs[i], r.json, logs[i]);
        no_word_of_an_unread_log(logs[i], &r);
        tool_result_free(&r);
    }
}

/* A clean log: no Xid, no AER finding, and the report says it was read. */
static void clean_log_stays_quiet(void **state)
{
    (void)state;
    need_realdata();
    char log[1024];
    snprintf(log, sizeof log, "%s", fixture("dmesg-clean.txt"));
    tool_result with = run_tool((const char *[]){"check", "--json", "--from", smi(), "--from", log, NULL}, env);
    tool_result without = run_tool((const char *[]){"check", "--json", "--from", smi(), NULL}, env);
    assert_non_null(with.json);
    assert_int_equal(with.exit_code, without.exit_code);
    assert_int_equal(count_findings(with.json, "health.xid", -2), 0);
    assert_int_equal(count_findings(with.json, "pcie.aer_errors", -2), 0);
    assert_int_equal(json_array_size(json_object_get(with.json, "findings")),
                     json_array_size(json_object_get(without.json, "findings")));
    kernel_log_named("clean", with.json, "dmesg-clean.txt");
    no_word_of_an_unread_log("clean", &with);
    tool_result_free(&with);
    tool_result_free(&without);
}

/* A log alone is read too (Xids on bus ids no capture names); binary data inside is refused. */
static void log_alone_and_bad_logs(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", fixture("journalctl-k.txt"), NULL}, env);
    if (!r.json)
        fail_msg("log alone: exit %d: %s", r.exit_code, r.err);
    json_t *x = finding(r.json, "health.xid", -1);
    assert_non_null(x);
    assert_string_equal(severity(x), "critical");
    assert_non_null(strstr(r.out, "\"formats\": \"kernel log\""));
    tool_result_free(&r);

    char *dir = temp_dir();
    char *bad = write_temp_file(dir, "dmesg.txt", "[    0.000000] Linux version 5.15.0\n[    1.0] x\x01\x02\x03\n");
    r = run_tool((const char *[]){"check", "--from", bad, NULL}, env);
    if (r.exit_code != 3 || !strstr(r.err, "dmesg.txt"))
        fail_msg("binary log: exit %d, stderr '%s'", r.exit_code, r.err);
    tool_result_free(&r);
    free(bad);
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_log_format_feeds_xid_and_aer),
        cmocka_unit_test(clean_log_stays_quiet),
        cmocka_unit_test(log_alone_and_bad_logs),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
