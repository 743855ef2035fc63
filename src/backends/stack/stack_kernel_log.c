/* SPDX-License-Identifier: Apache-2.0 */
/* Xid events, the driver's word of GPUs lost without one, NVSwitch errors
 * (SXid) and PCIe AER messages from the kernel log, in any timestamp style (klog_line.c): a file (--sim's
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

/* What a line leaves for the next ones: the address of "The NVIDIA GPU
 * 0000:b3:00.0", whose message goes on over the next lines. */
typedef struct klog_state {
    char pci[32];
    char when[48];
    char text[200];
    int left; /* lines the pending address still applies to */
} klog_state;

static int gpu_of(const gd_facts *f, const char *pci)
{
    for (size_t g = 0; pci[0] && g < f->gpu_count; g++)
        if (gd_pci_same(pci, f->gpus[g].pci_bus_id))
            return f->gpus[g].index;
    return -1;
}

/* Counts the event in its (Xid, address) group; the newest events stay as examples. */
static void add_xid(gd_stack_facts *s, const gd_facts *f, gd_xid_event *ev)
{
    s->xid_total++;
    ev->gpu = gpu_of(f, ev->pci);
    size_t k = 0;
    while (k < s->xid_group_count &&
           !(s->xid_groups[k].xid == ev->xid && strcasecmp(s->xid_groups[k].pci, ev->pci) == 0))
        k++;
    if (k == s->xid_group_count) {
        if (k == GD_STACK_MAX_XID_GROUPS) {
            s->xid_dropped++;
            return;
        }
        gd_xid_group *n = &s->xid_groups[s->xid_group_count++];
        memset(n, 0, sizeof *n);
        n->xid = ev->xid;
        n->gpu = ev->gpu;
        memcpy(n->pci, ev->pci, sizeof n->pci);
        memcpy(n->first_seen, ev->when, sizeof n->first_seen);
    }
    gd_xid_group *x = &s->xid_groups[k];
    x->count++;
    if (x->example_count == GD_XID_EXAMPLES) {
        memmove(&x->examples[0], &x->examples[1], (GD_XID_EXAMPLES - 1) * sizeof x->examples[0]);
        x->example_count--;
    }
    x->examples[x->example_count++] = *ev;
}

/* Counts an NVSwitch error in its (SXid, switch) group. */
static void add_sxid(gd_stack_facts *s, const gd_sxid_event *ev)
{
    s->sxid_total++;
    size_t k = 0;
    while (k < s->sxid_group_count &&
           !(s->sxid_groups[k].sxid == ev->sxid && strcasecmp(s->sxid_groups[k].pci, ev->pci) == 0))
        k++;
    if (k == s->sxid_group_count) {
        if (k == GD_STACK_MAX_SXID_GROUPS)
            return;
        gd_sxid_group *n = &s->sxid_groups[s->sxid_group_count++];
        memset(n, 0, sizeof *n);
        n->sxid = ev->sxid;
        n->fatal = -1;
        memcpy(n->nvswitch, ev->nvswitch, sizeof n->nvswitch);
        memcpy(n->pci, ev->pci, sizeof n->pci);
        memcpy(n->first_seen, ev->when, sizeof n->first_seen);
    }
    gd_sxid_group *g = &s->sxid_groups[k];
    g->count++;
    if (ev->fatal > g->fatal)
        g->fatal = ev->fatal;
    g->last = *ev;
}

static void add_fatal(gd_stack_facts *s, const gd_facts *f, gd_fatal_kind kind, const char *pci, const char *when,
                      const char *text)
{
    const char *what = gd_fatal_kind_text(kind);
    size_t k = 0;
    while (k < s->gpu_fatal_count &&
           !(strcasecmp(s->gpu_fatal[k].pci, pci) == 0 && strcmp(s->gpu_fatal[k].kind, what) == 0))
        k++;
    if (k == s->gpu_fatal_count) {
        if (k == GD_STACK_MAX_GPU_FATAL)
            return;
        gd_gpu_fatal *n = &s->gpu_fatal[s->gpu_fatal_count++];
        memset(n, 0, sizeof *n);
        gd_strf(n->pci, sizeof n->pci, "%s", pci);
        gd_strf(n->kind, sizeof n->kind, "%s", what);
        n->gpu = gpu_of(f, pci);
    }
    gd_gpu_fatal *e = &s->gpu_fatal[k];
    e->count++;
    gd_strf(e->when, sizeof e->when, "%s", when);
    gd_strf(e->text, sizeof e->text, "%s", text);
}

static void take_line(gd_stack_facts *s, const gd_facts *f, klog_state *st, const char *line, size_t len)
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
    gd_sxid_event sx;
    int sk = gd_sxid_line_parse(line, len, &sx);
    if (sk) {
        if (sk == 1)
            add_sxid(s, &sx);
        return;
    }
    gd_xid_event ev;
    if (gd_xid_line_parse(line, len, &ev)) {
        add_xid(s, f, &ev);
        return;
    }
    gd_klog_line kl;
    gd_klog_split(line, len, &kl);
    char pci[32];
    gd_fatal_kind kind = gd_gpu_fatal_parse(kl.msg, kl.msg_len, pci, sizeof pci);
    if (kind == GD_FATAL_HEADER) {
        memcpy(st->pci, pci, sizeof st->pci);
        memcpy(st->when, kl.when, sizeof st->when);
        gd_strf(st->text, sizeof st->text, "%.*s", (int)(kl.msg_len < 199 ? kl.msg_len : 199), kl.msg);
        st->left = 3;
        return;
    }
    char text[200];
    const char *when = kl.when;
    gd_strf(text, sizeof text, "%.*s", (int)(kl.msg_len < 199 ? kl.msg_len : 199), kl.msg);
    if (st->left > 0) {
        st->left--;
        if (kind == GD_FATAL_NONE) {
            /* "(PCI ID: 10de:26b5) installed in this system has": part of the message */
            size_t used = strlen(st->text);
            const char *m = kl.msg, *e = kl.msg + kl.msg_len;
            if (e - m > 6 && memcmp(m, "NVRM: ", 6) == 0)
                m += 6;
            gd_strf(st->text + used, sizeof st->text - used, " %.*s", (int)(e - m), m);
            return;
        }
        if (!pci[0] && kind == GD_FATAL_OFF_BUS) {
            memcpy(pci, st->pci, sizeof pci);
            when = st->when[0] ? st->when : when;
            size_t used = strlen(st->text);
            const char *m = kl.msg, *e = kl.msg + kl.msg_len;
            if (e - m > 6 && memcmp(m, "NVRM: ", 6) == 0)
                m += 6;
            gd_strf(st->text + used, sizeof st->text - used, " %.*s", (int)(e - m), m);
            memcpy(text, st->text, sizeof text);
        }
        st->left = 0;
    }
    if (kind != GD_FATAL_NONE)
        add_fatal(s, f, kind, pci, when, text);
}

static void take_text(gd_stack_facts *s, const gd_facts *f, const char *buf, size_t len)
{
    klog_state st = {0};
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(buf + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (buf + i)) : len - i;
        take_line(s, f, &st, buf + i, n);
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
    klog_state st = {0};
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
        take_line(s, f, &st, rec, (size_t)n);
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
    klog_state st = {0};
    while (fgets(line, sizeof line, p))
        take_line(s, f, &st, line, strlen(line));
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
