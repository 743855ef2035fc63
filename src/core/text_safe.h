/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Text that reaches a terminal. Strings from the driver, /proc, scenarios
 * and captures (GPU and process names, driver versions, hostnames, paths)
 * are anyone's: a process name holding "\033]0;...\007\033[2J" would
 * retitle and clear the terminal of whoever runs `gpudoctor info`. Every
 * text renderer prints such strings through these.
 */
#ifndef GD_TEXT_SAFE_H
#define GD_TEXT_SAFE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Copies s into out (len > 0 bytes, always NUL-terminated), each byte that
 * could steer a terminal replaced by '?': C0 controls (newline and tab
 * included: a string is one line), DEL, C1 controls (U+0080-U+009F) and
 * bytes that are not valid UTF-8 (a lone 0x9b is CSI to an 8-bit terminal).
 * Valid printable UTF-8 is kept; a character that does not fit whole is
 * left out. Returns out.
 */
char *gd_text_safe(const char *s, char *out, size_t len);

/* Writes the n bytes at s to f as gd_text_safe would copy them. */
void gd_write_safe(FILE *f, const char *s, size_t n);

#endif
