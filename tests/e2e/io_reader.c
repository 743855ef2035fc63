/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A real process blocked on disk reads, for gpudoctor run's input.io_wait
 * test: writes a 16 MiB file in DIR, syncs it, then reads it through
 * O_DIRECT (no page cache) in 1 MiB blocks for SECONDS from a disk whose
 * reads are capped at MIB_PER_S, as a cloud volume's are: the process joins
 * a cgroup of its own that caps its reads of the file's disk
 * (blkio.throttle.read_bps_device, or io.max under cgroup v2). Each read then
 * waits in the block layer (state D) about 1/MIB_PER_S seconds, whatever the
 * disk and the host's load. Uncapped, a fast disk serves 1 MiB in under a
 * millisecond, and on a busy host the reader waited longer for a CPU than
 * for the disk: whether it was seen in D was luck. Exits 77 when
 * the file system refuses O_DIRECT (tmpfs, some overlays), lies on no block
 * device, or no cap can be set (not root, no blkio or io controller).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_DIRECT */
#endif
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define BLOCK (1u << 20)
#define BLOCKS 16
#define CGROUP_V2 "/sys/fs/cgroup"
#define CGROUP_V1 "/sys/fs/cgroup/blkio"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Writes text to dir/name: 0, or -1 with errno. */
static int put(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    ssize_t n = write(fd, text, len);
    return close(fd) == 0 && n == (ssize_t)len ? 0 : -1;
}

/* "MAJ:MIN" of the disk under dir's file system: caps apply to whole disks, not partitions. */
static bool disk_of(const char *dir, char *dev, size_t len)
{
    struct stat sb;
    char sys[64], real[PATH_MAX], file[PATH_MAX + 16];
    if (stat(dir, &sb) != 0)
        return false;
    snprintf(sys, sizeof sys, "/sys/dev/block/%u:%u", major(sb.st_dev), minor(sb.st_dev));
    if (!realpath(sys, real)) /* tmpfs, an overlay, a btrfs subvolume */
        return false;
    snprintf(file, sizeof file, "%s/partition", real);
    if (access(file, F_OK) == 0)
        *strrchr(real, '/') = '\0'; /* a partition's disk is its parent in sysfs */
    snprintf(file, sizeof file, "%s/dev", real);
    FILE *f = fopen(file, "r");
    bool ok = f && fgets(dev, (int)len, f);
    if (f)
        fclose(f);
    if (ok)
        dev[strcspn(dev, "\n")] = '\0';
    return ok;
}

/* The cgroup this process is in (to go back to): root + its path in /proc/self/cgroup. */
static bool home_of(bool v2, const char *root, char *path, size_t len)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[1024];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f)) {
        char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (!b)
            continue;
        *b = '\0';
        if (v2) {
            found = strcmp(line, "0:") == 0;
        } else {
            for (char *c = strtok(a + 1, ","); c && !found; c = strtok(NULL, ","))
                found = strcmp(c, "blkio") == 0;
        }
        if (found) {
            b[1 + strcspn(b + 1, "\n")] = '\0';
            snprintf(path, len, "%s%s", root, strcmp(b + 1, "/") == 0 ? "" : b + 1);
        }
    }
    if (f)
        fclose(f);
    return found;
}

typedef struct cap {
    char dir[PATH_MAX], home[PATH_MAX];
} cap;

/* Joins a new cgroup that caps this process's reads of dir's disk at mib_s. */
static bool cap_reads(const char *dir, double mib_s, cap *c)
{
    char dev[32], text[96], pid[32];
    if (!disk_of(dir, dev, sizeof dev)) {
        fprintf(stderr, "io_reader: %s lies on no block device\n", dir);
        return false;
    }
    bool v2 = access(CGROUP_V2 "/cgroup.controllers", F_OK) == 0;
    const char *root = v2 ? CGROUP_V2 : CGROUP_V1;
    long long bps = (long long)(mib_s * BLOCK);
    snprintf(text, sizeof text, v2 ? "%s rbps=%lld\n" : "%s %lld\n", dev, bps);
    snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    snprintf(c->dir, sizeof c->dir, "%s/gpudoctor-io-%d", root, (int)getpid());
    if (!home_of(v2, root, c->home, sizeof c->home) || mkdir(c->dir, 0755) != 0) {
        fprintf(stderr, "io_reader: no cgroup under %s to cap reads in\n", root);
        return false;
    }
    if (put(c->dir, v2 ? "io.max" : "blkio.throttle.read_bps_device", text) != 0 ||
        put(c->dir, "cgroup.procs", pid) != 0) {
        perror("io_reader: capping reads");
        rmdir(c->dir);
        return false;
    }
    return true;
}

static void uncap(const cap *c)
{
    char pid[32];
    snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (put(c->home, "cgroup.procs", pid) != 0 || rmdir(c->dir) != 0)
        perror("io_reader: removing the cap's cgroup");
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: io_reader DIR SECONDS MIB_PER_S\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/io_reader.bin", argv[1]);
    double seconds = atof(argv[2]);
    void *buf;
    if (posix_memalign(&buf, 4096, BLOCK) != 0)
        return 1;
    memset(buf, 0x5a, BLOCK);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    for (int i = 0; fd >= 0 && i < BLOCKS; i++)
        if (write(fd, buf, BLOCK) != (ssize_t)BLOCK)
            return 1;
    if (fd < 0 || fsync(fd) != 0 || close(fd) != 0)
        return 1;
    fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
    cap c;
    if (fd < 0 || !cap_reads(argv[1], atof(argv[3]), &c)) {
        if (fd < 0)
            perror("io_reader: O_DIRECT");
        else
            close(fd);
        unlink(path);
        free(buf);
        return 77;
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    double end = now_s() + seconds;
    unsigned long reads = 0;
    while (now_s() < end) {
        if (pread(fd, buf, BLOCK, (off_t)(reads % BLOCKS) * BLOCK) != (ssize_t)BLOCK) {
            perror("io_reader: pread");
            uncap(&c);
            return 1;
        }
        reads++;
    }
    uncap(&c);
    close(fd);
    unlink(path);
    fprintf(stderr, "io_reader: %lu MiB read in %.1f s\n", reads, seconds);
    free(buf);
    return 0;
}
