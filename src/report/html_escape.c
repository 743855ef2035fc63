/* SPDX-License-Identifier: Apache-2.0 */
/* Outside text into HTML: entities for markup, '?' for controls. */
#include "html_escape.h"

#include "core/text_safe.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void escaped(FILE *out, const char *s)
{
    for (const char *p = s; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*p, out);
        }
    }
}

void gd_html_text_n(FILE *out, const char *s, size_t n)
{
    if (!s)
        return;
    /* The copy ends the string at n; gd_text_safe never lengthens it, so a
     * second buffer of the same size holds its output. */
    char stack[2][512];
    bool heap = n >= sizeof stack[0];
    char *copy = heap ? malloc(n + 1) : stack[0];
    char *safe = heap ? malloc(n + 1) : stack[1];
    if (copy && safe) {
        memcpy(copy, s, n);
        copy[n] = 0;
        gd_text_safe(copy, safe, n + 1);
        escaped(out, safe);
    }
    if (heap) {
        free(copy);
        free(safe);
    }
}

void gd_html_text(FILE *out, const char *s)
{
    if (s)
        gd_html_text_n(out, s, strlen(s));
}
