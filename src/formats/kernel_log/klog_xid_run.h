/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which Xid lines are one event. The driver prints one fault as a burst of
 * "NVRM: Xid (PCI:...): N, ..." lines on that GPU, every one of them with
 * the Xid's number: an Xid 13 one line per SM that saw it ("Graphics SM
 * Warp Exception on (GPC 0, TPC 0, SM 0)", "Graphics SM Global
 * Exception", "Graphics Exception: ESR ..."), an Xid 94 its "Contained:
 * SM (0x1)" line and one line per channel it stopped ("Ch 00000008"), an
 * Xid 45 one line per channel it tears down, an Xid 119 one line per RPC
 * that timed out. Counting lines made two faults "5 times".
 *
 * A line continues the event of the last line of its Xid on its address
 * when it names no other process (a pid both lines give and that differs
 * is another fault; '<unknown>' is none) and comes within
 * GD_XID_EVENT_GAP_S of it by the log's own clock (on the same day as
 * written). A fault may print another Xid in the middle (R430's Xid 13
 * printed an Xid 62 between its SM lines and its summary line), so lines
 * of other Xids or addresses in between do not matter. Without a clock in
 * the log (dmesg -t, bare messages) only lines in a row on that address
 * are one event.
 */
#ifndef GD_KLOG_XID_RUN_H
#define GD_KLOG_XID_RUN_H

#include "gpudoctor/stack.h"

#include <stdbool.h>
#include <stddef.h>

/* The most time between two lines of one fault: a burst prints in
 * milliseconds (an 8-GPU Xid 94 in 0.2 s, a teardown's Xid 45 lines 0.5 s
 * apart at most in the captures), and a log written to the second
 * (journalctl's short form) can put them a second apart. */
#define GD_XID_EVENT_GAP_S 2.0

/* (Address, Xid) pairs whose last line is remembered; past that the
 * oldest is forgotten (its next line then starts an event: counted, never
 * lost). */
#define GD_XID_RUN_SLOTS 64

typedef struct gd_xid_last {
    char pci[32];
    int xid;
    size_t seq; /* the line's place among all Xid lines (1, 2, ...) */
    long pid; /* 0: not given or '<unknown>' */
    bool timed; /* day and sec hold the line's time */
    char day[48]; /* the timestamp without its time of day ("Nov 15 ", "2024-03-05T...+00:00") */
    double sec; /* seconds: of the day, or since boot where the log counts those */
} gd_xid_last;

typedef struct gd_xid_runs {
    size_t count, next; /* next: the slot a new pair takes when all are used */
    size_t seq; /* Xid lines seen */
    gd_xid_last last[GD_XID_RUN_SLOTS];
} gd_xid_runs;

/* True when ev (a parsed Xid line) is one more line of the event that an
 * earlier line of its Xid on its address began; ev becomes that pair's
 * last line either way. r starts zeroed. */
bool gd_xid_runs_continues(gd_xid_runs *r, const gd_xid_event *ev);

/* The time of a kernel log timestamp as gd_klog_split writes it: its time
 * of day ("10:00:00", "02:21:33,498559") and the rest as written into day,
 * or seconds since boot ("7613.977829") with day "". False when it holds
 * neither (no timestamp, a delta since the line before). */
bool gd_klog_when_seconds(const char *when, char *day, size_t dlen, double *sec);

#endif
