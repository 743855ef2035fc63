/* SPDX-License-Identifier: Apache-2.0 */
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

#include <stdbool.h>
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

/* The fixtures' Xids by bus id: 3b -> GPU 1, 4c -> 2, 9b -> 4, db -> 7 (the capture's order). */
static const struct {
    int gpu, xid;
    const char *sev;
} want[] = {{1, 79, "critical"}, {7, 48, "critical"}, {2, 63, "warning"}, {4, 94, "warning"}};

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

/* NVSwitch errors (SXid): counted per SXid and switch, detail lines not again,
 * fatal ones critical; the Xid-only fixtures hold none (quiet). */
static void nvswitch_sxids(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", fixture("nvswitch-sxid.txt"), NULL}, env);
    if (!r.json)
        fail_msg("sxid log: exit %d: %s", r.exit_code, r.err);
    json_t *x = finding(r.json, "nvlink.sxid", -1);
    assert_non_null(x);
    assert_string_equal(severity(x), "critical");
    assert_int_equal(r.exit_code, 2);
    json_t *ev = json_object_get(x, "evidence");
    assert_int_equal(json_integer_value(json_object_get(ev, "events")), 3);
    json_t *list = json_object_get(ev, "sxids");
    assert_int_equal(json_array_size(list), 2);
    json_t *a = json_array_get(list, 0), *b = json_array_get(list, 1);
    assert_int_equal(json_integer_value(json_object_get(a, "sxid")), 12028);
    assert_string_equal(json_string_value(json_object_get(a, "nvswitch")), "nvidia-nvswitch1");
    assert_int_equal(json_integer_value(json_object_get(a, "count")), 2);
    assert_true(json_is_false(json_object_get(a, "fatal")));
    assert_string_equal(json_string_value(json_object_get(a, "first_seen")), "2210.104512 s after boot");
    assert_string_equal(json_string_value(json_object_get(a, "last_seen")), "2301.000000 s after boot");
    assert_int_equal(json_integer_value(json_object_get(b, "sxid")), 20034);
    assert_int_equal(json_integer_value(json_object_get(b, "count")), 1);
    assert_true(json_is_true(json_object_get(b, "fatal")));
    assert_string_equal(json_string_value(json_object_get(b, "pci")), "0000:08:00.0");
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--json", "--from", fixture("journalctl-k.txt"), NULL}, env);
    assert_non_null(r.json);
    assert_int_equal(count_findings(r.json, "nvlink.sxid", -2), 0);
    tool_result_free(&r);
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

/* The fixture's events (dmesg.txt) as bare messages, to print in every style. */
static const char *const messages[] = {
    "pcieport 0000:37:01.0: AER: Uncorrected (Non-Fatal) error received: 0000:3b:00.0",
    "NVRM: Xid (PCI:0000:4c:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row marked for remapping",
    "NVRM: Xid (PCI:0000:9b:00): 94, pid=48213, name=python3, Contained: CE User Channel (0x9). RST: No, D-RST: No",
    "pcieport 0000:59:01.0: AER: Corrected error received: 0000:5d:00.0",
    "NVRM: Xid (PCI:0000:3b:00): 79, pid=48213, name=python3, GPU has fallen off the bus.",
    ("NVRM: Xid (PCI:0000:db:00): 48, pid=48213, name=python3, An uncorrectable double bit error (DBE) has been "
     "detected on GPU in the framebuffer at partition 6, subpartition 0."),
};
#define NMESSAGES (sizeof messages / sizeof messages[0])

/* Every timestamp style of dmesg and journalctl -k: the prefix of line i. */
static void style_prefix(size_t style, size_t i, char *out, size_t len)
{
    int s = (int)i;
    switch (style) {
    case 0: snprintf(out, len, "[%5d.123456] ", 8000 + s); break; /* dmesg */
    case 1: snprintf(out, len, "[Tue Mar  5 10:%02d:00 2024] ", s); break; /* dmesg -T */
    case 2: snprintf(out, len, "2024-03-05T10:%02d:00,123456+00:00 ", s); break; /* dmesg --time-format iso */
    case 3: snprintf(out, len, i == 0 ? "[Mar 5 10:00] " : "[  +0.%06d] ", s); break; /* reltime */
    case 4: snprintf(out, len, "[<    0.%06d>] ", s); break; /* --time-format delta */
    case 5: snprintf(out, len, "[%5d.123456 <    0.%06d>] ", 8000 + s, s); break; /* dmesg -d */
    case 6: snprintf(out, len, "kern  :warn  : [%5d.123456] ", 8000 + s); break; /* dmesg --decode */
    case 7: snprintf(out, len, "kern  :err   : 2024-03-05T10:%02d:00,123456+00:00 ", s); break; /* -x, iso */
    case 8: snprintf(out, len, "Mar 05 10:%02d:00 node07 kernel: ", s); break; /* journalctl -k */
    case 9: snprintf(out, len, "2024-03-05T10:%02d:00+0000 node07 kernel: ", s); break; /* short-iso */
    case 10: snprintf(out, len, "2024-03-05T10:%02d:00.123456+00:00 node07 kernel: ", s); break; /* iso-precise */
    case 11: snprintf(out, len, "Mar 05 10:%02d:00.123456 node07 kernel: ", s); break; /* short-precise */
    case 12: snprintf(out, len, "[%5d.123456] node07 kernel: ", 8000 + s); break; /* short-monotonic */
    case 13: snprintf(out, len, "Tue 2024-03-05 10:%02d:00 UTC node07 kernel: ", s); break; /* short-full */
    case 14: snprintf(out, len, "17096328%02d.123456 node07 kernel: ", s); break; /* short-unix */
    case 15: snprintf(out, len, "<4>[%5d.123456] ", 8000 + s); break; /* dmesg -r */
    case 16: snprintf(out, len, "kern  :warn  : "); break; /* dmesg --decode --notime */
    default: out[0] = '\0'; break; /* dmesg -t: no timestamp */
    }
}
#define NSTYLES 18

static char *styled_log(size_t style)
{
    size_t cap = 8192, used = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (size_t i = 0; i < NMESSAGES; i++) {
        char prefix[96];
        style_prefix(style, i, prefix, sizeof prefix);
        used += (size_t)snprintf(text + used, cap - used, "%s%s\n", prefix, messages[i]);
    }
    return text;
}

/* Each style, by --from beside the capture, alone, and as a scenario's
 * host.kernel_log: the same Xid and AER findings, with the time as written. */
static void every_timestamp_style_reads_the_same(void **state)
{
    (void)state;
    need_realdata();
    char *dir = temp_dir();
    for (size_t style = 0; style < NSTYLES; style++) {
        char *text = styled_log(style), name[64];
        snprintf(name, sizeof name, "style%zu.log", style);
        char *log = write_temp_file(dir, name, text);
        tool_result r = run_tool((const char *[]){"check", "--json", "--from", smi(), "--from", log, NULL}, env);
        if (!r.json)
            fail_msg("style %zu (%.60s): no JSON (exit %d): %s", style, text, r.exit_code, r.err);
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
            json_t *x = finding(r.json, "health.xid", want[k].gpu);
            if (!x || strcmp(severity(x), want[k].sev) != 0)
                fail_msg("style %zu: health.xid on GPU %d is %s, want %s", style, want[k].gpu, severity(x),
                         want[k].sev);
            json_t *row = json_array_get(json_object_get(json_object_get(x, "evidence"), "xids"), 0);
            assert_int_equal(json_integer_value(json_object_get(row, "xid")), want[k].xid);
            const char *seen = json_string_value(json_object_get(row, "last_seen"));
            if (style < 16 ? !seen || !seen[0] || strchr(seen, '[') || strstr(seen, "kernel") || strstr(seen, "node07")
                           : seen && seen[0])
                fail_msg("style %zu: last_seen '%s' is not the line's time", style, seen ? seen : "(null)");
        }
        assert_int_equal(count_findings(r.json, "health.xid", -2), 4);
        if (strcmp(severity(finding(r.json, "pcie.aer_errors", 1)), "warning") != 0)
            fail_msg("style %zu: the AER error on GPU 1 is not read", style);
        assert_int_equal(r.exit_code, 2);
        tool_result_free(&r);
        /* The log alone: the same Xids, on addresses with no GPU list. */
        r = run_tool((const char *[]){"check", "--json", "--from", log, NULL}, env);
        if (!r.json || count_findings(r.json, "health.xid", -1) != 4)
            fail_msg("style %zu alone: exit %d, %s", style, r.exit_code, r.err);
        tool_result_free(&r);
        /* A scenario's host.kernel_log. */
        char scen[512];
        snprintf(scen, sizeof scen,
                 "{\"driver_version\": \"550.54.15\", \"host\": {\"kernel_log\": \"%s\"}, \"gpus\": [{\"name\": "
                 "\"NVIDIA H100 80GB HBM3\", \"pci_bus_id\": \"00000000:DB:00.0\", \"timeline\": [{\"t\": 0, "
                 "\"temp_c\": 40}]}]}",
                 name);
        char *sc = write_temp_file(dir, "scenario.json", scen);
        r = run_tool((const char *[]){"check", "--json", "--duration", "2", "--interval", "1000", "--sim", sc, NULL},
                     env);
        if (!r.json || strcmp(severity(finding(r.json, "health.xid", 0)), "critical") != 0)
            fail_msg("style %zu as host.kernel_log: health.xid on GPU 0 is %s (exit %d, %s)", style,
                     r.json ? severity(finding(r.json, "health.xid", 0)) : "(no JSON)", r.exit_code, r.err);
        tool_result_free(&r);
        free(sc);
        free(log);
        free(text);
    }
    remove_tree(dir);
    free(dir);
}

