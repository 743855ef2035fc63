/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nvidia-smi dmon: a per-interval monitor log. Two '#' header lines (names,
 * then units) that dmon repeats every screenful; then one line per GPU per
 * interval. Columns are found by name, so any -s selection works; "-" is
 * "not supported". With -o D/T the Date and Time columns give the sample
 * times; without them dmon's default 1 s interval is assumed (and said).
 */
#include "capture.h"
#include "import.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define M(metric) GD_CF_METRIC, (metric), 0, 0
#define MAX_COLUMNS 64

static const gd_cap_map dmon_map[] = {
    {"pwr", M(GD_M_POWER_W)},
    {"gtemp", M(GD_M_TEMP_C)},
    {"mtemp", M(GD_M_MEM_TEMP_C)},
    {"sm", M(GD_M_UTIL_GPU_PCT)},
    {"mem", M(GD_M_UTIL_MEM_PCT)},
    {"mclk", M(GD_M_MEM_CLOCK_MHZ)},
    {"pclk", M(GD_M_SM_CLOCK_MHZ)}, /* the processor (graphics) clock, which the SMs run at */
    {"fb", M(GD_M_MEM_USED_MIB)}, /* dmon's "MB" are MiB */
    {"rxpci", GD_CF_METRIC, GD_M_PCIE_RX_KBPS, 0, 1000.0}, /* MB/s */
    {"txpci", GD_CF_METRIC, GD_M_PCIE_TX_KBPS, 0, 1000.0},
};

#define NMAP(m) (sizeof(m) / sizeof((m)[0]))

typedef struct dmon_state {
    gd_cap *c;
    size_t ncols;
    const gd_cap_map *col[MAX_COLUMNS];
    int gpu_col, date_col, time_col;
    bool timed;
    double t0;
} dmon_state;

/* Splits at blanks; returns the number of tokens (at most MAX_COLUMNS). */
static size_t tokens(const char *l, size_t n, const char **start, size_t *len)
{
    size_t k = 0, i = 0;
    while (k < MAX_COLUMNS) {
        while (i < n && isspace((unsigned char)l[i]))
            i++;
        if (i >= n)
            break;
        size_t j = i;
        while (j < n && !isspace((unsigned char)l[j]))
            j++;
        start[k] = l + i;
        len[k++] = j - i;
        i = j;
    }
    return k;
}

/* "# gpu pwr gtemp ..." (names) or "# Idx W C ..." (units: ignored). */
static int header(dmon_state *st, const char *l, size_t n)
{
    const char *start[MAX_COLUMNS];
    size_t len[MAX_COLUMNS];
    size_t k = tokens(l + 1, n - 1, start, len);
    int gpu = -1, date = -1, tm = -1;
    for (size_t i = 0; i < k; i++) {
        if (len[i] == 3 && strncasecmp(start[i], "gpu", 3) == 0)
            gpu = (int)i;
        else if (len[i] == 4 && strncasecmp(start[i], "Date", 4) == 0)
            date = (int)i;
        else if (len[i] == 4 && strncasecmp(start[i], "Time", 4) == 0)
            tm = (int)i;
    }
    if (gpu < 0)
        return 0; /* the units line, or a comment */
    st->ncols = k;
    st->gpu_col = gpu;
    st->date_col = date;
    st->time_col = tm;
    for (size_t i = 0; i < k; i++) {
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(len[i] < 31 ? len[i] : 31), start[i]);
        st->col[i] = gd_cap_lookup(dmon_map, NMAP(dmon_map), name);
    }
    return 0;
}

/* Seconds of "20240101 12:00:01" (Date) and/or "12:00:01" (Time). */
static bool row_time(const dmon_state *st, const char **start, const size_t *len, double *out)
{
    if (st->time_col < 0)
        return false;
    char buf[32];
    snprintf(buf, sizeof buf, "%.*s", (int)(len[st->time_col] < 31 ? len[st->time_col] : 31), start[st->time_col]);
    int h, m, s, n = 0;
    if (sscanf(buf, "%2d:%2d:%2d%n", &h, &m, &s, &n) != 3 || buf[n] || h > 23 || m > 59 || s > 60 || h < 0 || m < 0 ||
        s < 0)
        return false;
    int y = 1970, mo = 1, d = 1;
    if (st->date_col >= 0) {
        snprintf(buf, sizeof buf, "%.*s", (int)(len[st->date_col] < 31 ? len[st->date_col] : 31), start[st->date_col]);
        if (sscanf(buf, "%4d%2d%2d%n", &y, &mo, &d, &n) != 3 || buf[n] || mo < 1 || mo > 12 || d < 1 || d > 31)
            return false;
    }
    *out = gd_cap_civil_seconds(y, mo, d, h, m, s);
    return true;
}

static int row(dmon_state *st, const char *l, size_t n)
{
    gd_cap *c = st->c;
    if (st->ncols == 0)
        return gd_cap_fail(c, "a dmon line before any '# gpu ...' header");
    const char *start[MAX_COLUMNS];
    size_t len[MAX_COLUMNS];
    size_t k = tokens(l, n, start, len);
    if (k != st->ncols)
        return gd_cap_fail(c, "%zu columns where the header has %zu: truncated or garbled line", k, st->ncols);
    char key[32];
    snprintf(key, sizeof key, "%.*s", (int)(len[st->gpu_col] < 31 ? len[st->gpu_col] : 31), start[st->gpu_col]);
    char *end;
    long idx = strtol(key, &end, 10);
    if (*end || idx < 0 || idx >= GD_CAP_MAX_GPUS)
        return gd_cap_fail(c, "'%s' is not a GPU index", key);
    long g = gd_cap_find_gpu(c, GD_CF_INDEX, key);
    if (g < 0) {
        if ((g = gd_cap_add_gpu(c)) < 0)
            return -1;
        c->f->gpus[g].index = (int)idx;
    }
    double abs_s;
    bool timed = row_time(st, start, len, &abs_s);
    if (c->nsamples == 0) {
        st->timed = timed;
        st->t0 = timed ? abs_s : 0;
    }
    if (gd_cap_advance(c, (size_t)g, false, st->timed && timed ? abs_s - st->t0 : NAN) != 0)
        return -1;
    for (size_t i = 0; i < k; i++)
        if (st->col[i] && gd_cap_set(c, st->col[i], start[i], len[i]) != 0)
            return -1;
    return 0;
}

static int dmon_line(void *ctx, const char *l, size_t n)
{
    dmon_state *st = ctx;
    size_t lead = 0;
    while (lead < n && (l[lead] == ' ' || l[lead] == '\t'))
        lead++;
    if (lead >= n)
        return 0;
    return l[lead] == '#' ? header(st, l + lead, n - lead) : row(st, l, n);
}

int gd_import_dmon(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    gd_cap c;
    gd_cap_begin(&c, f, name, err, errlen);
    dmon_state st = {.c = &c, .gpu_col = -1, .date_col = -1, .time_col = -1};
    int rc = -1;
    if (gd_cap_each_line(&c, text, len, "a dmon log", dmon_line, &st) != 0)
        goto out;
    if (c.nsamples == 0) {
        gd_cap_fail(&c, "a dmon header without any sample line");
        goto out;
    }
    /* nvidia-smi runs only with a working driver, but dmon names no version. */
    f->capture_untimed = !st.timed;
    rc = gd_cap_finish(&c, false);
out:
    gd_cap_free(&c);
    return rc;
}
