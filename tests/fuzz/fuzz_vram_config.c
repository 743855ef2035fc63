/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the config.json reader of `gpudoctor vram`: any bytes
 * must give a model or a message, never a crash, a leak or undefined
 * behaviour. An accepted shape is also planned, so the formulas see the
 * extreme shapes the reader lets through (every product must stay finite).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/vram_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void plan(const gd_vram_model *m)
{
    gd_vram_setup s = {.model = *m,
                       .seq = m->max_positions > 0 ? m->max_positions : 2048,
                       .batch = 1,
                       .precision = GD_PREC_MIXED,
                       .optimizer = GD_OPT_ADAM,
                       .gpus = 8,
                       .tp = 1,
                       .accum_steps = 1,
                       .gpu_memory_bytes = 80.0 * 1073741824.0};
    gd_vram_fill_model(&s.model);
    char err[256];
    if (gd_vram_setup_validate(&s, err, sizeof err) != 0)
        return;
    gd_vram_plan *p = calloc(1, sizeof *p);
    if (!p)
        return;
    gd_vram_plan_make(&s, p);
    if (isnan(p->bytes.total))
        __builtin_trap(); /* the reader's limits keep the arithmetic finite */
    free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gd_vram_model m = {.params = -1};
    char err[512];
    err[0] = '\0';
    if (gd_vram_config_parse((const char *)data, size, &m, err, sizeof err) == 0)
        plan(&m);
    else if (err[0] == '\0' || strlen(err) >= sizeof err)
        __builtin_trap(); /* every failure must explain itself */
    return 0;
}
