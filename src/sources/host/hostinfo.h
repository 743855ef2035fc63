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

/* Parses the text of /proc/stat; false when it starts with no "cpu" line of
 * at least 5 fields. */
bool gd_cpu_times_parse(const char *text, gd_cpu_times *t);

/* A small /proc file into buf (NUL-terminated); its length, or -1. O_NONBLOCK:
 * a FIFO in a fixture tree cannot hang. */
long gd_proc_read_small(const char *path, char *buf, size_t cap);

/* A /proc file read again and again (a sampler's, once a second): kept
 * open where it is procfs, whose files are made afresh by each pread from 0
 * (one syscall where open, read, close were three); opened for each read
 * elsewhere (a fixture tree, whose files a test may replace). */
typedef struct gd_proc_file {
    int fd; /* -1: closed */
    char path[600];
} gd_proc_file;
void gd_proc_file_init(gd_proc_file *pf, const char *root, const char *name);
/* Into buf (NUL-terminated) as gd_proc_read_small; -1 when unreadable. */
long gd_proc_file_read(gd_proc_file *pf, char *buf, size_t cap);
void gd_proc_file_close(gd_proc_file *pf);

/* The number after "key" at the start of a line of text (a status or vmstat
 * line), or NaN. */
double gd_proc_field_after(const char *text, const char *key);

#endif
