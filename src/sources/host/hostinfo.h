/* SPDX-License-Identifier: Apache-2.0 */
/* Host facts: name, kernel, CPUs, NUMA nodes. */
#ifndef GD_HOSTINFO_H
#define GD_HOSTINFO_H

#include "gpudoctor/model.h"

#include <stdbool.h>
#include <stddef.h>

/* Reads the host's facts; NUMA nodes are counted under sysfs_root ("/sys" normally). */
void gd_host_read(const char *sysfs_root, gd_host *h);

/* The host's CPU time since boot, from the first line of /proc/stat (jiffies):
 * all of user nice system idle iowait irq softirq steal, the busy part (all
 * but idle and iowait), and iowait. Shares come from two readings' deltas. */
typedef struct gd_cpu_times {
    double total, busy, iowait;
} gd_cpu_times;

/* Reads ROOT/stat (proc_root: "/proc" or a fixture tree); false when it has no
 * "cpu" line with at least 5 fields. A FIFO there cannot hang (gd_input_fopen). */
bool gd_cpu_times_read(const char *proc_root, gd_cpu_times *t);

/* A small /proc file into buf (NUL-terminated); its length, or -1. O_NONBLOCK:
 * a FIFO in a fixture tree cannot hang. */
long gd_proc_read_small(const char *path, char *buf, size_t cap);

/* The number after "key" at the start of a line of text (a status or vmstat
 * line), or NaN. */
double gd_proc_field_after(const char *text, const char *key);

#endif
