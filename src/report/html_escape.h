/* SPDX-License-Identifier: Apache-2.0 */
/* Text from outside (GPU, process, file and kernel names, messages that
 * quote them) on its way into an HTML page: it stays text. */
#ifndef GD_HTML_ESCAPE_H
#define GD_HTML_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Writes s to out as HTML text, safe in element content and in a quoted
 * attribute value alike: & < > " ' become character references, and each
 * byte that is a control character or not valid UTF-8 becomes '?'
 * (core/text_safe.h's rule). NULL writes nothing.
 */
void gd_html_text(FILE *out, const char *s);

/* The same for the first n bytes of s. */
void gd_html_text_n(FILE *out, const char *s, size_t n);

#endif
