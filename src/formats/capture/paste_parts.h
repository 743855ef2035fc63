/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A paste of several commands' outputs, each after its prompt line
 * ("$ ip -br -c a", "$ ibdev2netdev", "$ nvidia-smi topo -m"), cut into
 * its parts so each output reaches its own reader. A file is cut only
 * when its outputs are of different formats: one format's output in
 * pieces (dmesg | grep twice, lsmod | grep twice) stays one file, read as
 * before. Each part keeps the file's line numbers (the lines before it are
 * empty lines), so a message still says the line in the file.
 */
#ifndef GD_FORMATS_CAPTURE_PASTE_PARTS_H
#define GD_FORMATS_CAPTURE_PASTE_PARTS_H

#include "import.h"
#include "shell_lines.h"

#include <stddef.h>

#define GD_PASTE_MAX_PARTS 32 /* the text before the first prompt and 31 outputs; later prompts do not cut */

typedef struct gd_paste_part {
    char *text; /* NUL-terminated: shell lines blanked, save for lsmod's (its reader reads the prompts) */
    size_t len;
    gd_import_kind kind;
    long line; /* where its output starts in the file (1-based) */
    char command[96]; /* the command of its prompt line, "" none */
} gd_paste_part;

typedef struct gd_paste {
    gd_paste_part part[GD_PASTE_MAX_PARTS];
    size_t count;
    gd_shell_skip shell; /* the shell lines of the whole file */
    size_t unread; /* outputs of a cut paste in no format gpudoctor reads (passed over) */
    long unread_line; /* the first one's line */
    char unread_command[96]; /* its command */
} gd_paste;

/* Cuts raw (len bytes, not changed) into p's parts, each recognised; 0,
 * or -1 when out of memory. A file not cut is one part, its kind what
 * gd_import_detect says of it (GD_IMPORT_UNKNOWN too). */
int gd_paste_cut(const char *raw, size_t len, gd_paste *p);

void gd_paste_free(gd_paste *p);

#endif
