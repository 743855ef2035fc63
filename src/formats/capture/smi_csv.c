/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nvidia-smi --query-gpu=... --format=csv: a log of chosen fields, one row
 * per GPU per interval (-l / -lms). Columns are found by header name, so any
 * selection and order works; units in headers ("power.draw [W]") and in
 * values ("110.23 W", unless nounits) are both understood, and "[N/A]",
 * "[Not Supported]" are "not supported", never 0. Deprecated names
 * (clocks_throttle_reasons.*) read as their successors. Rows of one
 * timestamp form one sample; without a timestamp column, a GPU seen again
 * starts the next sample and samples are taken as 1 s apart.
 */
#include "capture.h"
#include "import.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define R(bit) GD_CF_REASON, (long long)(bit), 0, 0
#define M(metric) GD_CF_METRIC, (metric), 0, 0
#define S(field) (field), 0, 0, 0
#define MAX_COLUMNS 512

static const gd_cap_map csv_map[] = {
    {"driver_version", S(GD_CF_DRIVER_VERSION)},
    {"hostname", S(GD_CF_HOSTNAME)},
    {"name", S(GD_CF_NAME)},
    {"gpu_name", S(GD_CF_NAME)},
    {"uuid", S(GD_CF_UUID)},
    {"gpu_uuid", S(GD_CF_UUID)},
    {"pci.bus_id", S(GD_CF_BUS_ID)},
    {"gpu_bus_id", S(GD_CF_BUS_ID)},
    {"serial", S(GD_CF_SERIAL)},
    {"vbios_version", S(GD_CF_VBIOS)},
    {"index", S(GD_CF_INDEX)},
    {"compute_cap", S(GD_CF_COMPUTE_CAP)},
    {"persistence_mode", S(GD_CF_PERSISTENCE)},
    {"compute_mode", S(GD_CF_COMPUTE_MODE)},
    {"mig.mode.current", S(GD_CF_MIG)},
    {"c2c.mode", S(GD_CF_C2C)},
    {"ecc.mode.current", S(GD_CF_ECC)},
    {"ecc.errors.uncorrected.volatile.total", S(GD_CF_ECC_VOL_UNC)},
    {"ecc.errors.uncorrected.aggregate.total", S(GD_CF_ECC_AGG_UNC)},
    {"retired_pages.single_bit_ecc.count", S(GD_CF_RETIRED_SBE)},
    {"retired_pages.sbe", S(GD_CF_RETIRED_SBE)},
    {"retired_pages.double_bit.count", S(GD_CF_RETIRED_DBE)},
    {"retired_pages.dbe", S(GD_CF_RETIRED_DBE)},
    {"retired_pages.pending", S(GD_CF_RETIRED_PENDING)},
    {"remapped_rows.correctable", S(GD_CF_REMAP_CORR)},
    {"remapped_rows.uncorrectable", S(GD_CF_REMAP_UNC)},
    {"remapped_rows.pending", S(GD_CF_REMAP_PENDING)},
    {"remapped_rows.failure", S(GD_CF_REMAP_FAILURE)},
    {"memory.total", S(GD_CF_MEM_TOTAL)},
    {"memory.used", M(GD_M_MEM_USED_MIB)},
    {"utilization.gpu", M(GD_M_UTIL_GPU_PCT)},
    {"utilization.memory", M(GD_M_UTIL_MEM_PCT)},
    {"temperature.gpu", M(GD_M_TEMP_C)},
    {"temperature.memory", M(GD_M_MEM_TEMP_C)},
    {"fan.speed", M(GD_M_FAN_PCT)},
    {"pstate", M(GD_M_PSTATE)},
    {"power.draw", GD_CF_METRIC, GD_M_POWER_W, 3, 0},
    {"power.draw.average", GD_CF_METRIC, GD_M_POWER_W, 2, 0},
    {"power.draw.instant", GD_CF_METRIC, GD_M_POWER_W, 1, 0},
    {"enforced.power.limit", GD_CF_POWER_LIMIT, 0, 3, 0},
    {"power.limit", GD_CF_POWER_REQUESTED, 0, 1, 0}, /* "set by software like nvidia-smi" */
    {"power.default_limit", S(GD_CF_POWER_DEFAULT)},
    {"power.min_limit", S(GD_CF_POWER_MIN)},
    {"power.max_limit", S(GD_CF_POWER_MAX)},
    {"clocks.current.sm", M(GD_M_SM_CLOCK_MHZ)},
    {"clocks.sm", M(GD_M_SM_CLOCK_MHZ)},
    {"clocks.current.memory", M(GD_M_MEM_CLOCK_MHZ)},
    {"clocks.mem", M(GD_M_MEM_CLOCK_MHZ)},
    {"clocks.max.sm", S(GD_CF_CLOCK_MAX_SM)},
    {"clocks.max.memory", S(GD_CF_CLOCK_MAX_MEM)},
    {"clocks.max.mem", S(GD_CF_CLOCK_MAX_MEM)},
    {"clocks.applications.graphics", S(GD_CF_CLOCK_APP_SM)},
    {"clocks.applications.memory", S(GD_CF_CLOCK_APP_MEM)},
    {"clocks.default_applications.graphics", S(GD_CF_CLOCK_DEFAULT_APP_SM)},
    {"clocks.default_applications.memory", S(GD_CF_CLOCK_DEFAULT_APP_MEM)},
    {"pcie.link.gen.current", GD_CF_METRIC, GD_M_PCIE_GEN, 2, 0},
    {"pcie.link.gen.gpucurrent", GD_CF_METRIC, GD_M_PCIE_GEN, 1, 0},
    {"pcie.link.gen.max", S(GD_CF_PCIE_GEN_MAX)}, /* card and slot together */
    {"pcie.link.gen.gpumax", S(GD_CF_PCIE_GEN_MAX_DEVICE)},
    {"pcie.link.gen.hostmax", S(GD_CF_PCIE_GEN_MAX_HOST)},
    {"pcie.link.width.current", M(GD_M_PCIE_WIDTH)},
    {"pcie.link.width.max", S(GD_CF_PCIE_WIDTH_MAX)},
    {"clocks_event_reasons.active", GD_CF_REASON_MASK, 0, 0, 0},
    {"clocks_event_reasons.gpu_idle", R(0x1)},
    {"clocks_event_reasons.applications_clocks_setting", R(0x2)},
    {"clocks_event_reasons.sw_power_cap", R(0x4)},
    {"clocks_event_reasons.hw_slowdown", R(0x8)},
    {"clocks_event_reasons.sync_boost", R(0x10)},
    {"clocks_event_reasons.sw_thermal_slowdown", R(0x20)},
    {"clocks_event_reasons.hw_thermal_slowdown", R(0x40)},
    {"clocks_event_reasons.hw_power_brake_slowdown", R(0x80)},
    {"clocks_event_reasons.display_clock_setting", R(0x100)},
    {"clocks_event_reasons_counters.sw_power_cap", GD_CF_VIOLATION_US, GD_M_VIOL_POWER_NS, 0, 0},
    {"clocks_event_reasons_counters.sw_thermal_slowdown", GD_CF_VIOLATION_US, GD_M_VIOL_THERMAL_NS, 0, 0},
    {"clocks_event_reasons_counters.hw_thermal_slowdown", GD_CF_VIOLATION_US, GD_M_VIOL_THERMAL_NS, 0, 0},
    {"clocks_event_reasons_counters.hw_power_brake_slowdown", GD_CF_VIOLATION_US, GD_M_VIOL_POWER_BRAKE_NS, 0, 0},
};

