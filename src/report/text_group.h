/* SPDX-License-Identifier: Apache-2.0 */
/* One cause, one block: findings of the same id, severity and fix on
 * several GPUs are shown once in the text report, with a per-GPU table.
 * (JSON keeps one finding per GPU, for scripts and exporters.) */
#ifndef GD_TEXT_GROUP_H
#define GD_TEXT_GROUP_H

#include "gpudoctor/report.h"

#include <stdbool.h>

/* The findings that share finding i's cause and are not yet `used`: fills
 * members (room for fs->n) with i first; returns how many (1: alone). */
size_t gd_text_group_of(const gd_findings *fs, size_t i, const bool *used, size_t *members);

/* Prints the block of a group of n > 1 findings. */
void gd_text_group_print(FILE *out, const gd_text_style *st, const gd_findings *fs, const size_t *members, size_t n,
                         bool series);

#endif
