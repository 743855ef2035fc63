/* SPDX-License-Identifier: Apache-2.0 */
/* Command line: one function per subcommand; the only code that exits. */
#ifndef GD_CLI_H
#define GD_CLI_H

#include "gpudoctor/context.h"
#include "gpudoctor/model.h"
#include "gpudoctor/report.h"

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>

/* Exit codes (docs/interface.md section 3). */
enum { GD_EXIT_OK = 0, GD_EXIT_WARNING = 1, GD_EXIT_CRITICAL = 2, GD_EXIT_ERROR = 3 };

int gd_cmd_check(int argc, char **argv);
int gd_cmd_info(int argc, char **argv);
int gd_cmd_vram(int argc, char **argv);
int gd_cmd_topo(int argc, char **argv);
int gd_cmd_bench(int argc, char **argv);
int gd_cmd_run(int argc, char **argv);

/* The report of a window on stdout: JSON or text. The findings' exit code,
 * or GD_EXIT_ERROR after a message when the JSON cannot be written. */
int gd_cli_print_report(const gd_facts *f, const gd_findings *fs, int json);

/* j (may be NULL: out of memory) as JSON on stdout, flushed: 0, or
 * GD_EXIT_ERROR after a message saying why it could not be written. */
int gd_cli_print_json(json_t *j);
/* What a command adds to that report (run): members of the JSON object, a
 * section of the text right under the verdict in place of the findings'
 * causes (top) and one after the job (text), each may be NULL; and whether
 * the text lists every check (--details). */
typedef struct gd_cli_report_more {
    void (*json)(json_t *report, const void *ud);
    void (*text)(FILE *out, const gd_text_style *st, const void *ud);
    const void *ud;
    void (*top)(FILE *out, const gd_text_style *st, const void *ud);
    bool details;
    bool (*said)(const gd_finding *x, const void *ud); /* top said x's fix (gd_text_extra) */
} gd_cli_report_more;
int gd_cli_print_report_more(const gd_facts *f, const gd_findings *fs, int json, const gd_cli_report_more *more);
int gd_cmd_trace(int argc, char **argv);
int gd_cmd_fleet(int argc, char **argv);

/* Each command's help text and its parser's option table: `help`, the
 * completions and the tests read the same tables the parsers use. */
extern const char gd_check_help[], gd_info_help[], gd_vram_help[], gd_topo_help[], gd_bench_help[], gd_trace_help[],
    gd_run_help[], gd_watch_help[], gd_export_help[], gd_fleet_help[];
extern const struct option gd_check_options[], gd_snapshot_options[], gd_info_options[], gd_vram_options[],
    gd_bench_options[], gd_trace_options[], gd_run_options[], gd_watch_options[], gd_export_options[],
    gd_fleet_options[];

/* The subcommands (main.c): one row each, one file each (cmd_NAME.c). */
typedef struct gd_cli_command {
    const char *name;
    const char *summary; /* the top-level --help's line(s) */
    const char *help;
    const struct option *options;
    int (*run)(int argc, char **argv);
    bool catches_stops; /* gd_cli_catch_stops() before run */
} gd_cli_command;
int gd_cmd_watch(int argc, char **argv);
int gd_cmd_export(int argc, char **argv);

/* Prints "gpudoctor: <message>" on stderr; returns GD_EXIT_ERROR. The
 * first message is kept for the JSON error object. */
int gd_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The JSON error object (docs/interface.md): main notes whether command's
 * arguments (argv[0] the command) ask for JSON (--json, --format jsonl);
 * a command notes each JSON report it wrote whole (gd_cli_print_json does);
 * at the end, a command that asked for JSON, wrote none and exits non-zero
 * after a gd_cli_error prints {"error", "exit_code", "command", ...} on
 * stdout. Returns the exit code (GD_EXIT_ERROR when that cannot be written).
 */
void gd_cli_json_errors(const char *command, int argc, char **argv);
void gd_cli_json_printed(void);
int gd_cli_json_error_exit(int code);
/* A report that is printed although the command exits non-zero (info and
 * topo without a driver) carries the same "error" and "exit_code". */