#define NMAP(m) (sizeof(m) / sizeof((m)[0]))

typedef struct csv_state {
    gd_cap *c;
    size_t ncols;
    const gd_cap_map *col[MAX_COLUMNS];
    int ts_col, bus_col, uuid_col, index_col;
    char ts[64]; /* timestamp text of the current sample */
    double t0; /* seconds of the first timestamp */
    bool timed;
    char header[1024]; /* the header line as written: a paste of two runs repeats it */
} csv_state;

/* Splits a line at commas into at most MAX_COLUMNS fields; returns the count. */
static size_t split(const char *l, size_t n, const char **start, size_t *len)
{
    size_t k = 0;
    for (size_t i = 0; k < MAX_COLUMNS;) {
        size_t j = i;
        while (j < n && l[j] != ',')
            j++;
        start[k] = l + i;
        len[k++] = j - i;
        if (j >= n)
            break;
        i = j + 1;
    }
    return k;
}

/* "power.draw [W]" -> "power.draw"; old names -> current ones. */
static void column_name(const char *s, size_t n, char *out, size_t cap)
{
    while (n && *s == ' ')
        s++, n--;
    size_t k = 0;
    for (size_t i = 0; i < n && s[i] != '[' && k + 1 < cap; i++)
        out[k++] = s[i];
    while (k && out[k - 1] == ' ')
        k--;
    out[k] = '\0';
    static const char old[] = "clocks_throttle_reasons";
    if (strncasecmp(out, old, sizeof old - 1) == 0) {
        char canon[128];
        snprintf(canon, sizeof canon, "clocks_event_reasons%s", out + sizeof old - 1);
        snprintf(out, cap, "%s", canon);
    }
}

static int header(csv_state *st, const char *l, size_t n)
{
    const char *start[MAX_COLUMNS];
    size_t len[MAX_COLUMNS];
    st->ncols = split(l, n, start, len);
    st->ts_col = st->bus_col = st->uuid_col = st->index_col = -1;
    size_t known = 0;
    for (size_t i = 0; i < st->ncols; i++) {
        char name[128];
        column_name(start[i], len[i], name, sizeof name);
        st->col[i] = gd_cap_lookup(csv_map, NMAP(csv_map), name);
        known += st->col[i] != NULL;
        if (strcasecmp(name, "timestamp") == 0)
            st->ts_col = (int)i, known++;
        else if (st->col[i] && st->col[i]->field == GD_CF_BUS_ID)
            st->bus_col = (int)i;
        else if (st->col[i] && st->col[i]->field == GD_CF_UUID)
            st->uuid_col = (int)i;
        else if (st->col[i] && st->col[i]->field == GD_CF_INDEX)
            st->index_col = (int)i;
    }
    if (known == 0)
        return gd_cap_fail(st->c, "no column of this CSV header is an nvidia-smi --query-gpu field");
    return 0;
}

