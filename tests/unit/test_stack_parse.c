/* SPDX-License-Identifier: Apache-2.0 */
/* Parsers of the software stack: version files, Xid lines, fatbins, ld cache. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sources/stack/stack_internal.h"
#include "formats/kernel_log/klog_parse.h"
#include "formats/stack/fatbin.h"
#include "formats/stack/ldcache.h"
#include "formats/stack/version_files.h"

#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define S(x) x, strlen(x)

static void torch_version_py_forms(void **state)
{
    (void)state;
    char v[64], c[32];
    /* 2.x, as tools/generate_torch_version.py writes it */
    assert_true(gd_torch_version_parse(
        S("from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
          "__version__ = '2.7.0+cu128'\ndebug = False\ncuda: Optional[str] = '12.8'\n"
          "git_version = '134179474539648ba7dee1317959529fbd0e7f89'\nhip: Optional[str] = None\n"),
        v, sizeof v, c, sizeof c));
    assert_string_equal(v, "2.7.0+cu128");
    assert_string_equal(c, "12.8");
    /* 1.x */
    assert_true(gd_torch_version_parse(S("__version__ = '1.12.1+cu113'\ndebug = False\ncuda = '11.3'\nhip = None\n"), v,
                                       sizeof v, c, sizeof c));
    assert_string_equal(c, "11.3");
    /* CPU build */
    assert_true(
        gd_torch_version_parse(S("__version__ = '2.7.0+cpu'\ncuda: Optional[str] = None\n"), v, sizeof v, c, sizeof c));
    assert_string_equal(c, "");
    assert_false(gd_torch_version_parse(S("print('hello')\n"), v, sizeof v, c, sizeof c));
    assert_false(gd_torch_version_parse(S("__version__"), v, sizeof v, c, sizeof c));
}

static void tf_build_info(void **state)
{
    (void)state;
    char c[32];
    gd_arch a[8];
    size_t n;
    assert_true(gd_tf_build_info_parse(
        S("import collections\nbuild_info = collections.OrderedDict([('cpu_compiler', '/usr/bin/gcc'), "
          "('cuda_compute_capabilities', ['sm_35', 'sm_50', 'sm_60', 'sm_70', 'sm_75', 'compute_80']), "
          "('cuda_version', '12.1'), ('cudnn_version', '8'), ('is_cuda_build', True)])\n"),
        c, sizeof c, a, 8, &n));
    assert_string_equal(c, "12.1");
    assert_int_equal(n, 6);
    assert_int_equal(a[5].sm, 80);
    assert_true(a[5].ptx);
    assert_false(a[0].ptx);
    assert_true(gd_tf_build_info_parse(S("build_info = {'cuda_version': '64_112', 'cudnn_version': '64_8'}"), c,
                                       sizeof c, a, 8, &n));
    assert_string_equal(c, "11.2");
    assert_false(gd_tf_build_info_parse(S("build_info = {'is_cuda_build': False}"), c, sizeof c, a, 8, &n));
}

static void toolkit_and_metadata_versions(void **state)
{
    (void)state;
    char v[48];
    assert_true(gd_toolkit_version_parse(
        S("{\n   \"cuda\" : {\n      \"name\" : \"CUDA SDK\",\n      \"version\" : \"12.8.1\"\n   },\n"
          "   \"cuda_cccl\" : { \"version\" : \"12.8.90\" } }"),
        v, sizeof v));
    assert_string_equal(v, "12.8.1");
    assert_true(gd_toolkit_version_parse(S("CUDA Version 11.4.2\n"), v, sizeof v));
    assert_int_equal(gd_cuda_version_parse(v), 11040);
    assert_false(gd_toolkit_version_parse(S("{ \"nothing\": 1 }"), v, sizeof v));
    assert_true(gd_metadata_version_parse(
        S("Metadata-Version: 2.1\nName: nvidia-cuda-runtime-cu12\nVersion: 12.8.90\n"), v, sizeof v));
    assert_string_equal(v, "12.8.90");
    assert_int_equal(gd_cuda_version_parse("13"), 13000);
    assert_int_equal(gd_cuda_version_parse("2024"), 0);
    assert_int_equal(gd_cuda_version_parse("x"), 0);
}

