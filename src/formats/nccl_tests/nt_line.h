/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One line of nccl-tests output as the launcher left it, made plain: the
 * prefixes mpirun ("[1,0]<stdout>:", "[0]", a --timestamp-output date),
 * srun ("0: ") and a Markdown quote ("> ") add taken off, and mpirun's
 * "[0]" tags inside a line (two ranks' output interleaved) removed.
 */
#ifndef GD_FORMATS_NCCL_TESTS_NT_LINE_H
#define GD_FORMATS_NCCL_TESTS_NT_LINE_H

#include "gpudoctor/nccl_tests.h"

#include <stdbool.h>
#include <stddef.h>

/* Writes the plain line into out (at most olen, trimmed) and names the
 * launcher whose prefix it carried ("mpirun", "srun", "" none). */
void gd_nt_plain(const char *line, size_t len, char *out, size_t olen, const char **launcher);

/* Whether a plain line is nccl-tests' own: its run header, its column
 * header, or a table row. */
bool gd_nt_is_header(const char *plain);
bool gd_nt_is_columns(const char *plain);
/* A table row into r (r may be NULL); false when the line is none. */
bool gd_nt_parse_row(const char *plain, gd_nt_row *r);

#endif
