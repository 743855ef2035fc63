/* Command line: one function per subcommand; the only code that exits. */
#ifndef GD_CLI_H
#define GD_CLI_H

#include "report/report.h"

#include <stdbool.h>

/* Exit codes (docs/interface.md section 3). */
enum { GD_EXIT_OK = 0, GD_EXIT_WARNING = 1, GD_EXIT_CRITICAL = 2, GD_EXIT_ERROR = 3 };

int gd_cmd_check(int argc, char **argv);
int gd_cmd_info(int argc, char **argv);
int gd_cmd_vram(int argc, char **argv);
int gd_cmd_topo(int argc, char **argv);
int gd_cmd_bench(int argc, char **argv);

/* Prints "gpudoctor: <message>" on stderr; returns GD_EXIT_ERROR. */
int gd_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Text style for stdout: colour on a terminal unless NO_COLOR is set. */
gd_text_style gd_cli_text_style(void);

/* Parses a number in [lo, hi]; returns 0 or -1. */
int gd_cli_number(const char *s, double lo, double hi, double *out);

#endif
