/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end on real captures (../shared/realdata, see its SOURCES.md):
 * EVERY GPU of every nvidia-smi capture reads as the file says, not only
 * GPU 0. The test reads each file itself with a reader of its own, kept
 * deliberately simple and independent of src/formats/capture:
 *   -q -x XML       XPath below each <gpu> (libxml2),
 *   -q text         label paths, one label per indentation level,
 *   --query-gpu CSV columns by header name, the last row of each GPU,
 *   dmon log        columns by header name, the last line of each GPU,
 * and compares `gpudoctor info --json` with it, field by field, GPU by GPU.
 * "N/A", "[N/A]", "Not Supported" ... must come out as null; so must what an
 * XML or text dump lacks. A CSV or dmon file that has no column for a field
 * does not carry it: that field is not compared there. Skips without the data.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <libxml/parser.h>
#include <libxml/xpath.h>

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MAX_ALT 6
#define MAX_COLS 512
#define MAX_GPUS 64

/* ------------------------------------------------------------------ */
/* What is compared: a table of fields and where each format keeps it. */

typedef enum { AS_TEXT, AS_NUMBER, AS_ENABLED, AS_YES_NO, AS_CUDA, AS_REASONS } conv;

/* Alternatives are tried in order; the first that holds a value wins. */
typedef struct field {
    const char *key; /* below gpus[i] of info --json; "state/x" is gpus[i].state.x */
    conv as;
    const char *xml[MAX_ALT]; /* XPath below <gpu> */
    const char *text[MAX_ALT]; /* labels below "GPU 0000...", one per indentation level */
    const char *csv[MAX_ALT]; /* --query-gpu column (its "[unit]" dropped) or dmon column */
} field;

/* AS_REASONS: the section (never the "..._counters" one); each of its
 * entries that says "Active" is an active reason; a CSV column prefix. */
#define REASONS                                                                                                        \
    AS_REASONS, {"clocks_event_reasons", "clocks_throttle_reasons"},                                                   \
        {"Clocks Event Reasons", "Clocks Throttle Reasons"},                                                           \
    {                                                                                                                  \
        "clocks_event_reasons.", "clocks_throttle_reasons."                                                            \
    }
/* Power draw: the board's, averaged where the driver has both kinds, else instantaneous. */
#define POWER_DRAW                                                                                                     \
    AS_NUMBER,                                                                                                         \
        {"power_readings/power_draw", "gpu_power_readings/power_draw", "gpu_power_readings/average_power_draw",        \
         "gpu_power_readings/instant_power_draw"},                                                                     \
        {"Power Readings/Power Draw", "GPU Power Readings/Power Draw", "GPU Power Readings/Average Power Draw",        \
         "GPU Power Readings/Instantaneous Power Draw"},                                                               \
    {                                                                                                                  \
        "power.draw", "power.draw.average", "power.draw.instant", "pwr"                                                \
    }
#define POWER_LIMIT                                                                                                    \
    AS_NUMBER,                                                                                                         \
        {"power_readings/enforced_power_limit", "gpu_power_readings/enforced_power_limit",                             \
         "gpu_power_readings/current_power_limit"},                                                                    \
        {"Power Readings/Enforced Power Limit", "GPU Power Readings/Enforced Power Limit",                             \
         "Power Readings/Current Power Limit", "GPU Power Readings/Current Power Limit",                               \
         "GPU Power Readings/GPU Ceiling Power Limit/Current Power Limit"},                                            \
    {                                                                                                                  \
        "enforced.power.limit"                                                                                         \
    }
#define LINK_XML "pci/pci_gpu_link_info/"
#define LINK_TEXT "PCI/GPU Link Info/"
/* What card and slot reach together ("Max"), and the card's own ("Device Max"). */
#define GEN_MAX                                                                                                        \
    AS_NUMBER, {LINK_XML "pcie_gen/max_link_gen"}, {LINK_TEXT "PCIe Generation/Max"},                                  \
    {                                                                                                                  \
        "pcie.link.gen.max"                                                                                            \
    }
#define GEN_MAX_DEVICE                                                                                                 \
    AS_NUMBER, {LINK_XML "pcie_gen/max_device_link_gen"}, {LINK_TEXT "PCIe Generation/Device Max"},                    \
    {                                                                                                                  \
        "pcie.link.gen.gpumax"                                                                                         \
    }
