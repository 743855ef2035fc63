/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The model the planner plans for, from what the user gave: a config.json,
 * shape options on top of it, --params, and --shape-from llama. The
 * command line only parses the options; this turns them into the model.
 */
#ifndef GD_VRAM_MODEL_H
#define GD_VRAM_MODEL_H

#include "vram_plan.h"

#include <stdbool.h>
#include <stddef.h>

/* What the options say of the model. */
typedef struct gd_vram_model_opts {
    const char *config; /* a Hugging Face config.json, or NULL */
    gd_vram_model shape; /* layers, hidden, heads, kv_heads, ffn, vocab given; 0 = not given */
    bool shape_from_llama; /* fill the shape not given from the Llama model nearest params */
    bool seq_given, attention_given; /* else the defaults, with a note */
} gd_vram_model_opts;

/*
 * Fills s->model (its params as the options gave them): the config first,
 * then every shape option on top of it, then the Llama shape when asked,
 * then gd_vram_fill_model; sets s->seq's default when --seq was not given.
 * What a reader must know goes to plan's notes. 0, or -1 with a message in
 * err (the config could not be read).
 */
int gd_vram_model_build(const gd_vram_model_opts *o, gd_vram_setup *s, gd_vram_plan *plan, char *err, size_t errlen);

#endif
