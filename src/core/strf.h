/* SPDX-License-Identifier: Apache-2.0 */
/* snprintf that may truncate (paths, messages): the compiler's truncation
 * warning is for fixed formats, and a cut path only fails to open. */
#ifndef GD_STRF_H
#define GD_STRF_H

#include <stddef.h>

void gd_strf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
