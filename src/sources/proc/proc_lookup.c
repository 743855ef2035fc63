/* SPDX-License-Identifier: Apache-2.0 */
/* Single look-ups in /proc for the other sources: a process's name and
 * owner, the NVIDIA kernel module's version. */
#include "proc_lookup.h"
#include "core/input.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PROC/PID/comm: the process's name; empty when not readable. */
void gd_proc_comm(const char *proc_root, unsigned int pid, char *out, size_t len)
{
    out[0] = '\0';
    if (!proc_root[0])
        return;
    char path[600];
    snprintf(path, sizeof path, "%s/%u/comm", proc_root, pid);
    FILE *fp = gd_input_fopen(path);
    if (!fp)
        return;
    if (fgets(out, (int)len, fp))
        out[strcspn(out, "\n")] = '\0';
    fclose(fp);
}

/* A process's owner from PROC/PID/status (real uid): a user name where this
 * host knows the uid, else "uid N"; empty when not readable. NVML's process
 * list holds host pids: inside a container they may not be in our /proc. */
void gd_proc_owner(const char *proc_root, unsigned int pid, char *out, size_t len)
{
    out[0] = '\0';
    if (!proc_root[0])
        return;
    char path[600], line[256];
    snprintf(path, sizeof path, "%s/%u/status", proc_root, pid);
    FILE *fp = gd_input_fopen(path);
    if (!fp)
        return;
    long uid = -1;
    while (fgets(line, sizeof line, fp))
        if (strncmp(line, "Uid:", 4) == 0) {
            char *end;
            uid = strtol(line + 4, &end, 10);
            if (end == line + 4)
                uid = -1;
            break;
        }
    fclose(fp);
    if (uid < 0)
        return;
    struct passwd pw, *found = NULL;
    char buf[1024];
    if (getpwuid_r((uid_t)uid, &pw, buf, sizeof buf, &found) == 0 && found)
        snprintf(out, len, "%s", found->pw_name);
    else
        snprintf(out, len, "uid %ld", uid);
}

/* The kernel module's own version (nvidia-smi's "KMD Version"), from
 * PROC/driver/nvidia/version: "NVRM version: NVIDIA UNIX x86_64 Kernel Module
 * 610.57.04  ...". Empty when not readable. */
void gd_proc_kmd_version(const char *proc_root, char *out, size_t len)
{
    out[0] = '\0';
    if (!proc_root || !proc_root[0])
        return;
    char path[600], line[512];
    snprintf(path, sizeof path, "%s/driver/nvidia/version", proc_root);
    FILE *fp = gd_input_fopen(path);
    if (!fp)
        return;
    if (fgets(line, sizeof line, fp) && strncmp(line, "NVRM version:", 13) == 0) {
        const char *m = strstr(line, "Kernel Module");
        if (m) {
            m += strlen("Kernel Module");
            m += strspn(m, " \t");
            size_t n = strspn(m, "0123456789.");
            if (n > 0 && n < len)
                snprintf(out, len, "%.*s", (int)n, m);
        }
    }
    fclose(fp);
}