void gd_cli_json_error_members(json_t *report, const char *error, int code);

/*
 * Flushes and closes stdout. Returns code, or GD_EXIT_ERROR after a message
 * when something written could not be (a full disk, /dev/full, a closed
 * stdout): a report that did not reach its reader is no report.
 */
int gd_cli_close_stdout(int code);

/* Text style for stdout: colour on a terminal unless NO_COLOR is set (cli_term.c). */
gd_text_style gd_cli_text_style(void);

/* A help text, each line wider than the terminal (80 for a file or a pipe)
 * wrapped at a word and hanging under what it continues (cli_help.c). */
void gd_cli_help_print(FILE *out, const char *text);

/* The options of a command that reads the machine once (info, topo). */
typedef struct gd_snapshot_opts {
    int json;
    int details; /* info --details (-q) */
    const char *sim;
    const char *from[32];
    size_t from_count;
} gd_snapshot_opts;

/*
 * Parses --json, --details, --sim SCENARIO, --from FILE (repeatable) and --help for
 * command `cmd`. Returns -1 to go on; otherwise the exit code to return
 * (0 after printing `help`, 3 after an error message).
 */
int gd_cli_parse_snapshot(int argc, char **argv, const char *cmd, const char *help, gd_snapshot_opts *o);

/* Takes one snapshot as o describes. Returns 0, or 3 after printing why not
 * (f is then freed). */
int gd_cli_snapshot(const gd_snapshot_opts *o, gd_facts *f);

/*
 * --sim SCENARIO as given when it is a path (it has a '/') or a file here;
 * otherwise an installed example by name: "demo" is the examples folder's
 * demo.json (PREFIX/share/gpudoctor/examples, found from the binary as its
 * libexec folder is; examples/ beside the binary in the build tree). arg
 * itself when no example has that name (opening it then says so).
 */
const char *gd_cli_scenario(const char *arg);

/* The run's context from the environment (GPUDOCTOR_ROOT, _NVML_LIBRARY,
 * _CUDA_LIBRARY, _SIM_DIR, _SIM_TIMESCALE). 0, or exit code 3 after a message. */
int gd_cli_context(gd_ctx *ctx);

/* GPUDOCTOR_SIM_TIMESCALE into *pace (0 when unset: the fast clock); a bad
 * value is a message and exit code 3 (returned), else 0. */
int gd_cli_sim_pace(double *pace);

/* --interval MS (a unit may follow) into *ms: 0, or exit code 3 after a message. */
int gd_cli_interval(const char *arg, double *ms);

/*
 * The commands that end a window on a stop signal (check, watch, run, bench)
 * catch SIGINT, SIGTERM and SIGHUP from main's first line to their exit: a
 * signal that comes before the window (or one held blocked by an inherited
 * mask) ends it at its first sample, and one that comes while the report is
 * being written is noted and the report written whole. gd_cli_stop is set
 * by any of them; gd_cli_stop_signal holds the first one's number. Those
 * ignored at start stay ignored.
 */
extern volatile sig_atomic_t gd_cli_stop, gd_cli_stop_signal;
void gd_cli_catch_stops(void);

/* SIGINT, SIGTERM and SIGHUP call handler (those ignored at start stay
 * ignored); the old actions go to old, for gd_cli_restore_signals. */
#define GD_CLI_STOP_SIGNALS 3
void gd_cli_stop_signals(void (*handler)(int), struct sigaction old[GD_CLI_STOP_SIGNALS]);
void gd_cli_restore_signals(const struct sigaction old[GD_CLI_STOP_SIGNALS]);

/* --record FILE: opens the recorder and adds it to s (it writes the header
 * at once); what ends it early is said on stderr. 0, or -1 with a message. */
struct gd_recorder;
struct gd_session;
int gd_cli_record(struct gd_session *s, const char *path, struct gd_recorder **out, char *err, size_t errlen);

/* Option values in plain decimal (core/numparse.h: no hex, no exponent).
 * A number in [lo, hi]; returns 0 or -1. */