typedef struct xcase {
    const char *line;
    int xid;
    const char *pci, *when, *text_start;
} xcase;

static void xid_lines_of_every_format(void **state)
{
    (void)state;
    static const xcase ok[] = {
        {"[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.", 79, "0000:3b:00",
         "1234.567890", "pid=1234, GPU has fallen off the bus."},
        {"[Tue Mar  5 10:00:00 2024] NVRM: Xid (PCI:0000:18:00): 119, pid='<unknown>', name=<unknown>, Timeout after "
         "6s "
         "of waiting for RPC response from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8).",
         119, "0000:18:00", "Tue Mar  5 10:00:00 2024", "pid='<unknown>'"},
        {"Mar 05 10:00:00 node7 kernel: NVRM: Xid (PCI:0000:18:00): 48, pid=77, An uncorrectable double bit error", 48,
         "0000:18:00", "Mar 05 10:00:00", "pid=77"},
        {"4,1234,5678901,-;NVRM: Xid (PCI:0000:3b:00 GPU-I:05): 43, pid=99, Ch 00000008", 43, "0000:3b:00", "5.678901",
         "pid=99"},
        {"NVRM: Xid (0000:01:00): 13, 0000 00000000 0000a097 00001b0c 00001000 00000000", 13, "0000:01:00", "", "0000"},
        {"[  77.1] NVRM: Xid (PCI:0000:ab:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset "
         "Required)\n",
         154, "0000:ab:00", "77.1", "GPU recovery"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        gd_xid_event ev;
        if (!gd_xid_line_parse(ok[i].line, strlen(ok[i].line), &ev))
            fail_msg("not parsed: %s", ok[i].line);
        assert_int_equal(ev.xid, ok[i].xid);
        assert_string_equal(ev.pci, ok[i].pci);
        assert_string_equal(ev.when, ok[i].when);
        assert_int_equal(ev.gpu, -1);
        assert_memory_equal(ev.text, ok[i].text_start, strlen(ok[i].text_start));
    }
    static const char *const bad[] = {
        "",
        "[ 1.0] nvidia: loading out-of-tree module",
        "NVRM: Xid (PCI:0000:3b:00",
        "NVRM: Xid (PCI:0000:3b:00):",
        "NVRM: Xid (PCI:0000:3b:00): x, y",
        "NVRM: Xid (): 79, nothing",
        "NVRM: Xid (PCI:0000:3b:00): 0, zero",
        "NVRM: Xid (PCI:0000:3b:00): 99999999999999999999, huge",
        "NVRM: GPU at PCI:0000:3b:00: GPU-1234",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gd_xid_event ev;
        if (gd_xid_line_parse(bad[i], strlen(bad[i]), &ev))
            fail_msg("parsed garbage: '%s'", bad[i]);
    }
}

/* journalctl in another language writes the month as its locale does: the
 * line is a kernel line, its Xid an Xid, its time kept as text and marked
 * not read as a date. English months are read as before. */
static void localised_months_are_text(void **state)
{
    (void)state;
    static const struct {
        const char *line, *when;
        bool unread;
    } cases[] = {
        {"11\xe6\x9c\x88 16 04:38:20 sdu-dpai-turing-1 kernel: NVRM: Xid (PCI:0000:03:00): 62, pid=3119",
         "11\xe6\x9c\x88 16 04:38:20", true},
        {"Dez 16 04:38:20 node kernel: NVRM: Xid (PCI:0000:03:00): 62, pid=3119", "Dez 16 04:38:20", true},
        {"d\xc3\xa9"
         "c. 16 04:38:20 node kernel: NVRM: Xid (PCI:0000:03:00): 62, pid=1",
         "d\xc3\xa9"
         "c. 16 04:38:20",
         true},
        {"dic 16 04:38:20.123456 node kernel: NVRM: Xid (PCI:0000:03:00): 62, pid=1", "dic 16 04:38:20.123456", true},
        {"\xd0\xbd\xd0\xbe\xd1\x8f 16 04:38:20 node kernel: NVRM: Xid (PCI:0000:03:00): 62, x",
         "\xd0\xbd\xd0\xbe\xd1\x8f 16 04:38:20", true},
        {"Nov 16 04:38:20 node kernel: NVRM: Xid (PCI:0000:03:00): 62, pid=3119", "Nov 16 04:38:20", false},
        {"Tue 2024-03-05 10:00:00 UTC node7 kernel: NVRM: Xid (PCI:0000:03:00): 62, x", "Tue 2024-03-05 10:00:00 UTC",
         false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gd_klog_line kl;
        if (!gd_klog_split(cases[i].line, strlen(cases[i].line), &kl))
            fail_msg("not a kernel line: %s", cases[i].line);
        assert_int_equal(kl.style, GD_KLOG_JOURNAL);
        assert_string_equal(kl.when, cases[i].when);
        assert_int_equal(kl.when_unread, cases[i].unread);
        assert_memory_equal(kl.msg, "NVRM: Xid", 9);
        gd_xid_event ev;
        assert_true(gd_xid_line_parse(cases[i].line, strlen(cases[i].line), &ev));
        assert_int_equal(ev.xid, 62);
        assert_string_equal(ev.when, cases[i].when);
    }
    /* A word before a day and a time is no journal line without its host's "kernel:". */
    gd_klog_line kl;
    static const char other[] = "Dez 16 04:38:20 node sudo[4422]: duan : TTY=pts/4";
    assert_false(gd_klog_split(other, strlen(other), &kl));
}

/* NVSwitch SXid lines in each log form: the event line, and its detail lines. */
static void sxid_lines_of_every_format(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        int kind, sxid, fatal;
        const char *sw, *pci, *when, *text_start;
    } ok[] = {
        {"[ 2210.104512] nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 12028, Non-fatal, Link 44 egress error (First)", 1,
         12028, 0, "nvidia-nvswitch1", "0000:06:00.0", "2210.104512", "Non-fatal, Link 44"},
        {"[Tue Mar  5 10:00:00 2024] nvidia-nvswitch3: SXid (PCI:0000:08:00.0): 20034, Fatal, Link 30 LTSSM Fault Up",
         1, 20034, 1, "nvidia-nvswitch3", "0000:08:00.0", "Tue Mar  5 10:00:00 2024", "Fatal, Link 30"},
        {"Mar 05 10:00:00 node7 kernel: nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32", 1,
         12028, 0, "nvidia-nvswitch0", "0000:05:00.0", "Mar 05 10:00:00", "Non-fatal"},
        {"4,1234,5678901,-;nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 22013, Link 3 minion link DLREQ interrupt\n", 1,
         22013, -1, "nvidia-nvswitch2", "0000:07:00.0", "5.678901", "Link 3 minion"},
        {"[ 2290.551019] nvidia-nvswitch3: SXid (PCI:0000:08:00.0): 20034, Severity 1 Engine instance 30 Sub-engine", 2,
         20034, -1, "nvidia-nvswitch3", "0000:08:00.0", "2290.551019", "Severity 1"},
        {"nvidia-nvswitch3: SXid (PCI:0000:08:00.0): 20034, Data {0x00000000, 0x00000000}", 2, 20034, -1,
         "nvidia-nvswitch3", "0000:08:00.0", "", "Data {"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        gd_sxid_event ev;
        int kind = gd_sxid_line_parse(ok[i].line, strlen(ok[i].line), &ev);
        if (kind != ok[i].kind)
            fail_msg("%d, want %d: %s", kind, ok[i].kind, ok[i].line);
        assert_int_equal(ev.sxid, ok[i].sxid);
        assert_int_equal(ev.fatal, ok[i].fatal);
        assert_string_equal(ev.nvswitch, ok[i].sw);
        assert_string_equal(ev.pci, ok[i].pci);
        assert_string_equal(ev.when, ok[i].when);
        assert_memory_equal(ev.text, ok[i].text_start, strlen(ok[i].text_start));
    }
    static const char *const bad[] = {
        "",
        ": SXid (PCI:0000:05:00.0): 12028, no switch named",
        "nvidia-nvswitch0: SXid (PCI:0000:05:00.0",
        "nvidia-nvswitch0: SXid (PCI:0000:05:00.0):",
        "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): x, y",
        "nvidia-nvswitch0: SXid (): 12028, nothing",
        "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 0, zero",
        "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 99999999999, huge",
        "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gd_sxid_event ev;
        if (gd_sxid_line_parse(bad[i], strlen(bad[i]), &ev))
            fail_msg("parsed garbage: '%s'", bad[i]);
    }
}

/* AER messages as the kernel's AER driver prints them, in each log form. */
static void aer_lines_of_every_format(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        gd_aer_severity sev;
        const char *dev, *port, *when;
    } ok[] = {
        {"[10233.018844] pcieport 0000:37:01.0: AER: Uncorrected (Non-Fatal) error received: 0000:3b:00.0",
         GD_AER_NONFATAL, "0000:3b:00.0", "0000:37:01.0", "10233.018844"},
        {"[Tue Apr 23 10:14:02 2024] pcieport 0000:59:01.0: AER: Corrected error received: 0000:5d:00.0\n",
         GD_AER_CORRECTED, "0000:5d:00.0", "0000:59:01.0", "Tue Apr 23 10:14:02 2024"},
        {"Apr 23 10:49:12 node7 kernel: pcieport 0000:00:01.0: AER: Multiple Uncorrected (Fatal) error received: "
         "0000:01:00.0",
         GD_AER_FATAL, "0000:01:00.0", "0000:00:01.0", "Apr 23 10:49:12"},
        {"[ 5.1] pcieport 0000:00:1c.5: AER: Correctable error message received from 0000:03:00.0", GD_AER_CORRECTED,
         "0000:03:00.0", "0000:00:1c.5", "5.1"},
        {"[ 5.1] pcieport 0000:00:1c.5: AER: Uncorrectable (Non-Fatal) error message received from 0000:03:00.0",
         GD_AER_NONFATAL, "0000:03:00.0", "0000:00:1c.5", "5.1"},
        /* old kernels: the requester id, bus 0x00, device 3, function 0 */
        {"[ 9.0] pcieport 0000:00:03.0: AER: Corrected error received: id=0018", GD_AER_CORRECTED, "0000:00:03.0",
         "0000:00:03.0", "9.0"},
        {"[ 9.0] pcieport 0000:00:03.0: AER: Corrected error received: id=0500", GD_AER_CORRECTED, "0000:05:00.0",
         "0000:00:03.0", "9.0"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        gd_aer_event ev;
        if (!gd_aer_line_parse(ok[i].line, strlen(ok[i].line), &ev))
            fail_msg("not parsed: %s", ok[i].line);
        assert_int_equal(ev.severity, ok[i].sev);
        assert_string_equal(ev.dev, ok[i].dev);
        assert_string_equal(ev.port, ok[i].port);
        assert_string_equal(ev.when, ok[i].when);
        assert_memory_equal(ev.text, "AER: ", 5);
        assert_null(strchr(ev.text, '\n'));
    }
    /* The detail lines of an event, the driver's start-up line and look-alikes. */
    static const char *const bad[] = {
        "",
        "[ 2.8] pcieport 0000:37:01.0: AER: enabled with IRQ 36",
        "[ 8.1] nvidia 0000:5d:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)",
        "[ 8.1] nvidia 0000:5d:00.0:   device [10de:2330] error status/mask=00000001/0000e000",
        "[ 8.1] nvidia 0000:5d:00.0:    [ 0] RxErr                  (First)",
        "AER: Corrected error received",
        "AER: Corrected",
        "AER: Bogus error received: 0000:01:00.0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gd_aer_event ev;
        if (gd_aer_line_parse(bad[i], strlen(bad[i]), &ev))
            fail_msg("parsed what is no AER event: '%s'", bad[i]);
    }
}

static void pci_ids_match_nvml_bus_ids(void **state)
{
    (void)state;
    assert_true(gd_pci_same("0000:3b:00", "00000000:3B:00.0"));
    assert_true(gd_pci_same("3b:00", "00000000:3B:00.0"));
    assert_false(gd_pci_same("0000:3b:00", "00000000:3C:00.0"));
    assert_false(gd_pci_same("0001:3b:00", "00000000:3B:00.0"));
    assert_false(gd_pci_same("zz", "00000000:3B:00.0"));
}

/* A fatbin container with entries (kind, sm) and 5-byte payloads. */
static size_t fatbin(unsigned char *buf, const int (*e)[2], size_t n)
{
    size_t off = 16;
    for (size_t i = 0; i < n; i++) {
        unsigned char *h = buf + off;
        memset(h, 0, 64 + 8);
        h[0] = (unsigned char)e[i][0];
        h[4] = 64; /* entry header size */
        h[8] = 8; /* payload (5 bytes, aligned to 8) */
        h[16] = 5;
        h[28] = (unsigned char)e[i][1];
        off += 64 + 8;
    }
    uint32_t magic = 0xBA55ED50u;
    memcpy(buf, &magic, 4);
    buf[4] = 1, buf[5] = 0, buf[6] = 16, buf[7] = 0;
    uint64_t size = off - 16;
    memcpy(buf + 8, &size, 8);
    return off;
}

static void fatbin_entries(void **state)
{
    (void)state;
    unsigned char buf[2048] = {0};
    static const int e1[][2] = {{2, 80}, {2, 90}, {1, 90}};
    static const int e2[][2] = {{2, 86}, {2, 90}};
    size_t n1 = fatbin(buf + 8, e1, 3); /* junk before it */
    size_t n2 = fatbin(buf + 8 + n1 + 8, e2, 2); /* padding between containers */
    gd_arch a[8];
    size_t na = 0;
    assert_int_equal(gd_fatbin_scan(buf, 8 + n1 + 8 + n2, a, 8, &na), 5);
    assert_int_equal(na, 4); /* sm_90 SASS once */
    assert_int_equal(a[0].sm, 80);
    assert_true(a[2].ptx);
    assert_int_equal(a[3].sm, 86);
    /* truncated: no crash, fewer entries */
    na = 0;
    assert_true(gd_fatbin_scan(buf, 8 + 16 + 64 + 3, a, 8, &na) <= 1);
}

/* The same containers read from a file in blocks: found wherever they
 * fall against the blocks' edges, and a read cap stops the walk visibly. */
static void fatbin_file_in_blocks(void **state)
{
    (void)state;
    static const int e1[][2] = {{2, 80}, {2, 90}, {1, 90}};
    static const int e2[][2] = {{2, 86}, {2, 120}};
    char path[] = "/tmp/gd-fatbin-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    static const size_t blocks[] = {64, 100, 256, 4096};
    for (size_t at = 0; at < 600; at += 4) {
        unsigned char buf[2048] = {0};
        size_t n1 = fatbin(buf + at, e1, 3);
        size_t n2 = fatbin(buf + at + n1 + 200, e2, 2); /* 200 bytes of padding between them */
        size_t len = at + n1 + 200 + n2 + 8;
        assert_int_equal(ftruncate(fd, 0), 0);
        assert_int_equal(pwrite(fd, buf, len, 0), (ssize_t)len);
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
            gd_cuda_runtime rt = {.python = -1};
            bool capped = true;
            int err = -1;
            assert_int_equal(gd_stack_fatbin_fd(fd, 0, UINT64_MAX, blocks[b], len, &rt, &capped, &err), 5);
            assert_false(capped);
            assert_int_equal(err, 0);
            assert_int_equal(rt.arch_count, 5);
            assert_int_equal(rt.archs[0].sm, 80);
            assert_true(rt.archs[2].ptx);
            assert_int_equal(rt.archs[4].sm, 120);
            /* A cap short of the second container: it stops there, and says so. */
            rt.arch_count = 0;
            assert_int_equal(gd_stack_fatbin_fd(fd, 0, UINT64_MAX, blocks[b], at + n1 + 100, &rt, &capped, &err), 3);
            assert_true(capped);
        }
    }
    /* A section: only [off, off+size) is walked. */
    unsigned char buf[1024] = {0};
    size_t n1 = fatbin(buf + 16, e1, 3);
    size_t n2 = fatbin(buf + 16 + n1, e2, 2);
    assert_int_equal(ftruncate(fd, 0), 0);
    assert_int_equal(pwrite(fd, buf, 16 + n1 + n2, 0), (ssize_t)(16 + n1 + n2));
    gd_cuda_runtime rt = {.python = -1};
    bool capped;
    int err;
    assert_int_equal(gd_stack_fatbin_fd(fd, 16 + n1, n2, 64, 1u << 20, &rt, &capped, &err), 2);
    assert_int_equal(rt.archs[0].sm, 86);
    close(fd);
}

static void collect_path(void *ud, const char *path)
{
    strcat((char *)ud, path);
    strcat((char *)ud, ";");
}

static void ldcache_new_format(void **state)
{
    (void)state;
    unsigned char buf[512] = {0};
    memcpy(buf, "glibc-ld.so.cache1.1", 20);
    uint32_t nlibs = 2;
    memcpy(buf + 20, &nlibs, 4);
    const char *strings[] = {"libcudart.so.12", "/usr/local/cuda-12.8/lib64/libcudart.so.12", "libm.so.6",
                             "/lib/x86_64-linux-gnu/libm.so.6"};
    uint32_t off = 48 + 2 * 24;
    uint32_t offs[4];
    for (int i = 0; i < 4; i++) {
        offs[i] = off;
        memcpy(buf + off, strings[i], strlen(strings[i]) + 1);
        off += (uint32_t)strlen(strings[i]) + 1;
    }
    for (int k = 0; k < 2; k++) {
        memcpy(buf + 48 + k * 24 + 4, &offs[2 * k], 4);
        memcpy(buf + 48 + k * 24 + 8, &offs[2 * k + 1], 4);
    }
    char got[256] = "";
    assert_int_equal(gd_ldcache_parse(buf, off, "libcudart.so.", collect_path, got), 2);
    assert_string_equal(got, "/usr/local/cuda-12.8/lib64/libcudart.so.12;");
    assert_int_equal(gd_ldcache_parse((const unsigned char *)"not a cache", 11, "x", collect_path, got), -1);
    nlibs = 1000000;
    memcpy(buf + 20, &nlibs, 4);
    assert_int_equal(gd_ldcache_parse(buf, off, "libcudart.so.", collect_path, got), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torch_version_py_forms),
        cmocka_unit_test(tf_build_info),
        cmocka_unit_test(toolkit_and_metadata_versions),
        cmocka_unit_test(xid_lines_of_every_format),
        cmocka_unit_test(localised_months_are_text),
        cmocka_unit_test(sxid_lines_of_every_format),
        cmocka_unit_test(aer_lines_of_every_format),
        cmocka_unit_test(pci_ids_match_nvml_bus_ids),
        cmocka_unit_test(fatbin_entries),
        cmocka_unit_test(fatbin_file_in_blocks),
        cmocka_unit_test(ldcache_new_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
