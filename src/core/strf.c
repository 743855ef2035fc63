/* SPDX-License-Identifier: Apache-2.0 */
/* snprintf without the truncation warning, for text that may be cut. */
#include "strf.h"

#include <stdarg.h>
#include <stdio.h>

void gd_strf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}
