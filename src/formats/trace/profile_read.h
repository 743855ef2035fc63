/* SPDX-License-Identifier: Apache-2.0 */
/* `run --profile`: reading what the job's start-up hook left in its folder. */
#ifndef GD_PROFILE_READ_H
#define GD_PROFILE_READ_H

#include "analysis/profile.h"

#include <stddef.h>

/*
 * Reads the hook's status files (hook-PID.status) of p->dir into p->procs, and
 * each trace they name, analyzed as `trace` analyzes it (HTA's defaults; the
 * rank from the process's RANK), into p->ranks (by rank); then
 * gd_profile_explain. A status file or trace that cannot be read is named in
 * p->unread and left out. Returns 0, or -1 when out of memory or the folder
 * cannot be listed (message in err).
 */
int gd_profile_read(gd_profile *p, char *err, size_t errlen);

/* Parses one status file's text into q (pure). Returns 0, -1 when it is not
 * the hook's JSON. */
int gd_profile_parse_status(const char *text, size_t len, gd_profile_proc *q);

#endif