#define WIDTH_MAX                                                                                                      \
    AS_NUMBER, {LINK_XML "link_widths/max_link_width"}, {LINK_TEXT "Link Width/Max"},                                  \
    {                                                                                                                  \
        "pcie.link.width.max"                                                                                          \
    }
#define MEM_TOTAL                                                                                                      \
    AS_NUMBER, {"fb_memory_usage/total"}, {"FB Memory Usage/Total"},                                                   \
    {                                                                                                                  \
        "memory.total"                                                                                                 \
    }

static const field fields[] = {
    {"pci_bus_id", AS_TEXT, {"pci/pci_bus_id"}, {"PCI/Bus Id"}, {"pci.bus_id"}},
    {"name", AS_TEXT, {"product_name"}, {"Product Name"}, {"name"}},
    {"state/temp_c",
     AS_NUMBER,
     {"temperature/gpu_temp"},
     {"Temperature/GPU Current Temp"},
     {"temperature.gpu", "gtemp"}},
    {"state/event_reasons", REASONS},
    {"state/power_w", POWER_DRAW},
    {"state/power_limit_w", POWER_LIMIT},
    {"power_limit_w", POWER_LIMIT},
    {"state/pcie_gen",
     AS_NUMBER,
     {LINK_XML "pcie_gen/current_link_gen"},
     {LINK_TEXT "PCIe Generation/Current"},
     {"pcie.link.gen.current", "pcie.link.gen.gpucurrent"}},
    {"state/pcie_gen_max", GEN_MAX},
    {"pcie_gen_max", GEN_MAX},
    {"state/pcie_gen_max_device", GEN_MAX_DEVICE},
    {"pcie_gen_max_device", GEN_MAX_DEVICE},
    {"state/pcie_width",
     AS_NUMBER,
     {LINK_XML "link_widths/current_link_width"},
     {LINK_TEXT "Link Width/Current"},
     {"pcie.link.width.current"}},
    {"state/pcie_width_max", WIDTH_MAX},
    {"pcie_width_max", WIDTH_MAX},
    {"state/mem_used_mib", AS_NUMBER, {"fb_memory_usage/used"}, {"FB Memory Usage/Used"}, {"memory.used"}},
    {"state/mem_total_mib", MEM_TOTAL},
    {"mem_total_mib", MEM_TOTAL},
    {"ecc_enabled", AS_ENABLED, {"ecc_mode/current_ecc"}, {"ECC Mode/Current"}, {"ecc.mode.current"}},
    {"remap_pending",
     AS_YES_NO,
     {"remapped_rows/remapped_row_pending"},
     {"Remapped Rows/Pending"},
     {"remapped_rows.pending"}},
};

/* Once per file, below "driver" of info --json. */
static const field file_fields[] = {
    {"version", AS_TEXT, {"/nvidia_smi_log/driver_version"}, {"KMD Version", "Driver Version"}, {"driver_version"}},
    {"cuda_driver_version", AS_CUDA, {"/nvidia_smi_log/cuda_version"}, {"CUDA UMD Version", "CUDA Version"}, {NULL}},
};

/* Clock event reasons: gpudoctor's name, and each format's. */
static const struct reason {
    const char *json, *xml, *text; /* xml: after "clocks_event_reason_"; CSV uses json or xml */
} reasons[] = {
    {"gpu_idle", "gpu_idle", "Idle"},
    {"applications_clocks_setting", "applications_clocks_setting", "Applications Clocks Setting"},
    {"sw_power_cap", "sw_power_cap", "SW Power Cap"},
    {"hw_slowdown", "hw_slowdown", "HW Slowdown"},
    {"sync_boost", "sync_boost", "Sync Boost"},
    {"sw_thermal_slowdown", "sw_thermal_slowdown", "SW Thermal Slowdown"},
    {"hw_thermal_slowdown", "hw_thermal_slowdown", "HW Thermal Slowdown"},
    {"hw_power_brake_slowdown", "hw_power_brake_slowdown", "HW Power Brake Slowdown"},
    {"display_clock_setting", "display_clocks_setting", "Display Clock Setting"},
};
#define NREASONS (sizeof reasons / sizeof reasons[0])

/* ------------------------------------------------------------------ */
/* The test's own reading of a capture. */

typedef enum { FMT_XML, FMT_TEXT, FMT_CSV, FMT_DMON } format;

