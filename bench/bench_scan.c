/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading a library's CUDA architectures (gd_stack_library_archs) on a
 * hostile libtorch_cuda.so of 64 MiB of zeros: a file with no container in
 * it, read to the end. The reference is a plain read of the same file in
 * 1 MiB blocks, in the same run with the file in the page cache; the ratio
 * is what the container search costs over reading. Mean of 10 runs each.
 * Usage: bench_scan
 */
#include "sources/stack/stack_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SIZE ((size_t)64 << 20)
#define RUNS 10

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool read_all(const char *path, unsigned char *buf)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t r;
    size_t total = 0;
    while ((r = read(fd, buf, (size_t)1 << 20)) > 0)
        total += (size_t)r;
    close(fd);
    return total == SIZE;
}

int main(void)
{
    char dir[] = "/tmp/gd-bench-scan-XXXXXX", path[64];
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/libtorch_cuda.so", dir);
    unsigned char *buf = calloc(1, (size_t)1 << 20);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = buf && fd >= 0;
    for (size_t off = 0; ok && off < SIZE; off += (size_t)1 << 20)
        ok = write(fd, buf, (size_t)1 << 20) == (ssize_t)1 << 20; /* written, not sparse: real pages */
    if (fd >= 0)
        close(fd);
    ok = ok && read_all(path, buf); /* into the page cache */
    double ref = 0, scan = 0;
    for (int i = 0; ok && i < RUNS; i++) {
        double t0 = now();
        ok = read_all(path, buf);
        double t1 = now();
        gd_cuda_runtime rt = {.python = -1};
        ok = ok && !gd_stack_library_archs(path, &rt) && !rt.arch_error[0]; /* none found, nothing refused */
        ref += (t1 - t0) / RUNS;
        scan += (now() - t1) / RUNS;
    }
    unlink(path);
    rmdir(dir);
    free(buf);
    if (!ok) {
        fprintf(stderr, "bench_scan: the 64 MiB file could not be written or read\n");
        return 1;
    }
    printf("reference: read 64 MiB in 1 MiB blocks  %8.2f ms\n", ref * 1e3);
    printf("fatbin scan of 64 MiB of zeros          %8.2f ms = %.1fx the reference (target < 1 s)\n", scan * 1e3,
           scan / ref);
    return 0;
}
