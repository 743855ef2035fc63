/* SPDX-License-Identifier: Apache-2.0 */
/* The machine's kernel log into the software stack's facts. */
#ifndef GD_KLOG_READ_H
#define GD_KLOG_READ_H

#include "gpudoctor/model.h"
#include "gpudoctor/stack.h"

/* Reads log_file ("" = the machine's own log: /dev/kmsg, else journalctl
 * -k) into s; what cannot be read says why in s->kernel_log_error. */
void gd_stack_read_kernel_log(gd_stack_facts *s, const gd_facts *f, const char *log_file);

#endif
