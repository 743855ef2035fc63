/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Collection in one call: a whole session (include/gpudoctor/session.h)
 * from open to close, for the commands that only need the facts.
 */
#ifndef GD_COLLECT_H
#define GD_COLLECT_H

#include "gpudoctor/model.h"
#include "gpudoctor/session.h"

typedef gd_session_opts gd_collect_opts;

/*
 * Fills f. Returns 0 when the machine could be examined (f->driver_loaded
 * false when no driver: that is a finding, not an error); -1 with a message
 * when it could not be checked at all (bad scenario, simulator missing, no
 * memory): exit code 3.
 */
int gd_collect(const gd_collect_opts *o, gd_facts *f, char *err, size_t errlen);

#endif
