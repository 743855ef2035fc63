/* SPDX-License-Identifier: Apache-2.0 */
/* Small text helpers for the human renderers. */
#ifndef GD_TEXT_UTIL_H
#define GD_TEXT_UTIL_H

#include "gpudoctor/report.h"

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

/*
 * Prints text (already made safe; ANSI colour codes count as no width) with
 * every line longer than st->width wrapped at spaces, the continuation lines
 * indented to where the line's value starts: after a label and two or more
 * spaces ("  Power       520 W ..."), else 4 columns past the line's own
 * indent. A word longer than the width stays whole.
 */
void gd_wrap_block(FILE *out, const gd_text_style *st, const char *text);

/* A report rendered into memory, then written through gd_wrap_block. */
typedef struct gd_wrapped {
    FILE *mem, *out;
    char *buf;
    size_t len;
} gd_wrapped;
FILE *gd_wrapped_open(gd_wrapped *w, FILE *out); /* the stream to write to (out itself on failure) */
void gd_wrapped_close(gd_wrapped *w, const gd_text_style *st);

/* The first line of a report of a machine: "gpudoctor VERSION", what
 * (" trace: ...", or ""), and where the facts come from when not this
 * machine: "SIMULATION of FILE: no real GPU was read" or "CAPTURE FILE
 * (formats): read from files, not this machine". Not wrapped: the caller
 * writes it through gd_wrapped or gd_wrap_block. */
void gd_text_banner(FILE *out, const gd_facts *f, const char *what, const gd_text_style *st);

/* The "    source   a, b, c" line of a finding (evidence.source, listed
 * with ", " so that it wraps between items); nothing when src is no string. */
void gd_print_source(FILE *out, const gd_text_style *st, const json_t *src);

/* GPU indexes g[0..n) in the order given, joined by ",": with `ranges`,
 * runs of consecutive indexes become "0-3" ("0-3,6"), else "0,1,2,3,6". */
void gd_gpu_ranges(const int *g, size_t n, bool ranges, char *buf, size_t len);

/* Formats a JSON value for humans ("86", "1.5", "text", "n/a"); an object
 * or array in words ("xid 79, count 2; xid 13, count 1"), never JSON, cut
 * at a word with " ..." when it does not fit. */
void gd_json_scalar_text(const json_t *v, char *buf, size_t len);

#endif
