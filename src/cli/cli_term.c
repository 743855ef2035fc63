/* SPDX-License-Identifier: Apache-2.0 */
/* The terminal stdout writes to: its width and whether it takes colour. Its
 * own file: help texts (cli_help.c) and reports (cli_util.c) both ask. */
#include "cli.h"
#include "core/numparse.h"

#include <stdbool.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

gd_text_style gd_cli_text_style(void)
{
    /* The terminal's width; COLUMNS (as ls and man read it) before it; 80 for
     * a file or a pipe. */
    gd_text_style st = {.color = false, .width = 80};
    bool tty = isatty(STDOUT_FILENO);
    const char *no_color = getenv("NO_COLOR");
    st.color = tty && !(no_color && *no_color);
    struct winsize ws;
    unsigned long cols;
    const char *columns = getenv("COLUMNS");
    if (columns && gd_parse_uint(columns, 1000, &cols) == 0 && cols >= 40)
        st.width = (int)cols;
    else if (tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
        st.width = ws.ws_col;
    return st;
}
