/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the software stack's parsers: the kernel log's Xid,
 * NVSwitch SXid and PCIe AER lines (split as gpudoctor splits a log), torch/version.py, TensorFlow's
 * build_info.py, toolkit version files, dist-info METADATA, fatbin headers
 * and ld.so.cache. Every parser sees every input: none may crash, read out
 * of bounds or leak, whatever the bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/kernel_log/klog_parse.h"
#include "formats/stack/fatbin.h"
#include "formats/stack/ldcache.h"
#include "formats/stack/version_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ignore_path(void *ud, const char *path)
{
    (void)ud;
    (void)strlen(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    /* Line by line, without NUL termination, as the kernel log reader does. */
    for (size_t i = 0; i < size;) {
        const char *nl = memchr(text + i, '\n', size - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : size - i;
        gd_xid_event ev;
        if (gd_xid_line_parse(text + i, n, &ev))
            (void)gd_pci_same(ev.pci, "00000000:3B:00.0");
        gd_sxid_event sx;
        int sk = gd_sxid_line_parse(text + i, n, &sx);
        if (sk && (sx.sxid <= 0 || !sx.nvswitch[0] || !sx.pci[0] || sx.fatal < -1 || sx.fatal > 1 ||
                   strlen(sx.text) >= sizeof sx.text || (sk == 2 && sx.fatal != -1)))
            __builtin_trap(); /* an SXid names its switch and address; a detail line says no severity */
        gd_aer_event aer;
        if (gd_aer_line_parse(text + i, n, &aer) && (!aer.dev[0] || strlen(aer.text) >= sizeof aer.text))
            __builtin_trap(); /* an event always names its device */
        gd_klog_line kl;
        gd_klog_split(text + i, n, &kl);
        if (kl.msg < text + i || kl.msg + kl.msg_len > text + i + n || strlen(kl.when) >= sizeof kl.when)
            __builtin_trap(); /* the message lies inside the line */
        char pci[32];
        if (gd_gpu_fatal_parse(kl.msg, kl.msg_len, pci, sizeof pci) == GD_FATAL_HEADER && !pci[0])
            __builtin_trap(); /* a header names its GPU */
        i += n + 1;
    }
    char a[64], b[64];
    gd_arch archs[GD_STACK_MAX_ARCHS];
    size_t narchs = 0;
    if (gd_torch_version_parse(text, size, a, sizeof a, b, sizeof b))
        (void)gd_cuda_version_parse(b);
    (void)gd_tf_build_info_parse(text, size, a, sizeof a, archs, GD_STACK_MAX_ARCHS, &narchs);
    (void)gd_toolkit_version_parse(text, size, a, sizeof a);
    (void)gd_metadata_version_parse(text, size, a, sizeof a);
    narchs = 0;
    (void)gd_fatbin_scan(data, size, archs, GD_STACK_MAX_ARCHS, &narchs);
    (void)gd_ldcache_parse(data, size, "libcudart.so.", ignore_path, NULL);
    return 0;
}
