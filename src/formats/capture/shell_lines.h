/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a terminal paste carries besides the tool's output: the shell prompt
 * and command line that ran it ("root@node1:~# dmesg -T | grep NVRM",
 * "$ sudo lspci -vvv"), sudo's password prompt. Every capture reader reads
 * the file after these lines are blanked (import.c), so none of them has
 * to know what a prompt looks like, and the report says how many went.
 */
#ifndef GD_FORMATS_CAPTURE_SHELL_LINES_H
#define GD_FORMATS_CAPTURE_SHELL_LINES_H

#include <stdbool.h>
#include <stddef.h>

/* Whether one line (no newline needed) is a prompt, a command line or
 * sudo's password prompt, never a line of any tool's output. */
bool gd_shell_line(const char *line, size_t len);

/* The same, with what the line ran: 0 not a shell line; 1 one that runs
 * nothing (sudo's password prompt, ^C); 2 a prompt or a command line, its
 * command into out ("lsmod | grep nvidia_peermem" of "[root@gpu3 ~]# lsmod
 * | grep nvidia_peermem"; "" for a prompt alone). A paste is cut into its
 * commands' outputs at the lines that give 2. */
int gd_shell_command(const char *line, size_t len, char *out, size_t outlen);

/* What blanking took out of a file. */
typedef struct gd_shell_skip {
    size_t count; /* lines blanked */
    long first_line; /* the first one's number (1-based), 0 when none */
    char first[72]; /* its text, cut */
} gd_shell_skip;

/* Overwrites every shell line of text with blanks (line numbers stay) and
 * says what went into *out. */
void gd_shell_lines_blank(char *text, size_t len, gd_shell_skip *out);

#endif
