/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Format detection by content: users attach whatever they captured, under
 * any name (ticket.txt, out.log), so the extension means nothing. Each rule
 * looks for what the tool always prints first (a banner, a header line),
 * never for values.
 */
#include "capture_formats.h"
#include "import.h"
#include "formats/kernel_log/klog_parse.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#define SCAN_BYTES 65536

/* One format a line, by what its first line of output looks like. */
const char gd_import_formats_help[] =
    "gpudoctor reads these, each known by its first line of output (shell prompts before it are skipped):\n"
    "  nvidia-smi -q -x    <?xml ...?> with <nvidia_smi_log>\n"
    "  nvidia-smi -q       ==============NVSMI LOG==============, or GPU 00000000:3B:00.0 with Driver Version\n"
    "  nvidia-smi dmon     # gpu   pwr  gtemp ...\n"
    "  --query-gpu csv     its header line: timestamp, name, pci.bus_id, ... (--format=csv, header kept)\n"
    "  lspci -vv           3b:00.0 3D controller: NVIDIA Corporation ...\n"
    "  nvidia-smi topo -m  GPU0  GPU1 ... CPU Affinity\n"
    "  kernel log          dmesg or journalctl -k in any time format ([    5.123456] ...,\n"
    "                      [Tue Mar  5 10:00:00 2024] ..., Mar  5 10:00:00 host kernel: ...), or NVRM: lines\n"
    "  recording           gpudoctor's own (check --record FILE.jsonl)\n"
    "  NCCL log            NCCL_DEBUG=INFO output: host:pid:tid [0] NCCL INFO ... (launcher prefixes allowed)\n"
    "  nccl-tests          all_reduce_perf and its siblings: # nThread ..., its column header, or its rows\n"
    "  ibstat              CA 'mlx5_0'\n"
    "  ibstatus            Infiniband device 'mlx5_0' port 1 status:\n"
    "  ibv_devinfo         hca_id: mlx5_0 (or No IB devices found)\n"
    "  ibdev2netdev        mlx5_0 port 1 ==> ib0 (Up)\n"
    "  show_gids           DEV  PORT  INDEX  GID  IPv4  VER  DEV\n"
    "  lsmod               Module  Size  Used by, or the prompt of 'lsmod | grep nvidia_peermem'\n"
    "  ip -br a            lo  UNKNOWN  127.0.0.1/8 (one interface a line)\n"
    "  lspci ACSCtl        ACSCtl: SrcValid+ ... (lspci -vvv | grep ACSCtl)\n"
    "  rdma link           link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1";

/* One line, trimmed, ANSI escapes (topo underlines its header) removed. */
static size_t clean_line(const char *p, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < cap; i++) {
        if (p[i] == '\033') {
            while (i < n && !isalpha((unsigned char)p[i]))
                i++;
            continue;
        }
        out[k++] = p[i] == '\t' || p[i] == '\r' ? ' ' : p[i];
    }
    while (k && out[k - 1] == ' ')
        k--;
    out[k] = '\0';
    size_t lead = strspn(out, " ");
    memmove(out, out + lead, k - lead + 1);
    return k - lead;
}

static bool has_token(const char *line, const char *tok)
{
    size_t n = strlen(tok);
    for (const char *p = line; (p = strstr(p, tok)) != NULL; p += n) {
        bool start = p == line || p[-1] == ' ' || p[-1] == '#', end = p[n] == '\0' || p[n] == ' ';
        if (start && end)
            return true;
    }
    return false;
}

static bool is_dmon_header(const char *l)
{
    static const char *const cols[] = {"pwr", "gtemp", "mtemp", "sm", "mclk", "pclk", "fb", "rxpci", "pviol"};
    if (l[0] != '#' || !has_token(l, "gpu"))
        return false;
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        if (has_token(l, cols[i]))
            return true;
    return false;
}

