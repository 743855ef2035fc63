/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Format detection by content: users attach whatever they captured, under
 * any name (ticket.txt, out.log), so the extension means nothing. Each rule
 * looks for what the tool always prints first (a banner, a header line),
 * never for values.
 */
#include "import.h"
#include "formats/kernel_log/klog_parse.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#define SCAN_LINES 64
#define SCAN_BYTES 65536

const char gd_import_formats_help[] =
    "gpudoctor reads the output of 'nvidia-smi -q -x' (XML), 'nvidia-smi -q' (text), 'nvidia-smi dmon', "
    "'nvidia-smi --query-gpu=... --format=csv' (with its header line), 'lspci -vv', 'nvidia-smi topo -m' "
    "kernel logs ('dmesg' and 'journalctl -k' in any time format, or bare driver messages) and gpudoctor's own "
    "recordings (--record)";

const char *gd_import_kind_name(gd_import_kind k)
{
    switch (k) {
    case GD_IMPORT_SMI_XML: return "nvidia-smi -q -x";
    case GD_IMPORT_SMI_TEXT: return "nvidia-smi -q";
    case GD_IMPORT_SMI_CSV: return "nvidia-smi --query-gpu csv";
    case GD_IMPORT_DMON: return "nvidia-smi dmon";
    case GD_IMPORT_LSPCI: return "lspci -vv";
    case GD_IMPORT_TOPO: return "nvidia-smi topo -m";
    case GD_IMPORT_KERNEL_LOG: return "kernel log";
    case GD_IMPORT_RECORDING: return "gpudoctor recording";
    case GD_IMPORT_UNKNOWN: break;
    }
    return "unknown";
}

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
 * style (klog_line.c), or a message of the NVIDIA driver or the PCI core
 * with no timestamp at all (dmesg -t, a paste of the lines that matter). */
static bool is_kernel_log_line(const char *l)
{
    gd_klog_line kl;
    if (gd_klog_split(l, strlen(l), &kl))
        return true;
    static const char *const bare[] = {"NVRM: ", "pcieport ", "nvidia-nvlink: ", "nvidia-modeset: ", "nvidia-uvm: "};
    for (size_t i = 0; i < sizeof bare / sizeof bare[0]; i++)
        if (strncmp(l, bare[i], strlen(bare[i])) == 0)
            return true;
    return false;
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

gd_import_kind gd_import_detect(const char *text, size_t len)
{
    if (len > SCAN_BYTES)
        len = SCAN_BYTES;
    if (gd_import_looks_binary(text, len))
        return GD_IMPORT_UNKNOWN;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        text += 3, len -= 3;
    size_t lead = 0;
    while (lead < len && isspace((unsigned char)text[lead]))
        lead++;
    if (lead < len && text[lead] == '{') {
        /* A recording: its header line names itself first. */
        static const char key[] = "\"gpudoctor_recording\"";
        size_t k = lead + 1;
        while (k < len && isspace((unsigned char)text[k]))
            k++;
        return len - k >= sizeof key - 1 && memcmp(text + k, key, sizeof key - 1) == 0 ? GD_IMPORT_RECORDING
                                                                                       : GD_IMPORT_UNKNOWN;
    }
    /* "<4>[   5.1] ...": dmesg -r's level, not XML. */
    bool raw_level = lead + 2 < len && text[lead] == '<' && isdigit((unsigned char)text[lead + 1]);
    if (lead < len && text[lead] == '<' && !raw_level) {
        /* XML: only nvidia-smi's own root element. */
        for (size_t i = lead; i + 15 <= len; i++)
            if (memcmp(text + i, "<nvidia_smi_log", 15) == 0)
                return GD_IMPORT_SMI_XML;
        return GD_IMPORT_UNKNOWN;
    }
    bool first = true, gpu_header = false, driver_line = false, journal_header = false;
    size_t lines = 0;
    for (size_t pos = lead; pos < len && lines < SCAN_LINES;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        char l[512];
        bool col0 = text[pos] != ' ' && text[pos] != '\t';
        size_t k = clean_line(text + pos, n, l, sizeof l);
        pos += n + 1;
        if (k == 0)
            continue;
        lines++;
        if (strstr(l, "NVSMI LOG"))
            return GD_IMPORT_SMI_TEXT;
        if (col0 && strncmp(l, "GPU ", 4) == 0 && strspn(l + 4, "0123456789abcdefABCDEF") >= 4 && strchr(l + 4, ':'))
            gpu_header = true;
        if (strncmp(l, "Driver Version", 14) == 0 && strchr(l, ':'))
            driver_line = true;
        if (gpu_header && driver_line)
            return GD_IMPORT_SMI_TEXT; /* a paste without the banner */
        if (strncmp(l, "GPU0", 4) == 0 && strstr(l, "Affinity"))
            return GD_IMPORT_TOPO; /* the matrix header, after a prompt line or not */
        if (first && strncmp(l, "-- ", 3) == 0 &&
            (strstr(l, "Logs begin") || strstr(l, "Journal begins") || strstr(l, "No entries"))) {
            journal_header = true; /* journalctl's banner line */
            continue;
        }
        if (first) {
            first = false;
            if (is_kernel_log_line(l))
                return GD_IMPORT_KERNEL_LOG;
            if (is_dmon_header(l))
                return GD_IMPORT_DMON;
            if (is_csv_header(l))
                return GD_IMPORT_SMI_CSV;
            if (is_lspci_line(l))
                return GD_IMPORT_LSPCI;
        }
    }
    return journal_header && first ? GD_IMPORT_KERNEL_LOG : GD_IMPORT_UNKNOWN;
}
