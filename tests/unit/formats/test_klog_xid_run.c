/* SPDX-License-Identifier: Apache-2.0 */
/* Xid events, not Xid lines (src/formats/kernel_log/klog_xid_run.c): the
 * driver prints one fault over several "NVRM: Xid" lines, in the shapes of
 * the real captures (../shared/realdata/logs: R430's per-SM Xid 13 lines
 * with a pid, R535+'s with pid '<unknown>', an Xid 94's contained line and
 * its channels, an Xid 45 per channel torn down). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "formats/kernel_log/klog_facts.h"
#include "formats/kernel_log/klog_xid_run.h"
#include "gpudoctor/model.h"
#include "gpudoctor/stack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The (Xid, address) group of a log, NULL when none. */
static const gd_xid_group *group(const gd_stack_facts *s, int xid, const char *pci)
{
    for (size_t i = 0; i < s->xid_group_count; i++)
        if (s->xid_groups[i].xid == xid && strcmp(s->xid_groups[i].pci, pci) == 0)
            return &s->xid_groups[i];
    return NULL;
}

/* Events and lines of one Xid on one address after reading text. */
static void counts(const char *text, int xid, const char *pci, size_t events, size_t lines)
{
    gd_facts f;
    memset(&f, 0, sizeof f);
    gd_stack_facts *s = calloc(1, sizeof *s);
    assert_non_null(s);
    gd_klog_take_text(s, &f, text, strlen(text));
    const gd_xid_group *g = group(s, xid, pci);
    if (!g)
        fail_msg("no Xid %d on %s in:\n%s", xid, pci, text);
    if (g->count != events || g->lines != lines)
        fail_msg("Xid %d on %s: %zu events in %zu lines, want %zu in %zu, in:\n%s", xid, pci, g->count, g->lines,
                 events, lines, text);
    /* The examples are the events' first lines. */
    assert_int_equal(g->example_count, events < GD_XID_EXAMPLES ? events : GD_XID_EXAMPLES);
    free(s);
}

/* R535 and later: two faults 23 minutes apart, each three lines per SM and
 * followed by the Xid 43 of the stopped channel. */
static void two_xid13_faults_are_two_events(void **state)
{
    (void)state;
    const char *log =
        "kern  :warn  : 2025-01-21T02:21:33,498559+00:00 NVRM: Xid (PCI:0000:38:00): 13, pid='<unknown>', "
        "name=<unknown>, Graphics SM Warp Exception on (GPC 8, TPC 5, SM 0): Out Of Range Address\n"
        "kern  :warn  : 2025-01-21T02:21:33,498648+00:00 NVRM: Xid (PCI:0000:38:00): 13, pid='<unknown>', "
        "name=<unknown>, Graphics SM Global Exception on (GPC 8, TPC 5, SM 0): Multiple Warp Errors\n"
        "kern  :warn  : 2025-01-21T02:21:33,498749+00:00 NVRM: Xid (PCI:0000:38:00): 13, pid='<unknown>', "
        "name=<unknown>, Graphics Exception: ESR 0x546f30=0x124000e 0x546f34=0x24\n"
        "kern  :warn  : 2025-01-21T02:21:33,502278+00:00 NVRM: Xid (PCI:0000:38:00): 43, pid=2815167, "
        "name=pt_main_thread, Ch 00000008\n"
        "kern  :warn  : 2025-01-21T02:44:00,563375+00:00 NVRM: Xid (PCI:0000:38:00): 13, pid='<unknown>', "
        "name=<unknown>, Graphics SM Warp Exception on (GPC 2, TPC 0, SM 0): Out Of Range Address\n"
        "kern  :warn  : 2025-01-21T02:44:00,563475+00:00 NVRM: Xid (PCI:0000:38:00): 13, pid='<unknown>', "
        "name=<unknown>, Graphics SM Global Exception on (GPC 2, TPC 0, SM 0): Multiple Warp Errors\n"
        "kern  :warn  : 2025-01-21T02:44:00,566421+00:00 NVRM: Xid (PCI:0000:38:00): 43, pid=2823801, "
        "name=pt_main_thread, Ch 00000008\n";
    counts(log, 13, "0000:38:00", 2, 5);
    counts(log, 43, "0000:38:00", 2, 2);
}

/* R430 in syslog (times to the second, the kernel's own beside them): one
 * fault's per-SM lines and its summary, the Xid 62 of another process, and
 * the channels torn down after it, process by process. */