int gd_cli_number(const char *s, double lo, double hi, double *out);

/* A whole number in [lo, hi] (lo >= 0); returns 0 or -1. */
int gd_cli_integer(const char *s, long lo, long hi, long *out);

/* A duration ("2", "2.5s", "500ms", "1m"; a bare number in unit_s seconds)
 * in [lo_s, hi_s] seconds; returns 0 or -1. */
int gd_cli_duration(const char *s, double unit_s, double lo_s, double hi_s, double *out_s);

/* getenv as the lookup the pure readers take (gd_launch_from_env). */
const char *gd_cli_env_lookup(const char *name, void *ud);

/* The settings among names that this environment sets, "NAME=value ..."
 * (values cut at 60 characters) into buf, "" when none; the first
 * `switches` names are on/off switches, left out at 0. */
void gd_cli_env_settings(const char *const *names, size_t n, size_t switches, char *buf, size_t len);

/* What the user accepts (cli_config.c, docs/interface.md "The config file"). */
typedef struct gd_cli_settings {
    gd_policy policy;
    gd_severity fail_on; /* the lowest severity that fails: warning (the default) or critical */
} gd_cli_settings;

/* --ignore ID[@GPU] added to p; 0 or exit code 3 after a message. */
int gd_cli_ignore_arg(const char *arg, gd_policy *p);

/* --fail-on warning|critical; 0 or -1. */
int gd_cli_fail_on(const char *arg, gd_severity *out);

/* The config file: `config` alone when given (it must exist), else
 * /etc/gpudoctor.conf, then $XDG_CONFIG_HOME/gpudoctor.conf (~/.config/
 * when unset), the later adding to the earlier. 0, or exit code 3 after a
 * message naming the file and line. */
int gd_cli_settings_load(const char *config, const char *xdg_config_home, const char *home, gd_cli_settings *s);

/*
 * --report FILE.html: render(out, ud) writes the page into a temporary file
 * beside FILE, renamed over FILE once it is whole (a reader never sees half
 * a page); where it went is said on stderr. Only a new name or a regular
 * file (also through a symbolic link, which stays) is replaced so: a FIFO or
 * a character device (/dev/null, /dev/stdout) is written in place (a FIFO's
 * reader waited for at most GD_INPUT_STREAM_IDLE_S), a directory, a block
 * device or a socket refused. 0, or GD_EXIT_ERROR after a message naming
 * the file and why (nothing is left behind).
 */
int gd_cli_write_report(const char *path, void (*render)(FILE *out, const void *ud), const void *ud);

/* The check report (gd_report_html) of f and fs written to path as above. */
int gd_cli_html_report(const char *path, const gd_facts *f, const gd_findings *fs);

/* Before a long watch: whether FILE can take the report as
 * gd_cli_write_report writes it. 0, or GD_EXIT_ERROR after a message. */
int gd_cli_report_writable(const char *path);

/* check's exit code: the findings' (ignored ones left out), with warnings
 * passing under fail_on critical. */
int gd_cli_exit_code(const gd_findings *fs, gd_severity fail_on);

/* Names on stderr each --from file that was not read (f->capture_refused):
 * GD_EXIT_ERROR when there was one, else GD_EXIT_OK (nothing said). */
int gd_cli_refused(const gd_facts *f);

/* `check`'s code once the findings gave `code`: a --from file not read
 * makes it 3 unless a critical finding stands (2); then a report with no warning
 * or critical finding that judged nothing of the GPUs' own state (an lspci
 * capture with links is some, a kernel log with a line too; a topo matrix
 * alone, none) is not
 * "healthy": 3 (could not check), with a message on stderr. So is a machine
 * without an NVIDIA GPU, whatever was found (gd_cli_no_nvidia_gpu). */
int gd_cli_judged_exit(const gd_facts *f, const gd_findings *fs, int code);

/* On a machine without an NVIDIA GPU (gd_facts_no_nvidia_gpu): says "no
 * NVIDIA GPU on this machine" on stderr and returns 3; else returns code. */
int gd_cli_no_nvidia_gpu(const gd_facts *f, int code);

#endif
