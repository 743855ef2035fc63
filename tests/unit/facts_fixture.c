/* SPDX-License-Identifier: Apache-2.0 */
#include "facts_fixture.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fx_facts(gd_facts *f, size_t gpus, size_t samples)
{
    memset(f, 0, sizeof *f);
    f->driver_loaded = true;
    snprintf(f->driver_version, sizeof f->driver_version, "550.54.15");
    f->cuda_driver_version = gd_val(12040);
    snprintf(f->source, sizeof f->source, "test");
    f->gpu_count = gpus;
    f->gpus = calloc(gpus, sizeof *f->gpus);
    for (size_t g = 0; g < gpus; g++) {
        gd_gpu *x = &f->gpus[g];
        x->index = (int)g;
        snprintf(x->name, sizeof x->name, "NVIDIA H100 80GB HBM3");
        snprintf(x->pci_bus_id, sizeof x->pci_bus_id, "00000000:%02zX:00.0", 0x18 + g);
        x->temp_slowdown_c = gd_val(89);
        x->temp_shutdown_c = gd_val(92);
        x->temp_gpu_max_c = gd_val(87);
        x->temp_mem_max_c = gd_val(95);
        x->clock_max_sm_mhz = gd_val(1980);
        x->power_limit_w = gd_val(700);
        x->power_limit_default_w = gd_val(700);
        x->mem_total_mib = gd_val(81559);
    }
    gd_series_init(&f->series, gpus);
    for (size_t i = 0; i < samples; i++) {
        long k = gd_series_push(&f->series, (double)i);
        for (size_t g = 0; g < gpus; g++) {
            gd_value *row = gd_series_slot(&f->series, (size_t)k, g);
            row[GD_M_TEMP_C] = gd_val(65);
            row[GD_M_MEM_TEMP_C] = gd_val(60);
            row[GD_M_SM_CLOCK_MHZ] = gd_val(1980);
            row[GD_M_UTIL_GPU_PCT] = gd_val(98);
            row[GD_M_POWER_W] = gd_val(550);
            row[GD_M_EVENT_REASONS] = gd_val(0);
            row[GD_M_MEM_USED_MIB] = gd_val(60000);
        }
    }
}

void fx_set(gd_facts *f, size_t g, gd_metric m, size_t from, size_t to, double v)
{
    for (size_t i = from; i < to && i < f->series.n; i++)
        gd_series_slot(&f->series, i, g)[m] = gd_val(v);
}

void fx_unset(gd_facts *f, size_t g, gd_metric m, gd_status st)
{
    for (size_t i = 0; i < f->series.n; i++)
        gd_series_slot(&f->series, i, g)[m] = gd_missing(st);
}

void fx_run(const gd_facts *f, const char *id, gd_findings *out)
{
    memset(out, 0, sizeof *out);
    const gd_check *c = gd_check_find(id);
    if (!c)
        fail_msg("no check %s", id);
    gd_check_run(c, f, out);
}

size_t fx_count(const gd_findings *fs, const char *id, int gpu)
{
    size_t n = 0;
    for (size_t i = 0; i < fs->n; i++)
        n += strcmp(fs->v[i].id, id) == 0 && (gpu == -2 || fs->v[i].gpu == gpu);
    return n;
}

size_t fx_run_count(const gd_facts *f, const char *id)
{
    gd_findings fs;
    fx_run(f, id, &fs);
    size_t n = fx_count(&fs, id, -2);
    gd_findings_free(&fs);
    return n;
}
