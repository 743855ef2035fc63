/* SPDX-License-Identifier: Apache-2.0 */
/* Single look-ups in /proc (under proc_root; "" or NULL = nowhere): each
 * leaves out empty when it cannot tell. */
#ifndef GD_PROC_LOOKUP_H
#define GD_PROC_LOOKUP_H

#include <stddef.h>

/* PROC/PID/comm. */
void gd_proc_comm(const char *proc_root, unsigned int pid, char *out, size_t len);

/* The real uid of PROC/PID/status as a user name where this host knows it,
 * else "uid N". NVML's process list holds host pids: inside a container
 * they may not be in this /proc. */
void gd_proc_owner(const char *proc_root, unsigned int pid, char *out, size_t len);

/* The NVIDIA kernel module's version from PROC/driver/nvidia/version
 * (nvidia-smi's "KMD Version"). */
void gd_proc_kmd_version(const char *proc_root, char *out, size_t len);

#endif