/* 300 old Xid 13 and one Xid 79 after them: every event counted, the 79 not lost. */
static void every_xid_counted_however_long_the_log(void **state)
{
    (void)state;
    need_realdata();
    size_t cap = 400 * 160, used = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (int i = 0; i < 300; i++)
        used += (size_t)snprintf(text + used, cap - used,
                                 "[%5d.000000] NVRM: Xid (PCI:0000:3b:00): 13, pid=%d, Graphics Exception %d\n",
                                 100 + i, 4000 + i, i);
    used += (size_t)snprintf(text + used, cap - used,
                             "[ 9999.000000] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n");
    /* Two addresses no GPU has: two findings, each naming its own. */
    snprintf(text + used, cap - used,
             "[10000.000000] NVRM: Xid (PCI:0000:99:00): 31, pid=1, MMU Fault\n"
             "[10001.000000] NVRM: Xid (PCI:0000:98:00): 43, pid=1, Ch 00000010\n");
    char *dir = temp_dir();
    char *log = write_temp_file(dir, "long.log", text);
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", smi(), "--from", log, NULL}, env);
    assert_non_null(r.json);
    json_t *x = finding(r.json, "health.xid", 1);
    assert_string_equal(severity(x), "critical");
    json_t *ev = json_object_get(x, "evidence");
    assert_int_equal(json_integer_value(json_object_get(ev, "events")), 301);
    size_t i;
    json_t *row;
    int seen = 0;
    json_array_foreach(json_object_get(ev, "xids"), i, row)
    {
        int xid = (int)json_integer_value(json_object_get(row, "xid"));
        json_int_t n = json_integer_value(json_object_get(row, "count"));
        if (xid == 13) {
            assert_int_equal(n, 300);
            /* the newest examples, newest first */
            json_t *newest = json_object_get(row, "newest");
            assert_true(json_array_size(newest) >= 1);
            assert_non_null(strstr(json_string_value(json_object_get(json_array_get(newest, 0), "message")),
                                   "Graphics Exception 299"));
            assert_string_equal(json_string_value(json_object_get(row, "first_seen")), "100.000000 s after boot");
            seen |= 1;
        } else if (xid == 79) {
            assert_int_equal(n, 1);
            seen |= 2;
        }
    }
    assert_int_equal(seen, 3);
    assert_int_equal(count_findings(r.json, "health.xid", -1), 2);
    bool a99 = false, a98 = false;
    json_array_foreach(json_object_get(r.json, "findings"), i, x)
    {
        const char *t = json_string_value(json_object_get(x, "title"));
        if (!json_is_null(json_object_get(x, "gpu")) ||
            strcmp(json_string_value(json_object_get(x, "id")), "health.xid"))
            continue;
        a99 |= strstr(t, "PCI 0000:99:00") && strstr(t, "Xid 31") && strstr(t, "no GPU of this report");
        a98 |= strstr(t, "PCI 0000:98:00") && strstr(t, "Xid 43");
        if (strstr(t, "no GPU listed there now"))
            fail_msg("title reads as if the GPU vanished: %s", t);
    }
    if (!a99 || !a98)
        fail_msg("the two unmatched addresses are not kept apart: %s", r.out);
    tool_result_free(&r);
    /* The log alone: the title says the capture has no GPU list. */
    r = run_tool((const char *[]){"check", "--json", "--from", log, NULL}, env);
    assert_non_null(strstr(r.out, "PCI 0000:99:00 (the capture has no GPU list"));
    tool_result_free(&r);
    free(log);
    free(text);
    remove_tree(dir);
    free(dir);
}

