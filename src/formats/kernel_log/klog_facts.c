/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel log lines to facts: Xid events, the driver's word of GPUs lost
 * without one, NVSwitch errors (SXid) and PCIe AER messages, in any
 * timestamp style (klog_line.c), mapped to the GPUs by bus id. The lines
 * come from a captured log (--from dmesg.txt) or the machine's own
 * (sources/kernel_log/klog_read.c). */
#include "klog_facts.h"
#include "core/strf.h"
#include "core/text_safe.h"
#include "klog_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int gpu_of(const gd_facts *f, const char *pci)
{
    for (size_t g = 0; pci[0] && g < f->gpu_count; g++)
        if (gd_pci_same(pci, f->gpus[g].pci_bus_id))
            return f->gpus[g].index;
    return -1;
}

/* Counts the line in its (Xid, address) group: a new event, or one more
 * line of the fault its address's last Xid line began (klog_xid_run.h). The
 * newest events' first lines stay as examples. */
static void add_xid(gd_stack_facts *s, const gd_facts *f, gd_klog_state *st, gd_xid_event *ev)
{
    s->xid_total++;
    ev->gpu = gpu_of(f, ev->pci);
    bool more = gd_xid_runs_continues(&st->xids, ev);
    size_t k = 0;
    while (k < s->xid_group_count &&
           !(s->xid_groups[k].xid == ev->xid && strcasecmp(s->xid_groups[k].pci, ev->pci) == 0))
        k++;
    if (k == s->xid_group_count) {
        if (more) {
            s->xid_dropped++; /* a line of an event whose group did not fit */
            return;
        }
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
    x->lines++;
    if (more)
        return;
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

/* A driver message after a prefix in no style klog_line.c knows ("2024/04/05
 * 21:29:39 gpu07 NVRM: Xid ..."): read for what it says, its time counted
 * as not read, the prefix kept as the example. */
static void unread_prefix(gd_stack_facts *s, const char *line, size_t len)
{
    static const char *const tags[] = {"NVRM: ", "nvidia-nvswitch", "pcieport "};
    const char *at = NULL;
    for (size_t t = 0; t < sizeof tags / sizeof tags[0]; t++) {
        size_t n = strlen(tags[t]);
        for (const char *p = line; p + n <= line + len && (!at || p < at); p++)
            if (memcmp(p, tags[t], n) == 0) {
                at = p;
                break;
            }
    }
    if (!at || at == line)
        return; /* no driver message, or one without any prefix (dmesg -t) */
    size_t n = (size_t)(at - line);
    while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
        n--;
    if (s->kernel_log_times_unread++ == 0) {
        char raw[sizeof s->kernel_log_time_unread];
        gd_strf(raw, sizeof raw, "%.*s", (int)(n < sizeof raw - 1 ? n : sizeof raw - 1), line);
        gd_text_safe(raw, s->kernel_log_time_unread, sizeof s->kernel_log_time_unread);
    }
}

void gd_klog_take_line(gd_stack_facts *s, const gd_facts *f, gd_klog_state *st, const char *line, size_t len)
{
    size_t blank = 0;
    while (blank < len && (line[blank] == ' ' || line[blank] == '\t' || line[blank] == '\r'))
        blank++;
    if (blank == len)
        return; /* nothing said (a pasted gap, a shell line blanked) */
    s->kernel_log_lines++;
    gd_klog_line stamp;
    if (gd_klog_split(line, len, &stamp)) {
        if (stamp.when_unread && s->kernel_log_times_unread++ == 0)
            memcpy(s->kernel_log_time_unread, stamp.when, sizeof s->kernel_log_time_unread);
    } else {
        unread_prefix(s, line + blank, len - blank);
    }
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
        add_xid(s, f, st, &ev);
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

void gd_klog_take_text(gd_stack_facts *s, const gd_facts *f, const char *buf, size_t len)
{
    gd_klog_state st = {0};
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(buf + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (buf + i)) : len - i;
        gd_klog_take_line(s, f, &st, buf + i, n);
        i += n + 1;
    }
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
    gd_klog_take_text(s, f, text, len);
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t used = s->kernel_log_read ? strlen(s->kernel_log_source) : 0;
    gd_strf(s->kernel_log_source + used, sizeof s->kernel_log_source - used, "%s%s", used ? ", " : "", base);
    s->kernel_log_read = true;
    return 0;
}