static bool is_csv_header(const char *l)
{
    static const char *const names[] = {
        "timestamp",         "name",           "index",           "uuid",
        "pci.bus_id",        "driver_version", "temperature.gpu", "utilization.gpu",
        "memory.used",       "memory.total",   "power.draw",      "clocks.sm",
        "clocks.current.sm", "pstate",         "fan.speed",
    };
    if (!strchr(l, ','))
        return false;
    for (const char *p = l; *p;) {
        size_t n = strcspn(p, ",");
        char field[64];
        size_t k = 0;
        for (size_t i = 0; i < n && k + 1 < sizeof field && p[i] != '['; i++)
            if (p[i] != ' ')
                field[k++] = p[i];
        field[k] = '\0';
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strcasecmp(field, names[i]) == 0)
                return true;
        p += n;
        if (*p == ',')
            p++;
    }
    return false;
}

/* "00:00.0 Host bridge: ..." or "0000:00:00.0 ...". */
static bool is_lspci_line(const char *l)
{
    const char *p = l;
    size_t n = strspn(p, "0123456789abcdefABCDEF");
    if (n == 4 && p[4] == ':') {
        p += 5;
        n = strspn(p, "0123456789abcdefABCDEF");
    }
    if (n != 2 || p[2] != ':' || strspn(p + 3, "0123456789abcdefABCDEF") != 2 || p[5] != '.' || p[6] < '0' ||
        p[6] > '7' || p[7] != ' ')
        return false;
    return strchr(p + 8, ':') != NULL;
}

/* A kernel log line as dmesg or journalctl -k print it, in any timestamp
 * style (klog_line.c), a message of the NVIDIA driver or the PCI core
 * with no timestamp at all (dmesg -t, a paste of the lines that matter), or
 * the driver's message after a prefix of any other form. */
static bool is_kernel_log_line(const char *l)
{
    gd_klog_line kl;
    if (gd_klog_split(l, strlen(l), &kl))
        return true;
    static const char *const bare[] = {"NVRM: ", "pcieport ", "nvidia-nvlink: ", "nvidia-modeset: ", "nvidia-uvm: "};
    for (size_t i = 0; i < sizeof bare / sizeof bare[0]; i++)
        if (strncmp(l, bare[i], strlen(bare[i])) == 0)
            return true;
    /* The driver's message after a time or a host in a form no style above
     * has ("2024/04/05 21:29:39 gpu07 NVRM: Xid ..."): an Xid whatever its timestamp. */
    return strstr(l, " NVRM: ") || strstr(l, ": SXid (PCI:");
}

bool gd_import_looks_binary(const char *text, size_t len)
{
    if (len > SCAN_BYTES)
        len = SCAN_BYTES;
    /* Control bytes no text capture holds (ESC is topo's underline). */
    for (size_t i = 0; i < len; i++) {
        unsigned char b = (unsigned char)text[i];
        if (b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != '\v' && b != 0x1b)
            return true;
    }
    return false;
}

/* The shape of the file and its first lines, cleaned: what every format's
 * detector reads (capture_formats.c runs them). */
bool gd_capture_view_init(gd_capture_view *v, const char *text, size_t len)
{
    memset(v, 0, sizeof *v);
    if (len > SCAN_BYTES)
        len = SCAN_BYTES;
    if (gd_import_looks_binary(text, len))
        return false;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        text += 3, len -= 3;
    v->text = text;
    v->len = len;
    size_t lead = 0;
    while (lead < len && isspace((unsigned char)text[lead]))
        lead++;
    v->lead = lead;
    /* "<4>[   5.1] ...": dmesg -r's level, not XML. */
    bool raw_level = lead + 2 < len && text[lead] == '<' && isdigit((unsigned char)text[lead + 1]);
    v->shape = lead < len && text[lead] == '{'                 ? GD_VIEW_JSON
               : lead < len && text[lead] == '<' && !raw_level ? GD_VIEW_XML
                                                               : GD_VIEW_LINES;
    if (v->shape != GD_VIEW_LINES)
        return true;
    long number = 0;
    for (size_t p = 0; p < lead; p++)
        number += text[p] == '\n';
    for (size_t pos = lead; pos < len && v->nlines < SCAN_LINES;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        bool col0 = text[pos] != ' ' && text[pos] != '\t';
        char *l = v->lines[v->nlines].text;
        size_t k = clean_line(text + pos, n, l, sizeof v->lines[0].text);
        pos += n + 1;
        number++;
        if (k == 0)
            continue;
        v->lines[v->nlines].number = number;
        v->lines[v->nlines++].col0 = col0;
    }
    /* journalctl's banner line ("-- Logs begin at ...") before the first
     * line of evidence is no evidence. */
    while (v->first < v->nlines && strncmp(v->lines[v->first].text, "-- ", 3) == 0 &&
           (strstr(v->lines[v->first].text, "Logs begin") || strstr(v->lines[v->first].text, "Journal begins") ||
            strstr(v->lines[v->first].text, "No entries"))) {
        v->journal_banner = true;
        v->first++;
    }
    return true;
}

