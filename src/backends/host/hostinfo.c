/* Host facts from uname, sysconf and sysfs. */
#include "hostinfo.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
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