static void old_driver_fault_and_teardown(void **state)
{
    (void)state;
    const char *log =
        "Nov 15 12:43:10 node kernel: [ 7613.977829] NVRM: GPU at PCI:0000:03:00: GPU-cdf24e17\n"
        "Nov 15 12:43:10 node kernel: [ 7613.977835] NVRM: GPU Board Serial Number: \n"
        "Nov 15 12:43:10 node kernel: [ 7613.977841] NVRM: Xid (PCI:0000:03:00): 13, pid=10635, Graphics SM Warp "
        "Exception on (GPC 0, TPC 0, SM 0): Illegal Instruction Encoding\n"
        "Nov 15 12:43:10 node kernel: [ 7613.977856] NVRM: Xid (PCI:0000:03:00): 13, pid=10635, Graphics Exception: "
        "ESR 0x504730=0x100009 0x504734=0x0\n"
        "Nov 15 12:43:10 node kernel: [ 7613.986569] NVRM: Xid (PCI:0000:03:00): 13, pid=10635, Graphics Exception: "
        "ChID 0010, Class 0000c5c0, Offset 00000000, Data 00000000\n"
        "Nov 15 12:43:10 node kernel: [ 7613.989904] NVRM: Xid (PCI:0000:03:00): 62, pid=10839, 0cb5(2d50) 00000000\n"
        "Nov 15 12:43:13 node kernel: [ 7616.478818] NVRM: Xid (PCI:0000:03:00): 45, pid=10839, Ch 00000000\n"
        "Nov 15 12:43:13 node kernel: [ 7616.483934] NVRM: Xid (PCI:0000:03:00): 45, pid=10635, Ch 00000001\n"
        "Nov 15 12:43:13 node kernel: [ 7616.489015] NVRM: Xid (PCI:0000:03:00): 45, pid=10635, Ch 00000002\n"
        "Nov 15 12:43:14 node kernel: [ 7617.081854] NVRM: Xid (PCI:0000:03:00): 45, pid=10635, Ch 0000001c\n"
        "Nov 15 12:43:14 node kernel: [ 7617.586798] NVRM: Xid (PCI:0000:03:00): 45, pid=10635, Ch 0000001d\n";
    counts(log, 13, "0000:03:00", 1, 3);
    counts(log, 62, "0000:03:00", 1, 1);
    counts(log, 45, "0000:03:00", 2, 5); /* two processes' channels */
    /* The same driver may print the micro-controller's halt inside the fault. */
    counts("Nov 15 14:05:01 node kernel: [  526.773186] NVRM: Xid (PCI:0000:03:00): 13, pid=3074, Graphics SM Warp "
           "Exception on (GPC 1, TPC 0, SM 0): Illegal Instruction Encoding\n"
           "Nov 15 14:05:01 node kernel: [  526.773209] NVRM: Xid (PCI:0000:03:00): 13, pid=3074, Graphics Exception: "
           "ESR 0x50c730=0x50009\n"
           "Nov 15 14:05:01 node kernel: [  526.776336] NVRM: Xid (PCI:0000:03:00): 62, pid=3074, 0cb5(2d50) 00000000\n"
           "Nov 15 14:05:02 node kernel: [  527.272514] NVRM: Xid (PCI:0000:03:00): 13, pid=3074, Graphics Exception: "
           "ChID 0010, Class 0000c5c0, Offset 00000000, Data 00000000\n",
           13, "0000:03:00", 1, 3);
}

/* An Xid 94: the contained line names no process, its channels do. */
static void contained_error_and_its_channels(void **state)
{
    (void)state;
    const char *log =
        "2024-11-15T12:02:03,470068+00:00 NVRM: Xid (PCI:0000:19:00): 48, pid='<unknown>', name=<unknown>, An "
        "uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer\n"
        "2024-11-15T12:02:03,506595+00:00 NVRM: Xid (PCI:0000:19:00): 94, pid='<unknown>', name=<unknown>, "
        "Contained: SM (0x1). RST: No, D-RST: No\n"
        "2024-11-15T12:02:03,521616+00:00 NVRM: Xid (PCI:0000:19:00): 94, pid=1248209, name=python3.10, Ch 00000008\n"
        "2024-11-15T12:02:03,552642+00:00 NVRM: Xid (PCI:0000:19:00): 94, pid=1248209, name=python3.10, Ch 00000009\n"
        "2024-11-15T12:02:03,638794+00:00 NVRM: Xid (PCI:0000:19:00): 94, pid=1248209, name=python3.10, Ch 0000000f\n";
    counts(log, 94, "0000:19:00", 1, 4);
    counts(log, 48, "0000:19:00", 1, 1);
}

/* Faults that are not one: other processes a second apart, a gap past
 * GD_XID_EVENT_GAP_S, another day at the same hour, a reboot (the kernel's
 * clock starts again), and, in a log without a clock, another Xid between
 * two lines. */