/* The driver's word of a lost GPU without an Xid: health.gpu_lost, critical, with the address. */
static void gpu_lost_without_an_xid(void **state)
{
    (void)state;
    need_realdata();
    static const struct {
        const char *log;
        int gpu; /* -1: host-wide */
        const char *says;
    } cases[] = {
        {"[ 1843.308145] NVRM: The NVIDIA GPU 0000:3b:00.0\n"
         "               NVRM: (PCI ID: 10de:2330) installed in this system has\n"
         "               NVRM: fallen off the bus and is not responding to commands.\n"
         "[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).\n",
         1, "fell off the bus"},
        {"Mar 05 10:00:00 node07 kernel: NVRM: The NVIDIA GPU 0000:db:00.0\n"
         "Mar 05 10:00:00 node07 kernel: NVRM: (PCI ID: 10de:2330) installed in this system has\n"
         "Mar 05 10:00:00 node07 kernel: NVRM: fallen off the bus and is not responding to commands.\n",
         7, "fell off the bus"},
        {"6,1042,8462102,-;NVRM: The NVIDIA GPU 0000:9b:00.0\\x0aNVRM: (PCI ID: 10de:2330) installed in this system "
         "has\\x0aNVRM: fallen off the bus and is not responding to commands.\n",
         4, "fell off the bus"},
        {"[   65.315792] NVRM: GPU 0000:4c:00.0: GPU has fallen off the bus.\n", 2, "fell off the bus"},
        {"2024-03-05T10:00:00,123456+00:00 NVRM: GPU 0000:4c:00.0: RmInitAdapter failed! (0x24:0x65:1185)\n"
         "2024-03-05T10:00:00,123500+00:00 NVRM: GPU 0000:4c:00.0: rm_init_adapter failed, device minor number 2\n",
         2, "RmInitAdapter failed"},
        {"[    8.6] nvidia 0000:5d:00.0: probe of 0000:5d:00.0 failed with error -1\n", 3, "probe"},
        {"[    8.6] NVRM: The NVIDIA probe routine failed for 1 device(s).\n", -1, "probe"},
        {"[    8.6] NVRM: GPU 0000:77:00.0: RmInitAdapter failed! (0x25:0x65:1468)\n", -1, "PCI 0000:77:00.0"},
    };
    char *dir = temp_dir();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *log = write_temp_file(dir, "lost.log", cases[c].log);
        tool_result r = run_tool((const char *[]){"check", "--json", "--from", smi(), "--from", log, NULL}, env);
        json_t *x = r.json ? finding(r.json, "health.gpu_lost", cases[c].gpu) : NULL;
        if (!x || strcmp(severity(x), "critical") != 0 ||
            !strstr(json_string_value(json_object_get(x, "title")), cases[c].says) || r.exit_code != 2)
            fail_msg("case %zu: health.gpu_lost on %d is %s (exit %d): %s", c, cases[c].gpu, severity(x), r.exit_code,
                     r.out);
        assert_int_equal(count_findings(r.json, "health.gpu_lost", -2), 1);
        tool_result_free(&r);
        free(log);
    }
    remove_tree(dir);
    free(dir);
}

