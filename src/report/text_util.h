/* Small text helpers for the human renderers. */
#ifndef GD_TEXT_UTIL_H
#define GD_TEXT_UTIL_H

#include "report.h"

#define GD_ANSI_RED "\033[1;31m"
#define GD_ANSI_YELLOW "\033[1;33m"
#define GD_ANSI_GREEN "\033[1;32m"
#define GD_ANSI_CYAN "\033[36m"
#define GD_ANSI_BOLD "\033[1m"
#define GD_ANSI_DIM "\033[2m"
#define GD_ANSI_RESET "\033[0m"

/* Colour code, or "" when colour is off. */
const char *gd_c(const gd_text_style *st, const char *code);

/*
 * s made safe for a terminal (core/text_safe.h: control characters become
 * '?'), for the "%s" of every string that did not come from gpudoctor
 * itself: names, versions, paths, messages that quote them. The result
 * lives in one of 8 rotating buffers of 4 KiB: enough for the strings of one
 * fprintf, not to keep.
 */
const char *gd_safe(const char *s);

/* Prints `text` word-wrapped to st->width, every line starting with `indent`
 * spaces except the first (which continues after `first_col` columns),
 * made safe for a terminal as gd_safe does. */
void gd_wrap(FILE *out, const gd_text_style *st, int indent, int first_col, const char *text);

/* Formats a JSON scalar for humans ("86", "1.5", "text", "n/a"). */
void gd_json_scalar_text(const json_t *v, char *buf, size_t len);

#endif
