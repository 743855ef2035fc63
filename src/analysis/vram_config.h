/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reads a Hugging Face style config.json into the planner's model.
 * Only the shape is taken (hidden_size, num_hidden_layers, ...); anything
 * else in the file is ignored. No I/O beyond reading the one file.
 */
#ifndef GD_VRAM_CONFIG_H
#define GD_VRAM_CONFIG_H

#include "vram_plan.h"

#include <stddef.h>

/* A config.json is a few KiB; anything past this is not one. */
#define GD_VRAM_CONFIG_MAX_BYTES (1024 * 1024)

/*
 * Parses len bytes of JSON into m, setting the fields the file names
 * (params stays as it was). Returns 0, or -1 with a message in err that
 * names the key at fault.
 */
int gd_vram_config_parse(const char *buf, size_t len, gd_vram_model *m, char *err, size_t errlen);

/* Reads path (at most GD_VRAM_CONFIG_MAX_BYTES) and parses it; 0 or -1 with a message. */
int gd_vram_config_load(const char *path, gd_vram_model *m, char *err, size_t errlen);

#endif
