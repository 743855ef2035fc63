/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A real process blocked on disk reads, for gpudoctor run's input.io_wait
 * test: writes a 64 MiB file in DIR, syncs it, then reads it through
 * O_DIRECT (no page cache) in 1 MiB blocks for SECONDS. Exits 77 when the
 * file system refuses O_DIRECT (tmpfs, some overlays).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_DIRECT */
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK (1u << 20)
#define BLOCKS 64

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: io_reader DIR SECONDS\n");
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
    if (fd < 0) {
        perror("io_reader: O_DIRECT");
        unlink(path);
        return 77;
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    double end = now_s() + seconds;
    unsigned long reads = 0;
    while (now_s() < end) {
        if (pread(fd, buf, BLOCK, (off_t)(reads % BLOCKS) * BLOCK) != (ssize_t)BLOCK) {
            perror("io_reader: pread");
            return 1;
        }
        reads++;
    }
    close(fd);
    unlink(path);
    fprintf(stderr, "io_reader: %lu MiB read in %.1f s\n", reads, seconds);
    free(buf);
    return 0;
}
