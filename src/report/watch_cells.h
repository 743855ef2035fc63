/* SPDX-License-Identifier: Apache-2.0 */
/* Cells of watch's full-screen view in the words and units of every other
 * output (docs/interface.md, "One vocabulary"): memory in MiB, clock event
 * reasons by NVML's names. Pure: unit-tested. */
#ifndef GD_WATCH_CELLS_H
#define GD_WATCH_CELLS_H

#include "gpudoctor/model.h"

#include <stdbool.h>
#include <stddef.h>

extern const char gd_watch_mem_head[]; /* "MEM MiB" */

/* "61000/81559": used and total MiB, "-" for a value not read. */
void gd_watch_mem_cell(gd_value used, gd_value total, char *buf, size_t len);

/* The reasons of mask by NVML's names, comma-joined, within width columns:
 * those that fit, then " +N" for the rest; one name longer than the width
 * cut with '~'. Returns whether a reason that slows the GPU is among them
 * (a power cap, a thermal or hardware slowdown, a power brake). */
bool gd_watch_reasons_cell(unsigned long long mask, int width, char *buf, size_t len);

#endif
