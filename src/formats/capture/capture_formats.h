/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The capture formats `--from` reads, one row each: how the bytes are
 * recognised, what they are called, when they are read and by what. A new
 * format is a detector, a reader and one row of gd_capture_formats[]
 * (capture_formats.c); tests/unit/test_architecture_tables.c fails on a reader
 * outside the table.
 */
#ifndef GD_CAPTURE_FORMATS_H
#define GD_CAPTURE_FORMATS_H

#include "import.h"

#include <stdbool.h>
#include <stddef.h>

#define SCAN_LINES 64 /* detection reads at most this many lines of a file */

/* What detection reads of a file, worked out once for every detector. */
typedef struct gd_capture_view {
    const char *text; /* the first bytes, without a UTF-8 byte order mark */
    size_t len;
    size_t lead; /* blanks before the first byte */
    enum { GD_VIEW_LINES, GD_VIEW_JSON, GD_VIEW_XML } shape; /* by the first byte */
    struct {
        char text[512]; /* trimmed, tabs as blanks, ANSI escapes removed */
        bool col0; /* the line began at its first column */
        long number; /* its line number in the file (1-based) */
    } lines[SCAN_LINES]; /* the first non-empty lines */
    size_t nlines;
    size_t first; /* the first line of evidence: after journalctl's banner (nlines: none) */
    bool journal_banner;
} gd_capture_view;

/* Fills v; false for binary data (no format). */
bool gd_capture_view_init(gd_capture_view *v, const char *text, size_t len);

/* A format's detector: the index of the line that shows the format (0 for a
 * whole document), or -1. The earliest line wins; on one line, the earlier
 * row of the table. */
typedef long (*gd_capture_detect_fn)(const gd_capture_view *v);

/* A reader: parses one file's bytes into f. 0, or -1 with a message naming `name`. */
typedef int (*gd_capture_read_fn)(const char *name, const char *text, size_t len, gd_facts *f, char *err,
                                  size_t errlen);

/* How a format's facts join the others'. */
typedef enum gd_capture_role {
    GD_CAPTURE_ALONE, /* the whole run (a recording): read alone, into a zeroed f */
    GD_CAPTURE_GPUS, /* brings GPUs: read into a part of its own, merged by bus id, UUID or index */
    GD_CAPTURE_ONTO_GPUS, /* maps onto the GPUs already read (PCIe links, the matrix, kernel logs) */
} gd_capture_role;

typedef struct gd_capture_format {
    gd_import_kind kind;
    const char *name; /* for reports and messages: "nvidia-smi -q -x" */
    gd_capture_detect_fn detect;
    gd_capture_read_fn read;
    gd_capture_role role;
    int pass; /* reading order: GPUs first (0), then what maps onto them (1), nvidia-smi's matrix last (2) */
} gd_capture_format;

/* The reading passes: every row's pass is below it. */
#define GD_CAPTURE_PASSES 3

extern const gd_capture_format gd_capture_formats[];
extern const size_t gd_capture_format_count;

/* The row of a kind, or NULL (GD_IMPORT_UNKNOWN). */
const gd_capture_format *gd_capture_format_of(gd_import_kind k);

/* The detectors (detect.c). */
long gd_detect_recording(const gd_capture_view *v);
long gd_detect_smi_xml(const gd_capture_view *v);
long gd_detect_smi_text(const gd_capture_view *v);
long gd_detect_topo(const gd_capture_view *v);
long gd_detect_kernel_log(const gd_capture_view *v);
long gd_detect_dmon(const gd_capture_view *v);
long gd_detect_smi_csv(const gd_capture_view *v);
long gd_detect_lspci(const gd_capture_view *v);
/* nccl_log.c */
long gd_detect_nccl_log(const gd_capture_view *v);
long gd_detect_nccl_tests(const gd_capture_view *v); /* formats/nccl_tests/ */

#endif
