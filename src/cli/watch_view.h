/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The live view of `gpudoctor watch` on a terminal (ncurses): a session
 * sink. One row per GPU (temperatures, SM clock against its maximum, power
 * against its limit, utilisation, memory, PCIe link and throughput, the
 * active clock-event reasons, a history of the chosen metric on one scale
 * for every GPU up to its limit), the processes on the GPUs (the selected
 * GPU's alone, with its details), and the findings that hold over the last
 * minute, wrapped to the width. Keys: q quits, p pauses, h/l or the arrows
 * choose the plotted metric, Up/Down or a digit select a GPU, Esc all, ?
 * shows help on a cleared screen. A resize redraws; a narrow terminal drops
 * columns (the history last but one, down to 80 columns), never wraps a row.
 */
#ifndef GD_CLI_WATCH_VIEW_H
#define GD_CLI_WATCH_VIEW_H

#include "gpudoctor/session.h"

#include <signal.h>
#include <stdbool.h>

typedef struct gd_watch_view gd_watch_view;

/* wall_wait_s: how long the view waits for keys after each sample (the
 * sample's interval in wall seconds; 0 under the fast simulated clock). q
 * sets *stop. NULL when the terminal cannot be set up. */
gd_watch_view *gd_watch_view_open(volatile sig_atomic_t *stop, double wall_wait_s, bool color);
gd_sink gd_watch_view_sink(gd_watch_view *v);
/* Restores the terminal and frees v (may be NULL). */
void gd_watch_view_close(gd_watch_view *v);

#endif