/* The first line of evidence when `rule` holds for it: its index, else -1. */
static long first_line_is(const gd_capture_view *v, bool (*rule)(const char *))
{
    return v->shape == GD_VIEW_LINES && v->first < v->nlines && rule(v->lines[v->first].text) ? (long)v->first : -1;
}

long gd_detect_recording(const gd_capture_view *v)
{
    /* A recording: its header line names itself first. */
    static const char key[] = "\"gpudoctor_recording\"";
    if (v->shape != GD_VIEW_JSON)
        return -1;
    size_t k = v->lead + 1;
    while (k < v->len && isspace((unsigned char)v->text[k]))
        k++;
    return v->len - k >= sizeof key - 1 && memcmp(v->text + k, key, sizeof key - 1) == 0 ? 0 : -1;
}

long gd_detect_smi_xml(const gd_capture_view *v)
{
    /* XML: only nvidia-smi's own root element. */
    if (v->shape != GD_VIEW_XML)
        return -1;
    for (size_t i = v->lead; i + 15 <= v->len; i++)
        if (memcmp(v->text + i, "<nvidia_smi_log", 15) == 0)
            return 0;
    return -1;
}

long gd_detect_smi_text(const gd_capture_view *v)
{
    bool gpu_header = false, driver_line = false;
    for (size_t i = 0; v->shape == GD_VIEW_LINES && i < v->nlines; i++) {
        const char *l = v->lines[i].text;
        if (strstr(l, "NVSMI LOG"))
            return (long)i;
        if (v->lines[i].col0 && strncmp(l, "GPU ", 4) == 0 && strspn(l + 4, "0123456789abcdefABCDEF") >= 4 &&
            strchr(l + 4, ':'))
            gpu_header = true;
        if (strncmp(l, "Driver Version", 14) == 0 && strchr(l, ':'))
            driver_line = true;
        if (gpu_header && driver_line)
            return (long)i; /* a paste without the banner */
    }
    return -1;
}

long gd_detect_topo(const gd_capture_view *v)
{
    /* The matrix header, after a prompt line or not. */
    for (size_t i = 0; v->shape == GD_VIEW_LINES && i < v->nlines; i++)
        if (strncmp(v->lines[i].text, "GPU0", 4) == 0 && strstr(v->lines[i].text, "Affinity"))
            return (long)i;
    return -1;
}

long gd_detect_kernel_log(const gd_capture_view *v)
{
    long i = first_line_is(v, is_kernel_log_line);
    if (i >= 0)
        return i;
    /* journalctl's banner alone: a log with no entries. */
    return v->shape == GD_VIEW_LINES && v->journal_banner && v->first == v->nlines ? 0 : -1;
}

long gd_detect_dmon(const gd_capture_view *v)
{
    return first_line_is(v, is_dmon_header);
}

long gd_detect_smi_csv(const gd_capture_view *v)
{
    return first_line_is(v, is_csv_header);
}

long gd_detect_lspci(const gd_capture_view *v)
{
    return first_line_is(v, is_lspci_line);
}