typedef struct tline {
    int indent;
    const char *label, *value; /* value NULL: a heading ("PCI") */
} tline;

typedef struct capture {
    format fmt;
    size_t gpus;
    char *buf; /* the file; text, CSV and dmon point into it */
    /* XML */
    xmlDoc *doc;
    xmlXPathContext *xp;
    xmlNode *gpu[MAX_GPUS];
    /* text: every non-blank line; GPU g's section is lines [from[g], to[g]) */
    tline *lines;
    size_t nlines, from[MAX_GPUS], to[MAX_GPUS];
    /* CSV and dmon: header names and each GPU's last row */
    char *head[MAX_COLS];
    size_t ncols;
    char **row[MAX_GPUS];
} capture;

typedef struct value {
    enum { V_ABSENT, V_NULL, V_NUM, V_STR, V_UNREADABLE } t;
    double num;
    char str[256];
} value;

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, f);
    b[got] = '\0';
    fclose(f);
    if (strncmp(b, "\xef\xbb\xbf", 3) == 0) /* UTF-8 byte order mark */
        memmove(b, b + 3, got - 2);
    return b;
}

/* "GPU 00000000:07:00.0" at the start of a line opens a GPU's section. */
static bool gpu_heading(const tline *l)
{
    return l->indent == 0 && !l->value && strncmp(l->label, "GPU ", 4) == 0 && l->label[4] &&
           strspn(l->label + 4, "0123456789abcdefABCDEF:.") == strlen(l->label + 4);
}

