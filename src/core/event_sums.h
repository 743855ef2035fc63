/* SPDX-License-Identifier: Apache-2.0 */
/* The events' sums (event_sums.c), as gd_event_add keeps them. */
#ifndef GD_CORE_EVENT_SUMS_H
#define GD_CORE_EVENT_SUMS_H

#include "gpudoctor/model.h"

/* Adds e, the seq-th event of the session, to its key's sum. 0, or -1 (no
 * memory, or GD_EVENT_SUMS_MAX keys: counted in ev->sums_dropped). */
int gd_event_sum_add(gd_events *ev, const gd_event *e, size_t seq);

#endif
