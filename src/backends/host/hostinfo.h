/* Host facts: name, kernel, CPUs, NUMA nodes. */
#ifndef GD_HOSTINFO_H
#define GD_HOSTINFO_H

#include "gpudoctor/model.h"

/* Reads the host's facts; NUMA nodes are counted under sysfs_root ("/sys" normally). */
void gd_host_read(const char *sysfs_root, gd_host *h);

#endif