static void read_text(capture *c)
{
    size_t cap = 0;
    for (char *save = NULL, *l = strtok_r(c->buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        int indent = (int)strspn(l, " ");
        char *s = trim(l);
        if (!*s)
            continue;
        if (c->nlines == cap)
            c->lines = realloc(c->lines, (cap = cap ? 2 * cap : 256) * sizeof *c->lines);
        tline *t = &c->lines[c->nlines++];
        *t = (tline){.indent = indent, .label = s};
        /* "Label   : value": the first ':' that a blank or the line's end follows. */
        for (char *p = s; *p; p++)
            if (*p == ':' && (p[1] == ' ' || p[1] == '\0')) {
                *p = '\0';
                t->value = trim(p + 1);
                trim(s);
                break;
            }
        if (indent == 0 && c->gpus && !c->to[c->gpus - 1]) /* ends the GPU's section */
            c->to[c->gpus - 1] = c->nlines - 1;
        if (gpu_heading(t) && c->gpus < MAX_GPUS)
            c->from[c->gpus++] = c->nlines;
    }
    if (c->gpus && !c->to[c->gpus - 1])
        c->to[c->gpus - 1] = c->nlines;
}

/* The line at path ("PCI/GPU Link Info/Link Width/Max") within lines [from, to):
 * each label is looked for among the lines as indented as the range's first,
 * the next one only below it (the lines indented deeper that follow it). */
static const tline *text_find(const capture *c, size_t from, size_t to, const char *path)
{
    char seg[128];
    for (const char *p = path;;) {
        size_t n = strcspn(p, "/");
        snprintf(seg, sizeof seg, "%.*s", (int)n, p);
        if (from >= to)
            return NULL;
        int level = c->lines[from].indent;
        size_t i = from;
        while (i < to && !(c->lines[i].indent == level && strcmp(c->lines[i].label, seg) == 0))
            i++;
        if (i == to)
            return NULL;
        if (!p[n])
            return &c->lines[i];
        p += n + 1;
        from = i + 1;
        size_t end = from;
        while (end < to && c->lines[end].indent > c->lines[i].indent)
            end++;
        to = end;
    }
}

static size_t split_csv(char *line, char **out, bool whitespace)
{
    size_t n = 0;
    if (whitespace) {
        for (char *save = NULL, *t = strtok_r(line, " \t", &save); t && n < MAX_COLS; t = strtok_r(NULL, " \t", &save))
            out[n++] = t;
        return n;
    }
    for (char *p = line; n < MAX_COLS;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        out[n++] = trim(p);
        if (!comma)
            break;
        p = comma + 1;
    }
    return n;
}

static long column(const capture *c, const char *name)
{
    for (size_t i = 0; i < c->ncols; i++)
        if (strcmp(c->head[i], name) == 0)
            return (long)i;
    return -1;
}

/* CSV and dmon: the header names the columns; each GPU's last row is kept.
 * The GPU is the "index" (dmon: "gpu") column, else the row's number. */
static void read_table(capture *c, const char *file)
{
    bool dmon = c->fmt == FMT_DMON;
    char *save = NULL, *l = strtok_r(c->buf, "\n", &save);
    if (!l)
        return;
    if (dmon)
        l += strspn(l, "# ");
    c->ncols = split_csv(l, c->head, dmon);
    for (size_t i = 0; i < c->ncols; i++)
        c->head[i][strcspn(c->head[i], " [")] = '\0'; /* "power.draw [W]" */
    long idx = column(c, dmon ? "gpu" : "index");
    size_t rows = 0;
    while ((l = strtok_r(NULL, "\n", &save))) {
        if (!*trim(l) || *l == '#')
            continue;
        char **cells = calloc(MAX_COLS, sizeof *cells);
        size_t n = split_csv(l, cells, dmon);
        if (n != c->ncols)
            fail_msg("%s: a row of %zu fields under a header of %zu: the test cannot read it", file, n, c->ncols);
        size_t g = idx >= 0 ? strtoul(cells[idx], NULL, 10) : rows;
        rows++;
        assert_true(g < MAX_GPUS);
        free(c->row[g]);
        c->row[g] = cells;
        if (g + 1 > c->gpus)
            c->gpus = g + 1;
    }
}

static void read_capture(capture *c, const char *dir, const char *path, const char *file)
{
    memset(c, 0, sizeof *c);
    c->buf = slurp(path);
    if (!c->buf)
        fail_msg("%s: cannot read it", file);
    if (strcmp(dir, "smi-xml") == 0) {
        c->fmt = FMT_XML;
        c->doc = xmlReadMemory(c->buf, (int)strlen(c->buf), file, NULL,
                               XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
        if (!c->doc)
            fail_msg("%s: not well-formed XML to libxml2", file);
        c->xp = xmlXPathNewContext(c->doc);
        xmlXPathObject *o = xmlXPathEvalExpression(BAD_CAST "/nvidia_smi_log/gpu", c->xp);
        for (int i = 0; o && o->nodesetval && i < o->nodesetval->nodeNr && i < MAX_GPUS; i++)
            c->gpu[c->gpus++] = o->nodesetval->nodeTab[i];
        xmlXPathFreeObject(o);
    } else if (strcmp(dir, "smi-text") == 0) {
        c->fmt = FMT_TEXT;
        read_text(c);
    } else {
        c->fmt = c->buf[0] == '#' ? FMT_DMON : FMT_CSV;
        read_table(c, file);
    }
}

static void free_capture(capture *c)
{
    for (size_t g = 0; g < MAX_GPUS; g++)
        free(c->row[g]);
    free(c->lines);
    if (c->xp)
        xmlXPathFreeContext(c->xp);
    if (c->doc)
        xmlFreeDoc(c->doc);
    free(c->buf);
}

/* The text of path for GPU g (g < 0: the file's top level); false when absent. */
static bool raw(const capture *c, long g, const char *path, char *out, size_t len)
{
    switch (c->fmt) {
    case FMT_XML: {
        xmlXPathObject *o =
            g < 0 ? xmlXPathEvalExpression(BAD_CAST path, c->xp) : xmlXPathNodeEval(c->gpu[g], BAD_CAST path, c->xp);
        bool found = o && o->nodesetval && o->nodesetval->nodeNr > 0;
        if (found) {
            xmlChar *t = xmlNodeGetContent(o->nodesetval->nodeTab[0]);
            snprintf(out, len, "%s", t ? (const char *)t : "");
            xmlFree(t);
        }
        xmlXPathFreeObject(o);
        return found;
    }
    case FMT_TEXT: {
        const tline *l = g < 0 ? text_find(c, 0, c->gpus ? c->from[0] - 1 : c->nlines, path)
                               : text_find(c, c->from[g], c->to[g], path);
        if (l)
            snprintf(out, len, "%s", l->value ? l->value : "");
        else if (g >= 0 &&
                 strcmp(path, "PCI/Bus Id") == 0) /* cut from a trimmed paste: the section's heading names it */
            snprintf(out, len, "%s", c->lines[c->from[g] - 1].label + 4);
        return l != NULL || (g >= 0 && strcmp(path, "PCI/Bus Id") == 0);
    }
    default: {
        long k = column(c, path);
        char **row = c->row[g < 0 ? 0 : g];
        if (k < 0 || !row)
            return false;
        snprintf(out, len, "%s", row[k]);
        return true;
    }
    }
}

/* Written where the value is unknown or not supported. */
static bool not_available(const char *s)
{
    static const char *const na[] = {"",
                                     "N/A",
                                     "Not Supported",
                                     "Not Found",
                                     "Unknown Error",
                                     "Insufficient Permissions",
                                     "Requested functionality has been deprecated",
                                     "-"};
    if (s[0] == '[') /* "[N/A]", "[Not Supported]" in --query-gpu CSV */
        return true;
    for (size_t i = 0; i < sizeof na / sizeof na[0]; i++)
        if (strcasecmp(s, na[i]) == 0)
            return true;
    return false;
}

static value convert(conv as, char *text)
{
    value v = {.t = V_NULL};
    char *s = trim(text);
    if (not_available(s))
        return v;
    /* Driver 610 writes a note after some values: "13.3 [Deprecated; ... Use CUDA UMD Version instead]". */
    char *note = strstr(s, " [");
    if (note && s[strlen(s) - 1] == ']')
        *note = '\0';
    char *end;
    switch (as) {
    case AS_TEXT:
        v.t = V_STR;
        snprintf(v.str, sizeof v.str, "%s", s);
        return v;
    case AS_NUMBER: /* "36 C", "66.92 W", "16x", "22437 MiB" */
        v.num = strtod(s, &end);
        if (end != s && (!*end || *end == ' ' || strcmp(end, "x") == 0))
            v.t = V_NUM;
        break;
    case AS_CUDA: { /* "12.2" as the driver API's 12020 */
        int major, minor;
        if (sscanf(s, "%d.%d", &major, &minor) == 2) {
            v.t = V_NUM;
            v.num = major * 1000 + minor * 10;
        }
        break;
    }
    case AS_ENABLED:
    case AS_YES_NO: {
        const char *yes = as == AS_ENABLED ? "Enabled" : "Yes", *no = as == AS_ENABLED ? "Disabled" : "No";
        if (strcmp(s, yes) == 0 || strcmp(s, no) == 0) {
            v.t = V_NUM;
            v.num = strcmp(s, yes) == 0;
        }
        break;
    }
    case AS_REASONS: break;
    }
    if (v.t == V_NULL) {
        v.t = V_UNREADABLE;
        snprintf(v.str, sizeof v.str, "%s", s);
    }
    return v;
}

/* Active reasons as "a,b" in table order, so that order does not matter. */
static void reason_list(const bool *on, const char *unknown, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t i = 0; i < NREASONS; i++)
        if (on[i])
            snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? "," : "", reasons[i].json);
    if (unknown[0])
        snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? "," : "", unknown);
}

