/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel log followed while a session runs: the lines written after it
 * started (a file: the scenario's host.kernel_log or the context's log;
 * this machine's /dev/kmsg where readable, from its end), each sample, as
 * Xid events of the session, one per fault however many lines the driver
 * printed it in (formats/kernel_log/klog_xid_run.h). Bounded per sample; an
 * unreadable log is not followed (the Xids still come from NVML's event
 * API). A file is followed as `tail -F` does: truncated (logrotate's
 * copytruncate: shorter than what was read), it is read again from its
 * start; renamed or replaced (another file at its name), the old one's last
 * lines are read and the new one is followed from its start.
 */
#include "sources/source.h"

#include "formats/kernel_log/klog_parse.h"
#include "formats/kernel_log/klog_xid_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_BYTES_PER_SAMPLE (256u << 10)
#define MAX_RECORDS_PER_SAMPLE 1024

typedef struct kernel_log_source {
    int fd; /* -1: not followed */
    bool kmsg; /* /dev/kmsg: one record per read() */
    char partial[4096]; /* a file's line not yet ended */
    size_t partial_len;
    gd_xid_runs xids; /* each address and Xid's last line, which the next may continue */
    char path[PATH_MAX]; /* a file's name, looked at again each sample */
    dev_t dev; /* the followed file's: another at its name is a rotation */
    ino_t ino;
} kernel_log_source;

static int klog_open(void *self, const gd_session_opts *o, gd_facts *f, gd_roots *roots, char *err, size_t errlen)
{
    (void)o;
    (void)err;
    (void)errlen;
    kernel_log_source *k = self;
    k->fd = -1;
    struct stat st;
    if (roots->kernel_log[0]) {
        snprintf(k->path, sizeof k->path, "%s", roots->kernel_log);
        k->fd = open(roots->kernel_log, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        /* only what is written from now on */
        if (k->fd >= 0 && (lseek(k->fd, 0, SEEK_END) < 0 || fstat(k->fd, &st) != 0)) {
            close(k->fd);
            k->fd = -1;
        } else if (k->fd >= 0) {
            k->dev = st.st_dev;
            k->ino = st.st_ino;
        }
    } else if (!f->simulated && !f->captured) {
        k->kmsg = true;
        k->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (k->fd >= 0 && lseek(k->fd, 0, SEEK_END) < 0) {
            close(k->fd);
            k->fd = -1;
        }
    }
    f->events.kernel_log_followed = k->fd >= 0;
    return 0;
}

static bool klog_samples(const void *self)
{
    return ((const kernel_log_source *)self)->fd >= 0;
}

static void klog_clock(const void *self, const gd_session_opts *o, int *mode, double *pace)
{
    (void)self;
    (void)o;
    *mode = 0;
    *pace = 0;
}

static void take_line(kernel_log_source *k, gd_facts *f, const char *line, size_t len, double t)
{
    gd_xid_event ev;
    if (!gd_xid_line_parse(line, len, &ev) || gd_xid_runs_continues(&k->xids, &ev))
        return;
    gd_event e = {.t = t, .gpu = -1, .kind = GD_EV_XID, .value = ev.xid};
    for (size_t g = 0; g < f->gpu_count; g++)
        if (gd_pci_same(ev.pci, f->gpus[g].pci_bus_id))
            e.gpu = (int)g;
    snprintf(e.what, sizeof e.what, "kernel log");
    (void)gd_event_add(&f->events, &e);
}

/* Reads what fd has now, up to this sample's bounds (*taken, *records). */
static void read_new(kernel_log_source *k, gd_facts *f, double t, size_t *taken, int *records)
{
    char buf[8192];
    for (; *records < MAX_RECORDS_PER_SAMPLE && *taken < MAX_BYTES_PER_SAMPLE; (*records)++) {
        ssize_t n = read(k->fd, buf, sizeof buf - 1);
        if (n < 0 && (errno == EPIPE || errno == EINTR))
            continue; /* /dev/kmsg: records overwritten meanwhile */
        if (n <= 0)
            break;
        *taken += (size_t)n;
        if (k->kmsg) {
            take_line(k, f, buf, (size_t)n, t);
            continue;
        }
        for (size_t at = 0; at < (size_t)n;) {
            const char *nl = memchr(buf + at, '\n', (size_t)n - at);
            size_t len = nl ? (size_t)(nl - (buf + at)) : (size_t)n - at;
            size_t room = sizeof k->partial - k->partial_len;
            size_t copy = len < room ? len : room; /* an over-long line is cut, never overrun */
            memcpy(k->partial + k->partial_len, buf + at, copy);
            k->partial_len += copy;
            if (nl) {
                take_line(k, f, k->partial, k->partial_len, t);
                k->partial_len = 0;
            }
            at += len + (nl ? 1 : 0);
        }
    }
}

/* A file truncated under the reader (shorter than where it reads) is read
 * again from its start. */
static void reread_if_truncated(kernel_log_source *k)
{
    struct stat st;
    off_t at = lseek(k->fd, 0, SEEK_CUR);
    if (fstat(k->fd, &st) == 0 && at > st.st_size && lseek(k->fd, 0, SEEK_SET) == 0)
        k->partial_len = 0;
}

/* Another file at the followed name (renamed, or deleted and made again):
 * the new one's descriptor, from its start; -1 while the name is the same
 * file, absent or unreadable (the old one is still followed). */
static int rotated(const kernel_log_source *k, struct stat *st)
{
    if (stat(k->path, st) != 0 || (st->st_dev == k->dev && st->st_ino == k->ino))
        return -1;
    int fd = open(k->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0 && fstat(fd, st) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void klog_sample(void *self, gd_facts *f, size_t i, double t)
{
    (void)i;
    kernel_log_source *k = self;
    size_t taken = 0;
    int records = 0;
    if (k->kmsg) {
        read_new(k, f, t, &taken, &records);
        return;
    }
    reread_if_truncated(k);
    struct stat st;
    int fd = rotated(k, &st);
    read_new(k, f, t, &taken, &records); /* the old file's last lines first */
    if (fd < 0)
        return;
    close(k->fd);
    k->fd = fd;
    k->dev = st.st_dev;
    k->ino = st.st_ino;
    k->partial_len = 0;
    read_new(k, f, t, &taken, &records);
}

static void klog_close(void *self)
{
    kernel_log_source *k = self;
    if (k->fd >= 0)
        close(k->fd);
    k->fd = -1;
}

const gd_source_ops gd_source_kernel_log = {
    .name = "kernel log",
    .size = sizeof(kernel_log_source),
    .open = klog_open,
    .samples = klog_samples,
    .clock = klog_clock,
    .sample = klog_sample,
    .close = klog_close,
};