/* "2026/07/03 08:33:53.415" -> seconds (UTC-agnostic: only differences matter). */
static bool parse_time(const char *s, double *out)
{
    int y, mo, d, h, mi;
    double sec;
    if (sscanf(s, "%d/%d/%d %d:%d:%lf", &y, &mo, &d, &h, &mi, &sec) != 6 || y < 1970 || y > 9999 || mo < 1 || mo > 12 ||
        d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || !(sec >= 0 && sec < 61))
        return false;
    *out = gd_cap_civil_seconds(y, mo, d, h, mi, sec);
    return true;
}

static void field_text(const char *s, size_t n, char *out, size_t cap)
{
    while (n && *s == ' ')
        s++, n--;
    while (n && s[n - 1] == ' ')
        n--;
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), s);
}

/* The GPU a row is about: by bus id, UUID or index; a new one if unseen. */
static long row_gpu(csv_state *st, const char **start, const size_t *len)
{
    static const gd_cap_field kinds[] = {GD_CF_BUS_ID, GD_CF_UUID, GD_CF_INDEX};
    int cols[] = {st->bus_col, st->uuid_col, st->index_col};
    for (size_t k = 0; k < 3; k++) {
        if (cols[k] < 0)
            continue;
        char key[128];
        field_text(start[cols[k]], len[cols[k]], key, sizeof key);
        long g = gd_cap_find_gpu(st->c, kinds[k], key);
        if (g >= 0)
            return g;
    }
    if (st->bus_col < 0 && st->uuid_col < 0 && st->index_col < 0 && st->c->f->gpu_count == 1)
        return 0; /* no key column: one GPU */
    return gd_cap_add_gpu(st->c);
}

static int row(csv_state *st, const char *l, size_t n)
{
    const char *start[MAX_COLUMNS];
    size_t len[MAX_COLUMNS];
    size_t k = split(l, n, start, len);
    if (k != st->ncols)
        return gd_cap_fail(st->c, "%zu fields where the header has %zu: truncated, or not one query's output", k,
                           st->ncols);
    gd_cap *c = st->c;
    char ts[64] = "";
    if (st->ts_col >= 0)
        field_text(start[st->ts_col], len[st->ts_col], ts, sizeof ts);
    long g = row_gpu(st, start, len);
    if (g < 0)
        return -1;
    double abs_s;
    if (c->nsamples == 0)
        st->timed = parse_time(ts, &st->t0);
    double t = st->timed && parse_time(ts, &abs_s) ? abs_s - st->t0 : NAN;
    /* Rows of one timestamp are one sample. */
    if (gd_cap_advance(c, (size_t)g, c->nsamples > 0 && strcmp(ts, st->ts) != 0, t) != 0)
        return -1;
    snprintf(st->ts, sizeof st->ts, "%s", ts);
    for (size_t i = 0; i < k; i++)
        if (st->col[i] && gd_cap_set(c, st->col[i], start[i], len[i]) != 0)
            return -1;
    return 0;
}

static int csv_line(void *ctx, const char *l, size_t n)
{
    csv_state *st = ctx;
    size_t lead = 0;
    while (lead < n && (l[lead] == ' ' || l[lead] == '\t'))
        lead++;
    if (lead >= n)
        return 0;
    if (st->ncols == 0) {
        snprintf(st->header, sizeof st->header, "%.*s", (int)(n < sizeof st->header ? n : sizeof st->header - 1), l);
        return header(st, l, n);
    }
    if (n < sizeof st->header && strlen(st->header) == n && memcmp(st->header, l, n) == 0)
        return 0; /* the header again: a second run pasted after the first */
    return row(st, l, n);
}

int gd_import_smi_csv(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    gd_cap c;
    gd_cap_begin(&c, f, name, err, errlen);
    csv_state *st = calloc(1, sizeof *st);
    int rc = -1;
    if (!st) {
        gd_cap_fail(&c, "out of memory");
        goto out;
    }
    st->c = &c;
    if (gd_cap_each_line(&c, text, len, "a CSV log", csv_line, st) != 0)
        goto out;
    if (c.nsamples == 0) {
        gd_cap_fail(&c, "a CSV header without any row of values");
        goto out;
    }
    f->capture_untimed = !st->timed;
    rc = gd_cap_finish(&c, false);
    if (rc == 0)
        gd_cap_note_pcie_source(&c, "pcie.link.gen.max,pcie.link.gen.gpumax,pcie.link.gen.hostmax,pcie.link.width.max");
out:
    free(st);
    gd_cap_free(&c);
    return rc;
}