/* One reason entry of the file: its name in the format (tag, label, column). */
static void note_reason(const char *name, const char *state, bool text, bool *on, bool *definite, char *unknown)
{
    bool active = strcmp(state, "Active") == 0;
    if (!active && strcmp(state, "Not Active") != 0)
        return; /* N/A: the driver does not say */
    *definite = true;
    for (size_t i = 0; i < NREASONS; i++)
        if (text ? strcmp(name, reasons[i].text) == 0
                 : strcmp(name, reasons[i].xml) == 0 || strcmp(name, reasons[i].json) == 0) {
            on[i] |= active;
            return;
        }
    if (active) /* a reason the test does not know: shows up as a mismatch */
        snprintf(unknown + strlen(unknown), 128 - strlen(unknown), "%s?%s", unknown[0] ? "," : "", name);
}

/* Clock event reasons of GPU g: a list (empty when none is active), null
 * when no entry says Active or Not Active, absent without the section. */
static value file_reasons(const capture *c, size_t g, const field *f)
{
    bool on[NREASONS] = {false}, definite = false, section = false;
    char unknown[128] = "";
    for (size_t a = 0; a < MAX_ALT; a++) {
        if (c->fmt == FMT_XML && f->xml[a]) {
            char path[128], ignored[8];
            section |= raw(c, (long)g, f->xml[a], ignored, sizeof ignored);
            snprintf(path, sizeof path, "%s/*", f->xml[a]);
            xmlXPathObject *o = xmlXPathNodeEval(c->gpu[g], BAD_CAST path, c->xp);
            for (int i = 0; o && o->nodesetval && i < o->nodesetval->nodeNr; i++) {
                xmlNode *n = o->nodesetval->nodeTab[i];
                const char *tag = strstr((const char *)n->name, "_reason_");
                xmlChar *t = xmlNodeGetContent(n);
                char state[64];
                snprintf(state, sizeof state, "%s", t ? (const char *)t : "");
                note_reason(tag ? tag + 8 : (const char *)n->name, trim(state), false, on, &definite, unknown);
                xmlFree(t);
            }
            xmlXPathFreeObject(o);
        } else if (c->fmt == FMT_TEXT && f->text[a]) {
            const tline *h = text_find(c, c->from[g], c->to[g], f->text[a]);
            if (!h)
                continue;
            section = true;
            for (const tline *l = h + 1; l < c->lines + c->to[g] && l->indent > h->indent; l++)
                if (l->value)
                    note_reason(l->label, l->value, true, on, &definite, unknown);
        } else if ((c->fmt == FMT_CSV || c->fmt == FMT_DMON) && f->csv[a] && c->row[g]) {
            size_t plen = strlen(f->csv[a]);
            for (size_t k = 0; k < c->ncols; k++)
                if (strncmp(c->head[k], f->csv[a], plen) == 0 && strcmp(c->head[k] + plen, "supported") != 0 &&
                    strcmp(c->head[k] + plen, "active") != 0) {
                    section = true;
                    note_reason(c->head[k] + plen, c->row[g][k], false, on, &definite, unknown);
                }
        }
    }
    value v = {.t = !section ? V_ABSENT : definite ? V_STR : V_NULL};
    if (v.t == V_STR)
        reason_list(on, unknown, v.str, sizeof v.str);
    return v;
}

