/* SPDX-License-Identifier: Apache-2.0 */
/* A process of the job's tree from its /proc entry (proc_tree.h). */
#include "proc_tree.h"
#include "proc_parse.h"

#include "sources/host/hostinfo.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A whole small file (cmdline, environ) into a buffer; its length, 0 when unreadable. */
static size_t read_whole(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t len = 0;
    ssize_t n;
    while (len < cap && (n = read(fd, buf + len, cap - len)) > 0)
        len += (size_t)n;
    close(fd);
    return len;
}

void gd_proc_read_maps(const char *root, gd_job_proc *p)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%d/maps", root, p->pid);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return;
    }
    char line[1024];
    for (int k = 0; k < 100000 && fgets(line, sizeof line, f) && !(p->torch && p->cuda && p->torch_cuda); k++)
        gd_proc_parse_maps_line(line, p);
    fclose(f);
}

static void read_fds(const char *root, gd_job_proc *p)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%d/fd", root, p->pid);
    DIR *d = opendir(path);
    if (!d)
        return;
    /* What it held at any time in the window: a job that closes its devices
     * at exit still used them. */
    struct dirent *e;
    for (int k = 0; k < 65536 && (e = readdir(d)); k++) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char link[1024], target[256];
        snprintf(link, sizeof link, "%s/%s", path, e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        gd_proc_parse_fd_target(target, p);
    }
    closedir(d);
}

void gd_proc_identify(const char *root, gd_job_proc *p, unsigned parts)
{
    char path[600];
    static const size_t cap = 64 * 1024;
    char *buf = parts & (GD_PROC_CMDLINE | GD_PROC_ENVIRON) ? malloc(cap) : NULL;
    size_t n;
    snprintf(path, sizeof path, "%s/%d/cmdline", root, p->pid);
    if (buf && (parts & GD_PROC_CMDLINE) && (n = read_whole(path, buf, cap)) > 0)
        gd_proc_parse_cmdline(buf, n, p);
    snprintf(path, sizeof path, "%s/%d/environ", root, p->pid);
    if (buf && (parts & GD_PROC_ENVIRON) && (n = read_whole(path, buf, cap)) > 0)
        gd_proc_parse_environ(buf, n, p);
    free(buf);
    if (parts & GD_PROC_MAPS)
        gd_proc_read_maps(root, p);
    if (parts & GD_PROC_FDS)
        read_fds(root, p);
}

int gd_proc_gpu_minor(const char *root, const char *pci_bus_id)
{
    /* NVML's "00000000:18:00.0" is the driver's "0000:18:00.0", lower case. */
    char bus[32];
    const char *id = strlen(pci_bus_id) > 12 ? pci_bus_id + strlen(pci_bus_id) - 12 : pci_bus_id;
    size_t i = 0;
    for (; id[i] && i < sizeof bus - 1; i++)
        bus[i] = (char)tolower((unsigned char)id[i]);
    bus[i] = '\0';
    char path[700], text[4096];
    snprintf(path, sizeof path, "%s/driver/nvidia/gpus/%s/information", root, bus);
    if (gd_proc_read_small(path, text, sizeof text) <= 0)
        return -1;
    const char *m = strstr(text, "Device Minor:");
    if (!m)
        return -1;
    char *end;
    long v = strtol(m + 13, &end, 10);
    return end != m + 13 && v >= 0 && v < 64 ? (int)v : -1;
}
