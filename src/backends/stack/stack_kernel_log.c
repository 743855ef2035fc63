/* Xid events and PCIe AER messages from the kernel log: a file (--sim's
 * host.kernel_log), else /dev/kmsg, else `journalctl -k`; or a captured log
 * (--from dmesg.txt). */
#include "stack_internal.h"
#include "core/input.h"
#include "backends/stack/stack_collect.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* The most of a kernel log file that is read: its newest part beyond. */
#define GD_KERNEL_LOG_MAX_BYTES (64u << 20)
#define GD_KERNEL_LOG_MAX_TEXT "64 MiB"

static void take_line(gd_stack_facts *s, const gd_facts *f, const char *line, size_t len)
{
    s->kernel_log_lines++;
    gd_aer_event aer;
    if (gd_aer_line_parse(line, len, &aer)) {
        s->aer_total++;
        size_t k = 0;
        while (k < s->aer_device_count && strcasecmp(s->aer_devices[k].dev, aer.dev) != 0)
            k++;
        if (k == s->aer_device_count) {
            if (k == GD_STACK_MAX_AER_DEVICES)
                return;
            s->aer_device_count++;
            memset(&s->aer_devices[k], 0, sizeof s->aer_devices[k]);
            memcpy(s->aer_devices[k].dev, aer.dev, sizeof aer.dev);
        }
        s->aer_devices[k].count[aer.severity]++;
        s->aer_devices[k].last = aer;
        return;
    }
    gd_xid_event ev;
    if (!gd_xid_line_parse(line, len, &ev))
        return;
    s->xid_total++;
    for (size_t g = 0; g < f->gpu_count; g++)
        if (gd_pci_same(ev.pci, f->gpus[g].pci_bus_id)) {
            ev.gpu = f->gpus[g].index;
            break;
        }
    if (s->xid_count < GD_STACK_MAX_XIDS)
        s->xids[s->xid_count++] = ev;
}

static void take_text(gd_stack_facts *s, const gd_facts *f, const char *buf, size_t len)
{
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(buf + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (buf + i)) : len - i;
        take_line(s, f, buf + i, n);
        i += n + 1;
    }
}

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
        take_line(s, f, rec, (size_t)n);
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
    while (fgets(line, sizeof line, p))
        take_line(s, f, line, strlen(line));
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
        take_text(s, f, buf, len);
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

int gd_stack_add_kernel_log(gd_facts *f, const char *name, const char *text, size_t len)
{
    gd_stack_facts *s = f->stack;
    if (!s) {
        s = f->stack = calloc(1, sizeof *s);
        if (!s)
            return -1;
        gd_strf(s->system_skip, sizeof s->system_skip, "captured evidence holds no software stack");
        gd_strf(s->env_error, sizeof s->env_error, "captured evidence holds no job environment");
    }
    take_text(s, f, text, len);
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t used = s->kernel_log_read ? strlen(s->kernel_log_source) : 0;
    gd_strf(s->kernel_log_source + used, sizeof s->kernel_log_source - used, "%s%s", used ? ", " : "", base);
    s->kernel_log_read = true;
    return 0;
}