/* The field's value for GPU g (g < 0: per file) as the file says it. */
static value file_value(const capture *c, long g, const field *f)
{
    if (f->as == AS_REASONS)
        return file_reasons(c, (size_t)g, f);
    const char *const *alt = c->fmt == FMT_XML ? f->xml : c->fmt == FMT_TEXT ? f->text : f->csv;
    value best = {.t = V_ABSENT};
    char text[512];
    for (size_t a = 0; a < MAX_ALT && alt[a]; a++)
        if (raw(c, g, alt[a], text, sizeof text)) {
            value v = convert(f->as, text);
            if (v.t != V_NULL)
                return v;
            best.t = V_NULL; /* "N/A" here: perhaps a later alternative has it */
        }
    return best;
}

/* ------------------------------------------------------------------ */
/* Comparing with gpudoctor's JSON. */

/* o["a/b"] is o.a.b; NULL when a key is missing. */
static json_t *at(json_t *o, const char *key)
{
    char k[64];
    for (const char *p = key;;) {
        size_t n = strcspn(p, "/");
        snprintf(k, sizeof k, "%.*s", (int)n, p);
        o = json_object_get(o, k);
        if (!o || !p[n])
            return o;
        p += n + 1;
    }
}

static value json_value(json_t *j)
{
    value v = {.t = V_NULL};
    if (!j) {
        v.t = V_ABSENT;
    } else if (json_is_number(j)) {
        v.t = V_NUM;
        v.num = json_number_value(j);
    } else if (json_is_string(j)) {
        v.t = V_STR;
        snprintf(v.str, sizeof v.str, "%s", json_string_value(j));
    } else if (json_is_array(j)) {
        bool on[NREASONS] = {false};
        char unknown[128] = "";
        size_t i;
        json_t *r;
        json_array_foreach(j, i, r)
        {
            size_t k = 0;
            while (k < NREASONS && strcmp(json_string_value(r) ? json_string_value(r) : "", reasons[k].json) != 0)
                k++;
            if (k < NREASONS)
                on[k] = true;
            else
                snprintf(unknown + strlen(unknown), sizeof unknown - strlen(unknown), "%s?%s", unknown[0] ? "," : "",
                         json_string_value(r) ? json_string_value(r) : "(not a string)");
        }
        v.t = V_STR;
        reason_list(on, unknown, v.str, sizeof v.str);
    } else if (!json_is_null(j)) {
        v.t = V_UNREADABLE;
        snprintf(v.str, sizeof v.str, "(a JSON %s)", json_is_boolean(j) ? "boolean" : "object");
    }
    return v;
}