/* The row of Xid `xid` in the health.xid finding of the only address of a log alone; NULL when none. */
static json_t *xid_row(json_t *report, int xid)
{
    json_t *x = finding(report, "health.xid", -1), *row;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(x, "evidence"), "xids"), i, row)
    {
        if (json_integer_value(json_object_get(row, "xid")) == xid)
            return row;
    }
    return NULL;
}

/* Real captures count faults, not lines: the driver prints one Xid 13 over
 * one to three lines per SM it hit, an Xid 94 over its contained line and
 * one line per channel, an Xid 45 once per channel torn down. */
static void xids_count_faults_not_lines(void **state)
{
    (void)state;
    need_realdata();
    static const struct {
        const char *log;
        int xid;
        json_int_t events, lines;
    } cases[] = {
        /* Nine bursts of Xid 13 (R550, pid '<unknown>'), seven closed by an Xid 43. */
        {"logs/xid13-xid43-app-fault-flood-dmesg-decode-iso-gpud.log", 13, 9, 629},
        {"logs/xid13-xid43-app-fault-flood-dmesg-decode-iso-gpud.log", 43, 7, 7},
        /* A DBE, its row remap, and the contained error with its eight channels. */
        {"logs/xid48-dbe-xid63-remap-xid94-contained-dmesg-iso-gpud.log", 94, 1, 9},
        {"logs/xid48-dbe-xid63-remap-xid94-contained-dmesg-iso-gpud.log", 48, 1, 1},
        /* R430 in syslog: three faults of three processes over 361 lines; the teardowns after them, per process. */
        {"logs/rtx2080ti-x4-xid13-31-32-45-62-kernlog-syslog-bugreport-toolman.log", 13, 3, 361},
        {"logs/rtx2080ti-x4-xid13-31-32-45-62-kernlog-syslog-bugreport-toolman.log", 45, 4, 29},
        {"logs/rtx2080ti-x4-xid13-31-32-45-62-kernlog-syslog-bugreport-toolman.log", 32, 2, 6},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tool_result r = run_tool((const char *[]){"check", "--json", "--from", realdata(cases[c].log), NULL}, env);
        json_t *row = r.json ? xid_row(r.json, cases[c].xid) : NULL;
        if (!row || json_integer_value(json_object_get(row, "count")) != cases[c].events ||
            json_integer_value(json_object_get(row, "lines")) != cases[c].lines)
            fail_msg("%s: Xid %d counts %lld events in %lld lines, want %lld in %lld", cases[c].log, cases[c].xid,
                     row ? (long long)json_integer_value(json_object_get(row, "count")) : -1LL,
                     row ? (long long)json_integer_value(json_object_get(row, "lines")) : -1LL,
                     (long long)cases[c].events, (long long)cases[c].lines);
        tool_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_log_format_feeds_xid_and_aer),
        cmocka_unit_test(clean_log_stays_quiet),
        cmocka_unit_test(log_alone_and_bad_logs),
        cmocka_unit_test(nvswitch_sxids),
        cmocka_unit_test(every_timestamp_style_reads_the_same),
        cmocka_unit_test(every_xid_counted_however_long_the_log),
        cmocka_unit_test(gpu_lost_without_an_xid),
        cmocka_unit_test(xids_count_faults_not_lines),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
