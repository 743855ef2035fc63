/* SPDX-License-Identifier: Apache-2.0 */
/* The capture builder: GPUs, samples and rows; the values (and the messages
 * of what cannot be read) are capture_set.c's. */
#include "capture.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const gd_cap_map *gd_cap_lookup(const gd_cap_map *map, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(map[i].key, key) == 0)
            return &map[i];
    return NULL;
}

void gd_cap_begin(gd_cap *c, gd_facts *f, const char *name, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->f = f;
    c->name = name;
    c->err = err;
    c->errlen = errlen;
    snprintf(f->capture_files[0], sizeof f->capture_files[0], "%s", name);
    f->capture_file_count = 1;
    f->driver_file = f->hostname_file = 0;
}

long gd_cap_add_gpu(gd_cap *c)
{
    gd_facts *f = c->f;
    if (f->gpu_count >= GD_CAP_MAX_GPUS)
        return gd_cap_fail(c, "more than %d GPUs: not a capture of one machine", GD_CAP_MAX_GPUS);
    if (f->gpu_count == c->gpu_cap) {
        size_t cap = c->gpu_cap ? c->gpu_cap * 2 : 8;
        gd_gpu *g = realloc(f->gpus, cap * sizeof *g);
        if (!g)
            return gd_cap_fail(c, "out of memory");
        f->gpus = g;
        unsigned char(*p)[GD_CF_COUNT] = realloc(c->gprio, cap * sizeof *p);
        if (!p)
            return gd_cap_fail(c, "out of memory");
        c->gprio = p;
        c->gpu_cap = cap;
    }
    size_t g = f->gpu_count++;
    memset(&f->gpus[g], 0, sizeof f->gpus[g]);
    memset(c->gprio[g], 0, sizeof c->gprio[g]);
    f->gpus[g].index = (int)g;
    return (long)g;
}

long gd_cap_find_gpu(const gd_cap *c, gd_cap_field kind, const char *key)
{
    char want[32];
    if (kind == GD_CF_BUS_ID) {
        gd_pci_bus_id_norm(key, want, sizeof want);
        if (!want[0])
            return -1;
    }
    for (size_t g = 0; g < c->f->gpu_count; g++) {
        const gd_gpu *gpu = &c->f->gpus[g];
        if ((kind == GD_CF_BUS_ID && strcmp(gpu->pci_bus_id, want) == 0) ||
            (kind == GD_CF_UUID && gpu->uuid[0] && strcasecmp(gpu->uuid, key) == 0) ||
            (kind == GD_CF_INDEX && atoi(key) == gpu->index))
            return (long)g;
    }
    return -1;
}

long gd_cap_sample(gd_cap *c, double t_s)
{
    if (c->nsamples == c->tcap) {
        size_t cap = c->tcap ? c->tcap * 2 : 16;
        double *t = realloc(c->t, cap * sizeof *t);
        if (!t)
            return gd_cap_fail(c, "out of memory");
        c->t = t;
        c->tcap = cap;
    }
    c->t[c->nsamples] = t_s;
    c->cur = NULL;
    return (long)c->nsamples++;
}

bool gd_cap_row_exists(const gd_cap *c, size_t g)
{
    /* Rows of the current sample are the last ones. */
    for (size_t i = c->nrows; i-- > 0 && c->rows[i].sample + 1 == c->nsamples;)
        if (c->rows[i].gpu == g)
            return true;
    return false;
}

int gd_cap_row_for(gd_cap *c, size_t g)
{
    if (c->nsamples == 0 && gd_cap_sample(c, 0) < 0)
        return -1;
    for (size_t i = c->nrows; i-- > 0 && c->rows[i].sample + 1 == c->nsamples;)
        if (c->rows[i].gpu == g) {
            c->cur = &c->rows[i];
            return 0;
        }
    if (c->nrows >= GD_CAP_MAX_ROWS)
        return gd_cap_fail(c, "more than %d samples: cut the log into shorter pieces", GD_CAP_MAX_ROWS);
    if (c->nrows == c->rowcap) {
        size_t cap = c->rowcap ? c->rowcap * 2 : 16;
        gd_cap_row *r = realloc(c->rows, cap * sizeof *r);
        if (!r)
            return gd_cap_fail(c, "out of memory");
        c->rows = r;
        c->rowcap = cap;
    }
    gd_cap_row *r = &c->rows[c->nrows++];
    memset(r, 0, sizeof *r);
    r->sample = c->nsamples - 1;
    r->gpu = g;
    c->cur = r;
    return 0;
}

