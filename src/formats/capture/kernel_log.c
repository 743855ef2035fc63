/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kernel logs (`dmesg`, `dmesg -T`, `journalctl -k`) as captured evidence:
 * the same lines the live kernel log reader takes (Xid events, PCIe AER
 * messages), mapped to the captured GPUs by bus id. A line is read for what
 * it says whatever its timestamp: one in a form not read as a date (a
 * localised month) keeps its time as written, and a note says so.
 */
#include "import.h"

#include "gpudoctor/stack.h"
#include "formats/kernel_log/klog_facts.h"

#include <stdio.h>
#include <string.h>

int gd_import_kernel_log(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        long line = 1;
        for (const char *p = text; p < nul; p++)
            line += *p == '\n';
        snprintf(err, errlen, "%s:%ld: binary data inside a kernel log", name, line);
        return -1;
    }
    size_t unread = f->stack ? f->stack->kernel_log_times_unread : 0;
    if (gd_stack_add_kernel_log(f, name, text, len) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const gd_stack_facts *s = f->stack;
    if (s->kernel_log_times_unread > unread)
        gd_import_note(f,
                       "%s: the time%s of %zu line%s not read as a date (the first: '%s', a month in another "
                       "language or a form no dmesg or journalctl style has): their events are read, their times "
                       "kept as written",
                       gd_import_base(name), s->kernel_log_times_unread - unread == 1 ? "" : "s",
                       s->kernel_log_times_unread - unread, s->kernel_log_times_unread - unread == 1 ? "" : "s",
                       s->kernel_log_time_unread);
    return 0;
}
