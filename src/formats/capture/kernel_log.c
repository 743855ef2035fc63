/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kernel logs (`dmesg`, `dmesg -T`, `journalctl -k`) as captured evidence:
 * the same lines the live kernel log reader takes (Xid events, PCIe AER
 * messages), mapped to the captured GPUs by bus id.
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
    if (gd_stack_add_kernel_log(f, name, text, len) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}