int gd_cap_advance(gd_cap *c, size_t g, bool force, double t_s)
{
    if (force || c->nsamples == 0 || gd_cap_row_exists(c, g)) {
        double at = isnan(t_s) ? (double)c->nsamples : t_s;
        if (c->nsamples && at < c->t[c->nsamples - 1])
            at = c->t[c->nsamples - 1]; /* a clock stepped back: keep the series ordered */
        if (gd_cap_sample(c, at) < 0)
            return -1;
    }
    return gd_cap_row_for(c, g);
}

int gd_cap_each_line(gd_cap *c, const char *text, size_t len, const char *what, gd_cap_line_fn fn, void *ctx)
{
    long lineno = 0;
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        const char *l = text + pos;
        pos += n + 1;
        c->line = ++lineno;
        if (n && l[n - 1] == '\r')
            n--;
        if (memchr(l, '\0', n))
            return gd_cap_fail(c, "binary data inside %s", what);
        if (fn(ctx, l, n) != 0)
            return -1;
    }
    c->line = 0;
    return 0;
}

int gd_cap_finish(gd_cap *c, bool full_dump)
{
    gd_facts *f = c->f;
    if (gd_series_init(&f->series, f->gpu_count) != 0)
        return gd_cap_fail(c, "out of memory");
    for (size_t i = 0; i < c->nsamples; i++)
        if (gd_series_push(&f->series, c->t[i]) < 0)
            return gd_cap_fail(c, "out of memory");
    for (size_t k = 0; k < c->nrows; k++) {
        gd_cap_row *r = &c->rows[k];
        gd_value *slot = gd_series_slot(&f->series, r->sample, r->gpu);
        memcpy(slot, r->v, sizeof r->v);
        slot[GD_M_EVENT_REASONS] =
            r->reasons_seen ? gd_val((double)r->reasons) : gd_missing(full_dump ? GD_ST_NOT_REPORTED : GD_ST_UNREAD);
        for (int m = 0; full_dump && m < GD_M_COUNT; m++)
            if (slot[m].status == GD_ST_UNREAD)
                slot[m] = gd_missing(GD_ST_NOT_REPORTED);
    }
    /* Card and slot together: nvidia-smi's Max, else the lower of Device Max and Host Max. */
    for (size_t g = 0; g < f->gpu_count; g++) {
        gd_gpu *gpu = &f->gpus[g];
        if (!gd_ok(gpu->pcie_gen_max) && gd_ok(gpu->pcie_gen_max_device) && gd_ok(gpu->pcie_gen_max_host))
            gpu->pcie_gen_max = gd_val(fmin(gpu->pcie_gen_max_device.v, gpu->pcie_gen_max_host.v));
    }
    /* A full dump shows everything the driver knows: what it lacks, the board does not report. */
    for (size_t g = 0; full_dump && g < f->gpu_count; g++)
        gd_cap_mark_unsupported(&f->gpus[g]);
    return 0;
}

void gd_cap_note_pcie_source(gd_cap *c, const char *fields)
{
    const char *base = strrchr(c->name, '/');
    base = base ? base + 1 : c->name;
    for (size_t g = 0; g < c->f->gpu_count; g++) {
        gd_gpu *gpu = &c->f->gpus[g];
        if (gd_ok(gpu->pcie_gen_max) || gd_ok(gpu->pcie_width_max) || gd_ok(gpu->pcie_gen_max_device))
            snprintf(gpu->pcie_max_source, sizeof gpu->pcie_max_source, "capture:%s:%s", base, fields);
    }
}

double gd_cap_civil_seconds(int y, int mo, int d, int h, int mi, double sec)
{
    /* Days from civil (Howard Hinnant's algorithm): no time zone, no libc state. */
    y -= mo <= 2;
    long era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
    long doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (double)days * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
}

void gd_cap_free(gd_cap *c)
{
    free(c->rows);
    free(c->t);
    free(c->gprio);
    c->rows = NULL;
    c->t = NULL;
    c->gprio = NULL;
}
