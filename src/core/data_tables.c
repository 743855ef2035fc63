/* SPDX-License-Identifier: Apache-2.0 */
/* Lookups in the embedded data tables (the tables in data/). */
#include "data_tables.h"

#include "core/versions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern const char gd_data_cuda_drivers[];
extern const char gd_data_xid[];
extern const char gd_data_gpus[];
extern const char gd_data_model_shapes[];

/* Splits the next data line of *p (skipping comments and blank lines) into
 * up to `max` tab-separated fields copied to f[i] (each 160 bytes). Returns
 * the number of fields, 0 at the end. */
static size_t next_row(const char **p, char f[][160], size_t max)
{
    while (**p) {
        const char *line = *p, *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        *p = nl ? nl + 1 : line + len;
        if (len == 0 || line[0] == '#')
            continue;
        size_t n = 0;
        for (const char *s = line; n < max && s <= line + len;) {
            const char *tab = memchr(s, '\t', (size_t)(line + len - s));
            const char *e = tab ? tab : line + len;
            snprintf(f[n++], 160, "%.*s", (int)(e - s), s);
            if (!tab)
                break;
            s = tab + 1;
        }
        return n;
    }
    return 0;
}

bool gd_cuda_release_find(int cuda, gd_cuda_release *out)
{
    char f[3][160];
    const char *p = gd_data_cuda_drivers;
    bool found = false;
    while (next_row(&p, f, 3) == 3) {
        int v = gd_cuda_version_parse(f[0]);
        if (v / 1000 != cuda / 1000 || v > cuda)
            continue;
        out->cuda = v;
        snprintf(out->driver_min, sizeof out->driver_min, "%.23s", f[1]);
        snprintf(out->family_min, sizeof out->family_min, "%.23s", f[2]);
        found = true; /* rows ascend: the last match is the nearest */
    }
    return found;
}

int gd_cuda_release_newest(void)
{
    char f[3][160];
    const char *p = gd_data_cuda_drivers;
    int newest = 0;
    while (next_row(&p, f, 3) == 3) {
        int v = gd_cuda_version_parse(f[0]);
        newest = v > newest ? v : newest;
    }
    return newest;
}

bool gd_xid_lookup(int xid, gd_xid_info *out)
{
    char f[4][160];
    const char *p = gd_data_xid;
    while (next_row(&p, f, 4) == 4) {
        if (atoi(f[0]) != xid)
            continue;
        out->xid = xid;
        snprintf(out->dcgm, sizeof out->dcgm, "%.7s", f[1]);
        snprintf(out->action, sizeof out->action, "%.7s", f[2]);
        snprintf(out->meaning, sizeof out->meaning, "%s", f[3]);
        return true;
    }
    *out = (gd_xid_info){.xid = xid, .dcgm = "-", .action = "watch"};
    snprintf(out->meaning, sizeof out->meaning, "Xid %d (not in gpudoctor's table: see NVIDIA's Xid catalog)", xid);
    return false;
}

/* Up to 4 numeric components; a missing one counts as 0. */
static void components(const char *s, long c[4])
{
    for (int i = 0; i < 4; i++) {
        char *e;
        c[i] = strtol(s, &e, 10);
        s = *e == '.' ? e + 1 : "";
    }
}

int gd_driver_version_cmp(const char *a, const char *b)
{
    long x[4], y[4];
    components(a, x);
    components(b, y);
    for (int i = 0; i < 4; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

static void board_of(char f[][160], gd_gpu_board *out)
{
    snprintf(out->name, sizeof out->name, "%.31s", f[0]);
    snprintf(out->aliases, sizeof out->aliases, "%.95s", strcmp(f[1], "-") == 0 ? "" : f[1]);
    snprintf(out->label, sizeof out->label, "%.63s", f[2]);
    out->mib = strtod(f[3], NULL);
    out->table_gb = atoi(f[4]);
}

bool gd_gpu_board_at(size_t i, gd_gpu_board *out)
{
    char f[6][160];
    const char *p = gd_data_gpus;
    for (size_t row = 0; next_row(&p, f, 6) == 6; row++)
        if (row == i) {
            board_of(f, out);
            return true;
        }
    return false;
}

/* Is `name` one of the comma-separated names in `list`? */
static bool in_names(const char *name, const char *list)
{
    size_t n = strlen(name);
    for (const char *s = list; *s;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (len == n && strncasecmp(s, name, n) == 0)
            return true;
        s += len + (comma ? 1 : 0);
    }
    return false;
}

bool gd_gpu_board_find(const char *name, gd_gpu_board *out)
{
    gd_gpu_board b;
    for (size_t i = 0; gd_gpu_board_at(i, &b); i++)
        if (strcasecmp(b.name, name) == 0 || in_names(name, b.aliases)) {
            *out = b;
            return true;
        }
    return false;
}

bool gd_model_shape_nearest(double params, gd_model_shape *out)
{
    char f[9][160];
    const char *p = gd_data_model_shapes;
    double best = INFINITY;
    while (next_row(&p, f, 9) == 9) {
        double n = strtod(f[1], NULL);
        double d = fabs(log(params / n));
        if (!(n > 0) || d >= best)
            continue;
        best = d;
        long *dst[] = {&out->layers, &out->hidden, &out->heads, &out->kv_heads, &out->ffn, &out->vocab};
        for (size_t k = 0; k < 6; k++)
            *dst[k] = atol(f[2 + k]);
        snprintf(out->name, sizeof out->name, "%.31s", f[0]);
        out->params = n;
        out->tied = strcmp(f[8], "yes") == 0;
    }
    return isfinite(best);
}
