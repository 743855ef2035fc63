/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel log lines to facts (f->stack's Xids, SXids, AER errors, GPUs lost). */
#ifndef GD_KLOG_FACTS_H
#define GD_KLOG_FACTS_H

#include "gpudoctor/model.h"
#include "gpudoctor/stack.h"
#include "klog_xid_run.h"

#include <stddef.h>

/* What a line leaves for the next ones: the address of "The NVIDIA GPU
 * 0000:b3:00.0", whose message goes on over the next lines, and each
 * address and Xid's last line, which the next may continue (one fault,
 * several lines: klog_xid_run.h). */
typedef struct gd_klog_state {
    char pci[32];
    char when[48];
    char text[200];
    int left; /* lines the pending address still applies to */
    gd_xid_runs xids;
} gd_klog_state;

/* One line (any timestamp style, no newline needed) into s; the state
 * starts zeroed and carries a message over several lines. */
void gd_klog_take_line(gd_stack_facts *s, const gd_facts *f, gd_klog_state *st, const char *line, size_t len);

/* Every line of a text. */
void gd_klog_take_text(gd_stack_facts *s, const gd_facts *f, const char *buf, size_t len);

/* A captured kernel log (--from dmesg.txt): its Xid and AER lines join
 * f->stack (created for captured evidence when absent), Xids mapped to f's
 * GPUs by bus id, and the report cites `name`. 0, or -1 when out of memory. */
int gd_stack_add_kernel_log(gd_facts *f, const char *name, const char *text, size_t len);

#endif
