/* SPDX-License-Identifier: Apache-2.0 */
/* GPU names for lspci captures (lspci_name.h). */
#include "lspci_name.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Four hex digits at s, then neither a hex digit nor a letter; -1 otherwise. */
static long hex4(const char *s)
{
    for (int i = 0; i < 4; i++)
        if (!isxdigit((unsigned char)s[i]))
            return -1;
    if (isalnum((unsigned char)s[4]))
        return -1;
    return strtol((char[5]){s[0], s[1], s[2], s[3], '\0'}, NULL, 16);
}

/* desc after the vendor's name ("NVIDIA Corporation ", or "nVidia
 * Corporation " of older databases), else desc. */
static const char *after_vendor(const char *desc)
{
    static const char vendor[] = "NVIDIA Corporation ";
    return strncasecmp(desc, vendor, sizeof vendor - 1) == 0 ? desc + sizeof vendor - 1 : desc;
}

long gd_lspci_device_id(const char *desc)
{
    const char *nn = strcasestr(desc, "[10de:");
    if (nn)
        return hex4(nn + 6);
    const char *rest = after_vendor(desc);
    return strncmp(rest, "Device ", 7) == 0 ? hex4(rest + 7) : -1;
}

long gd_lspci_dump_device_id(const char *line)
{
    unsigned v0, v1, d0, d1;
    int n = 0;
    if (sscanf(line, "00: %2x %2x %2x %2x%n", &v0, &v1, &d0, &d1, &n) != 4 || n == 0)
        return -1;
    return (v0 | v1 << 8) == GD_PCI_VENDOR_NVIDIA ? (long)(d0 | d1 << 8) : -1;
}

/* A name split in its chip and its model: "GK104GL [GRID K520]",
 * "GH100[H100 SXM5 80GB]", "GV102"; "Device 2330" and "" are neither. */
typedef struct split_name {
    char chip[64], model[96];
} split_name;

static void trim_copy(char *dst, size_t len, const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    snprintf(dst, len, "%.*s", (int)(n < len ? n : len - 1), s);
}

static void split(const char *name, split_name *out)
{
    *out = (split_name){{0}, {0}};
    const char *s = after_vendor(name);
    size_t n = strlen(s);
    /* lspci -nn's "[10de:2330]" (and anything after it) is the id, not the name. */
    const char *nn = strcasestr(s, "[10de:");
    if (nn)
        n = (size_t)(nn - s);
    if (n >= 7 && strncmp(s, "Device ", 7) == 0 && hex4(s + 7) >= 0)
        return;
    const char *open = memchr(s, '[', n), *close = open ? memchr(open, ']', n - (size_t)(open - s)) : NULL;
    if (open && close) {
        trim_copy(out->chip, sizeof out->chip, s, (size_t)(open - s));
        trim_copy(out->model, sizeof out->model, open + 1, (size_t)(close - open - 1));
    } else {
        trim_copy(out->chip, sizeof out->chip, s, n);
    }
}

void gd_lspci_gpu_name(const char *desc, long device, const char *db, char *out, size_t len)
{
    split_name from_db, from_lspci, *use = &from_lspci;
    split(desc, &from_lspci);
    if (db && db[0]) {
        split(db, &from_db);
        if (from_db.chip[0] || from_db.model[0])
            use = &from_db;
    }
    char id[24] = "";
    if (device >= 0)
        snprintf(id, sizeof id, "10de:%04lx", (unsigned long)device & 0xffff);
    const char *model = use->model[0] ? use->model : use->chip[0] ? use->chip : "GPU";
    const char *chip = use->model[0] ? use->chip : "";
    bool vendor_named = strncasecmp(model, "NVIDIA ", 7) == 0;
    char detail[96] = "";
    if (chip[0] || id[0])
        snprintf(detail, sizeof detail, " (%s%s%s)", chip, chip[0] && id[0] ? ", " : "", id);
    snprintf(out, len, "%s%s%s", vendor_named ? "" : "NVIDIA ", model, detail);
}
