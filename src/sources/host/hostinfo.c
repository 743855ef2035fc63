/* SPDX-License-Identifier: Apache-2.0 */
/* Host facts from uname, sysconf and sysfs; small /proc readers. */
#include "hostinfo.h"
#include "core/input.h"
#include "core/strf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

static int count_numa_nodes(const char *sysfs_root)
{
    char path[512];
    snprintf(path, sizeof path, "%s/devices/system/node", sysfs_root ? sysfs_root : "/sys");
    DIR *dir = opendir(path);
    if (!dir)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL)
        if (strncmp(e->d_name, "node", 4) == 0 && isdigit((unsigned char)e->d_name[4]))
            n++;
    closedir(dir);
    return n;
}

void gd_host_read(const char *sysfs_root, gd_host *h)
{
    memset(h, 0, sizeof *h);
    if (gethostname(h->hostname, sizeof h->hostname - 1) != 0)
        h->hostname[0] = '\0'; /* unknown */
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(h->kernel, sizeof h->kernel, "%s", u.release);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    h->cpus = cpus > 0 ? (int)cpus : 0;
    h->numa_nodes = count_numa_nodes(sysfs_root);
}

bool gd_cpu_times_parse(const char *text, gd_cpu_times *t)
{
    unsigned long long x[8] = {0};
    int n = sscanf(text, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &x[0], &x[1], &x[2], &x[3], &x[4], &x[5], &x[6],
                   &x[7]);
    if (n < 5)
        return false;
    unsigned long long total = 0;
    for (int k = 0; k < n; k++)
        total += x[k];
    t->total = (double)total;
    t->iowait = (double)x[4];
    t->busy = (double)(total - x[3] - x[4]);
    return true;
}

void gd_proc_file_init(gd_proc_file *pf, const char *root, const char *name)
{
    pf->fd = -1;
    gd_strf(pf->path, sizeof pf->path, "%s/%s", root, name);
}

long gd_proc_file_read(gd_proc_file *pf, char *buf, size_t cap)
{
    if (pf->fd < 0) {
        pf->fd = open(pf->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        struct statfs fs;
        if (pf->fd >= 0 && (fstatfs(pf->fd, &fs) != 0 || fs.f_type != PROC_SUPER_MAGIC)) {
            ssize_t n = read(pf->fd, buf, cap - 1);
            gd_proc_file_close(pf); /* not procfs: read once, as it is now */
            if (n < 0)
                return -1;
            buf[n] = '\0';
            return (long)n;
        }
    }
    ssize_t n = pf->fd >= 0 ? pread(pf->fd, buf, cap - 1, 0) : -1;
    if (n < 0) {
        gd_proc_file_close(pf); /* opened again next time */
        return -1;
    }
    buf[n] = '\0';
    return (long)n;
}

void gd_proc_file_close(gd_proc_file *pf)
{
    if (pf->fd >= 0)
        close(pf->fd);
    pf->fd = -1;
}

long gd_proc_read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    int e = errno;
    close(fd);
    if (n < 0) {
        errno = e;
        return -1;
    }
    buf[n] = '\0';
    return (long)n;
}

double gd_proc_field_after(const char *text, const char *key)
{
    const char *p = text;
    size_t k = strlen(key);
    while ((p = strstr(p, key))) {
        if (p == text || p[-1] == '\n') {
            char *end;
            double v = strtod(p + k, &end);
            return end == p + k ? NAN : v;
        }
        p += k;
    }
    return NAN;
}
