/* SPDX-License-Identifier: Apache-2.0 */
/* The machine's kernel log, read once at the end of a session: a file
 * (--sim's host.kernel_log, GPUDOCTOR_KERNEL_LOG), else /dev/kmsg, else
 * `journalctl -k`; each line to facts by formats/kernel_log/klog_facts.c. */
#include "klog_read.h"
#include "core/input.h"
#include "core/strf.h"
#include "formats/kernel_log/klog_facts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most of a kernel log file that is read: its newest part beyond. */
#define GD_KERNEL_LOG_MAX_BYTES (64u << 20)
#define GD_KERNEL_LOG_MAX_TEXT "64 MiB"

/* /dev/kmsg gives one record per read(); O_NONBLOCK ends at the last one.
 * EPIPE means records were overwritten while reading: go on. */
static bool read_kmsg(gd_stack_facts *s, const gd_facts *f, int *err)
{
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *err = errno;
        return false;
    }
    char rec[8192];
    gd_klog_state st = {0};
    for (;;) {
        ssize_t n = read(fd, rec, sizeof rec - 1);
        if (n < 0 && (errno == EPIPE || errno == EINTR))
            continue;
        if (n < 0 && errno != EAGAIN) {
            *err = errno;
            close(fd);
            return false;
        }
        if (n <= 0)
            break;
        gd_klog_take_line(s, f, &st, rec, (size_t)n);
    }
    close(fd);
    return true;
}

static bool read_journal(gd_stack_facts *s, const gd_facts *f)
{
    FILE *p = popen("journalctl -k -b --no-pager -q -o short 2>/dev/null", "r");
    if (!p)
        return false;
    char line[4096];
    size_t before = s->kernel_log_lines;
    gd_klog_state st = {0};
    while (fgets(line, sizeof line, p))
        gd_klog_take_line(s, f, &st, line, strlen(line));
    int rc = pclose(p);
    /* Without permission journalctl prints nothing (or only a hint) and
     * still succeeds: an empty result is not a readable log. */
    return rc == 0 && s->kernel_log_lines > before;
}

void gd_stack_read_kernel_log(gd_stack_facts *s, const gd_facts *f, const char *log_file)
{
    if (log_file[0]) {
        /* A read error is "not checked", never a clean log; a log over the
         * cap keeps its newest part, where the recent Xids are. */
        size_t len;
        bool cut;
        char why[600];
        char *buf = gd_input_read_tail(log_file, GD_KERNEL_LOG_MAX_BYTES, &len, &cut, why, sizeof why);
        if (!buf) {
            gd_strf(s->kernel_log_error, sizeof s->kernel_log_error, "cannot read the kernel log %s", why);
            return;
        }
        gd_klog_take_text(s, f, buf, len);
        free(buf);
        gd_strf(s->kernel_log_source, sizeof s->kernel_log_source, "%s%s", log_file,
                cut ? " (its newest " GD_KERNEL_LOG_MAX_TEXT ")" : "");
        s->kernel_log_read = true;
        return;
    }
    if (f->simulated || f->captured) {
        gd_strf(s->kernel_log_error, sizeof s->kernel_log_error, "%s",
                f->simulated ? "the scenario has no host.kernel_log (this machine's log does not describe it)"
                             : "captured evidence holds no kernel log (this machine's does not describe it)");
        return;
    }
    int err = 0;
    if (read_kmsg(s, f, &err)) {
        gd_strf(s->kernel_log_source, sizeof s->kernel_log_source, "/dev/kmsg");
        s->kernel_log_read = true;
        return;
    }
    if (read_journal(s, f)) {
        gd_strf(s->kernel_log_source, sizeof s->kernel_log_source, "journalctl -k -b");
        s->kernel_log_read = true;
        return;
    }
    gd_strf(s->kernel_log_error, sizeof s->kernel_log_error,
            "the kernel log is not readable (/dev/kmsg: %s; journalctl -k gave nothing). Run as root, "
            "or allow it: 'sudo sysctl kernel.dmesg_restrict=0', or add the user to the 'adm' or "
            "'systemd-journal' group for 'journalctl -k'",
            strerror(err));
}
