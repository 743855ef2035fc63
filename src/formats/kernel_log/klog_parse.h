/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kernel log lines: the timestamp styles of dmesg and journalctl, and the
 * events in a line (Xid, SXid, PCIe AER, a GPU that fell off the bus).
 * Pure functions over buffers (no I/O), unit-tested and fuzzed directly.
 * Inputs need not be NUL-terminated; outputs are always NUL-terminated.
 */
#ifndef GD_KLOG_PARSE_H
#define GD_KLOG_PARSE_H

#include "gpudoctor/stack.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The timestamp style of a kernel log line (klog_line.c has examples of each). */
typedef enum gd_klog_style {
    GD_KLOG_NONE, /* no timestamp: dmesg -t, a continuation line, a pasted message */
    GD_KLOG_MONOTONIC, /* [    5.123456] */
    GD_KLOG_CTIME, /* [Tue Mar  5 10:00:00 2024] (dmesg -T) */
    GD_KLOG_ISO, /* 2024-03-05T10:00:00,123456+00:00 (dmesg --time-format iso) */
    GD_KLOG_RELTIME, /* [Mar 5 10:00], [  +0.000123] (dmesg -e) */
    GD_KLOG_DELTA, /* [<    0.000123>], [    5.123456 <    0.000123>] */
    GD_KLOG_DECODE, /* "kern  :warn  : " and no timestamp (dmesg -x -t) */
    GD_KLOG_JOURNAL, /* journalctl -k: short, short-precise, short-iso, short-monotonic, short-full, short-unix */
    GD_KLOG_KMSG, /* /dev/kmsg: "prio,seq,usec,flags;" */
} gd_klog_style;

typedef struct gd_klog_line {
    gd_klog_style style;
    char when[48]; /* the timestamp as written (journal: without the host), "" when none */
    bool when_unread; /* a timestamp, but not one read as a date (a month in another language: "11月 16") */
    const char *msg; /* the message, inside the line */
    size_t msg_len;
} gd_klog_line;

/* Splits a kernel log line (any style above, after any "kern  :warn  : "
 * facility prefix of dmesg --decode or "<4>" of dmesg -r) into its
 * timestamp and its message (leading blanks skipped). Returns true when a
 * timestamp style or a facility prefix was recognised; the message is set
 * either way. */
bool gd_klog_split(const char *line, size_t len, gd_klog_line *out);

/*
 * One kernel log line with an Xid, in any of the forms it reaches us:
 *   [ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.
 *   [Tue Mar  5 10:00:00 2024] NVRM: Xid (PCI:0000:18:00): 119, pid='<unknown>', name=<unknown>, ...
 *   Mar 05 10:00:00 host kernel: NVRM: Xid (0000:01:00): 13, ...        (journalctl -k, old drivers)
 *   4,1234,5678901,-;NVRM: Xid (PCI:0000:3b:00 GPU-I:05): 43, ...      (/dev/kmsg, MIG)
 * Fills ev (gpu = -1). Returns false for any other line.
 */
bool gd_xid_line_parse(const char *line, size_t len, gd_xid_event *ev);

/*
 * One kernel log line with an NVSwitch error (SXid), any prefix as above:
 *   nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error (First)
 *   nvidia-nvswitch3: SXid (PCI:0000:08:00.0): 20034, Fatal, Link 30 LTSSM Fault Up
 * Returns 1 for an event (ev filled), 2 for one of its detail lines
 * ("..., Severity 1 Engine instance 30 ...", "..., Data {0x...}": ev filled,
 * not a new event), 0 for any other line.
 */
int gd_sxid_line_parse(const char *line, size_t len, gd_sxid_event *ev);

/*
 * One kernel log line with a PCIe AER error message, as the kernel's AER
 * driver prints it for the port that received it (any prefix as above):
 *   pcieport 0000:3a:00.0: AER: Corrected error received: 0000:3b:00.0
 *   pcieport 0000:3a:00.0: AER: Uncorrected (Non-Fatal) error received: 0000:3b:00.0
 *   pcieport 0000:3a:00.0: AER: Multiple Uncorrected (Fatal) error received: 0000:3b:00.0
 *   pcieport 0000:3a:00.0: AER: Correctable error message received from 0000:3b:00.0   (Linux 6.x)
 *   pcieport 0000:00:03.0: AER: Corrected error received: id=0018                      (Linux < 4.16)
 * The detail lines that follow ("PCIe Bus Error: severity=...") describe the
 * same event and are not counted again. Fills ev; false for any other line.
 */
bool gd_aer_line_parse(const char *line, size_t len, gd_aer_event *ev);

/* What an NVIDIA driver message without an Xid says of a GPU (the open
 * kernel module's and older drivers' wording, kernel-open/nvidia/nv.c and
 * nv-pci.c):
 *   NVRM: The NVIDIA GPU 0000:b3:00.0                          GD_FATAL_HEADER (a message follows)
 *   NVRM: (PCI ID: 10de:26b5) installed in this system has
 *   NVRM: fallen off the bus and is not responding to commands.  GD_FATAL_OFF_BUS
 *   NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.         GD_FATAL_OFF_BUS
 *   NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x24:...)    GD_FATAL_INIT
 *   NVRM: GPU 0000:02:00.0: rm_init_adapter failed, device ...  GD_FATAL_INIT
 *   nvidia: probe of 0000:02:00.0 failed with error -1          GD_FATAL_PROBE
 *   NVRM: The NVIDIA probe routine failed for 1 device(s).      GD_FATAL_PROBE (no address)
 * Xid lines (Xid 79 says "fallen off the bus" too) are not these. msg is a
 * message without its timestamp; pci gets the address it names ("" when
 * none). */
typedef enum gd_fatal_kind {
    GD_FATAL_NONE,
    GD_FATAL_HEADER,
    GD_FATAL_OFF_BUS,
    GD_FATAL_INIT,
    GD_FATAL_PROBE
} gd_fatal_kind;
gd_fatal_kind gd_gpu_fatal_parse(const char *msg, size_t len, char *pci, size_t plen);

/* A kind's words for a report ("fell off the bus"). */
const char *gd_fatal_kind_text(gd_fatal_kind k);

#endif