static void separate_faults_stay_separate(void **state)
{
    (void)state;
    counts("[  100.000000] NVRM: Xid (PCI:0000:3b:00): 13, pid=4000, Graphics Exception 0\n"
           "[  101.000000] NVRM: Xid (PCI:0000:3b:00): 13, pid=4001, Graphics Exception 1\n",
           13, "0000:3b:00", 2, 2);
    counts("Mar 05 10:00:00 node kernel: NVRM: Xid (PCI:0000:3b:00): 119, pid='<unknown>', name=<unknown>, Timeout\n"
           "Mar 05 10:00:01 node kernel: NVRM: Xid (PCI:0000:3b:00): 119, pid='<unknown>', name=<unknown>, Timeout\n"
           "Mar 05 10:00:09 node kernel: NVRM: Xid (PCI:0000:3b:00): 119, pid='<unknown>', name=<unknown>, Timeout\n"
           "Mar 06 10:00:09 node kernel: NVRM: Xid (PCI:0000:3b:00): 119, pid='<unknown>', name=<unknown>, Timeout\n",
           119, "0000:3b:00", 3, 4);
    counts("[ 8000.000000] NVRM: Xid (PCI:0000:3b:00): 31, pid=7, MMU Fault\n"
           "[    5.000000] NVRM: Xid (PCI:0000:3b:00): 31, pid=7, MMU Fault\n",
           31, "0000:3b:00", 2, 2);
    counts("NVRM: Xid (PCI:0000:3b:00): 13, pid='<unknown>', Graphics SM Warp Exception\n"
           "NVRM: Xid (PCI:0000:3b:00): 13, pid='<unknown>', Graphics Exception: ESR\n"
           "NVRM: Xid (PCI:0000:3b:00): 43, pid=9, Ch 00000008\n"
           "NVRM: Xid (PCI:0000:3b:00): 13, pid='<unknown>', Graphics SM Warp Exception\n",
           13, "0000:3b:00", 2, 3);
}

/* Eight GPUs fault at once: their lines interleave, each address its own events. */
static void gpus_interleaved(void **state)
{
    (void)state;
    const char *log = "[Fri Aug  9 13:32:56 2024] NVRM: Xid (PCI:0000:00:08): 94, pid='<unknown>', Contained: SM\n"
                      "[Fri Aug  9 13:32:56 2024] NVRM: Xid (PCI:0000:00:07): 94, pid='<unknown>', Contained: SM\n"
                      "[Fri Aug  9 13:32:56 2024] NVRM: Xid (PCI:0000:00:08): 94, pid=12, Ch 00000008\n"
                      "[Fri Aug  9 13:32:56 2024] NVRM: Xid (PCI:0000:00:07): 94, pid=13, Ch 00000008\n";
    counts(log, 94, "0000:00:08", 1, 2);
    counts(log, 94, "0000:00:07", 1, 2);
}

/* The time in each timestamp style gd_klog_split leaves. */
static void timestamps_in_seconds(void **state)
{
    (void)state;
    char day[48];
    double sec = NAN;
    assert_true(gd_klog_when_seconds("7613.977829", day, sizeof day, &sec));
    assert_float_equal(sec, 7613.977829, 1e-6);
    assert_string_equal(day, "");
    assert_true(gd_klog_when_seconds("2025-01-21T02:21:33,498559+00:00", day, sizeof day, &sec));
    assert_float_equal(sec, 2 * 3600 + 21 * 60 + 33.498559, 1e-6);
    assert_string_equal(day, "2025-01-21T|+00:00");
    assert_true(gd_klog_when_seconds("Wed Jul 31 23:14:18 2024", day, sizeof day, &sec));
    assert_float_equal(sec, 23 * 3600 + 14 * 60 + 18, 1e-9);
    assert_string_equal(day, "Wed Jul 31 | 2024");
    assert_true(gd_klog_when_seconds("Mar 05 10:00:00.123456", day, sizeof day, &sec));
    assert_float_equal(sec, 36000.123456, 1e-6);
    assert_true(gd_klog_when_seconds("Tue 2024-03-05 9:05:07 UTC", day, sizeof day, &sec));
    assert_float_equal(sec, 9 * 3600 + 5 * 60 + 7, 1e-9);
    assert_false(gd_klog_when_seconds("", day, sizeof day, &sec));
    assert_false(gd_klog_when_seconds("+0.000123", day, sizeof day, &sec)); /* a delta since the line before */
    assert_false(gd_klog_when_seconds("<    0.000123", day, sizeof day, &sec));
    assert_false(gd_klog_when_seconds("Mar 5 10:00", day, sizeof day, &sec));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_xid13_faults_are_two_events),
        cmocka_unit_test(old_driver_fault_and_teardown),
        cmocka_unit_test(contained_error_and_its_channels),
        cmocka_unit_test(separate_faults_stay_separate),
        cmocka_unit_test(gpus_interleaved),
        cmocka_unit_test(timestamps_in_seconds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
