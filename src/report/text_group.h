/* SPDX-License-Identifier: Apache-2.0 */
/* One cause, one block: findings of the same id, severity and fix on
 * several GPUs are shown once in the text report, with a per-GPU table
 * (checks/causes.h decides which are one cause; JSON keeps one finding per
 * GPU, for scripts and exporters). */
#ifndef GD_TEXT_GROUP_H
#define GD_TEXT_GROUP_H

#include "gpudoctor/report.h"

#include <stdbool.h>

/* Of the findings set[0..nset) (indexes into fs), those that are one block
 * with set[start] (one id and severity, the same fix but for each GPU's
 * number) and not yet used: marks them used and fills members (room for
 * nset) with set[start] first; returns how many (1: alone). */
size_t gd_text_group_within(const gd_findings *fs, const size_t *set, size_t nset, size_t start, bool *used,
                            size_t *members);

/* Calls fn once per block of set[0..nset) (gd_text_group_within), with
 * its members m[0..n) and the place of its first in set. */
void gd_text_group_each(const gd_findings *fs, const size_t *set, size_t nset,
                        void (*fn)(const size_t *m, size_t n, size_t first, void *ud), void *ud);

/* How a block is printed: its timeline (a window of samples has one),
 * its fix (a report that said it with the cause leaves it out), and a
 * mark after its id (" symptom of 1"). */
typedef struct gd_text_group_opts {
    bool series, fix;
    const char *mark;
} gd_text_group_opts;

/* Prints the block of findings members[0..n): one finding, or one cause on
 * several GPUs with a per-GPU table of what differs. */
void gd_text_group_print(FILE *out, const gd_text_style *st, const gd_findings *fs, const size_t *members, size_t n,
                         const gd_text_group_opts *o);

/* "host", "GPU 2", "GPUs 0-3,6": where findings m[0..n) are. */
void gd_text_group_where(const gd_findings *fs, const size_t *m, size_t n, char *buf, size_t len);

/* The headline of findings m[0..n): the title alone, or "8 GPUs (0-7): ..."
 * when the titles agree once each GPU's number is taken out. */
void gd_text_group_headline(const gd_findings *fs, const size_t *m, size_t n, char *buf, size_t len);

/* Their fix, made to name all their GPUs ("nvidia-smi -i 2,3", "each GPU"). */
void gd_text_group_fix(const gd_findings *fs, const size_t *m, size_t n, char *buf, size_t len);

#endif
