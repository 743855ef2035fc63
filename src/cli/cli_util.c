/* Shared pieces of the command line. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

int gd_cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gpudoctor: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return GD_EXIT_ERROR;
}

gd_text_style gd_cli_text_style(void)
{
    gd_text_style st = {.color = false, .width = 100};
    bool tty = isatty(STDOUT_FILENO);
    const char *no_color = getenv("NO_COLOR");
    st.color = tty && !(no_color && *no_color);
    struct winsize ws;
    if (tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
        st.width = ws.ws_col > 120 ? 120 : ws.ws_col;
    return st;
}

int gd_cli_number(const char *s, double lo, double hi, double *out)
{
    if (!s || !*s)
        return -1;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}