static const char *show(const value *v, char *buf, size_t len)
{
    switch (v->t) {
    case V_ABSENT: return "missing";
    case V_NULL: return "null";
    case V_NUM: snprintf(buf, len, "%.10g", v->num); return buf;
    case V_STR: snprintf(buf, len, "'%s'", v->str); return buf;
    default: snprintf(buf, len, "unreadable '%s'", v->str); return buf;
    }
}

typedef struct tally {
    size_t files, gpus, values, mismatches;
} tally;

/* Compares one value; what a CSV or dmon file has no column for is skipped. */
static void compare(tally *t, const capture *c, const char *file, long g, const char *key, value want, json_t *got_json)
{
    if (want.t == V_ABSENT) {
        if (c->fmt == FMT_CSV || c->fmt == FMT_DMON)
            return;
        want.t = V_NULL; /* a dump without it: gpudoctor cannot know it */
    }
    value got = json_value(got_json);
    bool same = want.t == got.t && (want.t != V_NUM || fabs(want.num - got.num) < 1e-6) &&
                (want.t != V_STR || strcmp(want.str, got.str) == 0) && want.t != V_UNREADABLE;
    t->values++;
    if (same)
        return;
    t->mismatches++;
    char a[300], b[300], where[32] = "";
    if (g >= 0)
        snprintf(where, sizeof where, " GPU %ld", g);
    print_error("%s%s %s: gpudoctor says %s, the file %s\n", file, where, key, show(&got, a, sizeof a),
                show(&want, b, sizeof b));
}

static void check_file(tally *t, const char *dir, const char *name)
{
    char path[1024], file[512];
    snprintf(file, sizeof file, "%s/%s", dir, name);
    snprintf(path, sizeof path, "%s/%s", GD_REALDATA_DIR, file);
    capture c;
    read_capture(&c, dir, path, file);
    if (c.gpus == 0)
        fail_msg("%s: the test found no GPU in it", file);

    static const char *const env[] = {"NO_COLOR=", NULL};
    tool_result r = run_tool((const char *[]){"info", "--json", "--from", path, NULL}, env);
    if (r.exit_code != 0 || !r.json)
        fail_msg("%s: info exit %d, no JSON; stderr: %s", file, r.exit_code, r.err);
    json_t *gpus = json_object_get(r.json, "gpus");
    t->files++;
    t->values++;
    if (json_array_size(gpus) != c.gpus) {
        t->mismatches++;
        print_error("%s: gpudoctor reports %zu GPUs, the file has %zu\n", file, json_array_size(gpus), c.gpus);
    }
    for (size_t f = 0; f < sizeof file_fields / sizeof file_fields[0]; f++)
        compare(t, &c, file, -1, file_fields[f].key, file_value(&c, -1, &file_fields[f]),
                at(json_object_get(r.json, "driver"), file_fields[f].key));
    for (size_t g = 0; g < c.gpus && g < json_array_size(gpus); g++) {
        json_t *gj = json_array_get(gpus, g);
        t->gpus++;
        for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
            compare(t, &c, file, (long)g, fields[f].key, file_value(&c, (long)g, &fields[f]), at(gj, fields[f].key));
    }
    tool_result_free(&r);
    free_capture(&c);
}

static void every_gpu_of_every_capture_reads_as_the_file_says(void **state)
{
    (void)state;
    need_realdata();
    static const char *const dirs[] = {"smi-xml", "smi-text", "smi-csv"};
    tally t = {0};
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", GD_REALDATA_DIR, dirs[d]);
        struct dirent **names;
        int n = scandir(dir, &names, NULL, alphasort);
        if (n < 0)
            fail_msg("%s: cannot list it", dir);
        for (int i = 0; i < n; i++) {
            char rel[600];
            snprintf(rel, sizeof rel, "%s/%s", dirs[d], names[i]->d_name);
            if (names[i]->d_name[0] != '.')
                check_file(&t, dirs[d], names[i]->d_name);
            free(names[i]);
        }
        free(names);
    }
    print_message("%zu files, %zu GPUs, %zu values compared\n", t.files, t.gpus, t.values);
    if (t.mismatches)
        fail_msg("%zu of %zu values differ from the files (listed above)", t.mismatches, t.values);
    assert_true(t.files >= 29 && t.gpus >= 60); /* the folders as SOURCES.md lists them: nothing skipped */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_gpu_of_every_capture_reads_as_the_file_says),
    };
    int rc = realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
    xmlCleanupParser();
    return rc;
}
